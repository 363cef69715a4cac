import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// A folder with a BookStore seed made with GRDB alone (as an app's bundle would hold it) and JSON migrations.
private final class AppBundle {
    let root: URL
    var seed: URL { root.appendingPathComponent("seed.sqlite") }
    var store: URL { root.appendingPathComponent("Library/BookStore.sqlite") }
    var migrationsDirectory: URL { root.appendingPathComponent("migrations") }

    init(seedContains: [Migration] = []) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("seedkit-app-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: migrationsDirectory, withIntermediateDirectories: true)
        try Data(
            """
            {"insert": {"books": [{"title": "The fourth book", "price": 12, "category_id": "Biography"}]}}
            """.utf8
        ).write(to: migrationsDirectory.appendingPathComponent("0001-add-fourth-book.json"))
        let queue = try DatabaseQueue(path: seed.path)
        try queue.write { db in
            try db.execute(sql: BookStore.schema)
            try db.execute(sql: "INSERT INTO categories (name) VALUES ('Fiction'), ('Biography')")
            try db.execute(
                sql:
                    "INSERT INTO books (title, price, category_id) VALUES ('The first book', 10, 1), ('The second book', 15, 1), ('The third book', 10, 2)"
            )
            try SeedCatalog.writeSeedMetadata(
                db, meta: [("format_version", "1")],
                tables: [
                    TableSpec(name: "categories", key: ["name"]),
                    TableSpec(
                        name: "books", key: ["title"], refs: ["category_id": .init(table: "categories", column: "name")]
                    ),
                ])
            for migration in seedContains {
                try MigrationLedger.record(
                    .init(
                        number: migration.number, name: migration.name, checksum: migration.checksum, appliedAt: nil,
                        origin: .seed), in: db)
            }
        }
        try queue.close()
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    func migrations() throws -> [Migration] { try MigrationDirectory.load(migrationsDirectory) }

    func installer() throws -> SeedInstaller { SeedInstaller(store: store, seed: seed, migrations: try migrations()) }

    func titles() throws -> [String] {
        try DatabaseQueue(path: store.path).read { db in
            try String.fetchAll(db, sql: "SELECT title FROM books ORDER BY id")
        }
    }
}

@Suite struct SeedInstallerTests {
    @Test func firstLaunchCopiesTheSeedThenAppliesWhatItLacks() throws {
        let app = try AppBundle()
        let outcome = try app.installer().prepareStore()
        guard case .installedSeed(let report) = outcome else {
            Issue.record("expected installedSeed, got \(outcome)")
            return
        }
        expectEqual(report.migrations.map(\.number), [1])
        try expectEqual(app.titles(), ["The first book", "The second book", "The third book", "The fourth book"])
        try expectEqual(app.installer().prepareStore(), .upToDate)
    }

    @Test func firstLaunchWithAnUpToDateSeedOnlyCopies() throws {
        let app = try AppBundle()
        let bundled = try AppBundle(seedContains: try app.migrations())
        let installer = SeedInstaller(store: app.store, seed: bundled.seed, migrations: try app.migrations())
        try expectEqual(installer.prepareStore(), .installedSeed(MigrationReport(migrations: [], dryRun: false)))
        expectEqual(
            FileManager.default.contents(atPath: app.store.path),
            FileManager.default.contents(atPath: bundled.seed.path), "the store is a byte copy of the seed")
    }

    @Test func laterLaunchMigratesAndKeepsUserRows() throws {
        let app = try AppBundle()
        let empty = SeedInstaller(store: app.store, seed: app.seed, migrations: [])
        try expectEqual(empty.prepareStore(), .installedSeed(MigrationReport(migrations: [], dryRun: false)))
        try DatabaseQueue(path: app.store.path).write { db in
            try db.execute(sql: "INSERT INTO books (title, price, category_id) VALUES ('Mine', 1, 1)")
        }
        guard case .migrated(let report) = try app.installer().prepareStore() else {
            Issue.record("expected migrated")
            return
        }
        #expect(report.migrations.first?.count(.inserted) == 1)
        try expectEqual(
            app.titles(), ["The first book", "The second book", "The third book", "Mine", "The fourth book"])
    }

    @Test func staleFilesBesideAMissingStoreAreIgnored() throws {
        let app = try AppBundle()
        try FileManager.default.createDirectory(
            at: app.store.deletingLastPathComponent(), withIntermediateDirectories: true)
        // What a crash can leave: a half-copied temporary file, and a -wal/-shm of a store that was deleted.
        try Data("half a seed".utf8).write(
            to: app.store.deletingLastPathComponent().appendingPathComponent(
                ".BookStore.sqlite.seedkit-\(getpid()).tmp"))
        try Data(repeating: 0xAB, count: 4096).write(to: URL(fileURLWithPath: app.store.path + "-wal"))
        try Data(repeating: 0xCD, count: 32768).write(to: URL(fileURLWithPath: app.store.path + "-shm"))
        _ = try app.installer().prepareStore()
        try expectEqual(app.titles().count, 4)
        try expectEqual(
            DatabaseQueue(path: app.store.path).read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check")
            }, "ok")
        let left = try FileManager.default.contentsOfDirectory(atPath: app.store.deletingLastPathComponent().path)
        #expect(!left.contains { $0.hasSuffix(".tmp") })
    }

    @Test func aRefusedStoreIsATypedErrorAndStaysAsItWas() throws {
        let app = try AppBundle()
        _ = try app.installer().prepareStore()
        try Data(
            """
            {"insert": {"books": [{"title": "The fourth book", "price": 13, "category_id": "Biography"}]}}
            """.utf8
        ).write(to: app.migrationsDirectory.appendingPathComponent("0001-add-fourth-book.json"))
        let before = FileManager.default.contents(atPath: app.store.path)
        #expect {
            try app.installer().prepareStore()
        } throws: { error in
            (error as? SeedError)?.kind == .refused
        }
        expectEqual(FileManager.default.contents(atPath: app.store.path), before)
    }

    @Test func aCorruptStoreIsRefusedNotCrashed() throws {
        let app = try AppBundle()
        try FileManager.default.createDirectory(
            at: app.store.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(repeating: 0x42, count: 8192).write(to: app.store)
        #expect {
            try app.installer().prepareStore()
        } throws: { error in
            (error as? SeedError)?.kind == .refused
        }
    }

    @Test func aMissingMigrationsFolderIsAnErrorBeforeAnythingIsCopied() throws {
        let app = try AppBundle()
        let missing = app.root.appendingPathComponent("NoSuchFolder")
        #expect {
            try MigrationDirectory.load(missing)
        } throws: { error in
            (error as? SeedError)?.kind == .configuration
                && "\(error)"
                    == "\(missing.path): error: the migrations folder does not exist (is it in the app's bundle?); nothing was installed [2100]"
        }
        #expect(!FileManager.default.fileExists(atPath: app.store.path))
    }

    @Test func aSeedNewerThanTheMigrationsIsRefusedAndNoStoreIsLeft() throws {
        let app = try AppBundle()
        let bundled = try AppBundle(seedContains: try app.migrations())
        let installer = SeedInstaller(store: app.store, seed: bundled.seed, migrations: [])
        #expect {
            try installer.prepareStore()
        } throws: { error in
            (error as? SeedError)?.kind == .refused
                && "\(error)"
                    == "\(bundled.seed.path): error: the bundled seed cannot be installed: it is newer than these migrations: it has 0001-add-fourth-book applied, the latest here is none; use the migrations of the release that wrote it [2200]"
        }
        #expect(!FileManager.default.fileExists(atPath: app.store.path))
        // The next launch says so again: it is not "up to date" with a store that should not exist.
        #expect(throws: SeedError.self) { try installer.prepareStore() }
        #expect(
            ((try? FileManager.default.contentsOfDirectory(atPath: app.store.deletingLastPathComponent().path)) ?? [])
                .isEmpty)
    }

    @Test func aMigrationThatFailsOnFirstLaunchLeavesNoStore() throws {
        let app = try AppBundle()
        try Data(
            """
            {"insert": {"books": [{"title": "Bad", "price": "not a number", "category_id": "Biography"}]}}
            """.utf8
        ).write(to: app.migrationsDirectory.appendingPathComponent("0002-bad.json"))
        #expect(throws: SeedError.self) { try app.installer().prepareStore() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: app.store.deletingLastPathComponent().path).isEmpty)
    }

    @Test func seedErrorReadsTheSameAsTheCLIEverywhere() throws {
        let error = SeedError(.refused, file: "Library/BookStore.sqlite", "not a SQLite database")
        let expected = "Library/BookStore.sqlite: error: not a SQLite database [2200]"
        expectEqual(error.description, expected)
        expectEqual(error.localizedDescription, expected)
        expectEqual((error as any Error).localizedDescription, expected)
        expectEqual(String(describing: error), expected)
    }

    @Test func theAppsOwnDatabasePoolInWALModeGetsTheSeedThenMigrations() throws {
        let app = try AppBundle()
        try FileManager.default.createDirectory(
            at: app.store.deletingLastPathComponent(), withIntermediateDirectories: true)
        let pool = try DatabasePool(path: app.store.path)
        let installer = SeedInstaller(seed: app.seed, migrations: try app.migrations())
        guard case .installedSeed(let report) = try installer.prepareStore(in: pool) else {
            Issue.record("expected installedSeed")
            return
        }
        expectEqual(report.migrations.map(\.id), ["0001-add-fourth-book"])
        try expectEqual(pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }, "wal")
        try expectEqual(
            pool.read { db in try String.fetchAll(db, sql: "SELECT title FROM books ORDER BY id") },
            ["The first book", "The second book", "The third book", "The fourth book"])
        try expectEqual(installer.prepareStore(in: pool), .upToDate)
        try expectEqual(pool.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }, "ok")
    }

    @Test func theAppsOwnDatabaseIsEmptiedAgainWhenTheFirstLaunchFails() throws {
        let app = try AppBundle()
        try Data(
            """
            {"insert": {"books": [{"title": "Bad", "price": "not a number", "category_id": "Biography"}]}}
            """.utf8
        ).write(to: app.migrationsDirectory.appendingPathComponent("0002-bad.json"))
        let queue = try DatabaseQueue()
        #expect(throws: SeedError.self) {
            try SeedInstaller(seed: app.seed, migrations: try app.migrations()).prepareStore(in: queue)
        }
        try expectEqual(queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }, 0)
    }

    @Test func theAppsTransactionObserversSeeTheRowsItsMigrationsInsert() throws {
        // The installer writes rows past GRDB only on a connection it opened itself: an app's own
        // database may be observed (ValueObservation), and its observers must see every change.
        let app = try AppBundle()
        let queue = try DatabaseQueue()
        let observer = InsertionObserver()
        queue.add(transactionObserver: observer, extent: .databaseLifetime)
        guard
            case .installedSeed(let report) = try SeedInstaller(seed: app.seed, migrations: try app.migrations())
                .prepareStore(in: queue)
        else {
            Issue.record("expected installedSeed")
            return
        }
        expectEqual(report.migrations.map(\.number), [1])
        expectEqual(
            observer.insertions["books"], 1, "the seed is copied page by page (not observed); the migration's row is")
    }

    @Test func yamlMigrationsNeedTheToolAndSaySo() throws {
        let app = try AppBundle()
        try Data("insert: {}\n".utf8).write(to: app.migrationsDirectory.appendingPathComponent("0002-x.yml"))
        #expect {
            try app.migrations()
        } throws: { error in
            (error as? SeedError)?.kind == .configuration && "\(error)".contains("bundle migrations as .json or .sql")
        }
    }

    /// A big data update at launch: the installer's report lists the first 100 rows of each kind
    /// it applied and counts the rest, and still names every row it did not apply.
    @Test func aBigUpdateAtLaunchListsASampleOfWhatItAppliedAndEveryRowItDidNot() throws {
        let app = try AppBundle()
        try expectEqual(
            SeedInstaller(store: app.store, seed: app.seed, migrations: []).prepareStore(),
            .installedSeed(MigrationReport(migrations: [], dryRun: false)))
        try DatabaseQueue(path: app.store.path).write { db in
            for number in 0..<150 {
                try db.execute(
                    sql: "INSERT INTO books (title, price, category_id) VALUES (?, 1, 1)", arguments: ["Mine \(number)"]
                )
            }
        }
        // 250 new rows, then the user's 150 titles, which the store already has.
        let rows =
            (0..<250).map { "{\"title\": \"New \($0)\", \"price\": 2, \"category_id\": \"Fiction\"}" }
            + (0..<150).map { "{\"title\": \"Mine \($0)\", \"price\": 2, \"category_id\": \"Fiction\"}" }
        try Data("{\"insert\": {\"books\": [\(rows.joined(separator: ", "))]}}".utf8).write(
            to: app.migrationsDirectory.appendingPathComponent("0002-many-books.json"))
        let migrations = try app.migrations()
        expectEqual(SeedInstaller(store: app.store, seed: app.seed, migrations: migrations).options.eventsPerKind, 100)

        guard
            case .migrated(let report) = try SeedInstaller(store: app.store, seed: app.seed, migrations: migrations)
                .prepareStore(),
            let outcome = report.migrations.last
        else {
            Issue.record("expected migrated")
            return
        }
        expectEqual(outcome.number, 2)
        expectEqual(outcome.count(.inserted), 250)
        expectEqual(outcome.unlisted, [.inserted: 150])
        expectEqual(
            outcome.events.filter { $0.kind == .inserted }.map(\.keyDescription), (0..<100).map { "'New \($0)'" })
        expectEqual(
            outcome.events.filter { $0.kind == .alreadyPresent }.map(\.keyDescription), (0..<150).map { "'Mine \($0)'" }
        )
        try expectEqual(app.titles().count, 3 + 1 + 150 + 250)

        // Given SeedMigrator's own defaults, an installer lists every event.
        let other = try AppBundle()
        try FileManager.default.copyItem(
            at: app.migrationsDirectory.appendingPathComponent("0002-many-books.json"),
            to: other.migrationsDirectory.appendingPathComponent("0002-many-books.json"))
        guard
            case .installedSeed(let all) = try SeedInstaller(
                store: other.store, seed: other.seed, migrations: try other.migrations(),
                options: SeedMigrator.Options()
            ).prepareStore(),
            let whole = all.migrations.last
        else {
            Issue.record("expected installedSeed")
            return
        }
        #expect(whole.unlisted.isEmpty)
        expectEqual(whole.events.filter { $0.kind == .inserted }.count, 400)
    }

    /// An app's launch call is handed whatever file sits at the store's path: a ledger row holding a
    /// blob where seedkit writes text is a refused store, never a crash of the app (issue 34).
    @Test(arguments: [
        "UPDATE _seedkit_migrations SET checksum = x'00ff'",
        "UPDATE _seedkit_meta SET value = x'00ff'",
        "UPDATE _seedkit_tables SET refs = x'00ff'",
        "UPDATE _seedkit_tables SET key = 'not json'",
    ])
    func aForeignLedgerIsRefusedAtLaunch(sql: String) throws {
        let app = try AppBundle()
        _ = try app.installer().prepareStore()
        let store = try DatabaseQueue(path: app.store.path)
        try store.write { db in try db.execute(sql: sql) }
        try store.close()
        try Data(#"{"insert": {"books": [{"title": "The fifth book", "price": 9, "category_id": "Fiction"}]}}"#.utf8)
            .write(to: app.migrationsDirectory.appendingPathComponent("0002-add-fifth-book.json"))
        let before = try Data(contentsOf: app.store)
        #expect {
            _ = try app.installer().prepareStore()
        } throws: { error in
            guard let error = error as? SeedError else { return false }
            return error.kind == .refused && error.description.contains("foreign or corrupt store: _seedkit_")
        }
        try expectEqual(Data(contentsOf: app.store), before)
    }
}

/// Counts the insertions GRDB reports to an app's transaction observer, by table.
private final class InsertionObserver: TransactionObserver, @unchecked Sendable {
    private(set) var insertions: [String: Int] = [:]
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) {
        if event.kind == .insert { insertions[event.tableName, default: 0] += 1 }
    }
    func databaseDidCommit(_ db: Database) {}
    func databaseDidRollback(_ db: Database) {}
}
