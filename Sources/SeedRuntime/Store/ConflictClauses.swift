import Foundation
import GRDB

/// The `ON CONFLICT` clauses a table's schema declares on its NOT NULL, UNIQUE and PRIMARY KEY
/// constraints, read from its `CREATE TABLE` text.
///
/// seedkit names the algorithm on every statement it runs (`INSERT OR ABORT`, `UPDATE OR
/// ABORT`), which overrides these clauses: a REPLACE clause would delete the row that holds the
/// value (a user's row), an IGNORE clause would drop the row seedkit was asked to write, both
/// without an error. The clauses still tell seedkit what the schema's author meant: a value
/// held by another row is an expected collision (reported as a row not applied, with why), not
/// a broken migration.
package struct ConflictClauses: Sendable, Equatable {
    /// One declared clause: the constraint's kind and columns (lower-cased), and its algorithm
    /// (upper-cased: `REPLACE`, `IGNORE`, `FAIL`, `ROLLBACK`, `ABORT`).
    package struct Clause: Sendable, Equatable {
        package enum Kind: String, Sendable {
            case notNull = "NOT NULL"
            case unique = "UNIQUE"
            case primaryKey = "PRIMARY KEY"
        }
        package var kind: Kind
        package var columns: [String]
        package var algorithm: String
    }

    package var clauses: [Clause]

    /// The clauses of `table` in `db`'s schema (none for a table SQLite has no text for).
    package static func read(_ db: Database, table: String) throws -> ConflictClauses {
        let sql =
            try String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE",
                arguments: [table]) ?? ""
        return ConflictClauses(createTableSQL: sql)
    }

    /// Whether the schema declares any clause that makes SQLite drop or delete rows without an error.
    package var dropsRows: Bool { clauses.contains { $0.algorithm == "REPLACE" || $0.algorithm == "IGNORE" } }

    /// The clause of the UNIQUE or PRIMARY KEY constraint on exactly `columns` (any case, any order).
    package func uniqueClause(on columns: [String]) -> Clause? {
        let wanted = Set(columns.map { $0.lowercasedName })
        return clauses.first { $0.kind != .notNull && Set($0.columns) == wanted }
    }

    /// The columns named by a UNIQUE constraint failure's message (`UNIQUE constraint failed:
    /// books.isbn, books.shelf`), without their table.
    package static func columns(inConstraintMessage message: String) -> [String]? {
        guard let colon = message.range(of: "constraint failed: ") else { return nil }
        let names = message[colon.upperBound...].split(separator: ",").map { part -> String in
            let name = part.trimmingCharacters(in: .whitespaces)
            return name.split(separator: ".", maxSplits: 1).last.map(String.init) ?? name
        }
        return names.isEmpty ? nil : names
    }

    /// Reads the clauses of a `CREATE TABLE` statement.
    package init(createTableSQL sql: String) {
        clauses = []
        let tokens = Self.tokens(sql)
        guard let open = tokens.firstIndex(of: "(") else { return }
        // The definitions: top-level comma-separated runs inside the outer parentheses.
        var definitions: [[String]] = [[]]
        var depth = 0
        for token in tokens[(open + 1)...] {
            if token == "(" {
                depth += 1
            } else if token == ")" {
                if depth == 0 { break }
                depth -= 1
            } else if token == "," && depth == 0 {
                definitions.append([])
                continue
            }
            definitions[definitions.count - 1].append(token)
        }
        for definition in definitions where !definition.isEmpty {
            var words = definition
            if words.first?.uppercasedName == "CONSTRAINT" { words.removeFirst(min(2, words.count)) }
            let head = words.first?.uppercasedName ?? ""
            if head == "PRIMARY" || head == "UNIQUE" {
                // A table constraint: PRIMARY KEY (a, b) / UNIQUE (a, b), then maybe ON CONFLICT x.
                guard let open = words.firstIndex(of: "("), let close = words[open...].firstIndex(of: ")") else {
                    continue
                }
                var columns: [String] = []
                var expectName = true
                for token in words[(open + 1)..<close] {
                    if token == "," {
                        expectName = true
                    } else if expectName {
                        columns.append(Self.unquoted(token).lowercasedName)
                        expectName = false
                    }
                }
                let algorithm = Self.algorithm(after: close + 1, in: words) ?? "ABORT"
                clauses.append(
                    Clause(kind: head == "UNIQUE" ? .unique : .primaryKey, columns: columns, algorithm: algorithm))
            } else if ["CHECK", "FOREIGN"].contains(head) {
                continue
            } else if let name = words.first {
                // A column definition: its constraints, each maybe with ON CONFLICT x.
                let column = Self.unquoted(name).lowercasedName
                var index = 1
                while index < words.count {
                    let word = words[index].uppercasedName
                    let next = index + 1 < words.count ? words[index + 1].uppercasedName : ""
                    var kind: Clause.Kind?
                    var end = index + 1
                    if word == "PRIMARY" && next == "KEY" {
                        kind = .primaryKey
                        end = index + 2
                    } else if word == "UNIQUE" {
                        kind = .unique
                    } else if word == "NOT" && next == "NULL" {
                        kind = .notNull
                        end = index + 2
                    }
                    if let kind {
                        var after = end
                        if after < words.count, ["ASC", "DESC"].contains(words[after].uppercasedName) { after += 1 }
                        clauses.append(
                            Clause(
                                kind: kind, columns: [column],
                                algorithm: Self.algorithm(after: after, in: words) ?? "ABORT"))
                        index = after
                    } else {
                        index += 1
                    }
                }
            }
        }
    }

    /// The algorithm of an `ON CONFLICT x` starting at `index`, if one does.
    private static func algorithm(after index: Int, in words: [String]) -> String? {
        guard index + 2 < words.count, words[index].uppercasedName == "ON",
            words[index + 1].uppercasedName == "CONFLICT"
        else { return nil }
        return words[index + 2].uppercasedName
    }

    private static func unquoted(_ token: String) -> String {
        guard let first = token.first, let last = token.last, token.count >= 2 else { return token }
        switch (first, last) {
        case ("\"", "\""): return String(token.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
        case ("`", "`"): return String(token.dropFirst().dropLast()).replacingOccurrences(of: "``", with: "`")
        case ("[", "]"): return String(token.dropFirst().dropLast())
        default: return token
        }
    }

    private static func isWordCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_" || character == "$"
    }

    /// SQL tokens: words, quoted names and strings kept whole, punctuation one by one; comments dropped.
    package static func tokens(_ sql: String) -> [String] {
        var tokens: [String] = []
        let characters = Array(sql)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace {
                index += 1
                continue
            }
            if character == "-", index + 1 < characters.count, characters[index + 1] == "-" {
                while index < characters.count, characters[index] != "\n" { index += 1 }
                continue
            }
            if character == "/", index + 1 < characters.count, characters[index + 1] == "*" {
                index += 2
                while index + 1 < characters.count, !(characters[index] == "*" && characters[index + 1] == "/") {
                    index += 1
                }
                index += 2
                continue
            }
            if character == "\"" || character == "'" || character == "`" || character == "[" {
                let close: Character = character == "[" ? "]" : character
                var end = index + 1
                while end < characters.count {
                    if characters[end] == close {
                        // A doubled quote inside a quoted name or string is one quote.
                        if close != "]", end + 1 < characters.count, characters[end + 1] == close {
                            end += 2
                            continue
                        }
                        break
                    }
                    end += 1
                }
                tokens.append(String(characters[index...min(end, characters.count - 1)]))
                index = end + 1
                continue
            }
            if Self.isWordCharacter(character) {
                var end = index
                while end < characters.count, Self.isWordCharacter(characters[end]) { end += 1 }
                tokens.append(String(characters[index..<end]))
                index = end
                continue
            }
            tokens.append(String(character))
            index += 1
        }
        return tokens
    }
}

/// The triggers that can veto a write to a table without an error (`RAISE(IGNORE)`), so that a
/// row seedkit asked SQLite to write did not arrive: named in the row's report.
package enum TriggerVeto {
    /// What to say about a write SQLite did not make: `vetoed by trigger no_pricey`, or the
    /// candidates when several triggers of `table` for `event` (INSERT, UPDATE, DELETE) could have.
    package static func reason(_ db: Database, table: String, event: String) throws -> String {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE
                UNION ALL SELECT name, sql FROM sqlite_temp_master WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE
                ORDER BY name
                """, arguments: [table, table])
        var ignoring: [String] = []
        var others: [String] = []
        for row in rows {
            let name: String = row[0] ?? ""
            let tokens = ConflictClauses.tokens(row[1] ?? "").map { $0.uppercasedName }
            // The event is named before the trigger's table: `BEFORE INSERT ON books`.
            guard tokens[..<(tokens.firstIndex(of: "ON") ?? tokens.endIndex)].contains(event) else { continue }
            var raisesIgnore = false
            for index in tokens.indices.dropLast(2) where tokens[index] == "RAISE" {
                if tokens[index + 1] == "(", tokens[index + 2] == "IGNORE" { raisesIgnore = true }
            }
            if raisesIgnore { ignoring.append(name) } else { others.append(name) }
        }
        let candidates = ignoring.isEmpty ? others : ignoring
        switch candidates.count {
        case 0: return "SQLite made no change (no trigger of \(table) explains it)"
        case 1: return "vetoed by trigger \(candidates[0])"
        default: return "vetoed by one of the triggers \(candidates.joined(separator: ", "))"
        }
    }
}
