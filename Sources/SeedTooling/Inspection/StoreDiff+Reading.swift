import Foundation
import GRDB
import GRDBSQLite
import SeedRuntime

// How `seedkit diff` reads two stores (docs/reference.md, "Commands"): each store's rows on a
// thread of their own, in batches, with refs resolved to their parent's key through a small cache.

/// One store's rows of one query, read on a thread of their own into batches.
final class RowStream: @unchecked Sendable {
    private let pipeline: BatchPipeline
    private var current: RecordBatch?
    private var index = 0
    private(set) var failure: (any Error)?

    /// A column whose value the reader resolves from another slot's stored integer id: the
    /// parent's key, looked up once per distinct id.
    struct Resolver {
        /// The slot the parent's key goes to.
        let value: Int
        /// The slot holding the stored id.
        let stored: Int
        /// The lookup, with the id bound to its one parameter.
        let sql: String
    }

    /// - throws: ``SeedError`` when the reading thread can't start.
    init(queue: DatabaseQueue, sql: String, width: Int, resolvers: [Resolver] = []) throws {
        pipeline = BatchPipeline(batches: (0..<3).map { _ in RecordBatch(width: width, capacity: 4096) })
        try DetachedThread.start("read a store for diff") { [pipeline] in
            defer { pipeline.finishProducing() }
            do {
                try queue.read { db in
                    let statement = try db.makeStatement(sql: sql)
                    let handle = statement.sqliteStatement
                    let lookups = try resolvers.map { resolver in try ParentKeyCache(db, resolver) }
                    var more = true
                    while more, let batch = pipeline.takeFree() {
                        while !batch.isFull {
                            let result = sqlite3_step(handle)
                            if result == SQLITE_DONE {
                                more = false
                                break
                            }
                            guard result == SQLITE_ROW else {
                                throw DatabaseError(
                                    resultCode: ResultCode(rawValue: result),
                                    message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
                            }
                            batch.beginRecord(line: 0)
                            for column in 0..<width {
                                // The column's value object, read with the value API: no trip through the
                                // connection's error state per call (this connection is this thread's alone).
                                guard let value = sqlite3_column_value(handle, Int32(column)) else {
                                    batch.setNull(column)
                                    continue
                                }
                                switch sqlite3_value_type(value) {
                                case SQLITE_INTEGER: batch.setInteger(column, sqlite3_value_int64(value))
                                case SQLITE_FLOAT: batch.setReal(column, sqlite3_value_double(value))
                                case SQLITE_TEXT:
                                    // NULL only when SQLite is out of memory (text, even empty, has a pointer).
                                    guard let text = sqlite3_value_text(value) else {
                                        throw DatabaseError(resultCode: .SQLITE_NOMEM)
                                    }
                                    batch.setBytes(
                                        column,
                                        UnsafeRawBufferPointer(start: text, count: Int(sqlite3_value_bytes(value))))
                                case SQLITE_BLOB:
                                    let blob = sqlite3_value_blob(value)
                                    batch.setBytes(
                                        column,
                                        UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_value_bytes(value))),
                                        kind: .blob)
                                default: batch.setNull(column)
                                }
                            }
                            for lookup in lookups { try lookup.resolve(batch, db) }
                        }
                        pipeline.publish(batch)
                    }
                    withExtendedLifetime(statement) {}
                    withExtendedLifetime(lookups) {}
                }
            } catch {
                self.failure = error
            }
        }
    }

    /// Throws the first failure of either side, saying which store it was.
    static func rethrow(_ a: RowStream, _ b: RowStream) throws {
        if let failure = a.failure { throw StoreDiff.ReadFailure(side: .a, error: failure) }
        if let failure = b.failure { throw StoreDiff.ReadFailure(side: .b, error: failure) }
    }

    /// The next row (its batch and index), or nil at the end.
    func next() -> (RecordBatch, Int)? {
        if let current, index + 1 < current.count {
            index += 1
            return (current, index)
        }
        if let current { pipeline.recycle(current) }
        current = nil
        while let batch = pipeline.takeReady() {
            if batch.count > 0 {
                current = batch
                index = 0
                return (batch, 0)
            }
            pipeline.recycle(batch)
        }
        return nil
    }

    /// Stops the reader (if the merge ended early) and waits for it.
    func finish() {
        pipeline.cancel()
        pipeline.waitForProducer()
    }
}

/// The parent keys a reader has looked up, by stored id: 4,096 places, an id's place given by
/// its low bits (no hashing per row), so memory stays flat when every row names another
/// parent; an id that lost its place to another is looked up again.
final class ParentKeyCache {
    private static let places = 4096
    private let resolver: RowStream.Resolver
    private let statement: Statement
    private let ids: UnsafeMutablePointer<Int64>
    private let filled: UnsafeMutablePointer<Bool>
    private let kinds: UnsafeMutablePointer<RecordBatch.Slot>
    private let payloads: UnsafeMutablePointer<Int64>
    private let texts: UnsafeMutablePointer<[UInt8]>

    init(_ db: Database, _ resolver: RowStream.Resolver) throws {
        self.resolver = resolver
        statement = try db.makeStatement(sql: resolver.sql)
        ids = .allocate(capacity: Self.places)
        ids.initialize(repeating: 0, count: Self.places)
        filled = .allocate(capacity: Self.places)
        filled.initialize(repeating: false, count: Self.places)
        kinds = .allocate(capacity: Self.places)
        kinds.initialize(repeating: .null, count: Self.places)
        payloads = .allocate(capacity: Self.places)
        payloads.initialize(repeating: 0, count: Self.places)
        texts = .allocate(capacity: Self.places)
        texts.initialize(repeating: [], count: Self.places)
    }

    deinit {
        ids.deallocate()
        filled.deallocate()
        kinds.deallocate()
        payloads.deallocate()
        texts.deinitialize(count: Self.places)
        texts.deallocate()
    }

    /// Puts the parent's key of the last record's stored id, when that is an integer, in its value slot.
    func resolve(_ batch: RecordBatch, _ db: Database) throws {
        let index = (batch.count - 1) * batch.width + resolver.stored
        guard batch.slots[index] == .integer else { return }
        let id = batch.payloads[index]
        let place = Int(truncatingIfNeeded: UInt64(bitPattern: id) & UInt64(Self.places - 1))
        if !filled[place] || ids[place] != id {
            let found = try lookUp(id, db)
            ids[place] = id
            filled[place] = true
            kinds[place] = found.kind
            payloads[place] = found.payload
            texts[place] = found.bytes
        }
        switch kinds[place] {
        case .integer: batch.setInteger(resolver.value, payloads[place])
        case .real: batch.setReal(resolver.value, Double(bitPattern: UInt64(bitPattern: payloads[place])))
        case .text, .blob: texts[place].withUnsafeBytes { batch.setBytes(resolver.value, $0, kind: kinds[place]) }
        case .null, .absent: batch.setNull(resolver.value)
        }
    }

    private func lookUp(_ id: Int64, _ db: Database) throws -> (kind: RecordBatch.Slot, payload: Int64, bytes: [UInt8])
    {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_bind_int64(handle, 1, id)
        defer { sqlite3_reset(handle) }
        let result = sqlite3_step(handle)
        if result == SQLITE_DONE { return (.null, 0, []) }
        guard result == SQLITE_ROW else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: result), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
        switch sqlite3_column_type(handle, 0) {
        case SQLITE_INTEGER: return (.integer, sqlite3_column_int64(handle, 0), [])
        case SQLITE_FLOAT: return (.real, Int64(bitPattern: sqlite3_column_double(handle, 0).bitPattern), [])
        case SQLITE_TEXT:
            let text = sqlite3_column_text(handle, 0)
            let count = Int(sqlite3_column_bytes(handle, 0))
            return (.text, 0, text.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
        case SQLITE_BLOB:
            let blob = sqlite3_column_blob(handle, 0)
            let count = Int(sqlite3_column_bytes(handle, 0))
            return (.blob, 0, blob.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? [])
        default: return (.null, 0, [])
        }
    }
}

/// The rows both comparisons read: the key, the compared columns, then the stored form of the
/// columns read through an expression (refs shown by the parent's key), to report both.
struct RowQuery {
    let keyList: [String]
    private let selected: [String]
    private let table: String
    /// Key and compared columns.
    let width: Int
    /// `width` plus the stored forms (and, read with `rowid`, the rowid after them).
    let stride: Int
    /// Indexes in `columns` of the columns read through an expression.
    let stored: [Int]
    /// Columns whose integer stored values the reader resolves itself (see ``StoreDiff/Semantics/ParentLookup``).
    let resolvers: [RowStream.Resolver]

    init(
        name: String, key: [String], columns: [String], expressions: [String: String],
        lookups: [String: StoreDiff.Semantics.ParentLookup] = [:]
    ) {
        func expression(_ column: String) -> String {
            column == "rowid" ? "rowid" : expressions[column] ?? quoteIdentifier(column)
        }
        keyList = key.map(expression)
        let stored = columns.indices.filter { expressions[columns[$0]] != nil }
        self.stored = stored
        var resolvers: [RowStream.Resolver] = []
        var values: [String] = []
        for (index, column) in columns.enumerated() {
            if let lookup = lookups[column], let position = stored.firstIndex(of: index) {
                resolvers.append(
                    RowStream.Resolver(
                        value: key.count + index, stored: key.count + columns.count + position, sql: lookup.lookupSQL))
                values.append(lookup.guarded)
            } else {
                values.append(expression(column))
            }
        }
        self.resolvers = resolvers
        selected = keyList + values + stored.map { quoteIdentifier(columns[$0]) }
        table = name
        width = key.count + columns.count
        stride = width + stored.count
    }

    /// With `rowid`, each row's rowid is read last (slot `stride`).
    func select(rowid: Bool = false) -> String {
        "SELECT \((selected + (rowid ? ["rowid"] : [])).joined(separator: ", ")) FROM \(quoteIdentifier(table))"
    }
}
