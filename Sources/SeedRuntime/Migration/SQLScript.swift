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
/// (`SQLITE_TRANSACTION`, `SQLITE_SAVEPOINT`, `SQLITE_ATTACH`, `SQLITE_DETACH`, journal
/// pragmas) on an in-memory copy of the store's schema; `VACUUM`, which has no authorizer
/// action, is recognized by its first token.
struct SQLScript {
    /// One statement of the script and where it starts.
    struct Statement {
        var text: String
        /// 1-based line and column of the statement's first token.
        var line: Int
        var column: Int
        /// The first keyword, upper-cased: `INSERT`, `COMMIT`, `PRAGMA`, …
        var keyword: String
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
                if byte == UInt8(ascii: "\n") { firstLine += 1; firstLineStart = position + 1; position += 1 }
                else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") || byte == 0x0C || byte == UInt8(ascii: ";") { position += 1 }
                else if byte == UInt8(ascii: "-"), position + 1 < end, bytes[position + 1] == UInt8(ascii: "-") {
                    while position < end && bytes[position] != UInt8(ascii: "\n") { position += 1 }
                } else if byte == UInt8(ascii: "/"), position + 1 < end, bytes[position + 1] == UInt8(ascii: "*") {
                    position += 2
                    while position < end && !(bytes[position] == UInt8(ascii: "/") && bytes[position - 1] == UInt8(ascii: "*")) {
                        if bytes[position] == UInt8(ascii: "\n") { firstLine += 1; firstLineStart = position + 1 }
                        position += 1
                    }
                    position += 1
                } else { break skipping }
            }
            if position < end {
                var wordEnd = position
                while wordEnd < end, bytes[wordEnd] == UInt8(ascii: "_") || (bytes[wordEnd] < 0x80 && isalpha(Int32(bytes[wordEnd])) != 0) { wordEnd += 1 }
                statements.append(Statement(
                    text: String(decoding: bytes[start..<end], as: UTF8.self), line: firstLine, column: position - firstLineStart + 1,
                    keyword: String(decoding: bytes[position..<wordEnd], as: UTF8.self).uppercasedName))
            }
            // Lines counted up to the end of this statement.
            for position in start..<end where bytes[position] == UInt8(ascii: "\n") { line += 1; lineStart = position + 1 }
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

    /// Pragmas that change the journal, the locks or the file outside a transaction's reach.
    static let refusedPragmas: Set<String> = ["journal_mode", "locking_mode", "wal_checkpoint", "writable_schema", "schema_version", "incremental_vacuum"]

    /// Statements that never control a transaction and need no check (they can't hold one).
    private static let plainKeywords: Set<String> = ["INSERT", "UPDATE", "DELETE", "REPLACE", "SELECT", "VALUES", "WITH"]

    /// Refuses, before anything runs, every statement of `migrations`' SQL that would end or
    /// open a transaction, attach or detach a database, vacuum, or change the journal.
    ///
    /// - parameter schema: the store's connection; its schema is copied into memory so that
    ///   statements naming its tables (or tables an earlier statement creates) can be prepared.
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
            for statement in script.statements where !plainKeywords.contains(statement.keyword) {
                if let what = scratch.refusal(statement) {
                    problems.append(Diagnostic(file: migration.file, line: statement.line, column: statement.column, code: .configuration, message:
                        "\(what) is not allowed in a SQL migration: all pending migrations run in one transaction that seedkit opens and commits (transaction control, ATTACH/DETACH, VACUUM and journal pragmas are refused); remove it; nothing was written"))
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

        init(copyingSchemaOf db: Database) throws {
            guard sqlite3_open_v2(":memory:", &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_PRIVATECACHE, nil) == SQLITE_OK else {
                sqlite3_close(connection)
                throw SeedError(.io, "cannot open an in-memory database to check SQL migrations")
            }
            // A copied schema never runs long: statements executed here touch empty tables,
            // and anything running away is interrupted.
            sqlite3_progress_handler(connection, 10_000, { context in
                guard let context else { return 1 }
                let scratch = Unmanaged<Scratch>.fromOpaque(context).takeUnretainedValue()
                scratch.steps += 1
                return scratch.steps > 100 ? 1 : 0
            }, Unmanaged.passUnretained(self).toOpaque())
            let sql = try String.fetchAll(db, sql: """
                SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'view' THEN 1 ELSE 2 END, rowid
                """)
            for statement in sql { _ = execute(statement) }
            sqlite3_set_authorizer(connection, { context, action, first, second, _, _ in
                guard let context else { return SQLITE_OK }
                let scratch = Unmanaged<Scratch>.fromOpaque(context).takeUnretainedValue()
                return scratch.authorize(action, first.map { String(cString: $0) }, second.map { String(cString: $0) })
            }, Unmanaged.passUnretained(self).toOpaque())
        }

        private var steps = 0

        deinit { sqlite3_close_v2(connection) }

        fileprivate func authorize(_ action: Int32, _ first: String?, _ second: String?) -> Int32 {
            switch action {
            case SQLITE_TRANSACTION, SQLITE_SAVEPOINT, SQLITE_ATTACH, SQLITE_DETACH:
                if refused == nil { refused = "" }
                return SQLITE_DENY
            case SQLITE_PRAGMA:
                if let name = first?.lowercasedName, SQLScript.refusedPragmas.contains(name) {
                    if refused == nil { refused = "PRAGMA \(name)" }
                    return SQLITE_DENY
                }
            case SQLITE_CREATE_INDEX, SQLITE_CREATE_TABLE, SQLITE_CREATE_TEMP_INDEX, SQLITE_CREATE_TEMP_TABLE, SQLITE_CREATE_TEMP_TRIGGER,
                 SQLITE_CREATE_TEMP_VIEW, SQLITE_CREATE_TRIGGER, SQLITE_CREATE_VIEW, SQLITE_DROP_INDEX, SQLITE_DROP_TABLE,
                 SQLITE_DROP_TEMP_INDEX, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_TEMP_TRIGGER, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_TRIGGER,
                 SQLITE_DROP_VIEW, SQLITE_ALTER_TABLE, SQLITE_CREATE_VTABLE, SQLITE_DROP_VTABLE:
                changesSchema = true
            default:
                break
            }
            return SQLITE_OK
        }

        /// What in `statement` is refused (`COMMIT`, `PRAGMA journal_mode`, …), or nil. A
        /// statement that changes the schema is run here, so later statements see its tables.
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
            return nil
        }

        private func execute(_ sql: String) -> Bool {
            steps = 0
            return sqlite3_exec(connection, sql, nil, nil, nil) == SQLITE_OK
        }
    }

    // MARK: - Running

    /// What a SQL migration changed: `sqlite3_total_changes` over the run, and the rows by table
    /// and kind as SQLite reported them (tables `WITHOUT ROWID` are not reported by table).
    struct Changes {
        var total = 0
        var byTable: [String: (inserted: Int, updated: Int, deleted: Int)] = [:]

        /// One `.sql` event per table changed, in name order: `2 inserted, 1 updated`.
        func events(file: String) -> [RowEvent] {
            byTable.sorted { $0.key < $1.key }.map { table, count in
                let parts = [(count.inserted, "inserted"), (count.updated, "updated"), (count.deleted, "deleted")].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
                return RowEvent(kind: .sql, table: table, key: [], detail: parts.joined(separator: ", "), file: file, line: 0)
            }
        }
    }

    /// Runs the statements one at a time inside the caller's transaction; after each, checks
    /// that the transaction is still open and nothing is attached (the refusal above should
    /// have caught it: this is the backstop).
    func run(in db: Database, file: String) throws -> Changes {
        let observer = ChangeCounter()
        db.add(transactionObserver: observer, extent: .observerLifetime)
        defer { db.remove(transactionObserver: observer) }
        let before = db.totalChangesCount
        for statement in statements {
            do {
                try db.execute(sql: statement.text)
            } catch let error as DatabaseError where !error.isStoreFailure {
                throw SeedError(.invalidData, file: file, line: statement.line, column: statement.column,
                                "SQL migration failed: \(error.message ?? "\(error)"); nothing was written")
            }
            guard sqlite3_get_autocommit(db.sqliteConnection) == 0 else {
                throw SeedError(.configuration, file: file, line: statement.line, column: statement.column,
                                "\(statement.keyword) ended seedkit's transaction; a SQL migration must not control transactions")
            }
        }
        let attached = try String.fetchAll(db, sql: "SELECT name FROM pragma_database_list WHERE name NOT IN ('main', 'temp')")
        if !attached.isEmpty {
            for name in attached { try? db.execute(sql: "DETACH DATABASE \(name.quotedDatabaseIdentifier)") }
            throw SeedError(.configuration, file: file, "the SQL migration attached \(attached.joined(separator: ", ")); a SQL migration must not reach outside the store; nothing was written")
        }
        var changes = Changes()
        changes.total = db.totalChangesCount - before
        changes.byTable = observer.counts
        return changes
    }

    /// Counts row changes by table while a SQL migration runs.
    private final class ChangeCounter: TransactionObserver, @unchecked Sendable {
        var counts: [String: (inserted: Int, updated: Int, deleted: Int)] = [:]

        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }

        func databaseDidChange(with event: DatabaseEvent) {
            var count = counts[event.tableName] ?? (0, 0, 0)
            switch event.kind {
            case .insert: count.inserted += 1
            case .update: count.updated += 1
            case .delete: count.deleted += 1
            }
            counts[event.tableName] = count
        }

        func databaseDidCommit(_ db: Database) {}
        func databaseDidRollback(_ db: Database) {}
    }
}
