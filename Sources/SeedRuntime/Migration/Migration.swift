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
    /// The size and SHA-256 (hex) of the `.json` file an app bundles for this migration (its
    /// canonical JSON and a newline), worked out while the checksum is, for a migration read from
    /// its document (YAML); nil when not known.
    ///
    /// Kept with the changes, whose equality leaves it out: two readings of one file are the same
    /// migration.
    package var bundledJSON: BundledJSON? {
        get { if case .changes(let changes) = body { changes.bundledJSON } else { nil } }
        set {
            guard case .changes(var changes) = body else { return }
            changes.bundledJSON = newValue
            body = .changes(changes)
        }
    }

    /// See ``bundledJSON``.
    package struct BundledJSON: Sendable, Equatable {
        package var bytes: Int
        package var sha256: String
    }

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

    /// The extensions of migration files: declarative (YAML, JSON) and SQL (``MigrationGrammar/FileFormat``).
    package static var fileExtensions: Set<String> { MigrationGrammar.fileExtensions }

    /// The name of the file an app bundles for this migration (`seedkit export-migrations`, the
    /// build plugin): `0001-add-fourth-book.json` for a declarative one, whatever it was written
    /// in, `.sql` for SQL.
    package var bundledFileName: String {
        let format: MigrationGrammar.FileFormat = if case .sql = body { .sql } else { .json }
        return id + "." + format.bundled.fileExtension
    }

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
    package static func checksum(of document: DocNode) -> String { checksums(of: document).checksum }

    /// ``checksum(of:)`` and, in the same pass, the bundled `.json` file's facts (``bundledJSON``):
    /// `build` records the digest of a large one without reading the migration a second time.
    package static func checksums(of document: DocNode) -> (checksum: String, bundled: BundledJSON) {
        // Hashed 64 KiB at a time: a 100,000-row migration's text is never in memory whole.
        var hash = SHA256()
        var file = SHA256()
        var count = 0
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1 << 17)
        func add(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes {
                hash.update(buffer: $0)
                file.update(buffer: $0)
            }
            count += bytes.count
        }
        document.writeJSON(into: &bytes) { bytes in
            add(bytes)
            bytes.removeAll(keepingCapacity: true)
        }
        add(bytes)
        file.update([UInt8(ascii: "\n")])
        return ("sha256:" + hash.hexDigest, BundledJSON(bytes: count + 1, sha256: file.hexDigest))
    }

    /// Builds a migration from a file's name and parsed content.
    package static func make(fileName: String, file: String, document: DocNode) throws(SeedError) -> Migration {
        guard let parts = parseFileName(fileName) else {
            throw SeedError(
                .configuration, file: file,
                "a migration file name must start with its number, like 0001-add-fourth-book.yml")
        }
        let changes = try DataChanges(document: document, file: file)
        let (checksum, bundled) = checksums(of: document)
        var migration = Migration(
            number: parts.number, name: parts.name, file: file, checksum: checksum, body: .changes(changes))
        migration.bundledJSON = bundled
        return migration
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
    /// See ``Migration/bundledJSON`` (not compared: derived from the same content).
    package var bundledJSON: Migration.BundledJSON?

    package static func == (lhs: DataChanges, rhs: DataChanges) -> Bool {
        (lhs.deferred != nil && lhs.deferred === rhs.deferred) || lhs.operations == rhs.operations
    }

    /// Changes read from `file` as they are applied.
    package init(deferred: DeferredJSONMigration) {
        self.loaded = []
        self.deferred = deferred
    }

    /// Column values in written order, with where they were written.
    package struct RowValues: Sendable, Equatable {
        package var values: [(column: String, value: InputValue)]
        package var line: Int
        package var file: String
        /// Where each value was written (line, column), for a row read from a document; empty
        /// when the reader kept only the row's line (a big JSON file's streamed rows).
        package var positions: [(line: Int, column: Int)] = []

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

        /// Where the value at `index` was written: its own line and column when known, else the row's line.
        package func position(of index: Int) -> (line: Int, column: Int) {
            positions.indices.contains(index) ? positions[index] : (line, 0)
        }
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

    /// Reads the document of a migration file, as the format says (``MigrationGrammar``).
    package init(document: DocNode, file: String) throws(SeedError) {
        self.loaded = try MigrationGrammar.operations(of: document, file: file)
    }
}
