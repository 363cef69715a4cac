import Foundation
import GRDB
import GRDBSQLite

// A big migration runs the same few statements once per row. GRDB's StatementArguments convert
// each value through generic code (metadata lookups, existentials) that costs more than SQLite's
// own work; these bind SQLValues with the C API instead. Writes still run through GRDB's
// `execute()`, so that its transaction observers (an app's ValueObservation) see them.
//
// An empty blob is bound with sqlite3_bind_zeroblob(…, 0): sqlite3_bind_blob binds NULL when its
// pointer is NULL, and an empty Data's bytes have no address on Apple platforms, so binding
// `Data().withUnsafeBytes` would store NULL where the migration says X'' (the build binds the same way).
//
// Text is bound and read with its length (docs/reference.md, "How seedkit compares text and
// names"): GRDB binds a String up to its first NUL (`sqlite3_bind_text(…, -1, …)`) and reads one
// as a C string, so `"abc\u{0}def"` would be stored and read as `abc`. Every SQLValue that meets
// SQLite goes through ``SQLValue/bindWhole(to:at:)`` and ``SQLValue/init(column:of:)`` here.

extension Statement {
    /// Binds `values` to parameters 1, 2, … and runs the statement through GRDB.
    ///
    /// - throws: `DatabaseError` as `execute(arguments:)` does (a constraint failure, …).
    package func execute(binding values: some Collection<SQLValue>) throws {
        let handle = sqliteStatement
        // A previous failed step leaves its error on the statement: clear it first (GRDB's reset would throw it).
        sqlite3_reset(handle)
        setUncheckedArguments(StatementArguments())  // GRDB: arguments bound (none), bindings cleared
        var parameter: Int32 = 1
        for value in values {
            Self.bind(value, to: handle, at: parameter)
            parameter += 1
        }
        try execute()
    }

    /// As ``execute(binding:)``, through SQLite's C API alone: text and blobs are bound without a
    /// copy (SQLITE_STATIC, cleared again before they go) and the statement steps without GRDB's
    /// bookkeeping around it (its statement-level observation set-up and checks cost a big
    /// migration more than SQLite's own work).
    ///
    /// GRDB's transaction observers do not see the change: only for a connection that has none (one
    /// the caller opened itself, see ``SeedMigrator/Options/writesDirectly``).
    ///
    /// - returns: the rows it changed (`sqlite3_changes`).
    /// - throws: `DatabaseError` with SQLite's code and message, as `execute(arguments:)` does.
    @discardableResult
    package func executeDirectly(binding values: [(column: String, value: SQLValue)]) throws -> Int {
        let handle = sqliteStatement
        // A previous failed step leaves its error on the statement: clear it first.
        sqlite3_reset(handle)
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)  // nothing stays bound past its buffer's life
        }
        let code = Self.stepping(handle, bound: values, from: 0)
        guard code == SQLITE_DONE else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))), sql: sql)
        }
        return Int(sqlite3_changes(sqlite3_db_handle(handle)))
    }

    /// Binds `values` (the rows' values, one row after the other) to parameters 1, 2, … of a
    /// multi-row INSERT and runs it with SQLite's C API alone (see ``executeDirectly(binding:)``): text and
    /// blobs are copied once into `bytes`, whose storage SQLite reads without a copy of its own
    /// (SQLITE_STATIC) until the step ends; the bindings are cleared before it goes.
    ///
    /// Text is bound with its length and an empty blob as a zero-length blob, as
    /// ``executeDirectly(binding:)`` binds them: the same bytes are stored.
    ///
    /// - returns: see ``MultiRowInsert/step(_:)``: false when a constraint failed (nothing inserted).
    package func insertDirectly(values: [SQLValue], bytes: inout [UInt8]) throws -> Bool {
        let handle = sqliteStatement
        sqlite3_reset(handle)  // a previous failed step leaves its error on the statement
        bytes.removeAll(keepingCapacity: true)
        for value in values {
            switch value {
            case .text(let text):
                bytes.append(contentsOf: text.utf8)
                bytes.append(0)
            case .blob(let blob): bytes.append(contentsOf: blob)
            default: break
            }
        }
        return try bytes.withUnsafeBufferPointer { buffer in
            defer { sqlite3_clear_bindings(handle) }  // nothing stays bound past the buffer's life
            var offset = 0
            var parameter: Int32 = 1
            for value in values {
                switch value {
                case .null: sqlite3_bind_null(handle, parameter)
                case .integer(let number): sqlite3_bind_int64(handle, parameter, number)
                case .real(let number): sqlite3_bind_double(handle, parameter, number)
                case .text(let text):
                    let start = buffer.baseAddress.map {
                        UnsafeRawPointer($0 + offset).assumingMemoryBound(to: CChar.self)
                    }
                    let count = text.utf8.count
                    sqlite3_bind_text64(handle, parameter, start, sqlite3_uint64(count), nil, UInt8(SQLITE_UTF8))
                    offset += count + 1
                case .blob(let blob):
                    if blob.isEmpty {
                        sqlite3_bind_zeroblob(handle, parameter, 0)  // X'', not NULL (see the top of this file)
                    } else {
                        sqlite3_bind_blob64(
                            handle, parameter, buffer.baseAddress.map { UnsafeRawPointer($0 + offset) },
                            sqlite3_uint64(blob.count), nil)
                    }
                    offset += blob.count
                }
                parameter += 1
            }
            return try MultiRowInsert.step(handle)
        }
    }

    /// Binds `values[index...]` to parameters `index + 1`, … (each text or blob only while its
    /// buffer is in scope), then steps `handle` to its end: SQLITE_DONE, or the error's code.
    private static func stepping(
        _ handle: OpaquePointer, bound values: [(column: String, value: SQLValue)], from index: Int
    ) -> Int32 {
        guard index < values.count else {
            while true {
                let code = sqlite3_step(handle)
                if code != SQLITE_ROW { return code }  // an INSERT … RETURNING gives rows first
            }
        }
        let parameter = Int32(index + 1)
        switch values[index].value {
        case .null: sqlite3_bind_null(handle, parameter)
        case .integer(let number): sqlite3_bind_int64(handle, parameter, number)
        case .real(let number): sqlite3_bind_double(handle, parameter, number)
        case .text(let text):
            return SQLValue.withBytes(of: text) { pointer, count in
                sqlite3_bind_text64(handle, parameter, pointer, sqlite3_uint64(count), nil, UInt8(SQLITE_UTF8))
                return stepping(handle, bound: values, from: index + 1)
            }
        case .blob(let bytes) where bytes.isEmpty:
            sqlite3_bind_zeroblob(handle, parameter, 0)  // X'', not NULL (see the top of this file)
        case .blob(let bytes):
            return Data(bytes).withUnsafeBytes { buffer in
                sqlite3_bind_blob64(handle, parameter, buffer.baseAddress, sqlite3_uint64(buffer.count), nil)
                return stepping(handle, bound: values, from: index + 1)
            }
        }
        return stepping(handle, bound: values, from: index + 1)
    }

    /// Runs a read with `values` bound and returns the first column of its first row (nil when
    /// there is no row; `.null` for NULL), without GRDB's cursor machinery.
    package func firstValue(binding values: some Collection<SQLValue>) throws -> SQLValue? {
        let handle = sqliteStatement
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)  // no text left bound past its buffer's life
        }
        var parameter: Int32 = 1
        for value in values {
            Self.bind(value, to: handle, at: parameter)
            parameter += 1
        }
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return SQLValue(column: 0, of: handle)
        case SQLITE_DONE: return nil
        case let code:
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))), sql: sql)
        }
    }

    /// Binds `value` at `parameter`, as SQLite stores it (see ``SQLValue/bindWhole(to:at:)``).
    private static func bind(_ value: SQLValue, to handle: OpaquePointer, at parameter: Int32) {
        value.bindWhole(to: handle, at: parameter)
    }

    /// Runs a read with `values` bound and calls `body` with each row's values, read as SQLite
    /// stores them (text with its length: a NUL inside survives), without GRDB's cursor machinery.
    package func forEachRow(binding values: some Collection<SQLValue> = [], _ body: ([SQLValue]) throws -> Void) throws
    {
        let handle = sqliteStatement
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        var parameter: Int32 = 1
        for value in values {
            Self.bind(value, to: handle, at: parameter)
            parameter += 1
        }
        let width = sqlite3_column_count(handle)
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_ROW: try body((0..<width).map { SQLValue(column: $0, of: handle) })
            case SQLITE_DONE: return
            case let code:
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code),
                    message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))), sql: sql)
            }
        }
    }

    /// Every row of a read with `values` bound, as ``forEachRow(binding:_:)`` reads them.
    package func rows(binding values: some Collection<SQLValue> = []) throws -> [[SQLValue]] {
        var rows: [[SQLValue]] = []
        try forEachRow(binding: values) { rows.append($0) }
        return rows
    }
}

extension Database {
    /// Every row `sql` reads with `values` bound, each value as SQLite stores it (text with its
    /// length); see ``GRDB/Statement/forEachRow(binding:_:)``.
    package func sqlRows(_ sql: String, binding values: [SQLValue] = []) throws -> [[SQLValue]] {
        try makeStatement(sql: sql).rows(binding: values)
    }

    /// The first row `sql` reads with `values` bound, or nil.
    package func sqlRow(_ sql: String, binding values: [SQLValue] = []) throws -> [SQLValue]? {
        try sqlRows(sql, binding: values).first
    }

    /// Runs `sql` (a write) with `values` bound with their lengths; returns `sqlite3_changes`.
    @discardableResult
    package func execute(_ sql: String, binding values: [SQLValue]) throws -> Int {
        let statement = try makeStatement(sql: sql)
        try statement.execute(binding: values)
        return changesCount
    }
}

extension SQLValue {
    /// A column of the current row of `handle`, as SQLite stores it: text read with its length
    /// (`sqlite3_column_bytes`), so a NUL inside survives; never through a C string.
    package init(column index: Int32, of handle: OpaquePointer) {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: self = .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: self = .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            // sqlite3_column_text first, then sqlite3_column_bytes: the order SQLite documents.
            guard let text = sqlite3_column_text(handle, index) else {
                self = .text("")
                return
            }
            self = .text(
                String(
                    storedText: UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, index)))))
        case SQLITE_BLOB:
            guard let blob = sqlite3_column_blob(handle, index) else {
                self = .blob([])
                return
            }
            self = .blob(Array(UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_column_bytes(handle, index)))))
        default: self = .null
        }
    }

    /// Binds the value at `parameter` of `handle` as SQLite stores it: text with its length (a
    /// NUL inside is stored, not an end), an empty blob as X'' (not NULL).
    ///
    /// SQLite copies text and blobs before this returns (SQLITE_TRANSIENT).
    package func bindWhole(to handle: OpaquePointer, at parameter: Int32) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        switch self {
        case .null: sqlite3_bind_null(handle, parameter)
        case .integer(let number): sqlite3_bind_int64(handle, parameter, number)
        case .real(let number): sqlite3_bind_double(handle, parameter, number)
        case .text(let text):
            Self.withBytes(of: text) {
                _ = sqlite3_bind_text64(handle, parameter, $0, sqlite3_uint64($1), transient, UInt8(SQLITE_UTF8))
            }
        // X'', not NULL (see the top of this file)
        case .blob(let bytes) where bytes.isEmpty: sqlite3_bind_zeroblob(handle, parameter, 0)
        case .blob(let bytes):
            bytes.withUnsafeBytes {
                _ = sqlite3_bind_blob64(handle, parameter, $0.baseAddress, sqlite3_uint64($0.count), transient)
            }
        }
    }

    /// Calls `body` with the UTF-8 bytes of `text` and their count; the pointer is never NULL
    /// (SQLite binds NULL for a NULL pointer, and the empty string is not NULL).
    static func withBytes<Result>(of text: String, _ body: (UnsafePointer<CChar>, Int) -> Result) -> Result {
        var text = text
        return text.withUTF8 { buffer in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return "".withCString { body($0, 0) } }
            return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { body($0, buffer.count) }
        }
    }
}
