import Foundation
import SeedRuntime

/// The release-time check of the refs migrations write (docs/releases.md, "Refs resolve in any order"): every ref an insert or an
/// update's `to` writes must name a key that the fresh build of the fixtures or some
/// migration's own inserts (or renames) provide.
///
/// A key found nowhere is a typo that would otherwise reach users as a row that never arrives.
///
/// ```swift
/// let problems = try MigrationReferences.unresolved(in: migrations, tables: manifest.specs) { table, column, value in
///     try store.exists(table: table, column: column, value: value)   // the fresh build
/// }
/// ```
///
/// `build` runs it against the seed it is building (so `check-upgrade` and `new-migration`,
/// which build the fixtures first, run it too); `migrate` with a manifest can run it against
/// the same fresh build. Names are the manifest's (entities and attributes for Core Data).
public enum MigrationReferences {
    /// The refs no row provides, one diagnostic each at the migration's file and line (2030).
    ///
    /// - parameters:
    ///   - migrations: the migrations of the release, in order. A ref to a table that a SQL
    ///     migration writes (see ``Migration/sqlMayWrite(_:table:storeTable:)``) is never called a typo.
    ///   - tables: the manifest's table specs (natural keys and refs).
    ///   - dialect: the store's dialect, for the tables SQL migrations name (a Core Data entity's `Z` table).
    ///   - exists: whether the fresh build has a row of `table` whose `column` is `value`
    ///     (converted as that column converts); nil when it cannot tell (then no error).
    /// - Returns: a diagnostic per ref to a key neither the fresh build nor a migration holds.
    package static func unresolved(
        in migrations: [Migration], tables: [TableSpec], dialect: any StoreDialect = PlainSQLiteDialect(),
        exists: (_ table: String, _ column: String, _ value: InputValue) throws -> Bool?
    ) rethrows -> [Diagnostic] {
        func spec(_ name: String) -> TableSpec? { tables.first { $0.name.isSameName(as: name) } }
        // Keys the migrations themselves provide: "table.column" → values (inserted rows, renamed keys).
        // Only the columns some ref names are kept: a release's rows are mostly other columns.
        var provided: [String: Set<String>] = [:]
        let named = Set(tables.flatMap(\.refs.values).map { "\($0.table.lowercasedName).\($0.column.lowercasedName)" })
        var lastTable: (name: String, lowercased: String) = ("", "")
        var ids: [String: String?] = [:]  // of lastTable's columns as written: nil for one no ref names
        func offer(_ table: String, _ row: DataChanges.RowValues) {
            if table != lastTable.name {
                lastTable = (table, table.lowercasedName)
                ids = [:]
            }
            for (column, value) in row.values {
                let id: String?
                if let known = ids[column] {
                    id = known
                } else {
                    let made = "\(lastTable.lowercased).\(column.lowercasedName)"
                    id = named.contains(made) ? made : nil
                    ids[column] = id
                }
                if let id { provided[id, default: []].insert(canonical(value)) }
            }
        }
        Migration.forEachProvidedRow(in: migrations, offer)
        // A rename's old key: a row holds it until the rename runs, and `new-migration` names a
        // row renamed later in the run (or the renamed row itself) by it (docs/releases.md).
        for migration in migrations {
            guard case .changes(let changes) = migration.body else { continue }
            for case .update(let table, let updates) in changes.operations {
                guard let keyColumns = spec(table)?.key else { continue }
                func renames(_ change: DataChanges.RowChange) -> Bool {
                    change.to.values.contains { part in keyColumns.contains { $0.isSameName(as: part.column) } }
                }
                for change in updates where renames(change) {
                    switch change.key {
                    case .single(let value) where keyColumns.count == 1:
                        offer(table, DataChanges.RowValues(values: [(keyColumns[0], value)]))
                    case .columns(let row): offer(table, row)
                    default: break
                    }
                }
            }
        }
        var problems: [Diagnostic] = []
        // Whether SQL may write a parent table: asked once per table (it compiles a pattern), not per row.
        var sqlWrites: [String: Bool] = [:]
        func sqlMayWrite(_ table: String) -> Bool {
            if let known = sqlWrites[table.lowercasedName] { return known }
            let writes = Migration.sqlMayWrite(migrations, table: table, storeTable: dialect.tableName(table))
            sqlWrites[table.lowercasedName] = writes
            return writes
        }
        // Each operation's table is looked up once, and each column a row names once per
        // operation: the rows cost a lookup per ref value, and a row's key is shown only for a problem.
        for migration in migrations {
            guard case .changes(let changes) = migration.body else { continue }
            for operation in changes.operations {
                guard let spec = spec(operation.table) else { continue }
                var references: [String: (TableSpec.Reference, Set<String>?)?] = [:]  // by the column as written
                func reference(_ column: String) -> (TableSpec.Reference, Set<String>?)? {
                    if let known = references[column] { return known }
                    let found = spec.refs.first(where: { $0.key.isSameName(as: column) }).map { entry in
                        let reference = entry.value
                        return (
                            reference,
                            provided["\(reference.table.lowercasedName).\(reference.column.lowercasedName)"]
                        )
                    }
                    references[column] = found
                    return found
                }
                try operation.forEachWrittenRow { row, key, line in
                    // A many-to-many's list (`garnish: [Mint, Lime]`) names each related row.
                    for (column, list) in row.values {
                        guard let found = reference(column) else { continue }
                        let (reference, providedValues) = found
                        for value in list.listItems where value != .null {
                            if providedValues?.contains(canonical(value)) == true { continue }
                            // What SQL provides is not known without running it.
                            if sqlMayWrite(reference.table) { continue }
                            if try exists(reference.table, reference.column, value) != false { continue }
                            // A row that carries its key (an inserted one) is shown by the key's values in it.
                            let keyText =
                                key.map(shownKey)
                                ?? spec.key.compactMap { column in
                                    row.values.first { $0.column.isSameName(as: column) }?.value
                                }.map(shown).joined(separator: ", ")
                            problems.append(
                                Diagnostic(
                                    file: row.file.isEmpty ? nil : row.file, line: line, code: .unresolvedReference,
                                    message:
                                        "\(spec.name)\(keyText.isEmpty ? "" : " \(keyText)"): \(column) \(shown(value)) matches no \(reference) in the fixtures or in any migration's inserts",
                                    table: spec.name))
                        }
                    }
                }
            }
        }
        return problems
    }

    /// Values that name the same key compare equal: 1, 1.0 and true; "1" stays text.
    static func canonical(_ value: InputValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "n:1" : "n:0"
        case .integer(let number): return "n:\(number)"
        case .real(let number):
            return number.rounded() == number && abs(number) < 9e15 ? "n:\(Int64(number))" : "n:\(number)"
        case .string(let text), .json(let text): return "s:" + text.exactKey
        }
    }

    static func shown(_ value: InputValue) -> String {
        if case .string(let text) = value { return "'\(text)'" }
        return value.description
    }

    static func shownKey(_ key: DataChanges.Key) -> String {
        switch key {
        case .single(let value): return shown(value)
        case .columns(let row): return row.values.map { "\($0.column) \(shown($0.value))" }.joined(separator: ", ")
        }
    }
}

extension Migration {
    /// Calls `body` with every row a release's declarative migrations provide: each inserted row
    /// and each update's `to` values (a rename gives its new key).
    ///
    /// SQL migrations are not read.
    static func forEachProvidedRow(
        in migrations: [Migration], _ body: (_ table: String, _ row: DataChanges.RowValues) throws -> Void
    ) rethrows {
        for migration in migrations {
            guard case .changes(let changes) = migration.body else { continue }
            for operation in changes.operations {
                try operation.forEachWrittenRow { row, _, _ in try body(operation.table, row) }
            }
        }
    }
}

extension Migration {
    /// Whether a release's SQL migrations may write rows of `table`: one of their statements
    /// inserts into, replaces into or updates it (read from the text, comments and string
    /// literals left out), by the name migrations use or by the store's (`storeTable`: for Core
    /// Data, the dialect's table of the entity, a sub-entity's root's or a renamed entity's).
    ///
    /// Which keys such a statement provides is known only by running it, so a key missing elsewhere
    /// is not called a typo.
    static func sqlMayWrite(_ migrations: [Migration], table: String, storeTable: String) -> Bool {
        let names = (storeTable == table ? [table] : [table, storeTable]).map {
            NSRegularExpression.escapedPattern(for: $0)
        }.joined(separator: "|")
        let target =
            #"(?:\w+\.)?(?:"(?:"# + names + #")"|`(?:"# + names + #")`|\[(?:"# + names + #")\]|(?:"# + names
            + #")(?![\w$]))"#
        guard
            let pattern = try? NSRegularExpression(
                pattern: #"\b(?:(?:INSERT|REPLACE)\s+(?:OR\s+\w+\s+)?INTO|UPDATE\s+(?:OR\s+\w+\s+)?)\s*"# + target,
                options: [.caseInsensitive])
        else { return true }
        for migration in migrations {
            guard case .sql(let sql) = migration.body else { continue }
            let code = statementsOnly(sql)
            if pattern.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil { return true }
        }
        return false
    }

    /// SQL without its comments and string literals (each replaced by a space).
    private static func statementsOnly(_ sql: String) -> String {
        var result = ""
        var characters = Array(sql)
        var index = 0
        characters.append(" ")
        while index < characters.count - 1 {
            let character = characters[index]
            if character == "-" && characters[index + 1] == "-" {
                while index < characters.count && characters[index] != "\n" { index += 1 }
                result.append(" ")
            } else if character == "/" && characters[index + 1] == "*" {
                index += 2
                while index < characters.count - 1 && !(characters[index] == "*" && characters[index + 1] == "/") {
                    index += 1
                }
                index += 2
                result.append(" ")
            } else if character == "'" {
                index += 1
                // '' inside: two literals, same effect
                while index < characters.count && characters[index] != "'" { index += 1 }
                index += 1
                result.append(" ")
            } else {
                result.append(character)
                index += 1
            }
        }
        return result
    }
}
