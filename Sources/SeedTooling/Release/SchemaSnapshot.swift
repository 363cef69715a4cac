import Foundation
public import GRDB
import SeedRuntime

/// A store's schema, normalized for comparison: each table's columns in order with their
/// definitions (type, NOT NULL, DEFAULT, constraints as written), its table constraints and
/// options, and the indexes, triggers and views, whitespace collapsed. seedkit's own tables
/// are left out. Used by `check-upgrade`, `diff` and `new-migration --from`.
public struct SchemaSnapshot: Sendable, Equatable {
    public struct Column: Sendable, Equatable {
        public var name: String
        /// The column's definition as written, without its name: `TEXT NOT NULL DEFAULT 'x'`.
        public var definition: String
        /// The whole definition as written (name included), for `ALTER TABLE … ADD COLUMN`.
        public var text: String
        /// SQLite's own reading of the definition (`pragma_table_xinfo`): NOT NULL, the DEFAULT
        /// expression as written, and whether the column is generated (VIRTUAL or STORED).
        public var notNull = false
        public var defaultSQL: String?
        public var generated = false
        /// The declared type as SQLite reads it, and the 1-based position in the primary key (0: not in it).
        public var declaredType = ""
        public var primaryKeyIndex = 0
    }

    public struct Table: Sendable, Equatable {
        public var name: String
        public var sql: String
        public var columns: [Column]
        /// Table constraints (`UNIQUE (a, b)`, `CHECK (…)`, `FOREIGN KEY …`), normalized.
        public var constraints: [String]
        /// What follows the column list (`WITHOUT ROWID`, `STRICT`), normalized.
        public var options: String

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
        public var type: String
        public var name: String
        public var table: String
        public var sql: String
    }

    public var tables: [Table]
    public var objects: [Object]

    public func table(_ name: String) -> Table? { tables.first { $0.name.isSameName(as: name) } }

    /// Reads the schema of `db`'s main database.
    public static func read(_ db: Database) throws -> SchemaSnapshot {
        var snapshot = SchemaSnapshot(tables: [], objects: [])
        for row in try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND tbl_name NOT LIKE '\\_seedkit\\_%' ESCAPE '\\' ORDER BY rowid") {
            let type: String = row[0], name: String = row[1], table: String = row[2], sql: String = row[3]
            if type == "table" {
                var parsed = parseTable(name: name, sql: sql)
                // SQLite's reading of each column, where it can give one (not for a virtual table's module).
                if let facts = try? Row.fetchAll(db, sql: "SELECT name, \"notnull\", dflt_value, hidden, type, pk FROM pragma_table_xinfo(?)", arguments: [name]) {
                    for fact in facts {
                        let column: String = fact[0]
                        guard let index = parsed.columns.firstIndex(where: { $0.name.isSameName(as: column) }) else { continue }
                        parsed.columns[index].notNull = fact[1]
                        parsed.columns[index].defaultSQL = fact[2]
                        let hidden: Int = fact[3]
                        parsed.columns[index].generated = hidden == 2 || hidden == 3
                        parsed.columns[index].declaredType = fact[4] ?? ""
                        parsed.columns[index].primaryKeyIndex = fact[5]
                    }
                }
                snapshot.tables.append(parsed)
            } else {
                snapshot.objects.append(Object(type: type, name: name, table: table, sql: normalize(sql)))
            }
        }
        return snapshot
    }

    /// Splits `CREATE TABLE x (…) options` into columns and constraints.
    static func parseTable(name: String, sql: String) -> Table {
        let characters = Array(sql)
        guard let open = characters.firstIndex(of: "(") else { return Table(name: name, sql: sql, columns: [], constraints: [], options: "") }
        var parts: [String] = []
        var depth = 0
        var quote: Character?
        var current = ""
        var close = characters.count
        var index = open + 1
        while index < characters.count {
            let character = characters[index]
            if let open = quote {
                current.append(character)
                if character == (open == "[" ? "]" : open) { quote = nil }
            } else if character == "'" || character == "\"" || character == "`" || character == "[" {
                quote = character
                current.append(character)
            } else if character == "(" {
                depth += 1
                current.append(character)
            } else if character == ")" {
                if depth == 0 { close = index; break }
                depth -= 1
                current.append(character)
            } else if character == "," && depth == 0 {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
            index += 1
        }
        parts.append(current)
        var table = Table(name: name, sql: sql, columns: [], constraints: [],
                          options: close + 1 < characters.count ? normalize(String(characters[(close + 1)...])) : "")
        for part in parts {
            let text = part.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { continue }
            let (first, rest) = firstToken(text)
            if ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"].contains(first.uppercasedName) {
                table.constraints.append(normalize(text))
            } else {
                table.columns.append(Column(name: unquote(first), definition: normalize(rest), text: text))
            }
        }
        return table
    }

    private static func firstToken(_ text: String) -> (String, String) {
        let characters = Array(text)
        guard let first = characters.first else { return ("", "") }
        var end = 1
        if "\"`[".contains(first) {
            let closing: Character = first == "[" ? "]" : first
            while end < characters.count {
                if characters[end] == closing {
                    if end + 1 < characters.count, characters[end + 1] == closing, closing != "]" { end += 2; continue }
                    end += 1
                    break
                }
                end += 1
            }
        } else {
            while end < characters.count, !characters[end].isWhitespace, characters[end] != "(" { end += 1 }
        }
        return (String(characters[..<end]), String(characters[end...]))
    }

    static func unquote(_ name: String) -> String {
        guard let first = name.first, "\"`[".contains(first), name.count >= 2 else { return name }
        let inner = String(name.dropFirst().dropLast())
        return first == "[" ? inner : inner.replacingOccurrences(of: String(first) + String(first), with: String(first))
    }

    /// Whitespace runs (outside quotes) become one space; spaces next to parentheses and commas go.
    static func normalize(_ sql: String) -> String {
        var result = ""
        var quote: Character?
        var pendingSpace = false
        for character in sql {
            if let open = quote {
                result.append(character)
                if character == (open == "[" ? "]" : open) { quote = nil }
                continue
            }
            if character.isWhitespace { pendingSpace = true; continue }
            if pendingSpace, let last = result.last, last != "(", last != ",", character != ")", character != "," { result.append(" ") }
            pendingSpace = false
            if "'\"`[".contains(character) { quote = character }
            result.append(character)
        }
        return result
    }

    // MARK: - Differences

    /// The ways `self` (the upgraded or old store) differs from `expected` (a fresh build), one
    /// line each, in a stable order; empty when they agree.
    ///
    /// - parameter presence: whether to list tables and columns that only one side has (`diff`
    ///   reports those itself, in the app's names).
    public func differences(from expected: SchemaSnapshot, this: String = "the store", that: String = "the fresh build", presence: Bool = true) -> [String] {
        var lines: [String] = []
        if presence {
            for table in expected.tables where self.table(table.name) == nil { lines.append("table \(table.name) only in \(that)") }
            for table in tables where expected.table(table.name) == nil { lines.append("table \(table.name) only in \(this)") }
        }
        for wanted in expected.tables {
            guard let table = self.table(wanted.name) else { continue }
            if presence {
                for column in wanted.columns where table.column(column.name) == nil { lines.append("column \(wanted.name).\(column.name) only in \(that)") }
                for column in table.columns where wanted.column(column.name) == nil { lines.append("column \(wanted.name).\(column.name) only in \(this)") }
            }
            for column in wanted.columns {
                guard let have = table.column(column.name), !have.definition.isSameName(as: column.definition) else { continue }
                lines.append("column \(wanted.name).\(column.name) is \(have.definition.isEmpty ? "untyped" : have.definition) in \(this), \(column.definition.isEmpty ? "untyped" : column.definition) in \(that)")
            }
            let shared = wanted.columns.map(\.name).filter { table.column($0) != nil }
            let haveOrder = table.columns.map(\.name).filter { name in wanted.column(name) != nil }
            if shared.map({ $0.lowercasedName }) != haveOrder.map({ $0.lowercasedName }) {
                lines.append("table \(wanted.name) has its columns in another order: \(haveOrder.joined(separator: ", ")) in \(this), \(shared.joined(separator: ", ")) in \(that)")
            }
            for constraint in wanted.constraints where !table.constraints.contains(where: { $0.isSameName(as: constraint) }) { lines.append("table \(wanted.name): constraint \(constraint) only in \(that)") }
            for constraint in table.constraints where !wanted.constraints.contains(where: { $0.isSameName(as: constraint) }) { lines.append("table \(wanted.name): constraint \(constraint) only in \(this)") }
            if !table.options.isSameName(as: wanted.options) {
                lines.append("table \(wanted.name) is \(table.options.isEmpty ? "a rowid table" : table.options) in \(this), \(wanted.options.isEmpty ? "a rowid table" : wanted.options) in \(that)")
            }
        }
        for object in expected.objects {
            guard let have = objects.first(where: { $0.type == object.type && $0.name.isSameName(as: object.name) }) else {
                lines.append("\(object.type) \(object.name) only in \(that)")
                continue
            }
            if !have.sql.isSameName(as: object.sql) { lines.append("\(object.type) \(object.name) differs: \(have.sql) in \(this), \(object.sql) in \(that)") }
        }
        for object in objects where !expected.objects.contains(where: { $0.type == object.type && $0.name.isSameName(as: object.name) }) {
            lines.append("\(object.type) \(object.name) only in \(this)")
        }
        return lines
    }
}
