import Foundation
import SeedRuntime

/// A deleted row and an inserted row of one table that are likely one row renamed, for the
/// author to decide (`new-migration` lists it with the `--rename` that says so).
struct LikelyRename {
    let table: SemanticRows
    let old: [SQLValue]
    let new: [SQLValue]
    /// What makes it likely: `every other column matches`, `2 rows of items that referred to 'red' refer to 'crimson' instead`.
    let how: String

    /// `countries 'Macedonia' → 'North Macedonia' (every other column matches): written as a
    /// delete and an insert; if it is one row renamed, run again with --rename '…'`.
    var line: String {
        func shown(_ key: [SQLValue]) -> String {
            key.count == 1 ? RowEvent.describe(key[0]) : "(" + key.map(RowEvent.describe).joined(separator: ", ") + ")"
        }
        func part(_ value: SQLValue) -> String {
            let text = RenameHint.text(value)
            return text.contains(where: { $0 == "," || $0 == "=" || $0 == "\"" })
                ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
        }
        let hint =
            "\(table.written.name):\(old.map(part).joined(separator: ","))=\(new.map(part).joined(separator: ","))"
        let quoted = "'" + hint.replacingOccurrences(of: "'", with: "'\\''") + "'"
        return
            "\(table.written.name) \(shown(old)) → \(shown(new)) (\(how)): written as a delete and an insert; if it is one row renamed, run again with --rename \(quoted)"
    }
}

extension MigrationGenerator {
    /// `likely` with the renames only the rows referring to a row can tell, and without those
    /// they explain.
    ///
    /// A row whose other columns say nothing (a key-only table: `tags(name)`) was never paired by
    /// its columns; a deleted one and an inserted one are likely one row renamed when rows of
    /// another table that referred to the first refer to the second in the new seed (a ref column
    /// changed from one to the other, or a row keyed by the ref deleted and the same key under the
    /// other inserted). Each deleted row is paired with the inserted one most such rows moved to,
    /// each inserted row once. A likely rename of a referring row that is only its ref following
    /// such a parent (`items ('red', 'a') → ('crimson', 'a')`) is left out: the parent's hint
    /// covers it.
    static func withParentRenames(
        _ likely: [LikelyRename], tables: [SemanticRows], changes: [String: StoreDiff.TableDiff]
    ) -> [LikelyRename] {
        var parents: [LikelyRename] = []
        for parent in tables where parent.keyColumns.count == 1 {
            guard let change = changes[parent.spec.name], !change.removed.isEmpty, !change.added.isEmpty else {
                continue
            }
            let hinted = Set(likely.filter { $0.table.spec.name == parent.spec.name }.flatMap { [$0.old, $0.new] })
            let removed = Set(change.removed.map(\.key).filter { !hinted.contains($0) }.map { $0[0] })
            let added = Set(change.added.map(\.key).filter { !hinted.contains($0) }.map { $0[0] })
            guard !removed.isEmpty, !added.isEmpty else { continue }
            // (old key, new key) → how many referring rows moved from one to the other, and from which tables.
            var moves: [SQLValue: [SQLValue: Int]] = [:]
            var movedFrom: [SQLValue: Set<String>] = [:]
            func vote(_ old: SQLValue, _ new: SQLValue, _ child: String) {
                guard removed.contains(old), added.contains(new) else { return }
                moves[old, default: [:]][new, default: 0] += 1
                movedFrom[old, default: []].insert(child)
            }
            for child in tables {
                guard let childChange = changes[child.spec.name] else { continue }
                let refs = child.spec.refs.filter { $0.value.table.isSameName(as: parent.spec.name) }.map(\.key)
                for column in refs {
                    for row in childChange.changed {
                        for moved in row.columns where moved.column.isSameName(as: column) {
                            vote(moved.old, moved.new, child.written.name)
                        }
                    }
                    guard let part = child.keyColumns.firstIndex(where: { $0.isSameName(as: column) }) else { continue }
                    // Keyed by the ref: the same key with the ref's part set aside, deleted and inserted.
                    var insertedUnder: [[SQLValue]: [SQLValue]] = [:]
                    for row in childChange.added {
                        var rest = row.key
                        rest.remove(at: part)
                        insertedUnder[rest, default: []].append(row.key[part])
                    }
                    for row in childChange.removed {
                        var rest = row.key
                        rest.remove(at: part)
                        for new in insertedUnder[rest] ?? [] { vote(row.key[part], new, child.written.name) }
                    }
                }
            }
            var used = Set<SQLValue>()
            // Spelled out, with its types: as one flatMap-map-sorted chain of closures this
            // statement took the type checker 13 s of a fresh build (docs/performance.md).
            typealias Move = (old: SQLValue, new: SQLValue, count: Int)
            var ranked: [Move] = []
            for (old, news) in moves {
                for (new, count) in news { ranked.append((old: old, new: new, count: count)) }
            }
            ranked.sort { (a: Move, b: Move) -> Bool in
                a.count != b.count ? a.count > b.count : a.old.description < b.old.description
            }
            var paired = Set<SQLValue>()
            for candidate in ranked where !paired.contains(candidate.old) && !used.contains(candidate.new) {
                paired.insert(candidate.old)
                used.insert(candidate.new)
                let children = (movedFrom[candidate.old] ?? []).sorted().joined(separator: ", ")
                let rows = candidate.count == 1 ? "1 row" : "\(candidate.count) rows"
                parents.append(
                    LikelyRename(
                        table: parent, old: [candidate.old], new: [candidate.new],
                        how:
                            "\(rows) of \(children) that referred to \(RowEvent.describe(candidate.old)) refer to \(RowEvent.describe(candidate.new)) instead"
                    ))
            }
        }
        guard !parents.isEmpty else { return likely }
        // A referring row's likely rename that is only its ref following a parent's.
        let explained = likely.filter { hint in
            hint.table.keyColumns.enumerated().contains { part, column in
                guard let reference = hint.table.reference(column), part < hint.old.count, part < hint.new.count
                else { return false }
                let follows = parents.contains {
                    $0.table.spec.name.isSameName(as: reference.table) && $0.old == [hint.old[part]]
                        && $0.new == [hint.new[part]]
                }
                guard follows else { return false }
                return hint.old.indices.allSatisfy { $0 == part || hint.old[$0] == hint.new[$0] }
            }
        }
        return parents
            + likely.filter { hint in
                !explained.contains {
                    $0.table.spec.name == hint.table.spec.name && $0.old == hint.old && $0.new == hint.new
                }
            }
    }
}
