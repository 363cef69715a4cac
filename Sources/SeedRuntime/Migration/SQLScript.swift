import Foundation
import GRDB
import GRDBSQLite

/// A `.sql` migration's text, split into statements by SQLite's own tokenizer
/// (`sqlite3_complete`), so that semicolons in strings, comments and trigger bodies do not
/// split a statement.
///
/// All pending migrations run in one transaction, so a SQL migration must not end it, open
/// another, or reach outside the store. ``refuseTransactionControl(in:schema:)`` finds such
/// statements before anything runs by preparing each statement with an authorizer
/// (`SQLITE_TRANSACTION`, `SQLITE_SAVEPOINT`, `SQLITE_ATTACH`, `SQLITE_DETACH`, and every
/// pragma that sets something outside ``allowedPragmas``) on an in-memory copy of the store's schema; `VACUUM`, which has no authorizer
/// action, is recognized by its first token.
struct SQLScript {
    /// One statement of the script and where it starts.
    struct Statement {
        var text: String
        /// 1-based line and column of the statement's first token.
        var line: Int
        var column: Int
        /// The first keyword, upper-cased: `INSERT`, `COMMIT`, `PRAGMA` and the like.
        var keyword: String

        /// What the statement does at its top level, upper-cased: its keyword, or for a `WITH`
        /// statement the first `INSERT`, `REPLACE`, `UPDATE`, `DELETE` or `SELECT` outside parentheses.
        var verb: String {
            guard keyword == "WITH" else { return keyword }
            var depth = 0
            for token in ConflictClauses.tokens(text) {
                if token == "(" {
                    depth += 1
                } else if token == ")" {
                    depth -= 1
                } else if depth == 0,
                    ["INSERT", "REPLACE", "UPDATE", "DELETE", "SELECT", "VALUES"].contains(token.uppercasedName)
                {
                    return token.uppercasedName
                }
            }
            return keyword
        }
    }

    let statements: [Statement]

    init(_ sql: String) {
        statements = Self.split(Array(sql.utf8))
    }

    // MARK: - Splitting

    private static func split(_ bytes: [UInt8]) -> [Statement] {
        var statements: [Statement] = []
        var start = 0
        var line = 1
        var lineStart = 0
        var index = 0
        var buffer: [CChar] = []
        func flush(upTo end: Int) {
            // Where the statement's first token is: skip blanks and comments, counting lines.
            var position = start
            var firstLine = line
            var firstLineStart = lineStart
            skipping: while position < end {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\n") {
                    firstLine += 1
                    firstLineStart = position + 1
                    position += 1
                } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
                    || byte == 0x0C || byte == UInt8(ascii: ";")
                {
                    position += 1
                } else if byte == UInt8(ascii: "-"), position + 1 < end, bytes[position + 1] == UInt8(ascii: "-") {
                    while position < end && bytes[position] != UInt8(ascii: "\n") { position += 1 }
                } else if byte == UInt8(ascii: "/"), position + 1 < end, bytes[position + 1] == UInt8(ascii: "*") {
                    position += 2
                    while position < end
                        && !(bytes[position] == UInt8(ascii: "/") && bytes[position - 1] == UInt8(ascii: "*"))
                    {
                        if bytes[position] == UInt8(ascii: "\n") {
                            firstLine += 1
                            firstLineStart = position + 1
                        }
                        position += 1
                    }
                    position += 1
                } else {
                    break skipping
                }
            }
            if position < end {
                var wordEnd = position
                while wordEnd < end,
                    bytes[wordEnd] == UInt8(ascii: "_")
                        || (bytes[wordEnd] < 0x80 && isalpha(Int32(bytes[wordEnd])) != 0)
                { wordEnd += 1 }
                statements.append(
                    Statement(
                        text: String(decoding: bytes[start..<end], as: UTF8.self), line: firstLine,
                        column: position - firstLineStart + 1,
                        keyword: String(decoding: bytes[position..<wordEnd], as: UTF8.self).uppercasedName))
            }
            // Lines counted up to the end of this statement.
            for position in start..<end where bytes[position] == UInt8(ascii: "\n") {
                line += 1
                lineStart = position + 1
            }
            start = end
        }
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: ";") {
                // A statement ends at a semicolon SQLite's tokenizer says completes it.
                buffer.removeAll(keepingCapacity: true)
                for byte in bytes[start...index] { buffer.append(CChar(bitPattern: byte)) }
                buffer.append(0)
                if sqlite3_complete(buffer) != 0 { flush(upTo: index + 1) }
            }
            index += 1
        }
        if start < bytes.count { flush(upTo: bytes.count) }
        return statements
    }

    // MARK: - Refusing what would escape the transaction

    /// Pragmas a SQL migration may run, with or without an argument: they read the schema or
    /// check the store, or change something only inside seedkit's transaction: `user_version`
    /// (a header field, rolled back with the rest) and `defer_foreign_keys` (foreign keys are
    /// then checked at the commit instead of at each statement, as seedkit checks them before it
    /// commits anyway; SQLite turns it off when the transaction ends; the table rebuilds
    /// `new-migration --from` writes need it).
    ///
    /// Every other pragma is refused when it sets something (docs/releases.md, Schema steps):
    /// `foreign_keys`, `ignore_check_constraints`, `recursive_triggers`, `query_only`,
    /// `synchronous`, `max_page_count`, `writable_schema`, the journal's, … change how later
    /// statements run, or the connection, for the rest of the run.
    static let allowedPragmas: Set<String> = [
        "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "foreign_key_list",
        "foreign_key_check", "integrity_check", "quick_check", "collation_list", "function_list", "module_list",
        "pragma_list", "database_list", "compile_options", "data_version", "user_version", "defer_foreign_keys",
    ]

    /// Pragmas a SQL migration may read (`PRAGMA foreign_keys`, no argument) but not set.
    static let readOnlyPragmas: Set<String> = [
        "foreign_keys", "recursive_triggers", "ignore_check_constraints", "query_only", "synchronous",
        "journal_mode", "locking_mode", "page_size", "page_count", "freelist_count", "max_page_count", "encoding",
        "auto_vacuum",
        "cache_size", "schema_version", "application_id", "trusted_schema", "cell_size_check", "automatic_index",
        "busy_timeout",
        "temp_store", "secure_delete", "legacy_alter_table", "reverse_unordered_selects", "mmap_size", "cache_spill",
    ]

    /// Why `PRAGMA name` (with `argument`, nil when read) is refused in a SQL migration, or nil when it is allowed.
    static func pragmaRefusal(_ name: String, argument: String?) -> String? {
        let name = name.lowercasedName
        if allowedPragmas.contains(name) { return nil }
        if argument == nil && readOnlyPragmas.contains(name) { return nil }
        return "PRAGMA \(name)"
    }

    /// Statements that never control a transaction and need no check (they can't hold one).
    private static let plainKeywords: Set<String> = [
        "INSERT", "UPDATE", "DELETE", "REPLACE", "SELECT", "VALUES", "WITH",
    ]

    /// Refuses, before anything runs, every statement of `migrations`' SQL that would end or
    /// open a transaction, attach or detach a database, vacuum, or change the journal.
    ///
    /// - parameters:
    ///   - migrations: the release's migrations; only the SQL ones are read.
    ///   - db: the store's connection; its schema is copied into memory so that statements
    ///     naming its tables (or tables an earlier statement creates) can be prepared.
    /// - throws: ``SeedError`` (configuration) listing each such statement at its file and line.
    static func refuseTransactionControl(in migrations: [Migration], schema db: Database) throws {
        let scripts = migrations.compactMap { migration -> (Migration, SQLScript)? in
            guard case .sql(let sql) = migration.body else { return nil }
            return (migration, SQLScript(sql))
        }
        guard !scripts.isEmpty else { return }
        let scratch = try Scratch(copyingSchemaOf: db)
        var problems: [Diagnostic] = []
        for (migration, script) in scripts {
            // A plain statement is prepared too when it can name seedkit's own tables.
            let namesLedger = script.statements.contains { $0.text.lowercased().contains("_seedkit_") }
            for statement in script.statements where namesLedger || !plainKeywords.contains(statement.keyword) {
                if let what = scratch.refusal(statement) {
                    let why =
                        what.hasPrefix("writing ")
                        ? "seedkit's tables (_seedkit_*) record which migrations the store holds; a step that changed them would make the next run apply migrations again or refuse the store"
                        : what.hasPrefix("PRAGMA ")
                            ? "it changes how later statements run or the connection itself, for the whole run (a SQL migration may read pragmas, run the schema ones such as table_info, and set user_version and defer_foreign_keys)"
                            : "all pending migrations run in one transaction that seedkit opens and commits (transaction control, ATTACH/DETACH and VACUUM are refused)"
                    problems.append(
                        Diagnostic(
                            file: migration.file, line: statement.line, column: statement.column, code: .configuration,
                            message:
                                "\(what) is not allowed in a SQL migration: \(why); remove it; nothing was written"))
                }
            }
        }
        if !problems.isEmpty { throw SeedError(.configuration, problems) }
    }

    /// A private in-memory connection holding the store's schema, with an authorizer that
    /// records what each prepared statement would do.
    private final class Scratch {
        private var connection: OpaquePointer?
        /// What the authorizer saw while the last statement was prepared.
        fileprivate var refused: String?
        fileprivate var changesSchema = false
        /// The table of a trigger the last statement created.
        private var triggerTable: String?

        init(copyingSchemaOf db: Database) throws {
            guard
                sqlite3_open_v2(
                    ":memory:", &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_PRIVATECACHE, nil)
                    == SQLITE_OK
            else {
                sqlite3_close(connection)
                throw SeedError(.io, "cannot open an in-memory database to check SQL migrations")
            }
            // A copied schema never runs long: statements executed here touch empty tables,
            // and anything running away is interrupted.
            sqlite3_progress_handler(
                connection, 10_000,
                { context in
                    guard let context else { return 1 }
                    let scratch = Unmanaged<Scratch>.fromOpaque(context).takeUnretainedValue()
                    scratch.steps += 1
                    return scratch.steps > 100 ? 1 : 0
                }, Unmanaged.passUnretained(self).toOpaque())
            let sql = try String.fetchAll(
                db,
                sql: """
                    SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                    ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'view' THEN 1 ELSE 2 END, rowid
                    """)
            for statement in sql { _ = execute(statement) }
            sqlite3_set_authorizer(
                connection,
                { context, action, first, second, _, _ in
                    guard let context else { return SQLITE_OK }
                    let scratch = Unmanaged<Scratch>.fromOpaque(context).takeUnretainedValue()
                    return scratch.authorize(
                        action, first.map { String(cString: $0) }, second.map { String(cString: $0) })
                }, Unmanaged.passUnretained(self).toOpaque())
        }

        private var steps = 0

        /// seedkit's record of the store: what it holds, its tables' keys, the migrations applied.
        /// (Working tables a schema step creates, such as `_seedkit_new_…`, are the step's own.)
        static let ledgerTables: Set<String> = [
            "_seedkit_meta", "_seedkit_tables", "_seedkit_migrations", "_seedkit_file_digests",
        ]

        deinit { sqlite3_close_v2(connection) }

        fileprivate func authorize(_ action: Int32, _ first: String?, _ second: String?) -> Int32 {
            switch action {
            case SQLITE_TRANSACTION, SQLITE_SAVEPOINT, SQLITE_ATTACH, SQLITE_DETACH:
                if refused == nil { refused = "" }
                return SQLITE_DENY
            case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE:
                if let table = first, Self.ledgerTables.contains(table.lowercased()) {
                    if refused == nil { refused = "writing \(table)" }
                    return SQLITE_DENY
                }
            case SQLITE_PRAGMA:
                if let refusal = SQLScript.pragmaRefusal(first ?? "", argument: second) {
                    if refused == nil { refused = refusal }
                    return SQLITE_DENY
                }
            case SQLITE_CREATE_INDEX, SQLITE_CREATE_TABLE, SQLITE_CREATE_TEMP_INDEX, SQLITE_CREATE_TEMP_TABLE,
                SQLITE_CREATE_TEMP_TRIGGER,
                SQLITE_CREATE_TEMP_VIEW, SQLITE_CREATE_TRIGGER, SQLITE_CREATE_VIEW, SQLITE_DROP_INDEX,
                SQLITE_DROP_TABLE,
                SQLITE_DROP_TEMP_INDEX, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_TEMP_TRIGGER, SQLITE_DROP_TEMP_VIEW,
                SQLITE_DROP_TRIGGER,
                SQLITE_DROP_VIEW, SQLITE_ALTER_TABLE, SQLITE_CREATE_VTABLE, SQLITE_DROP_VTABLE:
                if action == SQLITE_CREATE_TRIGGER || action == SQLITE_CREATE_TEMP_TRIGGER { triggerTable = second }
                // A trigger or index on seedkit's tables, or altering one, changes them too.
                if let table = action == SQLITE_DROP_TABLE ? first : second,
                    Self.ledgerTables.contains(table.lowercased())
                {
                    if refused == nil { refused = "writing \(table)" }
                    return SQLITE_DENY
                }
                changesSchema = true
            default:
                break
            }
            return SQLITE_OK
        }

        /// What in `statement` is refused (`COMMIT`, `PRAGMA journal_mode`, …), or nil.
        ///
        /// A statement that changes the schema is run here, so later statements see its tables.
        func refusal(_ statement: SQLScript.Statement) -> String? {
            if statement.keyword == "VACUUM" { return "VACUUM" }
            refused = nil
            changesSchema = false
            var handle: OpaquePointer?
            _ = sqlite3_prepare_v2(connection, statement.text, -1, &handle, nil)
            defer { sqlite3_finalize(handle) }
            if let refused { return refused.isEmpty ? statement.keyword : refused }
            if changesSchema, let handle {
                steps = 0
                while sqlite3_step(handle) == SQLITE_ROW {}
            }
            if let table = triggerTable {
                // A trigger's statements are checked when a write that fires it is prepared.
                triggerTable = nil
                let quoted = table.quotedDatabaseIdentifier
                var columns: [String] = []
                var info: OpaquePointer?
                if sqlite3_prepare_v2(connection, "SELECT name FROM pragma_table_info(?)", -1, &info, nil) == SQLITE_OK
                {
                    sqlite3_bind_text(info, 1, table, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                    while sqlite3_step(info) == SQLITE_ROW, let name = sqlite3_column_text(info, 0) {
                        columns.append(String(cString: name).quotedDatabaseIdentifier)
                    }
                }
                sqlite3_finalize(info)
                let set = columns.map { "\($0) = \($0)" }.joined(separator: ", ")
                for probe in [
                    "INSERT INTO \(quoted) DEFAULT VALUES", "UPDATE \(quoted) SET \(set)", "DELETE FROM \(quoted)",
                ] {
                    var handle: OpaquePointer?
                    _ = sqlite3_prepare_v2(connection, probe, -1, &handle, nil)
                    sqlite3_finalize(handle)
                    if let refused { return refused }
                }
            }
            return nil
        }

        private func execute(_ sql: String) -> Bool {
            steps = 0
            return sqlite3_exec(connection, sql, nil, nil, nil) == SQLITE_OK
        }
    }

    // MARK: - Running

    /// What a SQL migration changed: the rows it wrote in all, the rows by table and
    /// kind as SQLite counted them (temporary triggers SQLite fires for every row written, tables
    /// `WITHOUT ROWID` and the deletes of a REPLACE conflict included), and each row deleted, by key.
    struct Changes {
        var total = 0
        var byTable: [String: (inserted: Int, updated: Int, deleted: Int)] = [:]
        /// The rows deleted, in order: table and key (the spec's key columns, else the primary key,
        /// else rowid); the first `listing` of them when the run lists a sample.
        var deletedRows: [(table: String, key: [RowEvent.KeyValue])] = []
        /// Rows deleted beyond ``deletedRows``.
        var unlistedDeletes = 0

        /// One `.sql` event per table changed, in name order (`2 inserted, 1 updated`), then one
        /// `deleted` event per row deleted, with its key.
        func events(file: String) -> [RowEvent] {
            byTable.sorted { $0.key < $1.key }.map { table, count in
                let parts = [(count.inserted, "inserted"), (count.updated, "updated"), (count.deleted, "deleted")]
                    .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
                return RowEvent(
                    kind: .sql, table: table, key: [], detail: parts.joined(separator: ", "), file: file, line: 0)
            }
                + deletedRows.map {
                    RowEvent(kind: .deleted, table: $0.table, key: $0.key, detail: "", file: file, line: 0)
                }
        }
    }

    /// Runs the statements one at a time inside the caller's transaction; after each, checks
    /// that the transaction is still open and nothing is attached (the refusal above should
    /// have caught it: this is the backstop).
    ///
    /// Rows are counted by SQLite's preupdate hook, else by temporary triggers on every table of
    /// the store (``SQLStepCounter``; SQLite's update hook misses the rows a REPLACE conflict
    /// deletes, and every row of a `WITHOUT ROWID` table), with `recursive_triggers` on for the
    /// step so that SQLite fires delete triggers for REPLACE's deletes. A statement other than a DELETE that deletes a row the store held — a REPLACE
    /// conflict (`INSERT OR REPLACE`, `REPLACE INTO`, a schema's `ON CONFLICT REPLACE`), what that
    /// cascades to, a trigger — fails the run, naming the row: a user's row is never deleted as a
    /// side effect (docs/conflicts-and-triggers.md).
    ///
    /// - parameters:
    ///   - db: the store, inside the caller's transaction.
    ///   - file: the migration's file, for messages.
    ///   - keys: the key columns of each table (the run's specs), by SQL table name.
    ///   - listing: how many deleted rows to list by key (nil: all); the others are counted.
    ///   - timeLimit: how long one statement may run, in seconds, before it is interrupted.
    ///   - counting: what counts the rows (the hook where SQLite has it; tests compare the two).
    /// - returns: the rows the statements wrote, by table and kind, and each row deleted by key.
    /// - throws: ``SeedError`` naming the file and statement: SQLite's error, a statement that
    ///   ends the transaction or attaches a database, one that runs past `timeLimit`, or a row it
    ///   deleted as a side effect.
    func run(
        in db: Database, file: String, keys: @escaping (String) -> [String]? = { _ in nil }, listing: Int? = nil,
        timeLimit: Double = SQLStepBound.defaultSeconds, counting: Counting = .best
    ) throws -> Changes {
        let recursive = try Bool.fetchOne(db, sql: "PRAGMA recursive_triggers") ?? false
        try db.execute(sql: "PRAGMA recursive_triggers = ON")
        let counter = try Self.counter(counting, db, keys: keys, listing: listing)
        defer {
            counter.finish()
            if !recursive { try? db.execute(sql: "PRAGMA recursive_triggers = OFF") }
        }
        let deadline = SQLStepBound.deadline(seconds: timeLimit)
        for statement in statements {
            let reshapes = ["CREATE", "ALTER", "DROP"].contains(statement.keyword)
            // A trigger naming a column would stop ALTER TABLE … DROP COLUMN: none while a table is
            // altered. They stay for DROP TABLE, whose implicit DELETE (foreign keys on) cascades to
            // the rows that refer to the table: those are deletes as a side effect too.
            if statement.keyword == "ALTER" { counter.remove() }
            let deletedBefore = try counter.beginStatement(statement.keyword)
            do {
                try SQLStepBound.bounded(db, until: deadline, seconds: timeLimit) {
                    try db.execute(sql: statement.text)
                }
            } catch let bound as SQLStepBound.TimedOut {
                throw SQLStepBound.error(
                    seconds: bound.seconds, file: file, line: statement.line, column: statement.column)
            } catch let error as DatabaseError where (error.message ?? "").hasPrefix("unsafe use of") {
                // The store's trigger or view needs trusted_schema: the store is refused, as for any write.
                throw SeedError(databaseError: error)
            } catch let error as DatabaseError where !error.isStoreFailure {
                throw SeedError(
                    .invalidData, file: file, line: statement.line, column: statement.column,
                    "SQL migration failed: \(error.message ?? "\(error)"); nothing was written")
            }
            guard sqlite3_get_autocommit(db.sqliteConnection) == 0 else {
                throw SeedError(
                    .configuration, file: file, line: statement.line, column: statement.column,
                    "\(statement.keyword) ended seedkit's transaction; a SQL migration must not control transactions")
            }
            if reshapes { try counter.install() }
            if statement.verb != "DELETE", try counter.deletedCount() > deletedBefore {
                let rows = try counter.deletedRows(after: deletedBefore, limit: 3)
                let count = try counter.deletedCount() - deletedBefore
                let shown = rows.prefix(3).map { row in
                    "\(row.table) \(row.key.map { $0.value.sqlLiteral }.joined(separator: ", "))"
                }.joined(separator: "; ")
                throw SeedError(
                    .invalidData, file: file, line: statement.line, column: statement.column,
                    "this \(statement.verb) deleted \(count) row\(count == 1 ? "" : "s") the store held (\(shown)\(count > 3 ? "; …" : "")): a REPLACE conflict (INSERT OR REPLACE, REPLACE INTO, an ON CONFLICT REPLACE clause), what it cascades to, or a trigger; a SQL migration may delete rows only with DELETE, so that a row the user holds or edited is never lost as a side effect. Write the change as an upsert (INSERT … ON CONFLICT (…) DO UPDATE), or as a data migration whose `from` keeps the user's edits; nothing was written"
                )
            }
        }
        let attached = try String.fetchAll(
            db, sql: "SELECT name FROM pragma_database_list WHERE name NOT IN ('main', 'temp')")
        if !attached.isEmpty {
            for name in attached { try? db.execute(sql: "DETACH DATABASE \(name.quotedDatabaseIdentifier)") }
            throw SeedError(
                .configuration, file: file,
                "the SQL migration attached \(attached.joined(separator: ", ")); a SQL migration must not reach outside the store; nothing was written"
            )
        }
        var changes = Changes()
        changes.byTable = try counter.counts()
        changes.total = changes.byTable.values.reduce(0) { $0 + $1.inserted + $1.updated + $1.deleted }
        changes.deletedRows = try counter.deletedRows(after: 0, limit: listing)
        changes.unlistedDeletes = try counter.deletedCount() - changes.deletedRows.count
        return changes
    }
}
