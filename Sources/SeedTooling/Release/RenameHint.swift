import Foundation
import GRDB
public import SeedRuntime

/// A rename the author names for `new-migration --from`: `--rename 'countries:Turkey=Türkiye'`.
///
/// `TABLE:OLD=NEW`, the keys as the fixtures write them. A composite key lists its parts in
/// the key's column order, separated by commas: `prices:EUR,2024=EUR,2025`. A part holding a
/// comma, `=` or a double quote is written in double quotes, a quote inside doubled:
/// `books:"Hello, world"=Hello`. An unquoted part is read as a fixture's field is, exactly:
/// nothing is trimmed (a trailing space or U+00A0 is part of the key, as it is in the CSV).
public struct RenameHint: Sendable, Equatable {
    /// The table as the manifest names it.
    public var table: String
    /// The key the row had, each part as its text.
    public var old: [String]
    /// The key the row has, each part as its text.
    public var new: [String]
    /// The hint as given, for messages.
    public var text: String

    /// A hint that `table`'s row keyed `old` is now keyed `new`, given as `text`.
    public init(table: String, old: [String], new: [String], text: String) {
        self.table = table
        self.old = old
        self.new = new
        self.text = text
    }

    /// Parses `TABLE:OLD=NEW`.
    ///
    /// - throws: ``SeedError`` (configuration) saying what the hint should look like.
    public static func parse(_ text: String) throws(SeedError) -> RenameHint {
        func fail(_ why: String) -> SeedError {
            SeedError(
                .configuration,
                "--rename '\(text)': \(why); write TABLE:OLD_KEY=NEW_KEY, like countries:Turkey=Türkiye (a composite key's parts separated by commas, a part with a comma, '=' or '\"' in double quotes)"
            )
        }
        guard let colon = text.firstIndex(of: ":") else { throw fail("no table (a ':' after it)") }
        let table = String(text[..<colon]).trimmingCharacters(in: .whitespaces)
        guard !table.isEmpty else { throw fail("no table before ':'") }
        // Split the rest on unquoted '=' and ','.
        var sides: [[String]] = [[]]
        var part = ""
        var quoted = false
        var wasQuoted = false
        var characters = text[text.index(after: colon)...].makeIterator()
        var pending: Character? = nil
        while let character = pending ?? characters.next() {
            pending = nil
            if quoted {
                if character == "\"" {
                    if let following = characters.next() {
                        if following == "\"" {
                            part.append("\"")
                        } else {
                            quoted = false
                            pending = following
                        }
                    } else {
                        quoted = false
                    }
                } else {
                    part.append(character)
                }
                continue
            }
            switch character {
            case "\"":
                guard part.trimmingCharacters(in: .whitespaces).isEmpty, !wasQuoted else {
                    throw fail("a quote in the middle of a key part")
                }
                part = ""
                quoted = true
                wasQuoted = true
            case ",", "=":
                sides[sides.count - 1].append(part)
                part = ""
                wasQuoted = false
                if character == "=" { sides.append([]) }
            default:
                if wasQuoted {
                    guard character.isWhitespace else { throw fail("text after a quoted key part") }
                } else {
                    part.append(character)
                }
            }
        }
        if quoted { throw fail("a quote is not closed") }
        sides[sides.count - 1].append(part)
        guard sides.count == 2 else {
            throw fail(
                sides.count == 1
                    ? "no '=' between the old key and the new one"
                    : "more than one '=' (quote a key part that holds one)")
        }
        guard sides[0].count == sides[1].count else {
            throw fail(
                "the old key has \(sides[0].count) part\(sides[0].count == 1 ? "" : "s"), the new one \(sides[1].count)"
            )
        }
        guard !sameBytes(sides[0], sides[1]) else { throw fail("the old and the new key are the same") }
        return RenameHint(table: table, old: sides[0], new: sides[1], text: text)
    }

    /// A key value as a hint writes it: text as is, numbers as written.
    static func text(_ value: SQLValue) -> String {
        switch value {
        case .null: return ""
        case .integer(let number): return String(number)
        case .real(let number): return SQLValue.format(number)
        case .text(let text): return text
        case .blob(let bytes): return Data(bytes).base64EncodedString()
        }
    }
}

extension MigrationGenerator {
    /// The old and new key a hint names, found among the keys the fresh build lost and gained.
    ///
    /// - Parameters:
    ///   - hint: the `--rename` as given.
    ///   - table: the table the hint names, with its key columns.
    ///   - change: the table's differences from the old seed to the fresh build.
    ///   - old: the old seed with the existing migrations applied (where existing users are).
    ///   - current: the fresh build of the fixtures.
    ///   - original: the old seed as shipped, for messages.
    ///   - appliedMigrations: the migrations applied to `original` to make `old`, for messages.
    /// - Returns: the old and new key, values in the key columns' order; or why the hint names no
    ///   such rename, as a diagnostic naming the hint.
    /// - Throws: a database error when a store cannot be read.
    static func resolve(
        _ hint: RenameHint, table: SemanticRows, change: StoreDiff.TableDiff, old: DatabaseQueue,
        current: DatabaseQueue,
        original: DatabaseQueue? = nil, appliedMigrations: [String] = []
    ) throws -> Result<(old: [SQLValue], new: [SQLValue]), Diagnostic> {
        let name = table.written.name
        func problem(_ why: String) -> Result<(old: [SQLValue], new: [SQLValue]), Diagnostic> {
            .failure(Diagnostic(code: .configuration, message: "--rename '\(hint.text)': \(why)", table: name))
        }
        let columns = table.writtenKeyColumns
        guard hint.old.count == columns.count else {
            return problem(
                "the key of \(name) has \(columns.count) column\(columns.count == 1 ? "" : "s") (\(columns.joined(separator: ", "))), the hint gives \(hint.old.count)"
            )
        }
        func shown(_ parts: [String]) -> String { parts.map { "'\($0)'" }.joined(separator: ", ") }
        func exists(_ parts: [String], in queue: DatabaseQueue) throws -> Bool {
            try queue.read { db in try table.count(db, key: parts.map(SQLValue.text)) } > 0
        }
        // Each part read as the fixtures read that key column (its type's conversion, nothing trimmed
        // beforehand), then compared as SQLite compares values; a ref column's part is its parent's key, as text.
        let types: [ColumnType?] = columns.indices.map { index in
            let column = table.keyColumns[index]
            return table.reference(column) == nil ? table.table.column(column)?.type : nil
        }
        func read(_ part: String, as type: ColumnType?) -> SQLValue {
            guard let type else { return .text(part) }
            var bytes = Array(part.utf8)
            let converted = bytes.withUnsafeMutableBytes { type.convert(text: UnsafeRawBufferPointer($0)) }
            switch converted {
            case .success(.integer(let number)): return .integer(number)
            case .success(.real(let number)): return .real(number)
            case .success(.blob(let blob)): return .blob(blob)
            case .success(.null): return .null
            case .success, .failure: return .text(part)
            }
        }
        func same(_ key: [SQLValue], _ parts: [String]) -> Bool {
            key.count == parts.count
                && zip(zip(key, parts), types).allSatisfy { pair, type in
                    if case .text(let text) = pair.0 { return text.utf8.elementsEqual(pair.1.utf8) }
                    return pair.0.isSame(as: read(pair.1, as: type))
                }
        }
        guard let oldKey = change.removed.first(where: { same($0.key, hint.old) })?.key else {
            if try exists(hint.old, in: old) {
                return problem(
                    "the fixtures still have \(name) \(shown(hint.old)), so it is not renamed; the old key of a rename is one the fixtures no longer have"
                )
            }
            // The old seed the hint is read against is the shipped one with the existing migrations applied.
            if !appliedMigrations.isEmpty, let original, try exists(hint.old, in: original) {
                return problem(
                    "the old seed has \(name) \(shown(hint.old)), but the old seed with the existing migrations applied (\(appliedMigrations.joined(separator: ", "))) does not: one of them deleted or renamed it, so this release has no row to rename"
                )
            }
            return problem(
                "no row of \(name) in the old seed\(appliedMigrations.isEmpty ? "" : " (nor in it with the existing migrations applied)") has the key \(shown(hint.old))"
            )
        }
        guard let newKey = change.added.first(where: { same($0.key, hint.new) })?.key else {
            return try exists(hint.new, in: current)
                ? problem(
                    "the old seed already has \(name) \(shown(hint.new)), so nothing is renamed to it; the new key of a rename is one the old seed does not have"
                )
                : problem("no row of \(name) in the fixtures has the key \(shown(hint.new))")
        }
        return .success((oldKey, newKey))
    }

    /// Renames a table's id tells: when the fixtures give every row its INTEGER PRIMARY KEY (so
    /// the ids are the author's, not ones SQLite assigned by order) and every row both seeds
    /// have under the same key has the same id in both, a key only the old seed has and a key
    /// only the fresh build has that share an id are the same row, renamed.
    func identityRenames(
        table: SemanticRows, change: StoreDiff.TableDiff, excluding pairs: [(old: [SQLValue], new: [SQLValue])],
        old: DatabaseQueue, current: DatabaseQueue
    ) throws -> [(old: [SQLValue], new: [SQLValue])] {
        guard !change.removed.isEmpty, !change.added.isEmpty, let id = table.assignedID,
            try ReleaseKeyIndex(manifest: manifest, migrations: []).fixtureGivesEveryRow(
                table: table.written.name, column: table.writtenName(id))
        else { return [] }
        let before = try old.read { db in try table.keys(db, with: id) }
        let after = try current.read { db in try table.keys(db, with: id) }
        var oldIDs: [String: SQLValue] = [:]
        for row in before { oldIDs[Follow.id(row.key)] = row.value }
        var newIDs: [String: SQLValue] = [:]
        for row in after {
            // the ids are no identity
            if let shared = oldIDs[Follow.id(row.key)], !shared.isSame(as: row.value) { return [] }
            newIDs[Follow.id(row.key)] = row.value
        }
        let excludedOld = Set(pairs.map { Follow.id($0.old) })
        let excludedNew = Set(pairs.map { Follow.id($0.new) })
        var removedByID: [String: [SQLValue]] = [:]
        for key in change.removed.map(\.key) where !excludedOld.contains(Follow.id(key)) {
            if let value = oldIDs[Follow.id(key)], value != .null { removedByID[Follow.id(value)] = key }
        }
        return change.added.map(\.key).compactMap { key in
            guard !excludedNew.contains(Follow.id(key)), let value = newIDs[Follow.id(key)], value != .null,
                let oldKey = removedByID.removeValue(forKey: Follow.id(value))
            else { return nil }
            return (oldKey, key)
        }
    }
}

/// What renamed rows' refs read as after the rename: children of a renamed row follow it
/// (by id, or `migrate` changes the value they store), so a ref that only follows is no change.
struct Follow {
    /// Parent table → column → old value (``id(_:)``) → new value; lower-cased store names.
    private var values: [String: [String: [String: SQLValue]]] = [:]

    /// A value's identity for dictionaries: whole reals as integers (`10` and `10.0` are one key).
    static func id(_ value: SQLValue) -> String { ReleaseKeyIndex.normalized(value).sqlLiteral.exactKey }
    static func id(_ key: [SQLValue]) -> String { key.map(id).joined(separator: "\u{1}") }

    /// Records a renamed row: its changed plain columns are what refs to it now read.
    mutating func record(
        table: SemanticRows, old: [(column: String, value: SQLValue)], new: [(column: String, value: SQLValue)]
    ) {
        for (before, after) in zip(old, new)
        where before.value != .null && before.value != after.value && table.reference(before.column) == nil {
            values[table.spec.name.lowercasedName, default: [:]][before.column.lowercasedName, default: [:]][
                Self.id(before.value)] = after.value
        }
    }

    /// `value` of `table.column` as it reads once the renames are applied.
    func value(_ value: SQLValue, column: String, table: SemanticRows) -> SQLValue {
        // Without renames (most releases) nothing follows: no identity string built per ref value.
        guard !values.isEmpty, value != .null, let reference = table.reference(column),
            let renamed = values[reference.table.lowercasedName]?[reference.column.lowercasedName],
            let new = renamed[Self.id(value)]
        else { return value }
        return new
    }

    /// Whether no rename has been recorded: every value reads as it is.
    var isEmpty: Bool { values.isEmpty }

    func key(_ key: [SQLValue], table: SemanticRows) -> [SQLValue] {
        zip(table.keyColumns, key).map { value($1, column: $0, table: table) }
    }
}
