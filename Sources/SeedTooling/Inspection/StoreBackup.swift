import Foundation
public import GRDB
public import SeedRuntime

/// A consistent copy of a store, written before the store is changed (`seedkit migrate --backup
/// PATH`, docs/reference.md#commands, docs/releases.md).
///
/// ```swift
/// if let problem = StoreBackup.refusal(backup: "before.sqlite", store: "user.sqlite") { … }  // before opening
/// try StoreBackup.write(queue, to: URL(fileURLWithPath: "before.sqlite"))                   // then the copy
/// ```
public enum StoreBackup {
    /// Why `backup` can't be the backup of `store`, in a sentence, or nil when it can: it is the
    /// store or one of its `-wal`, `-journal`, `-shm` files, or it exists (a backup never
    /// replaces a file, such as a shipped seed or an earlier backup; a dangling link counts).
    public static func refusal(backup: String, store: String) -> String? {
        if let storePath = StoreAccess.resolvedPath(store), let backupPath = StoreAccess.resolvedPath(backup),
            ["", "-wal", "-journal", "-shm"].contains(where: { storePath + $0 == backupPath })
        {
            return
                "--backup \(backup) is the store \(store) (or one of its -wal, -journal, -shm files): give the backup another path"
        }
        var status = stat()
        if lstat(backup, &status) == 0 {
            return
                "--backup \(backup) already exists; seedkit never overwrites a file with a backup: remove it or give another path"
        }
        return nil
    }

    /// Copies the store with SQLite's backup API (one read snapshot, so the copy is consistent,
    /// WAL included) into a temporary file renamed into place: never partial, and nothing of a
    /// failed backup stays.
    ///
    /// - throws: ``SeedError`` (io) naming `target`: a read-only folder, a full disk, a failed
    ///   rename, each said with SQLite's result code and the system's error.
    public static func write(_ store: DatabaseQueue, to target: URL) throws(SeedError) {
        let folder = target.deletingLastPathComponent().path
        guard access(folder, W_OK) == 0 else {
            throw SeedError(
                .io, file: target.path,
                "cannot write the backup: the folder \(folder) is read-only (the backup is written beside its path and renamed into place); the store was not migrated"
            )
        }
        let temporary = ProcessTemporaryFile.url(beside: target)
        ProcessTemporaryFile.removeStale(beside: target)
        removeDatabaseFiles(temporary)
        var copy: DatabaseQueue?
        do {
            copy = try DatabaseQueue(path: temporary.path)
            if let copy { try store.backup(to: copy) }
            try copy?.close()
            copy = nil
            guard rename(temporary.path, target.path) == 0 else {
                throw SeedError(.io, file: target.path, "cannot write the backup: \(String(cString: strerror(errno)))")
            }
        } catch {
            // The copy's own error number first: SQLite's message for a failed backup step is "not an error".
            let systemError = copy.map(StoreAccess.systemErrno) ?? 0
            try? copy?.close()
            // The temporary file and its rollback journal (a failed step leaves one): nothing of a failed backup stays.
            removeDatabaseFiles(temporary)
            if let error = error as? SeedError { throw error }
            throw SeedError(
                .io, file: target.path,
                "cannot write the backup: \(failure(error, systemError: systemError)); the store was not migrated")
        }
    }

    /// Why a backup could not be written, in words: SQLite's result code and the system's error.
    static func failure(_ error: any Error, systemError: Int32) -> String {
        guard let error = error as? DatabaseError else { return "\(error)" }
        // "13 (database or disk is full)"
        let code = "SQLite error \(error.extendedResultCode)"
        switch error.resultCode {
        case .SQLITE_FULL:
            return
                "the disk is full (SQLITE_FULL, \(code)\(systemError != 0 ? "; " + String(cString: strerror(systemError)) : ""))"
        case .SQLITE_IOERR, .SQLITE_CANTOPEN:
            return systemError != 0 ? "\(String(cString: strerror(systemError))) (errno \(systemError); \(code))" : code
        default:
            let message = error.message.flatMap { $0 == "not an error" ? nil : $0 }
            return message.map { "\($0) (\(code))" } ?? code
        }
    }

    private static func removeDatabaseFiles(_ url: URL) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(url.path + suffix) }
    }
}
