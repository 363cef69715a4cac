import Foundation

/// One numbered data update: a declarative file (`NNNN-name.yml`/`.json`) or SQL (`NNNN-name.sql`).
public struct Migration: Sendable, Equatable {
    /// The number from the file name: `1` for `0001-add-fourth-book.yml`.
    public var number: Int
    /// The name from the file name: `add-fourth-book`.
    public var name: String
    /// The file, for messages.
    public var file: String
    /// `sha256:` and the hex digest of the migration's content (over canonical JSON for YAML and JSON, so either form of a migration has the same checksum).
    ///
    /// For a large JSON migration ``MigrationDirectory/load(_:)`` reads while it is applied, the
    /// checksum is known once it has been read: asking earlier reads it then.
    public var checksum: String {
        get {
            if case .changes(let changes) = body, let deferred = changes.deferred { return deferred.checksum }
            return storedChecksum
        }
        set { storedChecksum = newValue }
    }
    private var storedChecksum: String
    package var body: Body

    package enum Body: Sendable, Equatable {
        /// SQL run as written, once.
        case sql(String)
        /// Declarative inserts, updates and deletes.
        case changes(DataChanges)
    }

    package init(number: Int, name: String, file: String, checksum: String, body: Body) {
        self.number = number
        self.name = name
        self.file = file
        self.storedChecksum = checksum
        self.body = body
    }

    /// `0001-add-fourth-book`.
    public var id: String { Migration.id(number: number, name: name) }

    /// `0001-add-fourth-book` for number 1 and name `add-fourth-book`.
    package static func id(number: Int, name: String) -> String { String(number).leftPadded(to: 4) + "-" + name }

    /// The extensions of migration files: declarative (YAML, JSON) and SQL.
    package static let fileExtensions: Set<String> = ["yml", "yaml", "json", "sql"]

    /// Splits `0001-add-fourth-book.yml` into its number and name; nil for other names.
    package static func parseFileName(_ fileName: String) -> (number: Int, name: String, ext: String)? {
        guard let dot = fileName.lastIndex(of: ".") else { return nil }
        let stem = fileName[..<dot]
        let ext = String(fileName[fileName.index(after: dot)...]).lowercasedName
        let digits = stem.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let number = Int(digits) else { return nil }
        var rest = stem.dropFirst(digits.count)
        if rest.first == "-" || rest.first == "_" { rest = rest.dropFirst() }
        return (number, String(rest), ext)
    }

    /// The checksum of a migration: SHA-256 over SQL as written, or over a declarative
    /// migration's canonical JSON, so that the same content in YAML or JSON has the same
    /// checksum and comments or formatting do not count as a change.
    package static func checksum(sql: String) -> String { "sha256:" + SHA256.hex(sql.utf8) }

    /// See ``checksum(sql:)``.
    package static func checksum(of document: DocNode) -> String {
        // Hashed 64 KiB at a time: a 100,000-row migration's text is never in memory whole.
        var hash = SHA256()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1 << 17)
        document.writeJSON(into: &bytes) { bytes in
            bytes.withUnsafeBytes { hash.update(buffer: $0) }
            bytes.removeAll(keepingCapacity: true)
        }
        bytes.withUnsafeBytes { hash.update(buffer: $0) }
        return "sha256:" + hash.hexDigest
    }

    /// Builds a migration from a file's name and parsed content.
    package static func make(fileName: String, file: String, document: DocNode) throws(SeedError) -> Migration {
        guard let parts = parseFileName(fileName) else {
            throw SeedError(
                .configuration, file: file,
                "a migration file name must start with its number, like 0001-add-fourth-book.yml")
        }
        let changes = try DataChanges(document: document, file: file)
        return Migration(
            number: parts.number, name: parts.name, file: file, checksum: checksum(of: document),
            body: .changes(changes))
    }
}

/// Declarative changes: `insert`, `update` and `delete`, each by table, in the order written.
package struct DataChanges: Sendable, Equatable {
    /// The operations in the order written (for a deferred file, read whole when first asked).
    package var operations: [Operation] {
        get { deferred?.operations ?? loaded }
        set {
            loaded = newValue
            deferred = nil
        }
    }
    private var loaded: [Operation]
    /// A large JSON file read while the run applies it (``DeferredJSONMigration``), or nil.
    package private(set) var deferred: DeferredJSONMigration?

    package static func == (lhs: DataChanges, rhs: DataChanges) -> Bool {
        (lhs.deferred != nil && lhs.deferred === rhs.deferred) || lhs.operations == rhs.operations
    }

    /// Changes read from `file` as they are applied.
    package init(deferred: DeferredJSONMigration) {
        self.loaded = []
        self.deferred = deferred
    }

    package enum Operation: Sendable, Equatable {
        case insert(table: String, rows: [RowValues])
        case update(table: String, changes: [RowChange])
        case delete(table: String, changes: [RowChange])

        package var table: String {
            switch self {
            case .insert(let table, _), .update(let table, _), .delete(let table, _): return table
            }
        }
    }

    /// Column values in written order, with where they were written.
    package struct RowValues: Sendable, Equatable {
        package var values: [(column: String, value: InputValue)]
        package var line: Int
        package var file: String

        package init(values: [(column: String, value: InputValue)], line: Int = 0, file: String = "") {
            self.values = values
            self.line = line
            self.file = file
        }

        package static func == (lhs: RowValues, rhs: RowValues) -> Bool {
            lhs.line == rhs.line && lhs.file == rhs.file && lhs.values.map(\.column) == rhs.values.map(\.column)
                && lhs.values.map(\.value) == rhs.values.map(\.value)
        }

        package subscript(column: String) -> InputValue? { values.first { $0.column == column }?.value }
    }

    /// An update (`key`, `from`, `to`) or a delete (`key`, optional `from`).
    package struct RowChange: Sendable, Equatable {
        /// A single key value (`The first book`) or values by column for composite keys.
        package var key: Key
        package var from: RowValues
        package var to: RowValues
        package var line: Int

        package init(key: Key, from: RowValues, to: RowValues, line: Int = 0) {
            self.key = key
            self.from = from
            self.to = to
            self.line = line
        }
    }

    package enum Key: Sendable, Equatable, CustomStringConvertible {
        case single(InputValue)
        case columns(RowValues)

        package var description: String {
            switch self {
            case .single(let value): return value.description
            case .columns(let row):
                return "{" + row.values.map { "\($0.column): \($0.value)" }.joined(separator: ", ") + "}"
            }
        }
    }

    package init(operations: [Operation]) { self.loaded = operations }

    /// Reads the document of a migration file.
    package init(document: DocNode, file: String) throws(SeedError) {
        guard let sections = document.entries else {
            throw Self.fail(document, file, "a migration is a map with insert, update and/or delete")
        }
        var operations: [Operation] = []
        for section in sections {
            try Self.checkSection(section.key, line: section.line, column: section.column, file: file)
            if case .null = section.node.value { continue }
            guard let tables = section.node.entries else {
                throw Self.fail(section.node, file, "'\(section.key)' must be a map of table: [rows]")
            }
            for table in tables {
                guard let items = table.node.items else {
                    throw Self.fail(table.node, file, "'\(section.key).\(table.key)' must be a list of rows")
                }
                if section.key == "insert" {
                    var rows: [RowValues] = []
                    for item in items { rows.append(try Self.insertRow(item, file: file)) }
                    operations.append(.insert(table: table.key, rows: rows))
                } else {
                    var changes: [RowChange] = []
                    for item in items { changes.append(try Self.change(item, section: section.key, file: file)) }
                    operations.append(
                        section.key == "update"
                            ? .update(table: table.key, changes: changes) : .delete(table: table.key, changes: changes))
                }
            }
        }
        self.loaded = operations
    }

    private static func fail(_ node: DocNode, _ file: String, _ message: String) -> SeedError {
        SeedError(.configuration, file: file, line: node.line, column: node.column, message)
    }

    /// Refuses a section other than `insert`, `update` and `delete`.
    static func checkSection(_ key: String, line: Int, column: Int, file: String) throws(SeedError) {
        guard ["insert", "update", "delete"].contains(key) else {
            throw SeedError(
                .configuration, file: file, line: line, column: column,
                "unknown operation '\(key)' (expected insert, update or delete)")
        }
    }

    private static func rowValues(_ node: DocNode, what: String, file: String) throws(SeedError) -> RowValues {
        guard let entries = node.entries else { throw fail(node, file, "\(what) must be a map of column: value") }
        return RowValues(values: entries.map { ($0.key, $0.node.inputValue) }, line: node.line, file: file)
    }

    /// One row of an `insert` section.
    static func insertRow(_ item: DocNode, file: String) throws(SeedError) -> RowValues {
        try rowValues(item, what: "a row to insert", file: file)
    }

    /// One item of an `update` or `delete` section (`section`).
    static func change(_ item: DocNode, section: String, file: String) throws(SeedError) -> RowChange {
        guard let entries = item.entries else {
            throw fail(item, file, "each \(section) is a map with key, from\(section == "update" ? " and to" : "")")
        }
        var key: Key?
        var from = RowValues(values: [], line: item.line, file: file)
        var hasFrom = false
        var to = RowValues(values: [], line: item.line, file: file)
        for entry in entries {
            switch entry.key {
            case "key":
                if let keyEntries = entry.node.entries {
                    key = .columns(
                        RowValues(values: keyEntries.map { ($0.key, $0.node.inputValue) }, line: entry.line, file: file)
                    )
                } else if entry.node.items != nil {
                    throw fail(entry.node, file, "a key is one value, or a map of column: value for a composite key")
                } else {
                    key = .single(entry.node.inputValue)
                }
            case "from":
                from = try rowValues(entry.node, what: "'from'", file: file)
                hasFrom = true
            case "to" where section == "update": to = try rowValues(entry.node, what: "'to'", file: file)
            default:
                let allowed = section == "update" ? "key, from, to" : "key, from"
                throw SeedError(
                    .configuration, file: file, line: entry.line, column: entry.column,
                    "unknown field '\(entry.key)' in \(section) (expected \(allowed))")
            }
        }
        guard let key else { throw fail(item, file, "this \(section) has no 'key'") }
        if section == "update" && to.values.isEmpty { throw fail(item, file, "this update has no 'to' values") }
        // Without `from`, a delete could not tell a row the user changed from the one the seed shipped.
        if section == "delete" && !hasFrom {
            throw fail(
                item, file,
                "this delete has no 'from': give the values the previous seed shipped (`from: {}` for a row with nothing but its key), so that a row the user changed is kept"
            )
        }
        return RowChange(key: key, from: from, to: to, line: item.line)
    }
}
