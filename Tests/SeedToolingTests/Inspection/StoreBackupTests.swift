import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

@testable import SeedTooling

/// `migrate --backup`'s copy, through the library: consistent (WAL included), never over a file,
/// never partial; the CLI's migrate tests check the command around it.
@Suite struct StoreBackupTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "seedkit-backup-\(UUID().uuidString)")

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private func listing() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// A WAL store whose last rows are only in its `-wal`: the copy holds them.
    private func walStore() throws -> DatabaseQueue {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: path("user.sqlite"))
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0")
            try db.execute(
                sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'b')")
        }
        return queue
    }

    @Test func theCopyHoldsWhatOnlyTheWALHoldsAndNoTemporaryFileStays() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try walStore()
        #expect((FileFacts.size(path("user.sqlite-wal")) ?? 0) > 0, "the rows should be in the -wal")
        try StoreBackup.write(store, to: URL(fileURLWithPath: path("before.sqlite")))
        try store.close()
        let copy = try DatabaseQueue(path: path("before.sqlite"))
        let rows = try copy.read { db in try String.fetchAll(db, sql: "SELECT v FROM t ORDER BY id") }
        try copy.close()
        expectEqual(rows, ["a", "b"])
        expectEqual(try listing().filter { $0.hasSuffix(".tmp") || $0.contains(".tmp-") }, [])
    }

    @Test func aTargetThatCannotBeRenamedOntoIsAnIOErrorAndNothingOfTheCopyStays() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try walStore()
        // A folder that is not empty: rename(2) onto it fails.
        try FileManager.default.createDirectory(atPath: path("taken/inner"), withIntermediateDirectories: true)
        let before = try listing()
        do {
            try StoreBackup.write(store, to: URL(fileURLWithPath: path("taken")))
            Issue.record("a backup onto a folder should fail")
        } catch {
            expectEqual(error.kind, .io)
            expectEqual(error.diagnostics.map(\.file), [path("taken")])
            #expect(
                error.diagnostics.first?.message.hasPrefix("cannot write the backup: ") == true, "\(error.diagnostics)")
        }
        expectEqual(try listing(), before)
        try store.close()
    }

    @Test func theStoreItselfItsCompanionFilesAndAnExistingFileAreRefused() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try walStore()
        defer { try? store.close() }
        let shown = path("user.sqlite")
        for name in ["user.sqlite", "user.sqlite-wal", "./user.sqlite"] {
            expectEqual(
                StoreBackup.refusal(backup: path(name), store: shown),
                "--backup \(path(name)) is the store \(shown) (or one of its -wal, -journal, -shm files): give the backup another path"
            )
        }
        try Data("shipped".utf8).write(to: URL(fileURLWithPath: path("1.0.sqlite")))
        try FileManager.default.createSymbolicLink(atPath: path("dangling.sqlite"), withDestinationPath: path("gone"))
        for name in ["1.0.sqlite", "dangling.sqlite"] {
            expectEqual(
                StoreBackup.refusal(backup: path(name), store: shown),
                "--backup \(path(name)) already exists; seedkit never overwrites a file with a backup: remove it or give another path"
            )
        }
        expectEqual(StoreBackup.refusal(backup: path("new.sqlite"), store: shown), nil)
    }

    @Test func aFailureIsSaidWithSQLitesCodeAndTheSystemsError() {
        expectEqual(
            StoreBackup.failure(DatabaseError(resultCode: .SQLITE_FULL), systemError: ENOSPC),
            "the disk is full (SQLITE_FULL, SQLite error 13 (database or disk is full); \(String(cString: strerror(ENOSPC))))"
        )
        expectEqual(
            StoreBackup.failure(DatabaseError(resultCode: .SQLITE_IOERR), systemError: EIO),
            "\(String(cString: strerror(EIO))) (errno \(EIO); SQLite error 10 (disk I/O error))")
        // SQLite's message for a failed backup step is "not an error": the code alone says it.
        expectEqual(
            StoreBackup.failure(DatabaseError(resultCode: .SQLITE_ERROR, message: "not an error"), systemError: 0),
            "SQLite error 1 (SQL logic error)")
    }
}
