import Foundation
import GRDB
import SeedRuntime

// The simulated user of `check-upgrade` (docs/reference.md, "What `check-upgrade` checks"): its
// one pass over an old seed before the migrations, and what became of its rows after them.
extension UpgradeChecker {
    typealias UserEdit = (table: SemanticRows, key: [InputValue], column: String, value: InputValue, insert: Bool)

    /// What the simulated user did to a store (``simulateUser(_:migrator:options:tables:)``).
    struct UserPass {
        var edits: [UserEdit] = []
        /// Each edit's column as the store held it once the user's pass was done (nil: not read).
        var left: [SQLValue?] = []
        var referenced: [(table: SemanticRows, key: [InputValue])] = []
        var following: [Following] = []
        var renames: [(table: SemanticRows, old: [InputValue], new: [InputValue])] = []
        var notChecked: [String] = []
        /// The migrations pending in the store when the user edited it.
        var pending: [Migration] = []
    }

    /// How many rows of each change (a table's inserts, updates, renames or deletes in one
    /// migration) the simulated user edits first; the others are compared with a fresh build.
    static let userRowsPerChange = 3

    /// A key as an identity for matching rows across the comparison, the migration report and
    /// the simulated user: numbers that are equal match (10 and 10.0), text and blobs by bytes.
    static func keyID(_ values: [SQLValue]) -> String {
        values.map { value in
            switch value {
            case .null: "n"
            case .integer(let number): "i\(number)"
            case .real(let number) where number == number.rounded() && abs(number) < 9.2e18: "i\(Int64(number))"
            case .real(let number): "r\(number.bitPattern)"
            case .text(let text): "t\(text.utf8.count):" + text
            case .blob(let bytes): "b\(bytes.count):" + bytes.map { String($0, radix: 16) }.joined(separator: ".")
            }
        }.joined(separator: "\u{0}")
    }

    /// Before the migrations, in one pass over `store` (a copy of an old seed), does what a
    /// user might to the first ``userRowsPerChange`` rows of each change of each pending
    /// migration (of each column an update changes): changes a value that an update changes,
    /// edits a row that a delete deletes (or adds a row referring to it), adds a row under a key
    /// that an insert inserts, edits a row that a rename renames and adds a row referring to it;
    /// and adds a row of its own to each table.
    func simulateUser(
        _ store: DatabaseQueue, migrator: SeedMigrator, options: SeedMigrator.Options, tables: [SemanticRows]
    ) throws -> UserPass {
        var notChecked: [String] = []
        let pending = try store.read { db in try migrator.pending(db) }
        var edits: [UserEdit] = []
        var referenced: [(table: SemanticRows, key: [InputValue])] = []
        var following: [Following] = []
        // Every rename of the pending migrations, in order: edits are made on the old seed, under its keys.
        var renames: [(table: SemanticRows, old: [InputValue], new: [InputValue])] = []
        let sampled = Self.userRowsPerChange
        try store.writeWithoutTransaction { db in
            for migration in pending {
                guard case .changes(let changes) = migration.body else { continue }
                for written in changes.operations {
                    guard let table = tables.named(written.table) else {
                        continue
                    }
                    // Composites given in the Swift type's shape, as the stored elements the run writes (SwiftShape.swift).
                    let shape = options.coreDataFacts.flatMap { SwiftShape(entity: written.table, facts: $0) }
                    let operation = shape.map(written.inStoredForm) ?? written
                    // An enum case's column holds only its case's name: no user edits it.
                    let caseColumns = Set((options.coreDataFacts?.enumCases[written.table] ?? [:]).keys)
                    switch operation {
                    case .update(let name, let rows):
                        var renamed = 0
                        var updated: [String: Int] = [:]
                        for change in rows {
                            if let newKey = Self.renamedKey(change, table) {
                                if let oldKey = Self.keyValues(change.key, table) {
                                    renames.append((table, oldKey, newKey))
                                }
                                renamed += 1
                                guard renamed <= sampled else { continue }
                                try simulateRename(
                                    change, of: table, named: name, newKey: newKey, tables: tables, options: options,
                                    db: db, edits: &edits, following: &following)
                                continue
                            }
                            // A value the release changes; for a NULL → value update, the user filled it in first.
                            // The row as a line names it: written only for a row that gets one (a release updates 150k).
                            func place() -> String {
                                "\(table.written.name) \(Self.show(Self.keyValues(change.key, table).map { $0.map(Self.sqlValue) } ?? []))"
                            }
                            guard
                                let (column, from, to) = change.to.values.lazy.compactMap({ to in
                                    caseColumns.contains(to.column)
                                        ? nil : change.from[to.column].map { (to.column, $0, to.value) }
                                }).first
                            else {
                                notChecked.append(
                                    "\(place()): the update was not edited by a user first: it changes no column with a 'from'"
                                )
                                continue
                            }
                            // The first rows that change each column.
                            let times = updated[column.lowercasedName, default: 0] + 1
                            updated[column.lowercasedName] = times
                            guard times <= sampled else { continue }
                            guard
                                let userValue = from == .null
                                    ? Self.userValue(to, avoiding: to) : Self.userValue(from, avoiding: to)
                            else {
                                notChecked.append(
                                    "\(place()): the update was not edited by a user first: no value a user would type replaces \(column)'s \(Self.kind(from == .null ? to : from))"
                                )
                                continue
                            }
                            let edit = Self.userEdit(name, key: change.key, column: column, from: from, to: userValue)
                            if let refused = try Self.refusal(db, edit, options) {
                                notChecked.append(
                                    "\(place()): the update was not edited by a user first: the old seed refused the edit of \(column): \(refused)"
                                )
                            } else if let key = Self.keyValues(change.key, table) {
                                edits.append((table, key, column, userValue, false))
                            }
                        }
                    case .insert(let name, let rows):
                        for row in rows.prefix(sampled) {
                            let keyColumns = Set(table.writtenKeyColumns.map { $0.lowercasedName })
                            let key = table.writtenKeyColumns.compactMap { column in row[column] }
                            let place = "\(table.written.name) \(Self.show(key.map(Self.sqlValue)))"
                            guard
                                let index = row.values.firstIndex(where: {
                                    !keyColumns.contains($0.column.lowercasedName)
                                        && table.written.refs[$0.column] == nil && Self.userValue($0.value) != nil
                                }),
                                let userValue = Self.userValue(row.values[index].value)
                            else {
                                notChecked.append(
                                    "\(place): no user row was added under the key the release inserts: the row has no column but its key and refs a user would type"
                                )
                                continue
                            }
                            var userRow = row
                            userRow.values[index].value = userValue
                            let refused =
                                key.count == table.keyColumns.count
                                ? try Self.refusal(
                                    db, DataChanges(operations: [.insert(table: name, rows: [userRow])]), options)
                                : "the row does not give every column of the key"
                            if let refused {
                                notChecked.append(
                                    "\(place): no user row was added under the key the release inserts: the old seed refused it: \(refused)"
                                )
                            } else {
                                edits.append((table, key, row.values[index].column, userValue, true))
                            }
                        }
                    case .delete(let name, let rows):
                        for (position, change) in rows.prefix(sampled).enumerated() {
                            guard let key = Self.keyValues(change.key, table) else { continue }
                            // Every other deleted row: the user added a row referring to it: both must stay (the delete is denied).
                            if position % 2 == 1,
                                let (child, row, childKey, column, value, _) = try userChild(
                                    of: table, key: key, tables: tables, db: db),
                                try Self.attempt(
                                    db, DataChanges(operations: [.insert(table: child.written.name, rows: [row])]),
                                    options)
                            {
                                edits.append((child, childKey, column, value, true))
                                referenced.append((table, key))
                                continue
                            }
                            // The user edited a row the release deletes: it must stay (a conflict).
                            var refused: String?
                            if let (column, from) = change.from.values.first(where: {
                                !caseColumns.contains($0.column) && Self.userValue($0.value) != nil
                            })
                            .map({ ($0.column, $0.value) }),
                                let userValue = Self.userValue(from)
                            {
                                let edit = Self.userEdit(
                                    name, key: change.key, column: column, from: from, to: userValue)
                                refused = try Self.refusal(db, edit, options).map {
                                    "the old seed refused the user's edit of \(column): \($0)"
                                }
                                if refused == nil {
                                    edits.append((table, key, column, userValue, false))
                                    continue
                                }
                            }
                            // Otherwise the user added a row referring to it: both must stay (the delete is denied).
                            let place = "\(table.written.name) \(Self.show(key.map(Self.sqlValue)))"
                            guard
                                let (child, row, childKey, column, value, _) = try userChild(
                                    of: table, key: key, tables: tables, db: db)
                            else {
                                notChecked.append(
                                    "\(place): the delete was not tried against a user's edit or a user's row referring to it: "
                                        + (refused
                                            ?? "its 'from' lists no value a user would type")
                                        + ", and no table of the manifest refers to it with a row a user could add")
                                continue
                            }
                            if let reason = try Self.refusal(
                                db, DataChanges(operations: [.insert(table: child.written.name, rows: [row])]), options)
                            {
                                notChecked.append(
                                    "\(place): the delete was not tried against a user's row referring to it: the old seed refused \(child.written.name) \(Self.show(childKey.map(Self.sqlValue))): \(reason)"
                                        + (refused.map { "; \($0)" } ?? ""))
                            } else {
                                edits.append((child, childKey, column, value, true))
                                referenced.append((table, key))
                            }
                        }
                    }
                }
            }
            // Rows of the user's own in every table (SQL migrations included): they must come through untouched.
            for table in tables {
                guard let (row, key, column, value) = try userRow(in: table, db: db) else {
                    notChecked.append(
                        "\(table.written.name): no user row was added: \(try whyNoUserRow(in: table, db: db))")
                    continue
                }
                // The same row added before (a user row referring to a row the release deletes) covers it.
                if edits.contains(where: {
                    $0.insert && $0.table.written.name == table.written.name
                        && sameBytes(
                            $0.key.map { Self.show([Self.sqlValue($0)]) }, key.map { Self.show([Self.sqlValue($0)]) })
                }) {
                    continue
                }
                if let refused = try Self.refusal(
                    db, DataChanges(operations: [.insert(table: table.written.name, rows: [row])]), options)
                {
                    notChecked.append(
                        "\(table.written.name): no user row of its own was added: \(refused.escapingControls())")
                } else {
                    edits.append((table, key, column, value, true))
                }
            }
        }
        // The app's own tables (not in the manifest) that refer to the seed's: no user row of theirs is simulated.
        try store.read { db in
            let manifestTables = Set(tables.map { $0.spec.name.lowercasedName })
            for name in try String.fetchAll(
                db,
                sql:
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_seedkit\\_%' ESCAPE '\\' ORDER BY name"
            )
            where !manifestTables.contains(name.lowercasedName) {
                let parents = Set(
                    try String.fetchAll(db, sql: "SELECT \"table\" FROM pragma_foreign_key_list(?)", arguments: [name])
                )
                .filter { manifestTables.contains($0.lowercasedName) }.sorted()
                guard !parents.isEmpty else { continue }
                notChecked.append(
                    "\(name.escapingControls()) (the app's own table) refers to \(parents.joined(separator: ", ")): no user row of it was simulated; check-upgrade simulates rows of the manifest's tables only"
                )
            }
        }
        // Each edited value as the user left it: what the migrations must keep.
        let left: [SQLValue?] = try store.read { db in
            try edits.map { edit in
                let column = edit.table.storeName(edit.column)
                return try edit.table.row(db, key: edit.key.map(Self.sqlValue), storedOnly: true)?.first {
                    $0.column.isSameName(as: column)
                }?.value
            }
        }
        return UserPass(
            edits: edits, left: left, referenced: referenced, following: following, renames: renames,
            notChecked: notChecked, pending: pending)
    }

    /// After the migrations: whether each of the simulated user's edits and rows in `store` is
    /// still there, once, as the user left it.
    func verifyUser(_ pass: UserPass, in store: DatabaseQueue) throws -> (kept: [String], lost: [String]) {
        let (edits, renames) = (pass.edits, pass.renames)
        var kept: [String] = []
        var lost: [String] = []
        try store.read { db in
            // The row each edit changed, under the key the migrations' renames gave it.
            let renameIndex = RenameIndex(renames)
            let keys = edits.map { renameIndex.after($0.table, $0.key.map(Self.sqlValue)) }
            // Two simulated edits of one value (an update's, then a later rename's): the last one is the user's.
            let values = edits.indices.map {
                "\(edits[$0].table.written.name)|\(Self.show(keys[$0]))|\(edits[$0].column.lowercasedName)"
            }
            let last = Dictionary(zip(values, edits.indices), uniquingKeysWith: { _, later in later })
            for (index, edit) in edits.enumerated() where last[values[index]] == index {
                let key = keys[index]
                let described = "\(edit.table.written.name) \(Self.show(key)).\(edit.column) = \(edit.value)"
                let count = try edit.table.count(db, key: key)
                let row = try edit.table.row(db, key: key, storedOnly: true)
                let column = edit.table.storeName(edit.column)
                let stored = row?.first { $0.column.isSameName(as: column) }?.value ?? .null
                // As the store held it once the user had made the edit (SQLite's own value), compared as SQLite compares.
                let wanted = pass.left[index] ?? edit.table.readBack(edit.value, column: column)
                if count == 1 && stored.isSame(as: wanted) {
                    kept.append((edit.insert ? "user row " : "user edit ") + described + " kept")
                } else {
                    lost.append(
                        (edit.insert ? "user row " : "user edit ") + described
                            + (count == 1
                                ? " overwritten with \(Self.show([stored], against: wanted)) (the user left \(Self.show([wanted], against: stored)))"
                                : " now has \(count) rows"))
                }
            }
            for follower in pass.following {
                let childKey = renameIndex.after(follower.child, follower.childKey.map(Self.sqlValue))
                let child = "\(follower.child.written.name) \(Self.show(childKey))"
                let parent = "\(follower.parent.written.name) \(Self.show(follower.parentKey.map(Self.sqlValue)))"
                let column = follower.child.storeName(follower.column)
                let stored = try follower.child.row(db, key: childKey, storedOnly: true)?.first {
                    $0.column.isSameName(as: column)
                }?.value
                if let stored, stored.isSame(as: Self.sqlValue(follower.expected)) {
                    kept.append("user row \(child) still refers to the renamed \(parent)")
                } else {
                    lost.append(
                        "user row \(child) refers to \(stored.map { Self.show([$0]) } ?? "nothing (the row is gone)"), not to the renamed \(parent)"
                    )
                }
            }
            for (table, key) in pass.referenced {
                let described = "\(table.written.name) \(Self.show(key.map(Self.sqlValue)))"
                if try table.count(db, key: key.map(Self.sqlValue)) == 1 {
                    kept.append("seed row \(described), which a user row refers to, kept (its delete denied)")
                } else {
                    lost.append("seed row \(described), which a user row refers to, deleted")
                }
            }
        }
        return (kept, lost)
    }

    /// The simulated user's edit of one column of one row, as a data update from `from` to `to`.
    static func userEdit(_ table: String, key: DataChanges.Key, column: String, from: InputValue, to: InputValue)
        -> DataChanges
    {
        DataChanges(operations: [
            .update(
                table: table,
                changes: [
                    DataChanges.RowChange(
                        key: key, from: .init(values: [(column, from)]), to: .init(values: [(column, to)]))
                ])
        ])
    }
}
