import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import SeedTooling
import Testing

/// Issue 21, part 3: migrate (and build) write persistent history into a store that tracks it,
/// as the real stores in docs/swiftdata.md show Core Data writing it.
///
/// The store is the one Examples/SwiftDataStore/make-store.py generates (Author: id, name, books ↔
/// Book: author, id, pages, published, title; entities 1 and 2), the seed built into it with the
/// CLI.
private let makeStore = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("Examples/SwiftDataStore/make-store.py")

/// Runs make-store.py into `path` with its model changed by `patch` (Python run on the module `m` first).
private func makeVariantStore(_ project: TemporaryProject, _ path: String, patch: String) throws {
    let python = Process()
    python.executableURL = Python3.executable
    python.arguments = Python3.arguments([
        "-c",
        """
        import importlib.util, sys
        spec = importlib.util.spec_from_file_location("m", sys.argv[1]); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
        \(patch)
        sys.argv = ["make-store.py", sys.argv[2]]; m.main()
        """, makeStore.path, project.path(path),
    ])
    try python.run()
    python.waitUntilExit()
    expectEqual(python.terminationStatus, 0)
}

/// The example's seed built with the CLI and copied to `app.store`, as an app's store after first launch.
private func appStore() throws -> TemporaryProject {
    let project = try swiftDataProject()
    let build = try project.seedkit("build", "--migrations", "none")
    expectEqual(build.status, 0, "\(build)")
    try FileManager.default.copyItem(atPath: project.path("build/seed.store"), toPath: project.path("app.store"))
    return project
}

private let bookInsert =
    "insert:\n  Book:\n    - { title: Flint, pages: 3, author: Italo Calvino, id: 0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D09 }\n"

@Suite struct SwiftDataHistoryTests {
    /// Issue 42 (pegase: a row's Z_OPT went 1 → 3 in one migrate): one run is one save, and a save
    /// moves an object's Z_OPT on once, however many of its relationships change.
    @Test func twoBooksJoiningAnAuthorMoveItsOptimisticLockOnOnce() throws {
        let project = try appStore()
        let before = try project.rows("app.store", "SELECT Z_OPT FROM ZAUTHOR WHERE ZNAME = 'Italo Calvino'")
        expectEqual(before, ["1"])
        try project.write(
            "migrations/0001-two.yml",
            """
            insert:
              Book:
                - { title: Flint, pages: 3, author: Italo Calvino, id: 0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D09 }
                - { title: Slate, pages: 4, author: Italo Calvino, id: 0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D10 }

            """)
        let migrate = try project.seedkit("migrate", "app.store")
        expectEqual(migrate.status, 0, "\(migrate)")
        try expectEqual(
            project.rows("app.store", "SELECT Z_OPT FROM ZAUTHOR WHERE ZNAME = 'Italo Calvino'"), ["2"])
    }

    @Test func migrateRecordsInsertsUpdatesDeletesAndTheOtherSides() throws {
        let project = try appStore()
        try project.write("migrations/0001-flint.yml", bookInsert)
        let start = Date().timeIntervalSinceReferenceDate
        let insert = try project.seedkit("migrate", "app.store")
        let end = Date().timeIntervalSinceReferenceDate
        expectEqual(insert.status, 0, "\(insert)")
        try expectEqual(
            project.rows(
                "app.store", "SELECT Z_PK, Z_ENT, Z_OPT, ZTITLE, ZAUTHOR FROM ZBOOK WHERE ZTITLE = 'Flint'"),
            [
                "4|2|1|'Flint'|2"
            ])
        // The build's transaction 1, then the run's: author seedkit (ZAUTHORTS → ATRANSACTIONSTRING 1), bundle and process too.
        try expectEqual(
            project.rows(
                "app.store",
                "SELECT Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZAUTHOR, ZBUNDLEID, ZCONTEXTNAME, ZPROCESSID, ZQUERYGEN FROM ATRANSACTION ORDER BY Z_PK"
            ),
            [
                "1|16002|NULL|1|1|NULL|1|NULL|NULL|NULL|NULL|NULL",
                "2|16002|NULL|1|1|NULL|1|NULL|NULL|NULL|NULL|NULL",
            ])
        try expectEqual(project.rows("app.store", "SELECT * FROM ATRANSACTIONSTRING"), ["1|16003|NULL|'seedkit'"])
        let timestamp = try #require(
            try project.database("app.store").read { db in
                try Double.fetchOne(db, sql: "SELECT ZTIMESTAMP FROM ATRANSACTION WHERE Z_PK = 2")
            })
        #expect(timestamp >= start.rounded(.down) && timestamp <= end + 1, "\(timestamp) not in \(start)…\(end)")
        // The insert (0: Book 4), and the author it joined: an update of Author 2 with `books` (property 2 of id, name, books: 0x20).
        try expectEqual(
            project.rows("app.store", "SELECT * FROM ACHANGE WHERE ZTRANSACTIONID = 2 ORDER BY Z_PK"),
            [
                "6|16001|NULL|0|2|4|2|NULL", "7|16001|NULL|1|1|2|2|X'20'",
            ])
        try expectEqual(
            project.rows("app.store", "SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT"),
            [
                "1|2", "2|4", "16001|7", "16002|2", "16003|1",
            ])

        // One run, two migrations: Flint's pages (Book: author, id, pages, published, title: 0x20), and
        // Invisible Cities deleted, which records an update of its author (Author 2, `books`), once.
        try project.write(
            "migrations/0002-pages.yml",
            "update:\n  Book:\n    - { key: Flint, from: { pages: 3 }, to: { pages: 4 } }\n")
        try project.write("migrations/0003-prune.yml", "delete:\n  Book:\n    - { key: Invisible Cities, from: {} }\n")
        let second = try project.seedkit("migrate", "app.store")
        expectEqual(second.status, 0, "\(second)")
        try expectEqual(
            project.rows("app.store", "SELECT * FROM ACHANGE WHERE ZTRANSACTIONID = 3 ORDER BY Z_PK"),
            [
                "8|16001|NULL|1|1|2|3|X'20'", "9|16001|NULL|1|2|4|3|X'20'", "10|16001|NULL|2|2|3|3|NULL",
            ])
        try expectEqual(
            project.rows("app.store", "SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT"),
            ["16001|10", "16002|3", "16003|1"])

        // Nothing pending, or nothing changed (the row is there already): no transaction.
        let again = try project.seedkit("migrate", "app.store")
        #expect(again.status == 0 && again.stdout.contains("up to date"), "\(again)")
        try project.write("migrations/0004-flint-again.yml", bookInsert)
        let present = try project.seedkit("migrate", "app.store")
        #expect(
            present.status == 0 && present.stdout.contains("applied 0004-flint-again: 1 already-present"), "\(present)")
        try expectEqual(project.rows("app.store", "SELECT count(*), max(Z_PK) FROM ATRANSACTION"), ["3|3"])
        try expectEqual(project.rows("app.store", "SELECT count(*) FROM ACHANGE"), ["10"])

        let inspect = try project.seedkit("inspect", "app.store")
        // Each count says what it counts: all changes (10), then the last transaction's (3).
        #expect(
            inspect.stdout.contains(
                "  history       tracked: 3 transactions, 10 changes in all; the last by seedkit at "), "\(inspect)")
        #expect(inspect.stdout.contains(", with 3 changes\n"), "\(inspect)")
    }

    @Test func aFailedMigrationWritesNeitherRowsNorHistory() throws {
        let project = try appStore()
        try project.write("migrations/0001-flint.yml", bookInsert)
        try project.write(
            "migrations/0002-bad.yml", "insert:\n  Book:\n    - { title: Orphan, pages: 1, author: Nobody }\n")
        let before = try #require(project.read("app.store"))
        let failed = try project.seedkit("migrate", "app.store")
        expectEqual(failed.status, 1, "\(failed)")
        expectEqual(project.read("app.store"), before)
    }

    @Test func withoutHistoryWritesTheRowsAndNoEntries() throws {
        let project = try appStore()
        try project.write("migrations/0001-flint.yml", bookInsert)
        let migrate = try project.seedkit("migrate", "app.store", "--without-history")
        expectEqual(migrate.status, 0, "\(migrate)")
        try expectEqual(
            project.rows("app.store", "SELECT Z_PK, ZTITLE FROM ZBOOK WHERE ZTITLE = 'Flint'"), ["4|'Flint'"])
        try expectEqual(
            project.rows("app.store", "SELECT (SELECT count(*) FROM ATRANSACTION), (SELECT count(*) FROM ACHANGE)"),
            ["1|5"], "the build's only")
        try expectEqual(
            project.rows("app.store", "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT"),
            [
                "5", "1", "1",
            ])
    }

    /// Book with 9 properties: an update's changed-properties mask takes two bytes, property i in
    /// byte i/8 from its high bit, as Screen Time's and knowledgeC's stores show (docs/swiftdata.md).
    @Test func anUpdateOfAnEntityOfMoreThanEightPropertiesHasATwoByteMask() throws {
        let project = try swiftDataProject()
        try project.remove("seeds/default.store")
        try makeVariantStore(
            project, "seeds/default.store",
            patch: """
                m.ENTITIES[1][1].extend([(n, 700, "NSString", None, True) for n in ("subtitle", "summary", "translator", "year")])
                """)
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 0, "\(build)")
        try FileManager.default.copyItem(atPath: project.path("build/seed.store"), toPath: project.path("app.store"))
        try project.write("migrations/0001-flint.yml", bookInsert)
        try project.write(
            "migrations/0002-pages.yml",
            "update:\n  Book:\n    - { key: The Dispossessed, from: { pages: 387 }, to: { pages: 388 } }\n")
        let migrate = try project.seedkit("migrate", "app.store")
        expectEqual(migrate.status, 0, "\(migrate)")
        try expectEqual(
            project.rows("app.store", "SELECT ZPAGES FROM ZBOOK WHERE ZTITLE = 'The Dispossessed'"), ["388"])
        let updates = try project.rows(
            "app.store", "SELECT ZENTITY, hex(ZCOLUMNS) FROM ACHANGE WHERE ZCHANGETYPE = 1 ORDER BY Z_PK")
        // Author (id, name, books): Flint's author gains a book, bit 2. Book (author | id, pages,
        // published, subtitle, summary, title, translator, year): pages, bit 2 of two bytes.
        expectEqual(updates, ["1|'20'", "2|'2000'"], "\(updates)")
    }

    /// A store the app created, no seed, no manifest, no model file: the model from Z_MODELCACHE,
    /// the key from `@Attribute(.unique)`, history as Core Data writes it (library API, a fixed time).
    @Test func aStoreAloneIsMigratedByItsUniqueAttributes() throws {
        let project = try swiftDataProject()
        try project.write(
            "migrations/0001-flint.json",
            #"{"insert": {"Book": [{"title": "Flint", "pages": 3}], "Author": [{"name": "Tove Jansson", "id": "6BA7B810-9DAD-41D1-80B4-00C04FD43001"}]}}"#
        )
        let migrate = try project.seedkit("migrate", "seeds/default.store")
        expectEqual(migrate.status, 0, "\(migrate)")
        try expectEqual(
            project.rows("seeds/default.store", "SELECT Z_PK, Z_ENT, Z_OPT, ZTITLE, ZPAGES, ZAUTHOR FROM ZBOOK"),
            ["1|2|1|'Flint'|3|NULL"])
        try expectEqual(
            project.rows(
                "seeds/default.store",
                "SELECT ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS FROM ACHANGE ORDER BY Z_PK"),
            [
                "0|1|1|1|NULL", "0|2|1|1|NULL",
            ])

        // The library, as an app at launch with the model the store keeps: a ref by the author's unique name.
        try project.write(
            "migrations/0002-attribute.json",
            #"{"update": {"Book": [{"key": "Flint", "from": {"author": null}, "to": {"author": "Tove Jansson"}}]}}"#)
        let model = try #require(
            try CoreDataModel.loadCache(store: project.url("seeds/default.store"), shown: "default.store"))
        var options = SeedMigrator.Options(now: Date(timeIntervalSinceReferenceDate: 817_000_000.5))
        options.coreDataFacts = model.facts
        let report = try SeedMigrator(migrations: MigrationDirectory.load(project.url("migrations"))).migrate(
            project.database("seeds/default.store"), options: options)
        expectEqual(report.migrations.map { $0.count(.updated) }, [1], "\(report)")
        try expectEqual(
            project.rows("seeds/default.store", "SELECT * FROM ATRANSACTION WHERE Z_PK = 2"),
            [
                "2|16002|NULL|1|1|NULL|1|817000000.5|NULL|NULL|NULL|NULL|NULL"
            ])
        // Book 1's author set (property 0 of author, id, pages, published, title: 0x80); Author 1's books (0x20).
        try expectEqual(
            project.rows("seeds/default.store", "SELECT * FROM ACHANGE WHERE ZTRANSACTIONID = 2 ORDER BY Z_PK"),
            [
                "3|16001|NULL|1|1|1|2|X'20'", "4|16001|NULL|1|2|1|2|X'80'",
            ])
    }

    @Test func anEntityWithoutASingleAttributeConstraintSaysHowToGiveAKey() throws {
        let project = try TemporaryProject(bookStore: false)
        try makeVariantStore(project, "app.store", patch: "m.ENTITIES[1] = m.ENTITIES[1][:3] + ([],)")
        try project.database("app.store").write { db in
            try db.execute(
                sql: """
                    INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME, ZID) VALUES (1, 1, 1, 'Le Guin', x'11111111222233334444555555555555');
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_ENT = 1
                    """)
        }
        // The relationship names its author by the author's unique name (the issue: `"Le Guin" is
        // not an integer (the column is INTEGER)`, as no manifest gave a keyless entity its refs).
        try project.write(
            "migrations/0001-flint.yml", "insert: { Book: [ { title: Flint, pages: 3, author: Le Guin } ] }\n")
        let before = try #require(project.read("app.store"))
        let failed = try project.seedkit("migrate", "app.store")
        expectEqual(failed.status, 2, "\(failed)")
        expectEqual(failed.stderrLines.count, 1, "\(failed)")
        #expect(!failed.stderr.contains("is not an integer"), "\(failed)")
        #expect(
            failed.stderr.contains(
                "this row for Book has no value for its key column 'Z_PK': Book has no single-attribute uniqueness constraint (@Attribute(.unique), a unique index Z_Book_UNIQUE_<attribute>) that seedkit could take as its key, and Z_PK is a number seedkit assigns; give Book a key in a manifest (tables: { Book: { key: ATTRIBUTE } }) and pass it with --manifest"
            ), "\(failed)")
        expectEqual(project.read("app.store"), before)
    }

    @Test func aStoreMirroredToCloudKitIsRefusedUnlessAllowed() throws {
        let project = try appStore()
        try project.database("app.store").write { db in
            try db.execute(
                sql:
                    "CREATE TABLE ANSCKRECORDMETADATA (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZENTITYID INTEGER, ZENTITYPK INTEGER)"
            )
        }
        try project.write("migrations/0001-flint.yml", bookInsert)
        let before = try #require(project.read("app.store"))
        let refused = try project.seedkit("migrate", "app.store")
        expectEqual(refused.status, 3, "\(refused)")
        #expect(
            refused.stderr.hasPrefix(
                "app.store: error: the store is mirrored to CloudKit (ANSCKRECORDMETADATA): NSPersistentCloudKitContainer exports what persistent history records"
            ), "\(refused)")
        #expect(
            refused.stderr.contains(
                "would be exported by each of them and duplicate in the user's CloudKit database; nothing was written. Pass --allow-cloudkit"
            ), "\(refused)")
        expectEqual(project.read("app.store"), before)
        let allowed = try project.seedkit("migrate", "app.store", "--allow-cloudkit")
        expectEqual(allowed.status, 0, "\(allowed)")
        try expectEqual(project.rows("app.store", "SELECT count(*) FROM ATRANSACTION"), ["2"])
    }

    /// An app at launch whose bundled seed was built before seedkit recorded the model's properties,
    /// given no model: its history cannot be written, and the run is refused saying why.
    @Test func aSeedWithoutTheModelsPropertiesIsRefusedNamingWhy() throws {
        let project = try appStore()
        try project.database("app.store").write { db in
            let json = try #require(
                try String.fetchOne(db, sql: "SELECT value FROM _seedkit_meta WHERE key = 'coredata_model'"))
            var facts = try JSONDecoder().decode(CoreDataModelFacts.self, from: Data(json.utf8))
            facts.history = [:]
            try db.execute(
                sql: "UPDATE _seedkit_meta SET value = ? WHERE key = 'coredata_model'", arguments: [try facts.json()])
        }
        try project.write(
            "migrations/0001-flint.json",
            #"{"insert": {"Book": [{"title": "Flint", "pages": 3, "author": "Italo Calvino"}]}}"#)
        let before = try #require(project.read("app.store"))
        do {
            _ = try SeedMigrator(migrations: MigrationDirectory.load(project.url("migrations"))).migrate(
                project.database("app.store"))
            Issue.record("migrated without the model's properties")
        } catch let error as SeedError {
            expectEqual(error.kind, .refused)
            #expect(
                error.diagnostics.first?.message.contains("and seedkit has no model to record what it writes") == true,
                "\(error)")
        }
        expectEqual(project.read("app.store"), before)
    }
}
