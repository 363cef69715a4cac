import Foundation
import GRDB
import SeedRuntime

// The simulated user's migration run of `check-upgrade` (docs/performance.md, "check-upgrade"):
// the release's changes of the rows the user touched, not all of them. The seed's own run
// applies and compares every row; the user's verdicts read only the rows it touched.
extension UpgradeChecker {
    /// The migrations with each pending declarative change cut to the rows the simulated user
    /// touched (`pass`) and the rows those changes name in turn (a ref's parent, a rename's new
    /// key), to a fixed point; nil when the cut could change a verdict and the user's copy must
    /// be migrated whole: a pending `.sql` migration (SQL may read any row), a trigger or a
    /// UNIQUE index other than a table's key (one row's change may reach another), a ref to a
    /// column other than its parent's one-column key, or a change whose key cannot be read.
    func userMigrations(_ pass: UserPass, tables: [SemanticRows], in db: Database) throws -> [Migration]? {
        let pendingIDs = Set(pass.pending.map(\.id))
        var pending: [(index: Int, changes: DataChanges)] = []
        for (index, migration) in migrations.enumerated() where pendingIDs.contains(migration.id) {
            guard case .changes(let changes) = migration.body else { return nil }
            pending.append((index, changes))
        }
        guard !pending.isEmpty, try !Self.rowsReachOtherRows(db, tables: tables) else { return nil }
        // Each table's one-column key, lowercased, for the refs that name it.
        var parentKey: [String: String] = [:]
        for table in tables where table.writtenKeyColumns.count == 1 {
            parentKey[table.written.name.lowercasedName] = table.writtenKeyColumns[0].lowercasedName
        }
        var touched: [String: Set<String>] = [:]
        func id(_ values: [InputValue]) -> String { Self.keyID(values.map(Self.sqlValue)) }
        @discardableResult func touch(_ table: SemanticRows, _ key: [InputValue]) -> Bool {
            touched[table.written.name.lowercasedName, default: []].insert(id(key)).inserted
        }
        // The parents the values of a row name (refs by the parent's key); false for a ref this cut cannot follow.
        func touchParents(_ table: SemanticRows, _ values: [(column: String, value: InputValue)]) -> Bool {
            for (column, value) in values where value != .null {
                guard let reference = table.written.refs.first(where: { $0.key.isSameName(as: column) })?.value else {
                    continue
                }
                guard let parent = tables.named(reference.table),
                    parentKey[parent.written.name.lowercasedName] == reference.column.lowercasedName
                else { return false }
                touch(parent, [value])
            }
            return true
        }
        // The rows the user touched and the parents they name, as the user's copy holds them.
        var seeds = pass.edits.map { ($0.table, $0.key) } + pass.referenced
        seeds += pass.following.flatMap { [($0.child, $0.childKey), ($0.parent, $0.parentKey)] }
        for (table, key) in seeds {
            touch(table, key)
            guard let row = try table.row(db, key: key.map(Self.sqlValue), storedOnly: true) else { continue }
            let values = row.map { (column: table.writtenName($0.column), value: $0.value.inputValue) }
            guard touchParents(table, values) else { return nil }
        }
        // The changes of those rows; a change kept names more rows (its parents, its new key): again until none does.
        var kept: [Int: [[Int]]] = [:]
        var grew = true
        var passes = 0
        while grew {
            grew = false
            passes += 1
            if passes > 64 { return nil }
            for (index, changes) in pending {
                var keptRows: [[Int]] = []
                for operation in changes.operations {
                    guard let table = tables.named(operation.table) else {
                        keptRows.append(Array(0..<operation.rowCount))
                        continue
                    }
                    let name = table.written.name.lowercasedName
                    var rows: [Int] = []
                    for position in 0..<operation.rowCount {
                        guard let (key, newKey, values) = operation.row(position, of: table) else { return nil }
                        let keyNamed: Bool = touched[name]?.contains(id(key)) ?? false
                        let newKeyNamed: Bool = newKey.flatMap { touched[name]?.contains(id($0)) } ?? false
                        let named = keyNamed || newKeyNamed
                        guard named else { continue }
                        rows.append(position)
                        if touch(table, key) { grew = true }
                        if let newKey, touch(table, newKey) { grew = true }
                        let before = touched.values.reduce(0) { $0 + $1.count }
                        guard touchParents(table, values) else { return nil }
                        if touched.values.reduce(0, { $0 + $1.count }) != before { grew = true }
                    }
                    keptRows.append(rows)
                }
                kept[index] = keptRows
            }
        }
        var cut = migrations
        for (index, changes) in pending {
            guard let rows = kept[index] else { continue }
            let operations = zip(changes.operations, rows).compactMap { operation, rows in
                operation.keeping(rows)
            }
            // The checksum as recorded (a deferred file's is known once it has been read, as it now has).
            let checksum = cut[index].checksum
            var cutChanges = changes
            cutChanges.operations = operations
            cut[index].body = .changes(cutChanges)
            cut[index].checksum = checksum
        }
        return cut
    }

    /// Whether the store has a trigger, or a UNIQUE index on other columns than a table's key:
    /// then one row's change may reach another row, and only a whole run tells.
    static func rowsReachOtherRows(_ db: Database, tables: [SemanticRows]) throws -> Bool {
        if try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'") != 0 { return true }
        let keys = Dictionary(
            tables.map { ($0.spec.name.lowercasedName, Set($0.keyColumns.map(\.lowercasedName))) },
            uniquingKeysWith: { first, _ in first })
        for name in try String.fetchAll(
            db,
            sql:
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_seedkit\\_%' ESCAPE '\\'"
        ) {
            let key = keys[name.lowercasedName] ?? []
            for index in try Row.fetchAll(
                db, sql: "SELECT name, \"unique\", origin FROM pragma_index_list(?)", arguments: [name])
            {
                guard index["unique"] as Int? == 1, let indexName = index["name"] as String? else { continue }
                let columns = try String.fetchAll(
                    db, sql: "SELECT name FROM pragma_index_info(?)", arguments: [indexName])
                if index["origin"] as String? == "pk" || Set(columns.map(\.lowercasedName)) == key { continue }
                return true
            }
        }
        return false
    }
}

extension DataChanges.Operation {
    /// How many rows the operation inserts, updates or deletes.
    fileprivate var rowCount: Int {
        switch self {
        case .insert(_, let rows): rows.count
        case .update(_, let rows), .delete(_, let rows): rows.count
        }
    }

    /// The row at `position`: its key, the key a rename gives it, and the values it names
    /// (inserted, old and new); nil when its key cannot be read.
    fileprivate func row(_ position: Int, of table: SemanticRows) -> (
        key: [InputValue], newKey: [InputValue]?, values: [(column: String, value: InputValue)]
    )? {
        switch self {
        case .insert(_, let rows):
            let row = rows[position]
            let key = table.writtenKeyColumns.compactMap { row[$0] }
            guard key.count == table.keyColumns.count else { return nil }
            return (key, nil, row.values)
        case .update(_, let rows), .delete(_, let rows):
            let change = rows[position]
            guard let key = UpgradeChecker.keyValues(change.key, table) else { return nil }
            let keyValues = zip(table.writtenKeyColumns, key).map { (column: $0, value: $1) }
            return (key, UpgradeChecker.renamedKey(change, table), keyValues + change.from.values + change.to.values)
        }
    }

    /// The operation with only the rows at `positions`; nil when none is left.
    fileprivate func keeping(_ positions: [Int]) -> Self? {
        guard !positions.isEmpty else { return nil }
        switch self {
        case .insert(let table, let rows): return .insert(table: table, rows: positions.map { rows[$0] })
        case .update(let table, let rows): return .update(table: table, changes: positions.map { rows[$0] })
        case .delete(let table, let rows): return .delete(table: table, changes: positions.map { rows[$0] })
        }
    }
}
