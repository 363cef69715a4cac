import Foundation
import GRDB
import SeedTestSupport
import Testing

@testable import SeedRuntime

/// What `migrate` does differently when a data update is big (issue 13): the report lists a
/// sample of each kind and counts the rest; refs found once are reused only while their parent
/// table is unchanged; a large store's page check runs beside the run.
@Suite struct BigMigrationTests {
    /// A BookStore user store without migrations, and `migrations/` empty.
    private func userStore() throws -> TemporaryProject {
        let project = try TemporaryProject.withUserStore()
        try project.remove("migrations/0001-add-fourth-book.yml")
        return project
    }

    @Test func theReportListsTheFirstRowsOfEachKindAndCountsTheRest() throws {
        let project = try userStore()
        let present = (1...3).map {
            "    - { title: The \(["first", "second", "third"][$0 - 1]) book, price: 1, category_id: Fiction }\n"
        }
        let new = (1...45).map { "    - { title: New book \($0), price: \($0), category_id: Biography }\n" }
        try project.write("migrations/0001-many-books.yml", "insert:\n  books:\n" + present.joined() + new.joined())
        try FileManager.default.copyItem(atPath: project.path("user.sqlite"), toPath: project.path("verbose.sqlite"))

        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        let listed = (1...20).map { "  inserted        books 'New book \($0)'\n" }.joined()
        let expected =
            "applied 0001-many-books: 45 inserted, 3 already-present\n"
            + "  already-present books 'The first book': already present; left as it is\n"
            + "  already-present books 'The second book': already present; left as it is\n"
            + "  already-present books 'The third book': already present; left as it is\n"
            + listed
            + "  … 25 more inserted (--verbose lists every row)\n"
            + "user.sqlite: 1 migration applied\n"
        expectEqual(result.stdout, expected)
        let count = try project.database("user.sqlite").read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM books WHERE title LIKE 'New book %'")
        }
        expectEqual(count, 45, "every row arrives, listed or not")

        let verbose = try project.seedkit("migrate", "verbose.sqlite", "--verbose")
        expectEqual(verbose.status, 0, "\(verbose)")
        expectEqual(verbose.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("  inserted ") }.count, 45)
        #expect(!verbose.stdout.contains("more inserted"))
    }

    @Test func everyConflictIsListedHoweverMany() throws {
        let project = try userStore()
        try project.database("user.sqlite").write { db in
            for n in 1...30 {
                try db.execute(
                    sql: "INSERT INTO books (title, price, category_id) VALUES (?, 99, 1)", arguments: ["Mine \(n)"])
            }
        }
        let updates = (1...30).map { "    - { key: Mine \($0), from: { price: 5 }, to: { price: 6 } }\n" }
        try project.write("migrations/0001-reprice.yml", "update:\n  books:\n" + updates.joined())
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        let lines = result.stdout.components(separatedBy: "\n")
        expectEqual(lines.filter { $0.hasPrefix("  conflict        books 'Mine ") }.count, 30, "\(result)")
        #expect(!result.stdout.contains("more conflict"))
    }

    /// Rows a data update did not apply (the user deleted the row, or already has the key) are
    /// each named with the reason, however many: a report samples only what it applied.
    @Test func everyRowNotAppliedIsListedWithItsKeyHoweverMany() throws {
        let project = try userStore()
        try project.database("user.sqlite").write { db in
            for n in 1...25 {
                try db.execute(
                    sql: "INSERT INTO books (title, price, category_id) VALUES (?, 5, 1)", arguments: ["Mine \(n)"])
            }
        }
        let present = (1...25).map { "    - { title: Mine \($0), price: 5, category_id: Fiction }\n" }
        let missing = (1...25).map { "    - { key: Gone \($0), from: { price: 5 }, to: { price: 6 } }\n" }
        try project.write(
            "migrations/0001-not-applied.yml",
            "insert:\n  books:\n" + present.joined() + "update:\n  books:\n" + missing.joined())
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        let lines = result.stdout.components(separatedBy: "\n")
        expectEqual(lines.filter { $0.hasPrefix("  already-present books 'Mine ") }.count, 25, "\(result)")
        expectEqual(
            lines.filter {
                $0.hasPrefix("  missing         books 'Gone ")
                    && $0.hasSuffix(": not in the store (deleted by the user?); nothing to update")
            }.count, 25, "\(result)")
        #expect(!result.stdout.contains(" more "), "\(result)")
    }

    /// A ref's parent id is remembered within a run (a big update names a few parents 100,000
    /// times) only while nothing else writes the parent's table: after a rename, the old key finds nothing.
    @Test func aRefToAParentRenamedEarlierInTheRunDoesNotFindItUnderItsOldKey() throws {
        let project = try userStore()
        try project.write(
            "migrations/0001-rename-fiction.yml",
            """
            insert:
              books:
                - { title: Book A, price: 1, category_id: Fiction }
            update:
              categories:
                - { key: Fiction, from: { name: Fiction }, to: { name: Novels } }

            """)
        try project.write(
            "migrations/0002-more-books.yml",
            """
            insert:
              books:
                - { title: Book B, price: 1, category_id: Fiction }
                - { title: Book C, price: 1, category_id: Novels }

            """)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(result.stdout.contains("  conflict        books 'Book B': "), "\(result)")
        let rows = try project.database("user.sqlite").read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT b.title, c.name FROM books b JOIN categories c ON c.id = b.category_id WHERE b.title LIKE 'Book %' ORDER BY b.title"
            )
        }
        expectEqual(rows.map { [$0[0] as String, $0[1] as String] }, [["Book A", "Novels"], ["Book C", "Novels"]])
    }

    /// A user store past 16 MB: with --check-whole-store seedkit checks its pages on a second
    /// connection while the migration runs, and still refuses a damaged one with nothing written.
    private func largeUserStore(damaged: Bool) throws -> TemporaryProject {
        let project = try TemporaryProject()
        try project.remove("migrations/0001-add-fourth-book.yml")
        try expectEqual(project.seedkit("build").status, 0)
        try project.write("migrations/0001-add-fourth-book.yml", BookStore.fourthBook)
        let store = try project.database("build/seed.sqlite")
        let note = String(repeating: "a user's long note. ", count: 500)  // 10 KB: overflow pages
        try store.write { db in
            try db.execute(sql: "CREATE TABLE user_notes (id INTEGER PRIMARY KEY, text TEXT)")
            for n in 1...1800 {
                try db.execute(sql: "INSERT INTO user_notes (text) VALUES (?)", arguments: ["\(n) \(note)"])
            }
        }
        let root = try store.read { db in
            try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'user_notes'")
        }
        try store.close()
        var bytes = try #require(project.read("build/seed.sqlite"))
        #expect(bytes.count > 17 << 20)
        if damaged {
            let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
            let page = try #require(root)
            bytes.replaceSubrange((page - 1) * pageSize..<page * pageSize, with: Data(repeating: 0xA5, count: pageSize))
        }
        try project.write("user.sqlite", bytes)
        return project
    }

    /// With --check-whole-store (a store over 16 MB is otherwise checked in proportion to the
    /// run: see MigrateLargeStoreDamageTests), a damaged page the run never reads is found too.
    @Test func aLargeDamagedStoreIsRefusedAndLeftAsItWas() throws {
        let project = try largeUserStore(damaged: true)
        let before = try #require(project.read("user.sqlite"))
        #expect(!before.isEmpty)  // bytes, not a debug build's SHA-256 of 18 MB
        let result = try project.seedkit("migrate", "user.sqlite", "--check-whole-store")
        expectEqual(result.status, 3, "\(result)")
        #expect(result.stderr.contains("the store is damaged (PRAGMA quick_check: "), "\(result)")
        #expect(result.stderr.contains("nothing was written"), "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        expectEqual(project.read("user.sqlite"), before)
    }

    @Test func aLargeSoundStoreMigrates() throws {
        let project = try largeUserStore(damaged: false)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(result.stdout.contains("applied 0001-add-fourth-book: 1 inserted"), "\(result)")
        let price = try project.database("user.sqlite").read { db in
            try Double.fetchOne(db, sql: "SELECT price FROM books WHERE title = 'The fourth book'")
        }
        expectEqual(price, 12)
        let integrity = try project.database("user.sqlite").read { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check")
        }
        expectEqual(integrity, ["ok"])
    }

    /// The first migration's large JSON file, as a run reads it (nil for any other).
    private func largeFile(_ migrations: [Migration]) -> DeferredJSONMigration? {
        guard case .changes(let changes)? = migrations.first?.body else { return nil }
        return changes.deferred
    }

    /// A JSON migration of 1 MiB or more: 15,000 new books, one per line (row n on line n + 1), row 14,990 broken if asked.
    private func largeJSONMigration(_ project: TemporaryProject, broken: Bool = false) throws -> String {
        var rows: [String] = []
        for n in 1...15_000 {
            let title =
                n == 14_990 && broken ? "Broken \(n)\", \"price\": }" : "Large book \(n) with a long enough title"
            rows.append(
                "{\"title\": \"\(title)\", \"price\": \(n % 900), \"category_id\": \"\(n % 2 == 0 ? "Fiction" : "Biography")\"}"
            )
        }
        let text = "{\"insert\": {\"books\": [\n" + rows.joined(separator: ",\n") + "\n]}}\n"
        #expect(text.utf8.count >= DeferredJSONMigration.threshold)
        try project.write("migrations/0001-large.json", text)
        return text
    }

    /// A seed built with a large migration records the digest of the file an app bundles (the
    /// exported .json): a fresh install's launches find those bytes and do not scan them.
    @Test(.tags(.slow)) func aSeedRecordsTheBundledBytesOfALargeMigrationItComesWith() throws {
        let project = try userStore()
        _ = try largeJSONMigration(project)
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        let export = try project.seedkit("export-migrations", "app/migrations")
        expectEqual(export.status, 0, "\(export)")
        let bundled = try #require(project.read("app/migrations/0001-large.json"))
        let seed = try DatabaseQueue(path: project.path("build/seed.sqlite"))
        try expectEqual(seed.read { db in try MigrationLedger.fileDigests(db) }, [1: SHA256.hex(bundled)])
        try seed.close()

        try FileManager.default.copyItem(
            atPath: project.path("build/seed.sqlite"), toPath: project.path("installed.sqlite"))
        let launch = try MigrationDirectory.load(project.url("app/migrations"))
        let installed = try DatabaseQueue(path: project.path("installed.sqlite"))
        #expect(try installed.read { db in try SeedMigrator(migrations: launch).pending(db) }.isEmpty)
        #expect(largeFile(launch)?.checksumScans == 0)
        try installed.close()
    }

    /// A large JSON migration is read by the run that applies it, not when it is loaded: a file
    /// gone in between is that run's error, naming the file, and nothing is written.
    @Test func aLargeJSONMigrationGoneBetweenLoadAndApplyIsTheRunsErrorAndWritesNothing() throws {
        let project = try userStore()
        _ = try largeJSONMigration(project)
        let migrations = try MigrationDirectory.load(project.url("migrations"))
        guard case .changes(let changes)? = migrations.first?.body else {
            Issue.record("not read")
            return
        }
        #expect(changes.deferred != nil, "read while applied")
        try project.remove("migrations/0001-large.json")
        let before = try #require(project.read("user.sqlite"))
        #expect(!before.isEmpty)

        let queue = try DatabaseQueue(path: project.path("user.sqlite"))
        do {
            _ = try SeedMigrator(migrations: migrations).migrate(queue)
            Issue.record("a migration whose file is gone was applied")
        } catch let error as SeedError {
            expectEqual(
                error.diagnostics.map(\.file),
                [
                    project.url("migrations").appendingPathComponent("0001-large.json").path
                ], "\(error)")
            #expect(error.diagnostics.first?.message.hasPrefix("cannot read: ") == true, "\(error)")
        }
        try queue.close()
        expectEqual(project.read("user.sqlite"), before, "nothing written")
    }

    @Test func aRunAppliesTheBytesItsMigratorReadAheadAndLetsThemGo() throws {
        let project = try userStore()
        _ = try largeJSONMigration(project)
        let migrations = try MigrationDirectory.load(project.url("migrations"))
        let migrator = try SeedMigrator(migrations: migrations)
        #expect(largeFile(migrations)?.readsOfFile == 0, "neither loading nor making a migrator reads it")
        migrator.readAhead()
        migrator.readAhead()
        let deadline = Date().addingTimeInterval(10)
        while largeFile(migrations)?.holdsBytes == false && Date() < deadline { usleep(1000) }
        #expect(largeFile(migrations)?.holdsBytes == true, "read on another thread")
        // Gone after it was read ahead: the run applies the bytes read, and reads nothing again.
        try project.remove("migrations/0001-large.json")
        let queue = try DatabaseQueue(path: project.path("user.sqlite"))
        let report = try migrator.migrate(queue)
        #expect(report.migrations.first?.count(.inserted) == 15_000)
        #expect(largeFile(migrations)?.readsOfFile == 1)
        #expect(largeFile(migrations)?.holdsBytes == false, "let go once the run is over")
        #expect(
            try queue.read { db in try SeedMigrator(migrations: migrations).pending(db) }.isEmpty,
            "its digest and checksum stay")
        #expect(largeFile(migrations)?.readsOfFile == 1)
    }

    @Test func aReadAheadAskedForByARunThatEndedAtOnceKeepsNothing() throws {
        let project = try userStore()
        _ = try largeJSONMigration(project)
        // A run that fails before it reads (a busy or refused store) lets the bytes go at once;
        // the read-ahead thread, started a moment before, must not read them afterwards.
        for _ in 0..<5 {
            let migrations = try MigrationDirectory.load(project.url("migrations"))
            let migrator = try SeedMigrator(migrations: migrations)
            migrator.readAhead()
            migrator.releaseBytes()
            usleep(50_000)
            #expect(largeFile(migrations)?.holdsBytes == false)
        }
    }

    @Test(.tags(.slow)) func aLargeJSONMigrationIsAppliedWhileReadAndRecordsTheChecksumOfItsWholeRead() throws {
        let project = try userStore()
        _ = try largeJSONMigration(project)
        let whole = try MigrationDirectory.read(project.url("migrations"), missingIsEmpty: false)
        expectEqual(whole.count, 1)
        guard case .changes(let changes)? = whole.first?.body else {
            Issue.record("not read")
            return
        }
        #expect(changes.deferred == nil)
        let deferred = try MigrationDirectory.load(project.url("migrations"))
        guard case .changes(let streamed)? = deferred.first?.body else {
            Issue.record("not read")
            return
        }
        #expect(streamed.deferred != nil, "read while applied")

        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(result.stdout.hasPrefix("applied 0001-large: 15000 inserted\n"), "\(result)")
        let (count, checksum) = try project.database("user.sqlite").read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM books WHERE title LIKE 'Large book %'"),
                try String.fetchOne(db, sql: "SELECT checksum FROM _seedkit_migrations WHERE number = 1")
            )
        }
        expectEqual(count, 15_000)
        #expect(checksum == whole.first?.checksum)
        #expect(checksum == deferred.first?.checksum)
        #expect(try project.seedkit("status", "user.sqlite").stdout.contains("0001-large"))
        try expectEqual(
            project.seedkit("status", "user.sqlite", "--exit-code").status, 0,
            "the recorded checksum matches the file")

        // The app's call: the same rows, the same checksum.
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("app.sqlite"))
        let queue = try DatabaseQueue(path: project.path("app.sqlite"))
        let report = try SeedMigrator(migrations: deferred).migrate(queue)
        #expect(report.migrations.first?.count(.inserted) == 15_000)
        try expectEqual(
            queue.read { db in
                try String.fetchOne(db, sql: "SELECT checksum FROM _seedkit_migrations WHERE number = 1")
            }, checksum)
        // The run recorded the digest of the bytes it applied; the next launch, finding the same
        // bytes, knows the checksum without scanning the file.
        let bytes = try #require(project.read("migrations/0001-large.json"))
        try expectEqual(queue.read { db in try MigrationLedger.fileDigests(db) }, [1: SHA256.hex(bytes)])
        let relaunch = try MigrationDirectory.load(project.url("migrations"))
        #expect(try queue.read { db in try SeedMigrator(migrations: relaunch).pending(db) }.isEmpty)
        #expect(relaunch.first?.checksum == checksum)
        #expect(largeFile(relaunch)?.checksumScans == 0)
        #expect(
            largeFile(relaunch)?.holdsBytes == false, "an applied migration's bytes are let go after the ledger's check"
        )
        // SeedInstaller checks the ledger two or three times a launch: the file is read once.
        #expect(try queue.read { db in try SeedMigrator(migrations: relaunch).pending(db) }.isEmpty)
        try expectEqual(
            SeedInstaller(
                store: project.url("app.sqlite"), seed: project.url("build/seed.sqlite"), migrations: relaunch
            ).prepareStore(), .upToDate)
        #expect(largeFile(relaunch)?.readsOfFile == 1)
        #expect(largeFile(relaunch)?.holdsBytes == false)

        // The same rows written differently: other bytes, so the file is scanned; the same checksum.
        try project.write(
            "migrations/0001-large.json",
            String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: ",\n", with: ",\n  "))
        let reformatted = try MigrationDirectory.load(project.url("migrations"))
        #expect(try queue.read { db in try SeedMigrator(migrations: reformatted).pending(db) }.isEmpty)
        #expect(largeFile(reformatted)?.checksumScans == 1)
        #expect(largeFile(reformatted)?.holdsBytes == false)

        // A row changed after it was applied: scanned, and refused as before.
        try project.write(
            "migrations/0001-large.json",
            String(decoding: bytes, as: UTF8.self).replacingOccurrences(
                of: "Large book 7 with", with: "Large book 7 WITH"))
        let edited = try MigrationDirectory.load(project.url("migrations"))
        #expect(throws: SeedError.self) { try queue.read { db in try SeedMigrator(migrations: edited).pending(db) } }
        #expect(largeFile(edited)?.checksumScans == 1)
        try expectEqual(
            queue.read { db in try SeedMigrator(migrations: edited).states(db) }.first.map {
                if case .changed = $0 { true } else { false }
            }, true)
    }

    @Test func aLargeJSONMigrationBrokenNearItsEndIsReportedAsWhenReadWholeAndWritesNothing() throws {
        let project = try userStore()
        _ = try largeJSONMigration(project, broken: true)
        let before = try #require(project.read("user.sqlite"))
        #expect(!before.isEmpty)
        let whole = try project.seedkit("status", "user.sqlite")  // status reads every file whole
        expectEqual(whole.status, 2, "\(whole)")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 2, "\(result)")
        expectEqual(result.stderr, whole.stderr, "\(result)")
        #expect(result.stderr.hasPrefix("migrations/0001-large.json:14991:"), "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        expectEqual(project.read("user.sqlite"), before)
    }

    /// The INSERT itself skips a row whose key is there (`ON CONFLICT (key) DO NOTHING`) where
    /// that is what counting first would decide.
    @Test func aRowWhoseKeyIsThereIsAlreadyPresentEvenWhenItWouldBreakAnotherConstraint() throws {
        let project = try userStore()
        try project.write(
            "migrations/0001-present.json",
            """
            {"insert": {"books": [
              {"title": "The first book", "price": null, "category_id": "Fiction"},
              {"title": "Brand new", "price": 3, "category_id": "Fiction"}
            ]}}
            """)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(result.stdout.contains("applied 0001-present: 1 inserted, 1 already-present\n"), "\(result)")
        #expect(
            result.stdout.contains("  already-present books 'The first book': already present; left as it is\n"),
            "\(result)")
        let price = try project.database("user.sqlite").read { db in
            try Double.fetchOne(db, sql: "SELECT price FROM books WHERE title = 'The first book'")
        }
        expectEqual(price, 10)
    }

    @Test func aRowWhoseKeyIsThereFiresNoInsertTrigger() throws {
        let project = try userStore()
        try project.database("user.sqlite").write { db in
            try db.execute(
                sql: """
                    CREATE TABLE insert_log (title TEXT);
                    CREATE TRIGGER log_insert BEFORE INSERT ON books BEGIN INSERT INTO insert_log VALUES (NEW.title); END;
                    """)
        }
        try project.write(
            "migrations/0001-present.yml",
            """
            insert:
              books:
                - { title: The first book, price: 10, category_id: Fiction }
                - { title: Brand new, price: 3, category_id: Fiction }

            """)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        let logged = try project.database("user.sqlite").read { db in
            try String.fetchAll(db, sql: "SELECT title FROM insert_log")
        }
        expectEqual(logged, ["Brand new"], "a row not inserted fires no insert trigger")
    }

    /// The library keeps a sample of each kind when asked (what the CLI's report prints), and counts the rest.
    @Test func aRunAskedForASampleKeepsTheFirstEventsOfEachKindAndCountsAll() throws {
        let project = try userStore()
        try project.database("user.sqlite").write { db in
            for n in 1...7 {
                try db.execute(
                    sql: "INSERT INTO books (title, price, category_id) VALUES (?, 99, 1)", arguments: ["Mine \(n)"])
            }
        }
        let inserts = (1...45).map { "{\"title\": \"New book \($0)\", \"price\": 1, \"category_id\": \"Fiction\"}" }
        let updates = (1...7).map { "{\"key\": \"Mine \($0)\", \"from\": {\"price\": 5}, \"to\": {\"price\": 6}}" }
        try project.write(
            "migrations/0001-sample.json",
            "{\"insert\": {\"books\": [" + inserts.joined(separator: ", ") + "]}, \"update\": {\"books\": ["
                + updates.joined(separator: ", ") + "]}}")
        var options = SeedMigrator.Options()
        options.eventsPerKind = 5
        let report = try SeedMigrator(migrations: MigrationDirectory.load(project.url("migrations"))).migrate(
            DatabaseQueue(path: project.path("user.sqlite")), options: options)
        let outcome = try #require(report.migrations.first)
        expectEqual(
            outcome.events.filter { $0.kind == .inserted }.map(\.keyDescription), (1...5).map { "'New book \($0)'" })
        expectEqual(outcome.events.filter { $0.kind == .conflict }.count, 7, "every conflict is listed")
        expectEqual(outcome.count(.inserted), 45)
        expectEqual(outcome.unlisted, [.inserted: 40])
        let count = try DatabaseQueue(path: project.path("user.sqlite")).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM books WHERE title LIKE 'New book %'")
        }
        expectEqual(count, 45)
    }

    @Test func aLargeJSONMigrationThatIsNotTextIsReportedAsWhenReadWholeAndWritesNothing() throws {
        let project = try userStore()
        var bytes = Array(try largeJSONMigration(project).utf8)
        let at = try #require(bytes.indices.first { bytes[$0] == UInt8(ascii: "L") && $0 > bytes.count / 2 })
        bytes[at] = 0xFF  // not UTF-8, halfway through
        try project.write("migrations/0001-large.json", Data(bytes))
        let before = try #require(project.read("user.sqlite"))
        #expect(!before.isEmpty)
        let whole = try project.seedkit("status", "user.sqlite")
        expectEqual(whole.status, 2, "\(whole)")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 2, "\(result)")
        expectEqual(result.stderr, whole.stderr, "\(result)")
        expectEqual(
            result.stderr, "migrations/0001-large.json:7535: error: not UTF-8: save the file as UTF-8 [2002]\n",
            "\(result)")
        expectEqual(project.read("user.sqlite"), before)
    }
}
