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
    public static func make(from old: SchemaSnapshot, to new: SchemaSnapshot, oldName: String) throws(SeedError) -> SchemaStep? {
        guard !old.differences(from: new).isEmpty else { return nil }
        var problems: [Diagnostic] = []
        func refuse(_ message: String) { problems.append(Diagnostic(file: oldName, code: .configuration, message: message)) }
        var statements: [String] = []
        var counts: [String: Int] = [:]
        var rebuilt: Set<String> = []
        for table in old.tables where new.table(table.name) == nil {
            refuse("table \(table.name) is in the old seed but not in the schema: users' stores hold its rows, so seedkit does not drop it; if that is really meant, write the step yourself as a .sql migration (DROP TABLE \(quoteIdentifier(table.name)))")
        }
        for table in new.tables {
            guard let before = old.table(table.name) else {
                statements.append("-- new table \(table.name)\n\(table.sql);")
                counts["new table", default: 0] += 1
                continue
            }
            for column in before.columns where table.column(column.name) == nil {
                refuse("column \(table.name).\(column.name) is in the old seed but not in the schema: users' stores may hold data in it, so seedkit does not drop it; if that is really meant, write the step yourself as a .sql migration")
            }
            if before.columns.allSatisfy({ table.column($0.name) != nil }) == false { continue }
            let unchanged = before.columns.count <= table.columns.count
                && zip(before.columns, table.columns).allSatisfy { $0.name.lowercased() == $1.name.lowercased() && $0.definition.lowercased() == $1.definition.lowercased() }
                && before.constraints.map { $0.lowercased() } == table.constraints.map { $0.lowercased() }
                && before.options.lowercased() == table.options.lowercased()
            let added = Array(table.columns.dropFirst(before.columns.count))
            if unchanged && added.allSatisfy(addable) {
                for column in added {
                    statements.append("-- new column \(table.name).\(column.name)\nALTER TABLE \(quoteIdentifier(table.name)) ADD COLUMN \(column.text);")
                    counts["new column", default: 0] += 1
                }
                continue
            }
            if unchanged && added.isEmpty { continue }
            // SQLite's 12-step rebuild (https://sqlite.org/lang_altertable.html#otheralter), in seedkit's transaction.
            for column in table.columns where before.column(column.name) == nil {
                let definition = column.definition.uppercased()
                if definition.contains("NOT NULL") && !definition.contains("DEFAULT") && !definition.contains("PRIMARY KEY") {
                    refuse("column \(table.name).\(column.name) is new and NOT NULL without a DEFAULT: the rows users' stores already have would have no value for it; give it a DEFAULT")
                }
            }
            for other in new.tables where other.name.lowercased() != table.name.lowercased() {
                for constraint in other.constraints + other.columns.map(\.definition) {
                    let upper = constraint.uppercased()
                    if upper.contains("REFERENCES \(table.name.uppercased())") || upper.contains("REFERENCES \(quoteIdentifier(table.name).uppercased())"),
                       upper.contains("ON DELETE CASCADE") || upper.contains("ON DELETE SET") {
                        refuse("table \(table.name) must be rebuilt, but \(other.name) refers to it with an ON DELETE action that dropping the old table would fire; write the step yourself as a .sql migration")
                    }
                }
            }
            let temporary = "_seedkit_new_\(table.name)"
            let shared = table.columns.filter { before.column($0.name) != nil }.map { quoteIdentifier($0.name) }.joined(separator: ", ")
            let created = table.sql.replacingOccurrences(of: "^\\s*CREATE\\s+TABLE\\s+(IF\\s+NOT\\s+EXISTS\\s+)?(\"[^\"]*\"|`[^`]*`|\\[[^\\]]*\\]|[^\\s(]+)", with: "CREATE TABLE \(quoteIdentifier(temporary))", options: [.regularExpression, .caseInsensitive])
            statements.append("""
                -- rebuilt table \(table.name) (\(old.table(table.name).map { Self.describeChange(from: $0, to: table) } ?? "changed")): SQLite's table rebuild, rows kept
                PRAGMA defer_foreign_keys = ON;
                \(created);
                INSERT INTO \(quoteIdentifier(temporary)) (\(shared)) SELECT \(shared) FROM \(quoteIdentifier(table.name));
                DROP TABLE \(quoteIdentifier(table.name));
                ALTER TABLE \(quoteIdentifier(temporary)) RENAME TO \(quoteIdentifier(table.name));
                """)
            rebuilt.insert(table.name.lowercased())
            counts["rebuilt table", default: 0] += 1
        }
        // Indexes, triggers, views: what is new or changed is (re)created; a rebuilt table's all are.
        for object in old.objects {
            let wanted = new.objects.first { $0.type == object.type && $0.name.lowercased() == object.name.lowercased() }
            if rebuilt.contains(object.table.lowercased()) && object.type != "view" { continue }  // dropped with its table
            if wanted == nil || wanted?.sql.lowercased() != object.sql.lowercased() {
                statements.append("-- \(wanted == nil ? "removed" : "changed") \(object.type) \(object.name)\nDROP \(object.type.uppercased()) \(quoteIdentifier(object.name));")
                if wanted == nil { counts["removed \(object.type)", default: 0] += 1 }
            }
        }
        for object in new.objects {
            let before = old.objects.first { $0.type == object.type && $0.name.lowercased() == object.name.lowercased() }
            let recreate = before == nil || before?.sql.lowercased() != object.sql.lowercased() || (rebuilt.contains(object.table.lowercased()) && object.type != "view")
            guard recreate, let sql = objectSQL(object, in: new) else { continue }
            statements.append("-- \(before == nil ? "new" : "re-created") \(object.type) \(object.name)\n\(sql);")
            if before == nil || before?.sql.lowercased() != object.sql.lowercased() { counts["\(before == nil ? "new" : "changed") \(object.type)", default: 0] += 1 }
        }
        if !problems.isEmpty { throw SeedError(.configuration, problems) }
        let order = ["new table", "new column", "rebuilt table", "new index", "changed index", "removed index", "new trigger", "changed trigger", "removed trigger", "new view", "changed view", "removed view"]
        let summary = order.compactMap { kind in counts[kind].map { "\($0) \(kind)\($0 == 1 ? "" : "s")" } }.joined(separator: ", ")
        return SchemaStep(sql: statements.joined(separator: "\n\n") + "\n", summary: summary.isEmpty ? "schema changes" : summary)
    }

    /// The original SQL of an index, trigger or view (the snapshot keeps it normalized, which runs the same).
    private static func objectSQL(_ object: SchemaSnapshot.Object, in snapshot: SchemaSnapshot) -> String? { object.sql }

    /// Whether SQLite's `ALTER TABLE … ADD COLUMN` can add this column (https://sqlite.org/lang_altertable.html#altertabaddcol).
    static func addable(_ column: SchemaSnapshot.Column) -> Bool {
        let definition = column.definition.uppercased()
        if definition.contains("PRIMARY KEY") || definition.contains("UNIQUE") || definition.contains("STORED") { return false }
        if definition.contains("CURRENT_TIME") || definition.contains("CURRENT_DATE") { return false }
        let defaultValue = definition.range(of: "DEFAULT").map { String(definition[$0.upperBound...]).trimmingCharacters(in: .whitespaces) }
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
                if before.definition.lowercased() != column.definition.lowercased() { parts.append("\(column.name) \(before.definition.isEmpty ? "untyped" : before.definition) → \(column.definition.isEmpty ? "untyped" : column.definition)") }
            } else {
                parts.append("new column \(column.name)")
            }
        }
        if old.constraints.map({ $0.lowercased() }) != new.constraints.map({ $0.lowercased() }) { parts.append("table constraints") }
        if old.options.lowercased() != new.options.lowercased() { parts.append(new.options.isEmpty ? "rowid table" : new.options) }
        return parts.isEmpty ? "column order" : parts.joined(separator: "; ")
    }
}
