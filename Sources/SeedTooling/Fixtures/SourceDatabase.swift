import Foundation
import GRDB
import GRDBSQLite
import SeedRuntime

/// SQLITE_TRANSIENT: SQLite copies the bytes bound, which live only for the call.
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// Runs `statement` to its end, or throws SQLite's error.
private func stepToEnd(_ statement: OpaquePointer?, _ connection: OpaquePointer?) throws {
    let result = sqlite3_step(statement)
    sqlite3_reset(statement)
    guard result == SQLITE_DONE else {
        throw DatabaseError(
            resultCode: ResultCode(rawValue: result), message: String(cString: sqlite3_errmsg(connection)))
    }
}

/// The manifest's `sources:` loaded into a scratch database (a temporary file), one table each, that
/// `query:` tables read from (docs/reference.md, "Derived tables").
///
/// Never part of the seed.
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
                throw SeedError(
                    .configuration, file: source.displayFile,
                    "the file of source \(source.name) does not exist (manifest: \(manifest.path))")
            }
            do throws(SeedError) {
                try load(source, into: queue, diagnostics: &diagnostics)
            } catch  where error.kind == .invalidData {
                diagnostics += error.diagnostics
            }
        }
        return scratch
    }

    private static func open(_ source: Manifest.Source, fields: [String], unknownField: @escaping (String) -> String)
        throws(SeedError) -> any RecordSource
    {
        try source.reading.open(
            source.file, displayPath: source.displayFile, root: source.root, fields: fields, unknownField: unknownField)
    }

    private static func load(_ source: Manifest.Source, into queue: DatabaseQueue, diagnostics: inout [Diagnostic])
        throws(SeedError)
    {
        var fields: [String] = []
        if source.reading.format.recordsNameTheirFields {
            // The fields of a source whose records name them are the keys its records have: read once to find them.
            final class Names { var list: [String] = [] }
            let names = Names()
            var first = try open(source, fields: []) { key in
                if !names.list.contains(where: { $0.isSameName(as: key) }) { names.list.append(key) }
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
                try db.execute(
                    sql:
                        "CREATE TABLE \(table) (\(columns.map { quoteIdentifier($0) + " TEXT" }.joined(separator: ", ")))"
                )
                // Bound straight from the record's bytes: no value is built per field.
                var insert: OpaquePointer?
                let connection = db.sqliteConnection
                guard
                    sqlite3_prepare_v2(
                        connection, "INSERT INTO \(table) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                        -1, &insert, nil) == SQLITE_OK
                else {
                    throw DatabaseError(
                        resultCode: ResultCode(rawValue: sqlite3_errcode(connection)),
                        message: String(cString: sqlite3_errmsg(connection)))
                }
                defer { sqlite3_finalize(insert) }
                while try reader.next(&record, diagnostics: &diagnostics) {
                    sqlite3_clear_bindings(insert)
                    record.bytes.withUnsafeBytes { bytes in
                        for field in 0..<record.count where record.kinds[field] != .null {
                            let parameter = Int32(record.columns[field] + 1)
                            if let base = bytes.baseAddress {
                                sqlite3_bind_text(
                                    insert, parameter,
                                    (base + record.starts[field]).assumingMemoryBound(to: CChar.self),
                                    Int32(record.ends[field] - record.starts[field]), transient)
                            } else {
                                sqlite3_bind_text(insert, parameter, "", 0, transient)
                            }
                        }
                    }
                    try stepToEnd(insert, connection)
                }
            }
        } catch let error as SeedError {
            throw error
        } catch let error as DatabaseError {
            throw SeedError(
                .configuration, file: source.displayFile,
                "source \(source.name) cannot be loaded: \(error.message ?? "\(error)")")
        } catch {
            throw SeedError(
                .configuration, file: source.displayFile, "source \(source.name) cannot be loaded: \(error)")
        }
    }

    /// The queries that do not prepare against the sources: manifest errors (2100) at their line, with SQLite's message.
    static func unpreparedQueries(_ manifest: Manifest, in queue: DatabaseQueue) -> [Diagnostic] {
        manifest.tables.compactMap { table -> Diagnostic? in
            guard let query = table.query else { return nil }
            do {
                try queue.read { db in
                    let statement = try db.makeStatement(sql: query.sql)
                    if !statement.isReadonly {
                        throw SeedError(.configuration, "it is not a SELECT: a query only reads the sources")
                    }
                }
                return nil
            } catch let error as DatabaseError {
                return Diagnostic(
                    file: manifest.path, line: query.line, column: query.column, code: .configuration,
                    message: "the query of table \(table.name) does not prepare: \(error.message ?? "\(error)")")
            } catch let error as SeedError {
                return Diagnostic(
                    file: manifest.path, line: query.line, column: query.column, code: .configuration,
                    message: "the query of table \(table.name): \(error.diagnostics.first?.message ?? "")")
            } catch {
                return Diagnostic(
                    file: manifest.path, line: query.line, column: query.column, code: .configuration,
                    message: "the query of table \(table.name) does not prepare: \(error)")
            }
        }
    }
}

/// The scratch database of a build's sources: a temporary file (memory stays flat however large
/// the sources are), removed when the build lets go of it.
final class ScratchSources: @unchecked Sendable {
    let queue: DatabaseQueue
    private let path: String

    init(manifest: String) throws(SeedError) {
        path =
            FileManager.default.temporaryDirectory.appendingPathComponent("seedkit-sources-\(UUID().uuidString).sqlite")
            .path
        var configuration = Configuration()
        configuration.journalMode = .default
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = OFF")
                try db.execute(sql: "PRAGMA synchronous = OFF")
            }
        } catch {
            throw SeedError(
                .io, file: manifest,
                "cannot create the scratch database of the sources in \(FileManager.default.temporaryDirectory.path): \((error as? DatabaseError)?.message ?? "\(error)")"
            )
        }
    }

    deinit {
        try? queue.close()
        for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

/// The rows of a table's `query:` as fixture records: the result's columns name the fields, as
/// a CSV header does; each row is a record whose "line" is its row number in the result.
///
/// The query's statement is stepped a batch at a time as the build asks for rows: nothing is held
/// but the batch (memory stays flat), and no row is written anywhere but the seed.
struct QueryRecordSource: RecordSource {
    let columnNames: [String]
    private let queue: DatabaseQueue
    private let sql: String
    /// The table's query as messages name it.
    private let file: String
    /// The query's statement, stepped across batches; released once the rows run out.
    private let cursor: Cursor
    /// Rows read and not yet handed out, as records.
    private var batch: [RawRecord] = []
    private var position = 0
    private var rowsRead = 0
    /// The rows given, as a JSON fixture's records are hashed (``RecordHasher``), after the column names.
    private let hasher = RecordHasher()
    var contentHash: SHA256Box { hasher.flushed() }
    var bytesRead: Int { 0 }

    /// Holds the prepared SELECT between batches; only ever stepped inside the scratch queue.
    private final class Cursor: @unchecked Sendable {
        var statement: Statement?
        init(_ statement: Statement) { self.statement = statement }
    }

    init(_ query: Manifest.Query, in scratch: ScratchSources, file: String) throws(SeedError) {
        queue = scratch.queue
        sql = query.sql
        self.file = file
        do {
            let select = try queue.inDatabase { db in try db.makeStatement(sql: query.sql) }
            var seen = Set<String>()
            for name in select.columnNames where !seen.insert(name.lowercasedName).inserted {
                throw SeedError(
                    .configuration, file: file, "the query gives two columns named '\(name)': name each with AS")
            }
            columnNames = select.columnNames
            cursor = Cursor(select)
        } catch let error as SeedError {
            throw error
        } catch {
            throw SeedError(
                .configuration, file: file, "the query failed: \((error as? DatabaseError)?.message ?? "\(error)")")
        }
        var names = RawRecord()
        for name in columnNames {
            let start = names.bytes.count
            names.bytes += name.utf8
            names.append(column: names.count, kind: .text, start: start)
        }
        hasher.add(names)
    }

    /// How each row of `numbers` (1-based) names its key: `code 'ALL'`, from the fields named
    /// `fields`; rows with none of them are left out.
    ///
    /// The query is run again once, stepped to the last row asked for: diagnostics name rows by
    /// their place in the result, which only the query knows.
    func describeKeys(rows numbers: Set<Int>, fields: [String]) -> [Int: String] {
        let indices = fields.map { field in (field, columnNames.firstIndex { $0.isSameName(as: field) }) }
        guard let last = numbers.max(), indices.contains(where: { $0.1 != nil }) else { return [:] }
        let described = try? queue.inDatabase { db -> [Int: String] in
            let statement = try db.makeStatement(sql: sql)
            let handle = statement.sqliteStatement
            defer { sqlite3_reset(handle) }
            var found: [Int: String] = [:]
            var number = 0
            while number < last, sqlite3_step(handle) == SQLITE_ROW {
                number += 1
                guard numbers.contains(number) else { continue }
                let row = indices.compactMap { field, index -> String? in
                    guard let index else { return nil }
                    let value = DatabaseValue(sqliteStatement: handle, index: Int32(index))
                    let text: String
                    switch value.storage {
                    case .null: text = "NULL"
                    case .int64(let number): text = String(number)
                    case .double(let number): text = "\(number)"
                    case .string(let string): text = "'\(string)'"
                    case .blob: text = "a blob"
                    }
                    return "\(field) \(text)"
                }
                found[number] = row.joined(separator: ", ")
            }
            return found
        }
        return described ?? [:]
    }

    mutating func next(_ record: inout RawRecord, diagnostics: inout [Diagnostic]) throws(SeedError) -> Bool {
        if position == batch.count {
            guard cursor.statement != nil else { return false }
            do {
                batch = try queue.inDatabase { [cursor, first = rowsRead, width = columnNames.count] db in
                    guard let handle = cursor.statement?.sqliteStatement else { return [] }
                    let connection = db.sqliteConnection
                    var records: [RawRecord] = []
                    records.reserveCapacity(4096)
                    while records.count < 4096 {
                        let result = sqlite3_step(handle)
                        if result == SQLITE_DONE {
                            cursor.statement = nil
                            break
                        }
                        guard result == SQLITE_ROW else {
                            let error = DatabaseError(
                                resultCode: ResultCode(rawValue: result),
                                message: String(cString: sqlite3_errmsg(connection)))
                            cursor.statement = nil
                            throw error
                        }
                        var row = RawRecord()
                        row.line = first + records.count + 1
                        for column in 0..<width {
                            let index = Int32(column)
                            let start = row.bytes.count
                            let type = sqlite3_column_type(handle, index)
                            let kind: RawRecord.Kind
                            switch type {
                            case SQLITE_NULL: kind = .null
                            case SQLITE_INTEGER: kind = .integer
                            case SQLITE_FLOAT: kind = .real
                            default: kind = .text
                            }
                            if kind != .null {
                                // SQLite's own text of the value (a real as SQLite renders it); a blob's bytes as they are.
                                let pointer =
                                    type == SQLITE_BLOB
                                    ? sqlite3_column_blob(handle, index)
                                    : UnsafeRawPointer(sqlite3_column_text(handle, index))
                                let count = Int(sqlite3_column_bytes(handle, index))
                                if let pointer, count > 0 {
                                    row.bytes.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: count))
                                }
                            }
                            row.append(column: column, kind: kind, start: start)
                        }
                        records.append(row)
                    }
                    return records
                }
            } catch {
                throw SeedError(
                    .configuration, file: file,
                    "the query failed: \((error as? DatabaseError)?.message ?? "\(error)")")
            }
            position = 0
            rowsRead += batch.count
            if batch.isEmpty { return false }
        }
        swap(&record, &batch[position])
        position += 1
        hasher.add(record)
        return true
    }
}
