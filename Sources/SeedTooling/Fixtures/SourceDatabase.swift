import Foundation
import GRDB
import SeedRuntime

/// The manifest's `sources:` loaded into a scratch database (a temporary file), one table each, that
/// `query:` tables read from (docs/reference.md, "Derived tables"). Never part of the seed.
///
/// A source's table has one TEXT column per field: a CSV or TSV file's header (or `header:`),
/// a JSON file's top-level keys; NULL as `nulls:` says; nested JSON as canonical JSON text, so
/// `json_extract` reads into it.
enum SourceDatabase {
    /// Loads every source; problems in the files are returned (the build reports them with the rest).
    static func load(_ manifest: Manifest, diagnostics: inout [Diagnostic]) throws(SeedError) -> ScratchSources {
        let scratch = try ScratchSources(manifest: manifest.path)
        let queue = scratch.queue
        for source in manifest.sources {
            guard FileManager.default.fileExists(atPath: source.file.path) else {
                throw SeedError(.configuration, file: source.displayFile, "the file of source \(source.name) does not exist (manifest: \(manifest.path))")
            }
            do throws(SeedError) {
                try load(source, into: queue, diagnostics: &diagnostics)
            } catch where error.kind == .invalidData {
                diagnostics += error.diagnostics
            }
        }
        return scratch
    }

    private static func open(_ source: Manifest.Source, fields: [String], unknownField: @escaping (String) -> String) throws(SeedError) -> any RecordSource {
        switch source.reading.format {
        case .csv, .tsv: return try CSVRecordSource(url: source.file, displayPath: source.displayFile, options: source.reading)
        case .json, .jsonl: return try JSONRecordSource(url: source.file, displayPath: source.displayFile, fields: fields, root: source.root, lines: source.reading.format == .jsonl, unknownField: unknownField)
        }
    }

    private static func load(_ source: Manifest.Source, into queue: DatabaseQueue, diagnostics: inout [Diagnostic]) throws(SeedError) {
        var fields: [String] = []
        if source.reading.format.isJSON {
            // A JSON source's fields are the top-level keys its records have: read once to find them.
            final class Names { var list: [String] = [] }
            let names = Names()
            var first = try open(source, fields: []) { key in
                if !names.list.contains(where: { $0.caseInsensitiveCompare(key) == .orderedSame }) { names.list.append(key) }
                return ""
            }
            var record = RawRecord()
            var ignored: [Diagnostic] = []
            while try first.next(&record, diagnostics: &ignored) {}
            fields = names.list
        }
        var reader = try open(source, fields: fields) { key in "key '\(key)' is not read" }
        let columns = reader.columnNames
        let table = quoteIdentifier(source.name)
        var record = RawRecord()
        do {
            try queue.write { db in
                try db.execute(sql: "CREATE TABLE \(table) (\(columns.map { quoteIdentifier($0) + " TEXT" }.joined(separator: ", ")))")
                let statement = try db.makeStatement(sql: "INSERT INTO \(table) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))")
                var values = [DatabaseValue](repeating: .null, count: columns.count)
                while try reader.next(&record, diagnostics: &diagnostics) {
                    for index in values.indices { values[index] = .null }
                    for field in 0..<record.count where record.kinds[field] != .null {
                        values[record.columns[field]] = record.text(field).databaseValue
                    }
                    try statement.execute(arguments: StatementArguments(values))
                }
            }
        } catch let error as SeedError {
            throw error
        } catch let error as DatabaseError {
            throw SeedError(.configuration, file: source.displayFile, "source \(source.name) cannot be loaded: \(error.message ?? "\(error)")")
        } catch {
            throw SeedError(.configuration, file: source.displayFile, "source \(source.name) cannot be loaded: \(error)")
        }
    }

    /// The queries that do not prepare against the sources: manifest errors (2100) at their line, with SQLite's message.
    static func unpreparedQueries(_ manifest: Manifest, in queue: DatabaseQueue) -> [Diagnostic] {
        manifest.tables.compactMap { table -> Diagnostic? in
            guard let query = table.query else { return nil }
            do {
                try queue.read { db in
                    let statement = try db.makeStatement(sql: query.sql)
                    if !statement.isReadonly { throw SeedError(.configuration, "it is not a SELECT: a query only reads the sources") }
                }
                return nil
            } catch let error as DatabaseError {
                return Diagnostic(file: manifest.path, line: query.line, column: query.column, code: .configuration,
                                  message: "the query of table \(table.name) does not prepare: \(error.message ?? "\(error)")")
            } catch let error as SeedError {
                return Diagnostic(file: manifest.path, line: query.line, column: query.column, code: .configuration,
                                  message: "the query of table \(table.name): \(error.diagnostics.first?.message ?? "")")
            } catch {
                return Diagnostic(file: manifest.path, line: query.line, column: query.column, code: .configuration, message: "the query of table \(table.name) does not prepare: \(error)")
            }
        }
    }
}

/// The scratch database of a build's sources: a temporary file (memory stays flat however large
/// the sources are), removed when the build lets go of it.
final class ScratchSources: @unchecked Sendable {
    let queue: DatabaseQueue
    private let path: String
    private var tables = 0
    private let lock = NSLock()

    init(manifest: String) throws(SeedError) {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("seedkit-sources-\(UUID().uuidString).sqlite").path
        var configuration = Configuration()
        configuration.journalMode = .default
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = OFF")
                try db.execute(sql: "PRAGMA synchronous = OFF")
            }
        } catch {
            throw SeedError(.io, file: manifest, "cannot create the scratch database of the sources in \(FileManager.default.temporaryDirectory.path): \((error as? DatabaseError)?.message ?? "\(error)")")
        }
    }

    deinit {
        try? queue.close()
        for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// A table name no source has, for a query's rows.
    func nextTableName() -> String {
        lock.lock()
        defer { lock.unlock() }
        tables += 1
        return "seedkit query \(tables)"
    }
}

/// The rows of a table's `query:` as fixture records: the result's columns name the fields, as
/// a CSV header does; each row is a record whose "line" is its row number in the result. The
/// rows are written once into a table of the scratch database and read back a batch at a time.
struct QueryRecordSource: RecordSource {
    let columnNames: [String]
    private let queue: DatabaseQueue
    private let table: String
    private var batch: [(number: Int, values: [DatabaseValue])] = []
    private var position = 0
    private var last = 0
    private var finished = false
    let contentHash = SHA256Box()
    var bytesRead: Int { 0 }

    init(_ query: Manifest.Query, in scratch: ScratchSources, file: String) throws(SeedError) {
        queue = scratch.queue
        table = quoteIdentifier(scratch.nextTableName())
        do {
            columnNames = try queue.write { [table] db in
                let select = try db.makeStatement(sql: query.sql)
                let names = select.columnNames
                var seen = Set<String>()
                for name in names where !seen.insert(name.lowercased()).inserted {
                    throw SeedError(.configuration, file: file, "the query gives two columns named '\(name)': name each with AS")
                }
                // Untyped columns: the values are kept exactly as the query gives them.
                try db.execute(sql: "CREATE TABLE \(table) (\(names.indices.map { "c\($0)" }.joined(separator: ", ")))")
                let insert = try db.makeStatement(sql: "INSERT INTO \(table) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))")
                let rows = try Row.fetchCursor(select)
                while let row = try rows.next() { try insert.execute(arguments: StatementArguments(Array(row.databaseValues))) }
                return names
            }
        } catch let error as SeedError {
            throw error
        } catch {
            throw SeedError(.configuration, file: file, "the query failed: \((error as? DatabaseError)?.message ?? "\(error)")")
        }
        contentHash.hash.update(columnNames.joined(separator: "\u{1}").utf8)
    }

    /// How row `number` (1-based) names its key: `code 'ALL'`, from the fields named `fields`; nil when it has none of them.
    func describeKey(row number: Int, fields: [String]) -> String? {
        guard let values = try? queue.read({ db in try Row.fetchOne(db, sql: "SELECT * FROM \(table) WHERE rowid = ?", arguments: [number]).map { Array($0.databaseValues) } }) ?? nil else { return nil }
        let parts = fields.compactMap { field -> String? in
            guard let index = columnNames.firstIndex(where: { $0.caseInsensitiveCompare(field) == .orderedSame }), index < values.count else { return nil }
            let text: String
            switch values[index].storage {
            case .null: text = "NULL"
            case .int64(let number): text = String(number)
            case .double(let number): text = "\(number)"
            case .string(let string): text = "'\(string)'"
            case .blob: text = "a blob"
            }
            return "\(field) \(text)"
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    mutating func next(_ record: inout RawRecord, diagnostics: inout [Diagnostic]) throws(SeedError) -> Bool {
        if position == batch.count {
            guard !finished else { return false }
            do {
                batch = try queue.read { [table, last] db in
                    try Row.fetchAll(db, sql: "SELECT rowid, * FROM \(table) WHERE rowid > ? ORDER BY rowid LIMIT 4096", arguments: [last]).map { row in
                        let values = Array(row.databaseValues)
                        return (Int(Int64.fromDatabaseValue(values[0]) ?? 0), Array(values.dropFirst()))
                    }
                }
            } catch {
                throw SeedError(.io, "cannot read the query's rows back from the scratch database: \((error as? DatabaseError)?.message ?? "\(error)")")
            }
            position = 0
            if batch.count < 4096 { finished = true }
            guard let final = batch.last else { return false }
            last = final.number
        }
        let row = batch[position]
        position += 1
        record.reset()
        record.line = row.number
        var bytes: [UInt8] = [0x1E]
        for (column, value) in row.values.enumerated() {
            let start = record.bytes.count
            let kind: RawRecord.Kind
            switch value.storage {
            case .null: kind = .null
            case .int64(let number): record.bytes += String(number).utf8; kind = .integer
            case .double(let number): record.bytes += "\(number)".utf8; kind = .real
            case .string(let text): record.bytes += text.utf8; kind = .text
            case .blob(let data): record.bytes += data; kind = .text
            }
            record.append(column: column, kind: kind, start: start)
            bytes.append(kind.rawValue)
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: record.bytes.count - start).littleEndian) { bytes += $0 }
            bytes += record.bytes[start...]
        }
        contentHash.hash.update(bytes)
        return true
    }
}
