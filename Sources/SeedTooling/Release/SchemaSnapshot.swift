import Foundation
public import GRDB
import SeedRuntime

/// A store's schema, normalized for comparison: each table's columns in order with their
/// definitions (type, NOT NULL, DEFAULT, constraints as written), its table constraints and
/// options, and the indexes, triggers and views, whitespace collapsed.
///
/// seedkit's own tables are left out. Used by `check-upgrade`, `diff` and `new-migration --from`.
public struct SchemaSnapshot: Sendable, Equatable {
    /// A column of a table, as written and as SQLite reads it.
    public struct Column: Sendable, Equatable {
        /// The column's name, as written.
        public var name: String
        /// The column's definition as written, without its name: `TEXT NOT NULL DEFAULT 'x'`.
        public var definition: String
        /// The whole definition as written (name included), for `ALTER TABLE … ADD COLUMN`.
        public var text: String
        /// ``definition`` as compared (see ``SQLTokens/canonical(_:)``): quotes SQLite does not need dropped.
        public var canonical = ""
        /// Whether SQLite reads the definition as NOT NULL (`pragma_table_xinfo`).
        public var notNull = false
        /// The DEFAULT expression as written, or nil for none.
        public var defaultSQL: String?
        /// Whether the column is generated (VIRTUAL or STORED).
        public var generated = false
        /// The declared type as SQLite reads it.
        public var declaredType = ""
        /// The column's 1-based position in the primary key (0: not in it).
        public var primaryKeyIndex = 0
    }

    /// A table: its SQL, its columns, its constraints and options, each as written and as compared.
    public struct Table: Sendable, Equatable {
        /// The table's name, as written.
        public var name: String
        /// The table's `CREATE TABLE` statement, as `sqlite_schema` holds it.
        public var sql: String
        /// The table's columns, in order.
        public var columns: [Column]
        /// Table constraints (`UNIQUE (a, b)`, `CHECK (…)`, `FOREIGN KEY …`), normalized.
        public var constraints: [String]
        /// What follows the column list (`WITHOUT ROWID`, `STRICT`), normalized.
        public var options: String
        /// ``constraints`` and ``options`` as compared (see ``SQLTokens/canonical(_:)``).
        public var canonicalConstraints: [String] = []
        /// ``options`` as compared.
        public var canonicalOptions = ""

        /// Whether the constraints and options are the same as SQLite reads them (case aside).
        func sameConstraintsAndOptions(as other: Table) -> Bool {
            canonicalConstraints.map { $0.lowercasedName } == other.canonicalConstraints.map { $0.lowercasedName }
                && canonicalOptions.lowercasedName == other.canonicalOptions.lowercasedName
        }

        /// The column named `name` (SQLite's comparison of names), or nil.
        public func column(_ name: String) -> Column? { columns.first { $0.name.isSameName(as: name) } }

        /// Whether rows have a rowid (not `WITHOUT ROWID`).
        public var hasRowID: Bool { !options.uppercasedName.contains("WITHOUT ROWID") }

        /// The column that is the rowid (an INTEGER PRIMARY KEY), if any: SQLite's rule, except
        /// that `PRIMARY KEY DESC` (not an alias) is taken for one, which only errs on the safe side.
        public var rowIDAlias: Column? {
            let key = columns.filter { $0.primaryKeyIndex > 0 }
            guard hasRowID, key.count == 1, key[0].declaredType.uppercasedName == "INTEGER" else { return nil }
            return key[0]
        }
    }

    /// An index, trigger or view: its table and its SQL, normalized.
    public struct Object: Sendable, Equatable {
        /// `index`, `trigger` or `view`.
        public var type: String
        /// The object's name, as `sqlite_schema` holds it: what a difference names.
        public var name: String
        /// The table it belongs to (a view's own name).
        public var table: String
        /// Its SQL, normalized.
        public var sql: String
        /// The SQL for comparing: as ``sql``, names SQLite reads the same unquoted without quotes.
        public var canonical = ""

        /// Whether `other` is the same object as SQLite reads it (case aside).
        public func agrees(with other: Object) -> Bool { canonical.lowercasedName == other.canonical.lowercasedName }
    }

    /// The tables, in name order.
    public var tables: [Table]
    /// The indexes, triggers and views, in name order.
    public var objects: [Object]

    /// The table named `name` (SQLite's comparison of names), or nil.
    public func table(_ name: String) -> Table? { tables.first { $0.name.isSameName(as: name) } }

    /// Reads the schema of `db`'s main database: the columns, their order, types, NOT NULL,
    /// defaults, keys and generated columns as SQLite reads them (`pragma_table_xinfo`); the
    /// text is only cut, into tokens (comments dropped), for what no pragma tells: each column's
    /// clauses as written and the table constraints (docs/reference.md, "The schema is read
    /// through SQLite").
    public static func read(_ db: Database) throws -> SchemaSnapshot {
        var snapshot = SchemaSnapshot(tables: [], objects: [])
        for row in try Row.fetchAll(
            db,
            sql:
                "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND tbl_name NOT LIKE '\\_seedkit\\_%' ESCAPE '\\' ORDER BY rowid"
        ) {
            let type: String = row[0]
            let name: String = row[1]
            let table: String = row[2]
            let sql: String = row[3]
            if type == "table" {
                let parsed = parseTable(name: name, sql: sql)
                // SQLite's reading of the columns, where it can give one (not for a virtual table whose module is missing).
                guard
                    let facts = try? Row.fetchAll(
                        db, sql: "SELECT name, \"notnull\", dflt_value, hidden, type, pk FROM pragma_table_xinfo(?)",
                        arguments: [name]), !facts.isEmpty
                else {
                    snapshot.tables.append(parsed)
                    continue
                }
                var columns: [Column] = []
                for fact in facts {
                    let columnName: String = fact[0]
                    let declared: String = fact[4] ?? ""
                    // The column's clauses as written, found by its name among the definitions the text holds.
                    var column =
                        parsed.columns.first { $0.name.isSameName(as: columnName) }
                        ?? Column(
                            name: columnName, definition: declared,
                            text: quoteIdentifier(columnName) + (declared.isEmpty ? "" : " " + declared),
                            canonical: declared)
                    column.name = columnName
                    column.notNull = fact[1]
                    column.defaultSQL = fact[2]
                    let hidden: Int = fact[3]
                    column.generated = hidden == 2 || hidden == 3
                    column.declaredType = declared
                    column.primaryKeyIndex = fact[5]
                    columns.append(column)
                }
                var read = parsed
                read.columns = columns
                snapshot.tables.append(read)
            } else {
                snapshot.objects.append(
                    Object(
                        type: type, name: name, table: table, sql: normalize(sql),
                        canonical: SQLTokens.canonical(SQLTokens(sql).tokens)))
            }
        }
        return snapshot
    }

    /// Cuts `CREATE TABLE x (…) options` into column definitions and table constraints, by
    /// tokens: a comma or parenthesis inside a comment, a string or a quoted name cuts nothing.
    static func parseTable(name: String, sql: String) -> Table {
        let tokens = SQLTokens(sql).tokens
        guard let open = tokens.firstIndex(where: { $0.isSymbol("(") }) else {
            return Table(name: name, sql: sql, columns: [], constraints: [], options: "")
        }
        var parts: [[SQLTokens.Token]] = [[]]
        var depth = 0
        var close = tokens.count
        for index in (open + 1)..<tokens.count {
            let token = tokens[index]
            if token.isSymbol("(") { depth += 1 }
            if token.isSymbol(")") {
                if depth == 0 {
                    close = index
                    break
                }
                depth -= 1
            }
            if token.isSymbol(","), depth == 0 {
                parts.append([])
                continue
            }
            parts[parts.count - 1].append(token)
        }
        // Each part is kept as written (comments aside) and as compared (``SQLTokens/canonical(_:)``).
        var table = Table(
            name: name, sql: sql, columns: [], constraints: [],
            options: close + 1 < tokens.count ? SQLTokens.render(tokens[(close + 1)...]) : "")
        table.canonicalOptions = close + 1 < tokens.count ? SQLTokens.canonical(tokens[(close + 1)...]) : ""
        for part in parts {
            guard let first = part.first else { continue }
            if ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"].contains(where: { first.isKeyword($0) }) {
                table.constraints.append(SQLTokens.render(part))
                table.canonicalConstraints.append(SQLTokens.canonical(part))
            } else {
                table.columns.append(
                    Column(
                        name: first.name, definition: SQLTokens.render(part.dropFirst()), text: SQLTokens.render(part),
                        canonical: SQLTokens.canonical(part.dropFirst())))
            }
        }
        return table
    }

    static func unquote(_ name: String) -> String { SQLTokens.unquote(name) }

    /// The SQL on one line, by tokens: comments dropped, whitespace runs one space, none next to
    /// parentheses and commas.
    static func normalize(_ sql: String) -> String { SQLTokens.render(SQLTokens(sql).tokens) }

    // MARK: - Differences

    /// The ways `self` (the upgraded or old store) differs from `expected` (a fresh build), one
    /// line each, in a stable order; empty when they agree.
    ///
    /// - Parameters:
    ///   - expected: the schema `self` should have.
    ///   - this: how the lines name `self`'s side.
    ///   - that: how the lines name `expected`'s side.
    ///   - presence: whether to list tables and columns that only one side has (`diff`
    ///     reports those itself, in the app's names).
    /// - Returns: a line per difference, empty when the schemas agree.
    public func differences(
        from expected: SchemaSnapshot, this: String = "the store", that: String = "the fresh build",
        presence: Bool = true
    ) -> [String] {
        var lines: [String] = []
        if presence {
            for table in expected.tables where self.table(table.name) == nil {
                lines.append("table \(table.name) only in \(that)")
            }
            for table in tables where expected.table(table.name) == nil {
                lines.append("table \(table.name) only in \(this)")
            }
        }
        for wanted in expected.tables {
            guard let table = self.table(wanted.name) else { continue }
            if presence {
                for column in wanted.columns where table.column(column.name) == nil {
                    lines.append("column \(wanted.name).\(column.name) only in \(that)")
                }
                for column in table.columns where wanted.column(column.name) == nil {
                    lines.append("column \(wanted.name).\(column.name) only in \(this)")
                }
            }
            for column in wanted.columns {
                guard let have = table.column(column.name),
                    have.canonical.lowercasedName != column.canonical.lowercasedName
                else { continue }
                lines.append(
                    "column \(wanted.name).\(column.name) is \(have.definition.isEmpty ? "untyped" : have.definition) in \(this), \(column.definition.isEmpty ? "untyped" : column.definition) in \(that)"
                )
            }
            let shared = wanted.columns.map(\.name).filter { table.column($0) != nil }
            let haveOrder = table.columns.map(\.name).filter { name in wanted.column(name) != nil }
            if shared.map({ $0.lowercasedName }) != haveOrder.map({ $0.lowercasedName }) {
                lines.append(
                    "table \(wanted.name) has its columns in another order: \(haveOrder.joined(separator: ", ")) in \(this), \(shared.joined(separator: ", ")) in \(that)"
                )
            }
            for (constraint, canonical) in zip(wanted.constraints, wanted.canonicalConstraints)
            where !table.canonicalConstraints.contains(where: { $0.lowercasedName == canonical.lowercasedName }) {
                lines.append("table \(wanted.name): constraint \(constraint) only in \(that)")
            }
            for (constraint, canonical) in zip(table.constraints, table.canonicalConstraints)
            where !wanted.canonicalConstraints.contains(where: { $0.lowercasedName == canonical.lowercasedName }) {
                lines.append("table \(wanted.name): constraint \(constraint) only in \(this)")
            }
            if table.canonicalOptions.lowercasedName != wanted.canonicalOptions.lowercasedName {
                lines.append(
                    "table \(wanted.name) is \(table.options.isEmpty ? "a rowid table" : table.options) in \(this), \(wanted.options.isEmpty ? "a rowid table" : wanted.options) in \(that)"
                )
            }
        }
        for object in expected.objects {
            guard let have = objects.first(where: { $0.type == object.type && $0.name.isSameName(as: object.name) })
            else {
                lines.append("\(object.type) \(object.name) only in \(that)")
                continue
            }
            if !have.agrees(with: object) {
                lines.append("\(object.type) \(object.name) differs: \(have.sql) in \(this), \(object.sql) in \(that)")
            }
        }
        for object in objects
        where !expected.objects.contains(where: { $0.type == object.type && $0.name.isSameName(as: object.name) }) {
            lines.append("\(object.type) \(object.name) only in \(this)")
        }
        return lines
    }
}
