import Foundation
public import GRDB
import GRDBSQLite
public import SeedRuntime

/// Opening stores the user names, for reading, without changing or creating anything.
public enum StoreAccess {
    /// Opens an existing store read-only.
    ///
    /// A read-only connection to a WAL-mode store creates `-wal` and `-shm` files and cannot
    /// remove them. When the store is in WAL mode and has no `-wal` (nothing un-checkpointed to
    /// read), it is opened with SQLite's `immutable=1` instead, which touches no other file.
    ///
    /// A store beside a hot journal (a writer was killed mid-transaction) can't be read without
    /// rolling the journal back, which is a write. The store and its journal are then copied
    /// into a private temporary folder, the copy is rolled back and read, and the copy is
    /// unlinked at once: the caller sees the store as last committed, and the store and its
    /// journal are left for the next writer (`seedkit migrate`, or the app) to roll back in place.
    ///
    /// - Parameters:
    ///   - path: the store's path.
    ///   - notice: told, in a sentence, when the store was read from a rolled-back copy.
    /// - Returns: a read-only queue on the store (or on its rolled-back copy).
    /// - Throws: ``SeedError``: configuration when there is no file, refused when it is not a database.
    public static func openReadOnly(_ path: String, notice: (String) -> Void = { _ in }) throws(SeedError)
        -> DatabaseQueue
    {
        try requireFile(path)
        var configuration = Configuration()
        configuration.readonly = true
        // A reader waits for a writer's commit (the app saving, a migrate) as long as a writer would by default.
        configuration.busyMode = .timeout(Self.readerBusyTimeout)
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var location = absolute
        if isWALMode(absolute) && !FileManager.default.fileExists(atPath: absolute + "-wal") {
            let encoded = absolute.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? absolute
            location = "file:\(encoded)?immutable=1"
        }
        do {
            return try connect(location, configuration)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_READONLY_ROLLBACK {
            let queue = try openRolledBackCopy(absolute, shown: path)
            notice(
                "an interrupted write left \(path)-journal (a hot journal): shown as last committed, read from a rolled-back copy; the store and its journal were not changed (run `seedkit migrate \(path)` or open the store with the app to roll it back in place)"
            )
            return queue
        } catch {
            throw SeedError(databaseError: error, file: path)
        }
    }

    /// Copies the store and its hot journal into a private folder, lets SQLite roll the copy
    /// back, and returns a read-only connection to it; the copy is unlinked before returning.
    private static func openRolledBackCopy(_ absolute: String, shown: String) throws(SeedError) -> DatabaseQueue {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "seedkit-rollback-\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("store.sqlite")
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            try FileManager.default.copyItem(atPath: absolute, toPath: copy.path)
            try FileManager.default.copyItem(atPath: absolute + "-journal", toPath: copy.path + "-journal")
            let rollback = try DatabaseQueue(path: copy.path)  // the first read rolls the hot journal back
            _ = try rollback.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            try rollback.close()
            var configuration = Configuration()
            configuration.readonly = true
            return try connect(copy.path, configuration)
        } catch {
            let reason = (error as? DatabaseError)?.message ?? error.localizedDescription
            throw SeedError(
                .io, file: shown,
                "an interrupted write left \(shown)-journal (a hot journal), which must be rolled back before the store can be read; run `seedkit migrate \(shown)` or open the store with the app to roll it back (reading a rolled-back copy failed: \(reason))"
            )
        }
    }

    // MARK: - Stores seedkit did not make

    /// Sets up a connection to a store someone handed over (every store a command names):
    /// `trusted_schema` off, so that its views and triggers can't call functions SQLite does not
    /// mark harmless; and, for reads, a bound of `readBound` seconds on the connection's work,
    /// after which SQLite interrupts the running statement (a view that recurses forever ends as
    /// an error, docs/reference.md: Reading stores).
    public static func distrust(_ db: Database, readBound: Double?) throws {
        try db.execute(sql: "PRAGMA trusted_schema = OFF")
        guard let readBound else { return }
        moveReadDeadline(db, to: DispatchTime.now().uptimeNanoseconds &+ UInt64(readBound * 1e9))
    }

    /// Moves the bound ``distrust(_:readBound:)`` set on `db` to `deadline` (`DispatchTime`
    /// uptime nanoseconds): `inspect`, which prints rows as it reads them, does not count the time
    /// the reader of its output kept it waiting (`seedkit inspect STORE books | less`).
    public static func moveReadDeadline(_ db: Database, to deadline: UInt64) {
        // The deadline itself is the handler's context (a pointer-sized number): nothing to keep alive.
        sqlite3_progress_handler(
            db.sqliteConnection, 100_000,
            { context in
                UInt64(UInt(bitPattern: context)) < DispatchTime.now().uptimeNanoseconds ? 1 : 0
            }, UnsafeMutableRawPointer(bitPattern: UInt(deadline)))
    }

    /// Seconds a read of the store at `location` may take: `SEEDKIT_READ_LIMIT` when set, else
    /// 10 s plus 1 s per MB of the file (an integrity check reads well over 50 MB a second).
    public static func readBound(forFileAt location: String) -> Double {
        if let text = ProcessInfo.processInfo.environment["SEEDKIT_READ_LIMIT"], let seconds = Double(text), seconds > 0
        {
            return seconds
        }
        var path = location
        if path.hasPrefix("file:") {
            path = String(path.dropFirst(5).prefix { $0 != "?" })
            path = path.removingPercentEncoding ?? path
        }
        return 10 + Double(fileSize(path)) / Double(1 << 20)
    }

    /// The size of the file `path` names, through its symlinks (`stat`, not `lstat`); 0 when it can't be read.
    public static func fileSize(_ path: String) -> Int { FileFacts.size(path) ?? 0 }

    /// Seconds a read-only command waits for another connection's lock: `--busy-timeout`'s default.
    public static let readerBusyTimeout: Double = 5

    /// Opens an existing store for writing, waiting up to `busyTimeout` seconds for locks.
    public static func openWritable(_ path: String, busyTimeout: Double) throws(SeedError) -> DatabaseQueue {
        try requireFile(path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(try BusyTimeout.validated(busyTimeout))
        return try open(path, configuration, shown: path)
    }

    /// The absolute path `path` names once symlinks and `..` are resolved: the file's own when it
    /// exists, else its resolved folder's plus its name; nil when the folder does not exist either.
    public static func resolvedPath(_ path: String) -> String? {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        let url = URL(fileURLWithPath: path)
        guard let folder = realpath(url.deletingLastPathComponent().path, nil) else { return nil }
        defer { free(folder) }
        return URL(fileURLWithPath: String(cString: folder)).appendingPathComponent(url.lastPathComponent).path
    }

    /// Closes a writable connection without the checkpoint SQLite runs when the last connection
    /// to a WAL store closes (which would move the `-wal`'s commits into the store file and
    /// change its bytes).
    ///
    /// A read-only connection is opened first, so the writer is not the last; a read-only
    /// connection cannot checkpoint, so closing it after leaves the files as they were.
    ///
    /// When the store had no `-wal` before this run (`walExisted` false), the `-wal` holds no
    /// commit but this run's, rolled back, which a checkpoint does not copy: the connection
    /// closes as usual, so that SQLite, the last to close, removes the `-wal` and `-shm` it made
    /// (a failed run leaves no files where there were none, docs/reference.md, "Commands").
    public static func closeWithoutCheckpoint(_ queue: DatabaseQueue, path: String, walExisted: Bool = true) {
        guard walExisted, isWALMode(path) else {
            try? queue.close()
            return
        }
        var configuration = Configuration()
        configuration.readonly = true
        let holder = try? DatabaseQueue(path: path, configuration: configuration)
        _ = try? holder?.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
        try? queue.close()
        try? holder?.close()
    }

    /// The system's error number (errno) of the connection's last failed I/O (`sqlite3_system_errno`),
    /// 0 when there is none: SQLite's own message says only "disk I/O error" (or, for a failed
    /// backup step, "not an error").
    public static func systemErrno(_ queue: DatabaseQueue) -> Int32 {
        queue.inDatabase { db in sqlite3_system_errno(db.sqliteConnection) }
    }

    /// Why SQLite would open the store read-only whatever its permissions: its header's write
    /// version (byte 18) is above 2, a file format newer than SQLite's (or a damaged header).
    ///
    /// nil when the header is one SQLite writes.
    public static func unwritableFormat(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 20)) ?? Data()
        guard header.count == 20, header.starts(with: Array("SQLite format 3\0".utf8)), header[18] > 2 else {
            return nil
        }
        return
            "the store's header gives file format write version \(header[18]), which no SQLite writes (1 is a rollback journal, 2 WAL): SQLite opens it read-only, so it can't be migrated; the header is damaged or from a newer SQLite; nothing was written"
    }

    /// Refuses a store SQLite would open read-only whatever its permissions (``unwritableFormat(_:)``).
    ///
    /// - throws: ``SeedError`` (refused) naming `path`, saying why.
    public static func refuseUnwritableFormat(_ path: String) throws(SeedError) {
        if let problem = unwritableFormat(path) { throw SeedError(.refused, file: path, problem) }
    }

    /// Runs `body`, a read of `store`, its failures said about `store` in seedkit's terms
    /// (a locked, damaged or unreadable store: docs/reference.md#exit-codes).
    public static func reading<T>(_ store: String, _ body: () throws -> T) throws(SeedError) -> T {
        do { return try body() } catch { throw SeedError(databaseError: error, file: store) }
    }

    /// Whether the file's header says WAL (bytes 18 and 19 are 2).
    static func isWALMode(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 20)) ?? Data()
        return header.count == 20 && header.starts(with: Array("SQLite format 3\0".utf8)) && header[18] == 2
    }

    /// Refuses a store path that names a FIFO, `/dev/stdin` fed by a pipe, a terminal or a socket:
    /// opening it would block, or SQLite would read what it can't seek.
    ///
    /// Nothing there, a folder or a regular file pass (the open says what is wrong with those).
    ///
    /// - throws: ``SeedError`` (configuration) naming what the path is.
    public static func refuseSpecialFile(_ path: String) throws(SeedError) {
        guard let kind = FileFacts.kind(path), kind != .regular, kind != .directory else { return }
        throw SeedError(
            .configuration, file: path,
            "this is \(kind.described), not a store file: seedkit reads and migrates stores only in regular files (copy the store to a file first)"
        )
    }

    /// Requires a store file: a regular file, read through its links (a link's own size or kind
    /// says nothing about the store; docs/reference.md), and not empty.
    ///
    /// - throws: ``SeedError``: configuration when there is no file or it is not a regular file, refused when it is empty.
    public static func requireFile(_ path: String) throws(SeedError) {
        guard let kind = FileFacts.kind(path) else {
            if FileFacts.isBrokenLink(path) {
                throw SeedError(
                    .configuration, file: path,
                    "a symbolic link that leads to no file (dangling, or a loop): no store here")
            }
            throw SeedError(
                .configuration, file: path,
                "no store here (seedkit never creates one: build a seed with `seedkit build`)")
        }
        if kind == .directory {
            throw SeedError(.configuration, file: path, "this is a folder, not a store: name the store file in it")
        }
        try refuseSpecialFile(path)
        // SQLite would read an empty file as an empty database (and a write would make it one):
        // a store the app or a build wrote always has at least its 100-byte header.
        if let size = FileFacts.size(path), size == 0 {
            throw SeedError(
                .refused, file: path,
                "the file is empty (0 bytes), not a store: a store written by an app or by `seedkit build` has at least SQLite's header"
            )
        }
    }

    private static func open(_ location: String, _ configuration: Configuration, shown: String) throws(SeedError)
        -> DatabaseQueue
    {
        do { return try connect(location, configuration) } catch { throw SeedError(databaseError: error, file: shown) }
    }

    private static func connect(_ location: String, _ configuration: Configuration) throws -> DatabaseQueue {
        var configuration = configuration
        let bound = configuration.readonly ? readBound(forFileAt: location) : nil
        configuration.prepareDatabase { db in try Self.distrust(db, readBound: bound) }
        let queue = try DatabaseQueue(path: location, configuration: configuration)
        // Opening is lazy about the header; reading the schema proves it is a database.
        _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
        // seedkit's own tables are input too: a store whose ledger holds what seedkit never writes is refused here, once.
        try queue.read { db in try SeedCatalog.requireWellFormed(db) }
        return queue
    }
}
