public import SeedRuntime

extension StoreDiff {
    /// A row a release renamed (an update of its key columns, as `new-migration --rename` writes
    /// it): the key it had and the key it has, each part as its text.
    public struct Rename: Sendable, Hashable {
        /// The table whose row was renamed.
        public var table: String
        /// The key the row had, each part as its text.
        public var old: [String]
        /// The key the row has, each part as its text.
        public var new: [String]

        /// Describes the row of `table` whose key went from `old` to `new`.
        public init(table: String, old: [String], new: [String]) {
            self.table = table
            self.old = old
            self.new = new
        }
    }

    /// The renames `migrations` make: each update whose `to` sets a key column of its table
    /// (`keys`: each table's key columns, in the diff's order).
    ///
    /// A key part that is not a plain value (NULL, JSON) makes no rename.
    package static func renames(in migrations: [Migration], keys: [String: [String]]) -> [Rename] {
        var renames: [Rename] = []
        for migration in migrations {
            guard case .changes(let changes) = migration.body else { continue }
            for case .update(let table, let rows) in changes.operations {
                guard let key = keys.first(where: { $0.key.isSameName(as: table) }) else { continue }
                for row in rows {
                    let given: [(column: String, value: InputValue)] =
                        switch row.key {
                        case .single(let value): key.value.count == 1 ? [(key.value[0], value)] : []
                        case .columns(let values): values.values
                        }
                    let old = key.value.map { column in
                        given.first { $0.column.isSameName(as: column) }.flatMap { keyText($0.value) }
                    }
                    let new = key.value.indices.map { index in
                        row.to.values.first { $0.column.isSameName(as: key.value[index]) }.map { keyText($0.value) }
                            ?? old[index]
                    }
                    guard old.allSatisfy({ $0 != nil }), new.allSatisfy({ $0 != nil }), old != new else { continue }
                    renames.append(Rename(table: key.key, old: old.compactMap { $0 }, new: new.compactMap { $0 }))
                }
            }
        }
        return renames
    }

    /// A key part as text: how a migration's value and a store's value are matched.
    static func keyText(_ value: InputValue) -> String? {
        switch value {
        case .string(let text): text
        case .integer(let number): String(number)
        case .real(let number): SQLValue.format(number)
        case .bool(let flag): flag ? "1" : "0"
        case .null, .json: nil
        }
    }

    static func keyText(_ value: SQLValue) -> String? {
        switch value {
        case .text(let text): text
        case .integer(let number): String(number)
        case .real(let number): SQLValue.format(number)
        case .null, .blob: nil
        }
    }

    /// Shows each row a release renamed as one changed row instead of a removed and an added one:
    /// a removed row whose key, with `renames` applied to it and to the key parts that refer to
    /// a renamed row (`specs`' refs, compared by the parent's key), is the key of an added row is
    /// that row.
    ///
    /// The change lists the key columns that differ (old → new) and every other column that does;
    /// its key is the old one. Rows that refer to a renamed row without it being part of their key
    /// already show as changed (the ref, by the parent's key). Nothing else moves.
    public mutating func pairingRenames(_ renames: [Rename], specs: [TableSpec]) {
        guard !renames.isEmpty else { return }
        // Key parts compare by their bytes, as SQLite compares text (not by Swift's String ==,
        // which takes a composed and a decomposed é for one).
        func bytes(_ parts: [String]) -> [[UInt8]] { parts.map { Array($0.utf8) } }
        var byTable: [String: [[[UInt8]]: [[UInt8]]]] = [:]
        for rename in renames {
            byTable[rename.table.lowercasedName, default: [:]][bytes(rename.old)] = bytes(rename.new)
        }
        for index in tables.indices {
            var table = tables[index]
            guard !table.removed.isEmpty, !table.added.isEmpty else { continue }
            let own = byTable[table.table.lowercasedName] ?? [:]
            let spec = specs.first { $0.name.isSameName(as: table.table) }
            // For each key part, the renames of the table it refers to (by a one-column key).
            let parents: [[[UInt8]: [UInt8]]?] = table.key.map { column in
                guard let reference = spec?.refs.first(where: { $0.key.isSameName(as: column) })?.value,
                    let renamed = byTable[reference.table.lowercasedName]
                else { return nil }
                var single: [[UInt8]: [UInt8]] = [:]
                for (old, new) in renamed where old.count == 1 { single[old[0]] = new[0] }
                return single
            }
            guard !own.isEmpty || parents.contains(where: { $0?.isEmpty == false }) else { continue }
            // A key part that is no plain value (NULL, a blob) never matches a rename's text.
            func keyBytes(_ key: [SQLValue]) -> [[UInt8]] {
                key.map { Self.keyText($0).map { Array($0.utf8) } ?? [0xFF] + Array($0.description.utf8) }
            }
            var addedAt: [[[UInt8]]: Int] = [:]
            for (position, row) in table.added.enumerated() {
                addedAt[keyBytes(row.key)] = position
            }
            var pairedAdded = Set<Int>()
            var keptRemoved: [TableDiff.Row] = []
            for row in table.removed {
                let text = keyBytes(row.key)
                var mapped = own[text] ?? text
                for (part, renamed) in parents.enumerated() {
                    if let renamed, let new = renamed[mapped[part]] { mapped[part] = new }
                }
                guard mapped != text, let position = addedAt[mapped], !pairedAdded.contains(position) else {
                    keptRemoved.append(row)
                    continue
                }
                pairedAdded.insert(position)
                let added = table.added[position]
                var columns:
                    [(column: String, old: SQLValue, new: SQLValue, oldStored: SQLValue?, newStored: SQLValue?)] = []
                for (part, column) in table.key.enumerated() where row.key[part] != added.key[part] {
                    columns.append((column, row.key[part], added.key[part], nil, nil))
                }
                for (part, column) in table.columns.enumerated()
                where part < row.values.count && part < added.values.count && row.values[part] != added.values[part] {
                    columns.append((column, row.values[part], added.values[part], nil, nil))
                }
                table.changed.append((key: row.key, columns: columns))
            }
            table.removed = keptRemoved
            table.added = table.added.enumerated().filter { !pairedAdded.contains($0.offset) }.map(\.element)
            tables[index] = table
        }
    }
}
