import Foundation
import GRDB
public import SeedRuntime

/// The schema step of a release (`new-migration --from`): the SQL that turns the old seed's
/// schema into the fresh build's, run before the release's data step.
///
/// - New tables: their `CREATE TABLE` (and indexes, triggers) as the schema writes them.
/// - New columns at the end of a table: `ALTER TABLE … ADD COLUMN` with the column's definition
///   as written, where SQLite allows it (no PRIMARY KEY or UNIQUE, NOT NULL only with a
///   non-NULL constant default, no expression or CURRENT_* default, no REFERENCES with a
///   non-NULL default, not GENERATED … STORED).
/// - Any other change to a table (a column's type, NOT NULL, default or constraints, a
///   table constraint, a column added in the middle, `WITHOUT ROWID`): SQLite's documented
///   rebuild (create the new table, copy the rows, drop the old one, rename, recreate its
///   indexes and triggers), with foreign-key checks deferred to the end of the transaction.
/// - New, changed or removed indexes, triggers and views: created, re-created, dropped (they
///   hold no data).
///
/// Refused, with what to do: a table or column the old seed has and the fixtures' schema no
/// longer has (users' stores hold data there: seedkit never drops it unasked), a new NOT NULL
/// column without a default in a rebuilt table, a rebuild of a table that other tables
/// reference with ON DELETE CASCADE / SET NULL / SET DEFAULT (dropping it would fire them),
/// and Core Data stores (Core Data migrates their schema itself).
public struct SchemaStep: Sendable, Equatable {
    /// The SQL, statements separated by blank lines, with a comment per change.
    public var sql: String
    /// What it does, for the summary: "1 new table, 2 new columns, 1 rebuilt table, 1 new index".
    public var summary: String

    /// The step from `old` to `new`, nil when the schemas agree.
    ///
    /// - throws: ``SeedError`` (`.configuration`, exit 2) naming each change it will not write.
    public static func make(from old: SchemaSnapshot, to new: SchemaSnapshot, oldName: String) throws(SeedError)
        -> SchemaStep?
    {
        guard !old.differences(from: new).isEmpty else { return nil }
        var problems: [Diagnostic] = []
        func refuse(_ message: String) {
            problems.append(Diagnostic(file: oldName, code: .configuration, message: message))
        }
        var statements: [String] = []
        var counts: [String: Int] = [:]
        var rebuilt: Set<String> = []
        var firstRebuild: Int?
        for table in old.tables where new.table(table.name) == nil {
            refuse(
                "table \(table.name) is in the old seed but not in the schema: users' stores hold its rows, so seedkit does not drop it; if that is really meant, write the step yourself as a .sql migration (DROP TABLE \(quoteIdentifier(table.name)))"
            )
        }
        for table in new.tables {
            guard let before = old.table(table.name) else {
                statements.append("-- new table \(table.name)\n\(table.sql);")
                counts["new table", default: 0] += 1
                continue
            }
            for column in before.columns where table.column(column.name) == nil {
                refuse(
                    "column \(table.name).\(column.name) is in the old seed but not in the schema: users' stores may hold data in it, so seedkit does not drop it; if that is really meant, write the step yourself as a .sql migration"
                )
            }
            if before.columns.allSatisfy({ table.column($0.name) != nil }) == false { continue }
            let unchanged = extends(before, to: table)
            let added = Array(table.columns.dropFirst(before.columns.count))
            if unchanged && added.allSatisfy(addable) {
                for column in added {
                    statements.append(
                        "-- new column \(table.name).\(column.name)\nALTER TABLE \(quoteIdentifier(table.name)) ADD COLUMN \(column.text);"
                    )
                    counts["new column", default: 0] += 1
                }
                continue
            }
            if unchanged && added.isEmpty { continue }
            // SQLite's 12-step rebuild (https://sqlite.org/lang_altertable.html#otheralter), in seedkit's transaction.
            for column in table.columns where before.column(column.name) == nil {
                let definition = column.definition.uppercasedName
                if definition.contains("NOT NULL") && !definition.contains("DEFAULT")
                    && !definition.contains("PRIMARY KEY")
                {
                    refuse(
                        "column \(table.name).\(column.name) is new and NOT NULL without a DEFAULT: the rows users' stores already have would have no value for it; give it a DEFAULT"
                    )
                }
            }
            for other in new.tables where !other.name.isSameName(as: table.name) {
                for constraint in other.constraints + other.columns.map(\.definition) {
                    let upper = constraint.uppercasedName
                    if upper.contains("REFERENCES \(table.name.uppercasedName)")
                        || upper.contains("REFERENCES \(quoteIdentifier(table.name).uppercasedName)"),
                        upper.contains("ON DELETE CASCADE") || upper.contains("ON DELETE SET")
                    {
                        refuse(
                            "table \(table.name) must be rebuilt, but \(other.name) refers to it with an ON DELETE action that dropping the old table would fire; write the step yourself as a .sql migration"
                        )
                    }
                }
            }
            let temporary = "_seedkit_new_\(table.name)"
            // Generated columns are computed by the new table: SQLite refuses an INSERT into one.
            let copied = table.columns.filter { before.column($0.name) != nil && !$0.generated }
            // A table without an INTEGER PRIMARY KEY keeps its rowids too (what an FTS index or the app may hold).
            let keepsRowID = before.hasRowID && table.hasRowID && table.rowIDAlias == nil && before.rowIDAlias == nil
            let targets = ((keepsRowID ? ["rowid"] : []) + copied.map { quoteIdentifier($0.name) }).joined(
                separator: ", ")
            let sources =
                (keepsRowID ? ["rowid"] : [])
                + copied.map { column in
                    // A nullable column that becomes NOT NULL with a DEFAULT: a user's NULL takes the DEFAULT.
                    guard let old = before.column(column.name), column.notNull, !old.notNull,
                        let fill = column.defaultSQL, fill.uppercasedName != "NULL"
                    else {
                        return quoteIdentifier(column.name)
                    }
                    return "coalesce(\(quoteIdentifier(column.name)), \(fill))"
                }
            let created = table.sql.replacingOccurrences(
                of: "^\\s*CREATE\\s+TABLE\\s+(IF\\s+NOT\\s+EXISTS\\s+)?(\"[^\"]*\"|`[^`]*`|\\[[^\\]]*\\]|[^\\s(]+)",
                with: "CREATE TABLE \(quoteIdentifier(temporary))", options: [.regularExpression, .caseInsensitive])
            var steps = [
                "PRAGMA defer_foreign_keys = ON;",
                "\(created);",
                "INSERT INTO \(quoteIdentifier(temporary)) (\(targets)) SELECT \(sources.joined(separator: ", ")) FROM \(quoteIdentifier(table.name));",
            ]
            // AUTOINCREMENT: the copy's sequence is the highest id copied; the old table's, kept,
            // never hands out again an id the user deleted. DROP TABLE removes the old one's row,
            // the RENAME renames the new one's.
            if Self.hasAutoincrement(before.sql) && Self.hasAutoincrement(table.sql) {
                steps.append("DELETE FROM sqlite_sequence WHERE name = \(SQLValue.text(temporary).sqlLiteral);")
                steps.append(
                    "INSERT INTO sqlite_sequence (name, seq) SELECT \(SQLValue.text(temporary).sqlLiteral), seq FROM sqlite_sequence WHERE name = \(SQLValue.text(before.name).sqlLiteral) ORDER BY seq DESC LIMIT 1;"
                )
            }
            steps.append("DROP TABLE \(quoteIdentifier(table.name));")
            // A table other tables refer to: DROP TABLE counts each of their rows as a foreign-key
            // violation (deferred), and rows that arrive by RENAME never take the count back, so
            // the commit failed ("FOREIGN KEY constraint failed"). Its rows are copied back into a
            // table created under its own name instead: each row inserted there settles the
            // children that refer to it, and a child whose parent is really missing still fails.
            // (A table that refers to itself too: the copy's rows are children of the old table.)
            let referenced = (old.tables + new.tables).contains { other in
                Self.referencedTables(in: other.sql).contains(table.name.lowercasedName)
            }
            var note = ""
            if referenced {
                let columns = ((keepsRowID ? ["rowid"] : []) + copied.map { quoteIdentifier($0.name) }).joined(
                    separator: ", ")
                steps.append("\(table.sql);")
                steps.append(
                    "INSERT INTO \(quoteIdentifier(table.name)) (\(columns)) SELECT \(columns) FROM \(quoteIdentifier(temporary));"
                )
                if Self.hasAutoincrement(before.sql) && Self.hasAutoincrement(table.sql) {
                    steps.append("DELETE FROM sqlite_sequence WHERE name = \(SQLValue.text(table.name).sqlLiteral);")
                    steps.append(
                        "INSERT INTO sqlite_sequence (name, seq) SELECT \(SQLValue.text(table.name).sqlLiteral), seq FROM sqlite_sequence WHERE name = \(SQLValue.text(temporary).sqlLiteral) ORDER BY seq DESC LIMIT 1;"
                    )
                }
                steps.append("DROP TABLE \(quoteIdentifier(temporary));")
                note = "; foreign keys refer to it: its rows are copied back under its own name, so that they find them"
            } else {
                steps.append("ALTER TABLE \(quoteIdentifier(temporary)) RENAME TO \(quoteIdentifier(table.name));")
            }
            let unfilled = copied.filter { column in
                column.notNull && column.defaultSQL == nil && before.column(column.name).map { !$0.notNull } == true
                    && table.rowIDAlias?.name.lowercasedName != column.name.lowercasedName
            }
            let warning = unfilled.map {
                "\n-- \(table.name).\($0.name) becomes NOT NULL without a DEFAULT: a store with a NULL there cannot take this step (give it a DEFAULT to fill NULLs from)"
            }.joined()
            if firstRebuild == nil { firstRebuild = statements.count }
            statements.append(
                """
                -- rebuilt table \(table.name) (\(old.table(table.name).map { Self.describeChange(from: $0, to: table) } ?? "changed")): SQLite's table rebuild, rows kept\(note)\(warning)
                \(steps.joined(separator: "\n"))
                """)
            rebuilt.insert(table.name.lowercasedName)
            counts["rebuilt table", default: 0] += 1
        }
        // Views, and triggers of other tables, that read a rebuilt table (or such a view): SQLite's
        // RENAME re-reads them and fails ("error in view v: no such table: main.t") while the
        // table is gone, so they are dropped before the first rebuild and re-created after
        // (step 3 and 10 of https://sqlite.org/lang_altertable.html#otheralter), in the same transaction.
        var dependents: [SchemaSnapshot.Object] = []
        if let firstRebuild {
            var read = rebuilt
            var found = true
            while found {
                found = false
                for object in old.objects
                where (object.type == "view" || object.type == "trigger")
                    && !dependents.contains(where: { $0.type == object.type && $0.name.isSameName(as: object.name) })
                {
                    var names = Self.identifiers(in: object.sql)
                    // A rebuilt table's own triggers go with it; one that reads another rebuilt table must go before that one's rebuild.
                    if object.type == "trigger" && rebuilt.contains(object.table.lowercasedName) {
                        names.remove(object.table.lowercasedName)
                    }
                    guard !names.isDisjoint(with: read) else { continue }
                    dependents.append(object)
                    if object.type == "view" { read.insert(object.name.lowercasedName) }
                    found = true
                }
            }
            let drops = dependents.map {
                "-- \($0.type) \($0.name) reads a rebuilt table: dropped before the rebuild, re-created after\nDROP \($0.type.uppercasedName) \(quoteIdentifier($0.name));"
            }
            statements.insert(contentsOf: drops, at: firstRebuild)
        }
        func isDependent(_ object: SchemaSnapshot.Object) -> Bool {
            dependents.contains { $0.type == object.type && $0.name.isSameName(as: object.name) }
        }
        // Indexes, triggers, views: what is new or changed is (re)created; a rebuilt table's all are.
        for object in old.objects {
            let wanted = new.objects.first {
                $0.type == object.type && $0.name.lowercasedName == object.name.lowercasedName
            }
            // dropped with its table
            if rebuilt.contains(object.table.lowercasedName) && object.type != "view" { continue }
            if wanted.map({ !$0.agrees(with: object) }) ?? true {
                if wanted == nil { counts["removed \(object.type)", default: 0] += 1 }
                if isDependent(object) { continue }  // dropped before the rebuild
                statements.append(
                    "-- \(wanted == nil ? "removed" : "changed") \(object.type) \(object.name)\nDROP \(object.type.uppercasedName) \(quoteIdentifier(object.name));"
                )
            }
        }
        for object in new.objects {
            let before = old.objects.first {
                $0.type == object.type && $0.name.lowercasedName == object.name.lowercasedName
            }
            let changed: Bool = before.map { !$0.agrees(with: object) } ?? true
            let tableRebuilt: Bool = rebuilt.contains(object.table.lowercasedName) && object.type != "view"
            let recreate: Bool = changed || tableRebuilt || before.map(isDependent) == true
            guard recreate, let sql = objectSQL(object, in: new) else { continue }
            statements.append("-- \(before == nil ? "new" : "re-created") \(object.type) \(object.name)\n\(sql);")
            if changed { counts["\(before == nil ? "new" : "changed") \(object.type)", default: 0] += 1 }
        }
        if !problems.isEmpty { throw SeedError(.configuration, problems) }
        let order = [
            "new table", "new column", "rebuilt table", "new index", "changed index", "removed index", "new trigger",
            "changed trigger", "removed trigger", "new view", "changed view", "removed view",
        ]
        let summary = order.compactMap { kind in counts[kind].map { "\($0) \(kind)\($0 == 1 ? "" : "s")" } }.joined(
            separator: ", ")
        return SchemaStep(
            sql: statements.joined(separator: "\n\n") + "\n", summary: summary.isEmpty ? "schema changes" : summary)
    }

    /// Whether `after` is `before` with columns only added at the end: the same columns, definitions,
    /// constraints and options up to case.
    private static func extends(_ before: SchemaSnapshot.Table, to after: SchemaSnapshot.Table) -> Bool {
        guard before.columns.count <= after.columns.count else { return false }
        for (old, new) in zip(before.columns, after.columns) {
            guard old.name.lowercasedName == new.name.lowercasedName,
                old.canonical.lowercasedName == new.canonical.lowercasedName
            else { return false }
        }
        return before.sameConstraintsAndOptions(as: after)
    }

    /// The original SQL of an index, trigger or view (the snapshot keeps it normalized, which runs the same).
    private static func objectSQL(_ object: SchemaSnapshot.Object, in snapshot: SchemaSnapshot) -> String? {
        object.sql
    }

    /// The names an object's SQL mentions, lower-cased and unquoted (string literals and comments
    /// skipped): what it may read.
    ///
    /// A word that only looks like a table's name errs on the safe side (the object is dropped and
    /// re-created for nothing).
    static func identifiers(in sql: String) -> Set<String> { Set(tokens(in: sql)) }

    /// The words and quoted names of `sql` in order, lower-cased, unquoted (see ``identifiers(in:)``).
    static func tokens(in sql: String) -> [String] {
        var names: [String] = []
        let characters = Array(sql)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "'" {
                index += 1
                while index < characters.count {
                    if characters[index] == "'" {
                        if index + 1 < characters.count, characters[index + 1] == "'" {
                            index += 2
                            continue
                        }
                        break
                    }
                    index += 1
                }
                index += 1
            } else if character == "-", index + 1 < characters.count, characters[index + 1] == "-" {
                while index < characters.count, characters[index] != "\n" { index += 1 }
            } else if character == "/", index + 1 < characters.count, characters[index + 1] == "*" {
                index += 2
                while index + 1 < characters.count, !(characters[index] == "*" && characters[index + 1] == "/") {
                    index += 1
                }
                index += 2
            } else if character == "\"" || character == "`" || character == "[" {
                let closing: Character = character == "[" ? "]" : character
                var name = ""
                index += 1
                while index < characters.count {
                    if characters[index] == closing {
                        if closing != "]", index + 1 < characters.count, characters[index + 1] == closing {
                            name.append(closing)
                            index += 2
                            continue
                        }
                        break
                    }
                    name.append(characters[index])
                    index += 1
                }
                index += 1
                names.append(name.lowercasedName)
            } else if character.isLetter || character == "_" {
                var name = ""
                while index < characters.count,
                    characters[index].isLetter || characters[index].isNumber || characters[index] == "_"
                        || characters[index] == "$"
                {
                    name.append(characters[index])
                    index += 1
                }
                names.append(name.lowercasedName)
            } else {
                index += 1
            }
        }
        return names
    }

    /// The tables a table's SQL names after REFERENCES (its foreign keys' parents), lower-cased.
    static func referencedTables(in sql: String) -> Set<String> {
        let words = tokens(in: sql)
        return Set(zip(words, words.dropFirst()).compactMap { $0.0 == "references" ? $0.1 : nil })
    }

    /// Whether a table's SQL declares AUTOINCREMENT (as a keyword, not inside a name or string).
    static func hasAutoincrement(_ sql: String) -> Bool {
        // Quoted names are words too in `identifiers`; a column named "autoincrement" is rare enough to err on.
        identifiers(in: sql).contains("autoincrement")
    }

    /// Whether SQLite's `ALTER TABLE … ADD COLUMN` can add this column (https://sqlite.org/lang_altertable.html#altertabaddcol).
    static func addable(_ column: SchemaSnapshot.Column) -> Bool {
        let definition = column.definition.uppercasedName
        if definition.contains("PRIMARY KEY") || definition.contains("UNIQUE") || definition.contains("STORED") {
            return false
        }
        if definition.contains("CURRENT_TIME") || definition.contains("CURRENT_DATE") { return false }
        let defaultValue = definition.range(of: "DEFAULT").map {
            String(definition[$0.upperBound...]).trimmingCharacters(in: .whitespaces)
        }
        if let defaultValue, defaultValue.hasPrefix("(") { return false }
        let hasDefault = defaultValue.map { !$0.hasPrefix("NULL") } ?? false
        if definition.contains("NOT NULL") && !hasDefault { return false }
        if definition.contains("REFERENCES") && hasDefault { return false }
        return true
    }

    private static func describeChange(from old: SchemaSnapshot.Table, to new: SchemaSnapshot.Table) -> String {
        var parts: [String] = []
        for column in new.columns {
            if let before = old.column(column.name) {
                if before.canonical.lowercasedName != column.canonical.lowercasedName {
                    parts.append(
                        "\(column.name) \(before.definition.isEmpty ? "untyped" : before.definition) → \(column.definition.isEmpty ? "untyped" : column.definition)"
                    )
                }
            } else {
                parts.append("new column \(column.name)")
            }
        }
        if old.canonicalConstraints.map({ $0.lowercasedName }) != new.canonicalConstraints.map({ $0.lowercasedName }) {
            parts.append("table constraints")
        }
        if old.canonicalOptions.lowercasedName != new.canonicalOptions.lowercasedName {
            parts.append(new.options.isEmpty ? "rowid table" : new.options)
        }
        return parts.isEmpty ? "column order" : parts.joined(separator: "; ")
    }
}
