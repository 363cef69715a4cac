import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// A Python process that holds a SQLite connection open on a store while a test runs.
private final class Holder {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    /// Starts `script` (Python, with `db` bound to a connection in autocommit mode) and waits until it prints "ready".
    private var stopped = false

    init(store: String, script: String) throws {
        signal(SIGPIPE, SIG_IGN)
        process.executableURL = Python3.executable
        process.arguments = Python3.arguments([
            "-c",
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            \(script)
            print("ready", flush=True)
            sys.stdin.readline()
            """, store,
        ])
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard line.hasPrefix("ready") else { throw CocoaError(.featureUnsupported) }
    }

    func stop() {
        guard !stopped else { return }
        stopped = true
        try? input.fileHandleForWriting.write(contentsOf: Data("\n".utf8))
        process.waitUntilExit()
    }
}

@Suite struct MigrateSafetyTests {
    @Test func waitsForTheBusyTimeoutThenFailsCleanlyWhenLocked() throws {
        let project = try TemporaryProject.withUserStore()
        let holder = try Holder(store: project.path("user.sqlite"), script: "db.execute('BEGIN IMMEDIATE')")
        defer { holder.stop() }
        let start = Date()
        let result = try project.seedkit("migrate", "user.sqlite", "--busy-timeout", "0.25")
        let waited = Date().timeIntervalSince(start)
        expectEqual(result.status, 4, "\(result)")
        #expect(result.stderr.contains("locked by another connection"))
        #expect(waited >= 0.25, "it waited for the lock")
        holder.stop()
        try expectEqual(
            project.database("user.sqlite").read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM books") }, 3)
    }

    @Test func migratesAWALStoreWithUncheckpointedCommits() throws {
        let project = try TemporaryProject.withUserStore()
        let holder = try Holder(
            store: project.path("user.sqlite"),
            script: """
                db.execute('PRAGMA journal_mode=WAL')
                db.execute('PRAGMA wal_autocheckpoint=0')
                db.execute("INSERT INTO books (title, price, category_id) VALUES ('In the WAL', 1, 1)")
                """)
        defer { holder.stop() }
        #expect(project.exists("user.sqlite-wal"))
        let result = try project.seedkit("migrate", "user.sqlite", "--backup", "copy.sqlite")
        expectEqual(result.status, 0, "\(result)")
        holder.stop()
        for store in ["user.sqlite", "copy.sqlite"] {
            let titles = try project.database(store).read { db in
                try String.fetchAll(db, sql: "SELECT title FROM books ORDER BY id")
            }
            #expect(titles.contains("In the WAL"), "\(store) has the commit that was only in the -wal")
            expectEqual(titles.contains("The fourth book"), (store == "user.sqlite"))
            try expectEqual(
                project.database(store).read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }, "ok")
        }
    }

    /// A backup never replaces a file: `--backup seeds/releases/1.0.sqlite` used to overwrite
    /// the shipped seed with a user's store (exit 0).
    ///
    /// Now exit 2 before the store is opened.
    @Test(arguments: ["precious.txt", "seeds/releases/1.0.sqlite", "dangling-link"])
    func aBackupPathThatExistsIsRefusedAndNothingChanges(_ backup: String) throws {
        let project = try TemporaryProject.withUserStore()
        try project.write("precious.txt", "precious\n")
        try FileManager.default.createDirectory(
            atPath: project.path("seeds/releases"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: project.path("user.sqlite"), toPath: project.path("seeds/releases/1.0.sqlite"))
        try FileManager.default.createSymbolicLink(
            atPath: project.path("dangling-link"), withDestinationPath: "nowhere.sqlite")
        let store = project.read("user.sqlite")
        let existing = project.read(backup)
        let result = try project.seedkit("migrate", "user.sqlite", "--backup", backup)
        expectEqual(result.status, 2, "\(result)")
        #expect(
            result.stderr.contains(
                "--backup \(backup) already exists; seedkit never overwrites a file with a backup: remove it or give another path"
            ), "\(result)")
        expectEqual(project.read("user.sqlite"), store)
        expectEqual(project.read(backup), existing)
        #expect(!FileManager.default.fileExists(atPath: project.path("nowhere.sqlite")))
    }

    /// Read commands wait for a writer's commit (they used to fail at once, saying they had
    /// waited "the whole busy timeout" and to raise an option they do not take).
    @Test(arguments: [["status", "user.sqlite"], ["inspect", "user.sqlite"], ["verify", "user.sqlite"]])
    func readCommandsWaitForAWritersCommit(_ arguments: [String]) throws {
        let project = try TemporaryProject.withUserStore()
        let holder = try Holder(store: project.path("user.sqlite"), script: "db.execute('BEGIN EXCLUSIVE')")
        nonisolated(unsafe) let release = holder
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.4) { release.stop() }
        let start = Date()
        let result = try project.seedkit(arguments)
        expectEqual(result.status, 0, "\(result)")
        #expect(Date().timeIntervalSince(start) > 0.25, "it waited for the lock")
        holder.stop()
    }

    @Test(.tags(.slow)) func aKilledMigrationLeavesAllOrNothing() throws {
        let project = try TemporaryProject.withUserStore()
        // A migration big enough to be killed in the middle: 5,000 books.
        var rows = "insert:\n  books:\n"
        for index in 0..<5_000 {
            rows += "    - { title: Bulk \(index), price: \(index % 500), category_id: Fiction }\n"
        }
        try project.write("migrations/0002-bulk.yml", rows)
        let pristine = try #require(project.read("user.sqlite"))
        // Time one full run, then kill runs at moments spread over 0–110% of it: before, during and after the write.
        let start = Date()
        try expectEqual(project.seedkit("migrate", "user.sqlite").status, 0)
        let duration = Date().timeIntervalSince(start)
        var outcomes: [Int: Int] = [:]
        let attempts = 12
        for attempt in 0..<attempts {
            try project.write("user.sqlite", pristine)
            let process = Process()
            process.executableURL = seedkitBinary
            process.arguments = ["migrate", "user.sqlite"]
            process.currentDirectoryURL = project.root
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let fraction = Double(attempt) / Double(attempts - 1) * 1.1 + Double.random(in: -0.03...0.03)
            usleep(UInt32(max(0, fraction * duration) * 1_000_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // Open as the next app launch would: SQLite rolls a hot journal back.
            let (books, ledger, integrity) = try project.database("user.sqlite").read { db in
                (
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM books") ?? -1,
                    try MigrationLedger.entries(db).count,
                    try String.fetchOne(db, sql: "PRAGMA integrity_check")
                )
            }
            expectEqual(integrity, "ok")
            let before = books == 3 && ledger == 0
            let after = books == 5_004 && ledger == 2
            #expect(before || after, "attempt \(attempt): \(books) books, \(ledger) ledger rows")
            outcomes[books, default: 0] += 1
        }
        // Finish the job: a rerun after any kill ends in the complete state.
        try expectEqual(project.seedkit("migrate", "user.sqlite").status, 0)
        try expectEqual(
            project.database("user.sqlite").read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM books") },
            5_004)
    }
}
