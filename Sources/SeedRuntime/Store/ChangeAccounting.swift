import Foundation
import GRDB
import GRDBSQLite

/// SQLite's own account of every row a data migration changes, so that a change seedkit's report
/// cannot name (a user's trigger deleting or updating rows, an `INSTEAD OF` trigger writing the
/// table behind a view, a foreign-key action) fails the run instead of passing unseen
/// (docs/conflicts-and-triggers.md, "What migrate accounts for").
///
/// SQLite's preupdate hook (`sqlite3_preupdate_hook`) is called for every row any statement
/// changes, with `sqlite3_preupdate_depth`: 0 for the row the statement itself writes, 1 or more
/// for a row a trigger or a foreign-key action writes because of it. seedkit's writes are all at
/// depth 0 (its bookkeeping, Core Data's `Z_PRIMARYKEY`, history, included), so every change at a
/// deeper level in the store is one the report does not name, except a trigger's update of the
/// very row seedkit just wrote (a timestamp), which the report names. Changes in the `temp`
/// schema never reach the store and are not counted.
///
/// The hook exists only where SQLite was compiled with `SQLITE_ENABLE_PREUPDATE_HOOK` (Debian's
/// and Ubuntu's libsqlite3 are; Apple's system SQLite may not be): it is looked up at run time, and
/// ``isAvailable`` says whether a run is accounted.
final class ChangeAccounting {
    /// One change SQLite made below seedkit's own write.
    struct SideEffect {
        /// `SQLITE_INSERT`, `SQLITE_UPDATE` or `SQLITE_DELETE`.
        var operation: Int32
        var table: String
        var rowid: Int64
        /// The row's first values (old ones for an update or a delete), for the message.
        var values: [SQLValue]
        /// The table seedkit's statement wrote, when SQLite reported that write (not for a view).
        var cause: String?
    }

    typealias Callback =
        @convention(c) (
            UnsafeMutableRawPointer?, OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int64, Int64
        ) -> Void
    typealias SetHook =
        @convention(c) (OpaquePointer?, Callback?, UnsafeMutableRawPointer?) ->
        UnsafeMutableRawPointer?
    typealias Depth = @convention(c) (OpaquePointer?) -> Int32
    typealias Count = @convention(c) (OpaquePointer?) -> Int32
    typealias Value = @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Int32

    struct Functions {
        var setHook: SetHook
        var depth: Depth
        var count: Count
        var old: Value
        var new: Value
    }

    /// The hook's functions in the SQLite the process uses, when it has them (``SQLScript``'s
    /// counting uses them too).
    static let functions: Functions? = {
        guard let process = dlopen(nil, RTLD_NOW) else { return nil }
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            dlsym(process, name).map { unsafeBitCast($0, to: type) }
        }
        guard let setHook = symbol("sqlite3_preupdate_hook", as: SetHook.self),
            let depth = symbol("sqlite3_preupdate_depth", as: Depth.self),
            let count = symbol("sqlite3_preupdate_count", as: Count.self),
            let old = symbol("sqlite3_preupdate_old", as: Value.self),
            let new = symbol("sqlite3_preupdate_new", as: Value.self)
        else { return nil }
        return Functions(setHook: setHook, depth: depth, count: count, old: old, new: new)
    }()

    /// Whether the platform's SQLite reports what triggers and foreign-key actions change.
    static var isAvailable: Bool { functions != nil }

    /// How many side effects are kept with their values; the others are counted.
    private static let kept = 5

    private let connection: OpaquePointer?
    private let enabled: Bool
    /// Counting only while true: `.sql` steps run as written and are counted by ``SQLScript``,
    /// whose own hook replaces this one for the step; set back to true, the hook is installed again.
    var isCounting = true {
        didSet { if isCounting && !oldValue { start() } }
    }
    private(set) var sideEffects: [SideEffect] = []
    /// The migration whose writes are being accounted (an index into the run's pending migrations).
    var migration = 0
    /// Rows triggers inserted, by migration and table: the report names them (an audit log).
    private(set) var triggerInserts: [Int: [String: Int]] = [:]
    /// Tables (lower-cased) that only Core Data's derived-attribute triggers (`Z_DA_…`) write:
    /// their updates are the derived values Core Data computes (docs/core-data.md).
    private var derivedOnly: Set<String> = []
    /// Tables (lower-cased) a trigger on a view writes (`INSTEAD OF`): a row inserted there is the
    /// row seedkit wrote into the view, which its report does not name as such.
    private var viewFed: Set<String> = []
    private(set) var uncounted = 0
    private var lastTable: [CChar] = []
    private var lastRowid: Int64 = 0

    /// Starts accounting on `db`'s connection (nothing when the platform's SQLite lacks the hook,
    /// or when not `enabled`).
    init(_ db: Database, enabled: Bool = true) {
        connection = db.sqliteConnection
        self.enabled = enabled
        start()
    }

    /// Installs the hook on the connection (again after a `.sql` step, whose counting replaced it).
    private func start() {
        guard enabled, let functions = Self.functions else { return }
        _ = functions.setHook(
            connection,
            { context, db, operation, schema, table, oldRowid, newRowid in
                guard let context, let schema, let table else { return }
                Unmanaged<ChangeAccounting>.fromOpaque(context).takeUnretainedValue().saw(
                    db, operation, schema, table, operation == SQLITE_DELETE ? oldRowid : newRowid)
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Stops accounting (the hook is removed from the connection).
    func stop() {
        _ = Self.functions?.setHook(connection, nil, nil)
    }

    deinit { stop() }

    private func saw(
        _ db: OpaquePointer?, _ operation: Int32, _ schema: UnsafePointer<CChar>, _ table: UnsafePointer<CChar>,
        _ rowid: Int64
    ) {
        guard isCounting, let functions = Self.functions, strcmp(schema, "main") == 0 else { return }
        if functions.depth(db) == 0 {
            lastTable.removeAll(keepingCapacity: true)
            var pointer = table
            while pointer.pointee != 0 {
                lastTable.append(pointer.pointee)
                pointer += 1
            }
            lastTable.append(0)
            lastRowid = rowid
            return
        }
        // A trigger's update of the row seedkit just wrote: the report names that row.
        if operation == SQLITE_UPDATE, rowid == lastRowid, sqlite3_stricmp(table, lastTable) == 0 { return }
        if operation == SQLITE_INSERT, viewFed.isEmpty || !viewFed.contains(String(cString: table).lowercased()) {
            triggerInserts[migration, default: [:]][String(cString: table), default: 0] += 1
            return
        }
        if operation == SQLITE_UPDATE, !derivedOnly.isEmpty, derivedOnly.contains(String(cString: table).lowercased()) {
            return
        }
        guard sideEffects.count < Self.kept else {
            uncounted += 1
            return
        }
        var values: [SQLValue] = []
        let read = operation == SQLITE_INSERT ? functions.new : functions.old
        for column in 0..<min(functions.count(db), 4) {
            var value: OpaquePointer?
            guard read(db, column, &value) == SQLITE_OK, let value else { break }
            values.append(Self.sqlValue(value))
        }
        sideEffects.append(
            SideEffect(
                operation: operation, table: String(cString: table), rowid: rowid, values: values,
                cause: lastTable.isEmpty
                    ? nil : String(decoding: lastTable.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)))
    }

    static func sqlValue(_ value: OpaquePointer) -> SQLValue {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            let count = Int(sqlite3_value_bytes(value))
            guard let bytes = sqlite3_value_text(value) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            guard let bytes = sqlite3_value_blob(value) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    /// Reads which tables only Core Data's derived-attribute triggers write (again after a `.sql`
    /// step, which may create or drop triggers).
    func refresh(_ db: Database) throws {
        var writers: [String: [String]] = [:]
        viewFed = []
        let tables = try String.fetchAll(db, sql: "SELECT name FROM main.sqlite_master WHERE type = 'table'")
        let views = Set(
            try String.fetchAll(
                db,
                sql:
                    "SELECT lower(name) FROM main.sqlite_master WHERE type = 'view' UNION SELECT lower(name) FROM temp.sqlite_master WHERE type = 'view'"
            ))
        for row in try Self.triggers(db) {
            let name: String = row[0] ?? ""
            let on: String = row[1] ?? ""
            for table in tables where Self.body(row[2] ?? "").contains(table.lowercased()) {
                writers[table.lowercased(), default: []].append(name)
                if views.contains(on.lowercased()) { viewFed.insert(table.lowercased()) }
            }
        }
        derivedOnly = Set(writers.filter { $0.value.allSatisfy { $0.hasPrefix("Z_DA_") } }.keys)
    }

    /// One event per table a trigger inserted rows into during `migration`, naming the triggers.
    func insertEvents(_ db: Database, migration: Int, file: String) -> [RowEvent] {
        (triggerInserts[migration] ?? [:]).sorted { $0.key < $1.key }.map { table, count in
            let blame = (try? Self.blame(db, changed: table, cause: nil)) ?? "a trigger"
            return RowEvent(
                kind: .sql, table: table, key: [], detail: "\(count) inserted by \(blame)", file: file, line: 0)
        }
    }

    private static func triggers(_ db: Database) throws -> [Row] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT name, tbl_name, sql, 'main' FROM main.sqlite_master WHERE type = 'trigger'
                UNION ALL SELECT name, tbl_name, sql, 'temp' FROM temp.sqlite_master WHERE type = 'trigger'
                  AND name NOT LIKE '\\_seedkit\\_%' ESCAPE '\\'
                """)
    }

    /// A trigger's statements (after its `BEGIN`), lower-cased.
    private static func body(_ sql: String) -> String {
        let sql = sql.lowercased()
        return sql.range(of: "begin").map { String(sql[$0.upperBound...]) } ?? sql
    }

    /// Throws when SQLite changed rows the report cannot name, naming each row and the triggers
    /// that can have changed it; the caller's transaction is then rolled back.
    ///
    /// - Parameters:
    ///   - db: the store, inside the migration's transaction.
    ///   - file: the migration being applied, put on the error.
    /// - Throws: ``SeedError`` (refused) naming each row SQLite changed that the report cannot name.
    func check(_ db: Database, file: String?) throws {
        guard !sideEffects.isEmpty else { return }
        let total = sideEffects.count + uncounted
        let rows = sideEffects.map { effect in
            let verb =
                effect.operation == SQLITE_INSERT
                ? "inserted" : effect.operation == SQLITE_UPDATE ? "updated" : "deleted"
            let shown = effect.values.map(\.sqlLiteral).joined(separator: ", ")
            let blame = (try? Self.blame(db, changed: effect.table, cause: effect.cause)) ?? ""
            return "\(effect.table) rowid \(effect.rowid) (\(shown)) \(verb) by \(blame)"
        }
        throw SeedError(
            .refused, file: file,
            "SQLite changed \(total) row\(total == 1 ? "" : "s") seedkit did not write: \(rows.joined(separator: "; "))\(uncounted > 0 ? "; …" : ""). seedkit reports every row a migration changes, and a user's row is never changed as a side effect of its writes; drop or change the trigger (a .sql step can), or write this change as a .sql step; nothing was written"
        )
    }

    /// Who can have made a change in `changed`: the triggers (the store's and temporary ones)
    /// whose SQL names that table, those on `cause` first; else a foreign-key action.
    static func blame(_ db: Database, changed: String, cause: String?) throws -> String {
        let triggers = try Self.triggers(db)
        let needle = changed.lowercased()
        var named: [(name: String, onCause: Bool)] = []
        for row in triggers {
            let name: String = row[0] ?? ""
            let table: String = row[1] ?? ""
            guard Self.body(row[2] ?? "").contains(needle) else { continue }
            let label = (row[3] as String? ?? "") == "temp" ? "temporary trigger \(name)" : "trigger \(name)"
            named.append((label, cause.map { $0.lowercased() == table.lowercased() } ?? false))
        }
        named.sort { $0.onCause && !$1.onCause }
        if named.isEmpty {
            return "a foreign-key action (ON DELETE/ON UPDATE of a table that refers to \(changed))"
        }
        return named.map(\.name).joined(separator: " or ")
    }
}
