import GRDB
import SeedRuntime

extension MigrationGenerator {
    /// The removed and added rows of `table` whose keys are one key under their columns' collations.
    ///
    /// `COLLATE NOCASE`: 'veg' and 'VEG'; `COLLATE RTRIM`: 'veg' and 'veg '. SQLite finds either
    /// row by either key, so it is the same row with its key's text changed, written as a rename
    /// (docs/releases.md, "Renames in a release"). A delete of the old key would find the new one's
    /// row and an insert of the new key the old one's: `migrate` would leave the old text.
    ///
    /// A key part that is a ref is compared as it reads (its parent's own rename moves it); a
    /// column of any other collation compares its bytes. Each key pairs at most one row a side.
    func collatedRenames(
        table: SemanticRows, change: StoreDiff.TableDiff, excluding pairs: [(old: [SQLValue], new: [SQLValue])]
    ) -> [(old: [SQLValue], new: [SQLValue])] {
        guard !change.removed.isEmpty, !change.added.isEmpty else { return [] }
        let collations: [String?] = table.keyColumns.map { column in
            guard table.reference(column) == nil, let info = table.table.column(column) else { return nil }
            return ["NOCASE", "RTRIM"].contains(info.collation) ? info.collation : nil
        }
        guard collations.contains(where: { $0 != nil }) else { return [] }
        /// The key as the collations see it (``SQLValue/folded(collation:)``).
        func folded(_ key: [SQLValue]) -> String {
            Follow.id(zip(key, collations).map { value, collation in collation.map(value.folded(collation:)) ?? value })
        }
        let excludedOld = Set(pairs.map { Follow.id($0.old) })
        let excludedNew = Set(pairs.map { Follow.id($0.new) })
        // Folded key → the one row of each side holding it (nil once two do: no pairing then).
        var removed: [String: [SQLValue]?] = [:]
        for row in change.removed where !excludedOld.contains(Follow.id(row.key)) {
            let id = folded(row.key)
            removed[id] = removed[id] == nil ? .some(row.key) : .some(nil)
        }
        var added: [String: [SQLValue]?] = [:]
        for row in change.added where !excludedNew.contains(Follow.id(row.key)) {
            let id = folded(row.key)
            added[id] = added[id] == nil ? .some(row.key) : .some(nil)
        }
        return change.added.compactMap { row in
            let id = folded(row.key)
            guard case .some(.some(let new)) = added[id], Follow.id(new) == Follow.id(row.key),
                case .some(.some(let oldKey)) = removed[id]
            else { return nil }
            return (oldKey, new)
        }
    }
}
