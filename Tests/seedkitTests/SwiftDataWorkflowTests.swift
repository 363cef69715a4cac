import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import SeedTooling
import Testing

/// A SwiftData app's whole path as a new user walks it, with the real CLI on real files: the
/// app's store (Examples/SwiftDataStore/make-store.py, seeded by `build`), `init --coredata
/// STORE`, `build`, shipping the seed, editing the fixtures, `new-migration --from`,
/// `check-upgrade`, and the migration applied to the app's store (CLI and library) with history.
@Suite struct SwiftDataWorkflowTests {
    /// The example's seed built into the generated store and copied to `app.store`, as an app's
    /// store after its first launch, in a project of its own (`init` wants a folder without seeds/).
    private func appStoreAlone() throws -> TemporaryProject {
        let example = try swiftDataProject()
        let build = try example.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 0, "\(build)")
        let project = try TemporaryProject(bookStore: false)
        try project.write("app.store", try #require(example.read("build/seed.store")))
        return project
    }

    /// `init`'s next steps name the seed `build` writes (the manifest's output takes the
    /// store's extension: build/seed.store), so that following them literally works.
    @Test func initNamesTheSeedTheManifestBuilds() throws {
        let project = try appStoreAlone()
        let initialized = try project.seedkit("init", "--coredata", "app.store")
        expectEqual(initialized.status, 0, "\(initialized)")
        let manifest = try #require(project.read("seeds/seedkit.yml").map { String(decoding: $0, as: UTF8.self) })
        #expect(manifest.contains("\noutput: ../build/seed.store\n"), "\(manifest)")
        #expect(
            initialized.stdout.contains(
                "  seedkit build                         # writes build/seed.store, the seed your app bundles\n"),
            "\(initialized.stdout)")
        #expect(
            initialized.stdout.contains(
                "  cp build/seed.store seeds/releases/1.0.store   # when you ship release 1.0\n"),
            "\(initialized.stdout)")
        #expect(
            initialized.stdout.contains(
                "  seedkit new-migration NAME --from seeds/releases/1.0.store   # after editing the fixtures for the next release\n"
            ), "\(initialized.stdout)")
        #expect(
            initialized.stdout.contains(
                "  seedkit check-upgrade seeds/releases/*.store   # every shipped seed upgrades to a fresh build\n"),
            "\(initialized.stdout)")
        #expect(!initialized.stdout.contains("seed.sqlite"), "\(initialized.stdout)")
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        #expect(project.exists("build/seed.store"))

        // A store without an extension: the seed has none either, the shipped copies take .sqlite
        // (seeds/releases/* would match the README kept there).
        let bare = try TemporaryProject(bookStore: false)
        try bare.write("default", try #require(project.read("app.store")))
        let initialized2 = try bare.seedkit("init", "--coredata", "default")
        expectEqual(initialized2.status, 0, "\(initialized2)")
        #expect(
            initialized2.stdout.contains("  cp build/seed seeds/releases/1.0.sqlite   # when you ship release 1.0\n"),
            "\(initialized2.stdout)")
        #expect(
            initialized2.stdout.contains(
                "  seedkit check-upgrade seeds/releases/*.sqlite   # every shipped seed upgrades to a fresh build\n"),
            "\(initialized2.stdout)")
        try expectEqual(bare.seedkit("build").status, 0)
        #expect(bare.exists("build/seed"))
    }

    /// A UUID attribute (`let id = UUID()`, a 16-byte BLOB) is written by `new-migration` in
    /// its text form, which `migrate` reads; the migration then upgrades the shipped seed.
    @Test func newMigrationWritesAUUIDAttributeAsTheTextMigrateReads() throws {
        let project = try appStoreAlone()
        try expectEqual(project.seedkit("init", "--coredata", "app.store").status, 0)
        try expectEqual(project.seedkit("build").status, 0)
        try FileManager.default.copyItem(
            atPath: project.path("build/seed.store"), toPath: project.path("seeds/releases/1.0.store"))
        let fixture = try #require(project.read("seeds/data/Book.csv"))
        try project.write(
            "seeds/data/Book.csv", fixture + Data("0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D07,3,,Flint,Italo Calvino\n".utf8))
        let generated = try project.seedkit("new-migration", "flint", "--from", "seeds/releases/1.0.store")
        expectEqual(generated.status, 0, "\(generated)")
        let migration = try #require(
            project.read("migrations/0001-flint.yml").map { String(decoding: $0, as: UTF8.self) })
        #expect(migration.contains(#"id: "0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D07""#), "\(migration)")
        try expectEqual(project.seedkit("build").status, 0)
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.store")
        expectEqual(check.status, 0, "\(check)")

        // The shipped seed in the app, migrated: the row with its UUID's 16 bytes, and its history.
        try FileManager.default.copyItem(
            atPath: project.path("seeds/releases/1.0.store"), toPath: project.path("user.store"))
        let migrate = try project.seedkit("migrate", "user.store")
        expectEqual(migrate.status, 0, "\(migrate)")
        try expectEqual(
            project.rows(
                "user.store", "SELECT Z_PK, Z_ENT, Z_OPT, ZPAGES, ZAUTHOR, hex(ZID) FROM ZBOOK WHERE ZTITLE = 'Flint'"),
            ["4|2|1|3|2|'0E8F1C0A1D524C6B9F436A1E2B3C4D07'"])
        try expectEqual(
            project.rows(
                "user.store",
                "SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS FROM ACHANGE WHERE ZTRANSACTIONID = 2 ORDER BY Z_PK"
            ), ["6|0|2|4|2|NULL", "7|1|1|2|2|X'20'"])
    }

    /// The app at launch (SeedInstaller, no model given: the facts the seed records) writes the
    /// same history as the CLI for the same migration, and a second launch writes nothing.
    @Test func theInstallerAtLaunchWritesTheHistoryTheCLIWrites() throws {
        let project = try appStoreAlone()
        // JSON: what an app bundles (YAML needs the seedkit tool).
        try project.write(
            "migrations/0001-move.json",
            """
            {"update": {"Book": [{"key": "The Dispossessed", "from": {"author": "Ursula K. Le Guin", "pages": 387}, "to": {"author": "Italo Calvino", "pages": 388}}]},
             "delete": {"Book": [{"key": "The Lathe of Heaven", "from": {}}]},
             "insert": {"Author": [{"name": "Borges"}], "Book": [{"title": "Ficciones", "pages": 200, "author": "Borges"}]}}
            """)
        try FileManager.default.copyItem(atPath: project.path("app.store"), toPath: project.path("cli.store"))
        let cli = try project.seedkit("migrate", "cli.store")
        expectEqual(cli.status, 0, "\(cli)")
        let installer = SeedInstaller(
            store: project.url("app.store"), seed: project.url("app.store"),
            migrations: try MigrationDirectory.load(project.url("migrations")))
        let outcome = try installer.prepareStore()
        guard case .migrated(let report) = outcome else {
            Issue.record("not migrated: \(outcome)")
            return
        }
        expectEqual(report.migrations.map(\.name), ["move"], "\(report)")
        let changes =
            "SELECT Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS FROM ACHANGE ORDER BY Z_PK"
        let expected = [
            "1|16001|NULL|0|1|1|1|NULL", "2|16001|NULL|0|1|2|1|NULL", "3|16001|NULL|0|2|1|1|NULL",
            "4|16001|NULL|0|2|2|1|NULL", "5|16001|NULL|0|2|3|1|NULL",
            // Borges and Ficciones inserted; Le Guin (lost two books) and Calvino (gained one): books (0x20);
            // The Dispossessed: author and pages (0x80 | 0x20); The Lathe of Heaven deleted.
            "6|16001|NULL|0|1|3|2|NULL", "7|16001|NULL|0|2|4|2|NULL", "8|16001|NULL|1|1|1|2|X'20'",
            "9|16001|NULL|1|1|2|2|X'20'",
            "10|16001|NULL|1|2|1|2|X'A0'", "11|16001|NULL|2|2|2|2|NULL",
        ]
        try expectEqual(project.rows("app.store", changes), expected)
        try expectEqual(project.rows("cli.store", changes), expected)
        let bookkeeping = "SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT"
        try expectEqual(project.rows("app.store", bookkeeping), ["1|3", "2|4", "16001|11", "16002|2", "16003|1"])
        try expectEqual(project.rows("cli.store", bookkeeping), ["1|3", "2|4", "16001|11", "16002|2", "16003|1"])
        // The rows alike too (Z_OPT included: Borges, inserted and related in the run, at 1).
        let authors = "SELECT Z_PK, Z_OPT, ZNAME, hex(ZID) FROM ZAUTHOR ORDER BY Z_PK"
        try expectEqual(project.rows("app.store", authors), project.rows("cli.store", authors))
        try expectEqual(project.rows("app.store", "SELECT Z_OPT FROM ZAUTHOR WHERE ZNAME = 'Borges'"), ["1"])
        let books = "SELECT Z_PK, Z_OPT, ZAUTHOR, ZPAGES, ZTITLE, hex(ZID) FROM ZBOOK ORDER BY Z_PK"
        try expectEqual(project.rows("app.store", books), project.rows("cli.store", books))
        try expectEqual(installer.prepareStore(), .upToDate)
        try expectEqual(project.rows("app.store", "SELECT count(*) FROM ATRANSACTION"), ["2"])
    }

    /// A run is one Core Data save: a row it inserts and then changes (a later migration of the
    /// same run) is one insert at `Z_OPT` 1, as Core Data writes an object new in a save, with
    /// the bump that bumpOptimisticLock already skips for rows the run inserted.
    @Test func aRowInsertedThenUpdatedInOneRunIsWrittenOnceAtZOPT1() throws {
        let project = try appStoreAlone()
        try project.write(
            "migrations/0001-flint.yml", "insert:\n  Book:\n    - { title: Flint, pages: 3, author: Italo Calvino }\n")
        try project.write(
            "migrations/0002-pages.yml",
            "update:\n  Book:\n    - { key: Flint, from: { pages: 3, author: Italo Calvino }, to: { pages: 4, author: Ursula K. Le Guin } }\n"
        )
        let migrate = try project.seedkit("migrate", "app.store")
        expectEqual(migrate.status, 0, "\(migrate)")
        try expectEqual(
            project.rows("app.store", "SELECT Z_PK, Z_OPT, ZPAGES, ZAUTHOR FROM ZBOOK WHERE ZTITLE = 'Flint'"),
            [
                "4|1|4|1"
            ])
        // One insert of Flint (not also an update), and Le Guin's books. (Calvino's gain and loss
        // cancel out within the save; whether Core Data records him is not shown by any store.)
        let changes = try project.rows(
            "app.store",
            "SELECT ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS FROM ACHANGE WHERE ZTRANSACTIONID = 2 ORDER BY Z_PK")
        expectEqual(changes.filter { $0.hasSuffix("|2|4|NULL") || $0.contains("|2|4|") }, ["0|2|4|NULL"], "\(changes)")
        #expect(changes.contains("1|1|1|X'20'"), "\(changes)")
    }

    /// A user who installed the app before it bundled a seed has the store the app created
    /// (no seedkit tables): at launch the installer takes the model's facts from the bundled
    /// seed and writes the migration's rows with their history.
    @Test func theInstallerMigratesAStoreTheAppCreatedWithTheSeedsModel() throws {
        let example = try swiftDataProject()
        try expectEqual(example.seedkit("build", "--migrations", "none").status, 0)
        let project = try TemporaryProject(bookStore: false)
        try project.write("seed.store", try #require(example.read("build/seed.store")))
        try project.write("app.store", try #require(example.read("seeds/default.store")))
        try project.write(
            "migrations/0001-flint.json",
            #"{"insert": {"Author": [{"name": "Tove Jansson"}], "Book": [{"title": "Flint", "pages": 3, "author": "Tove Jansson"}]}}"#
        )
        let installer = SeedInstaller(
            store: project.url("app.store"), seed: project.url("seed.store"),
            migrations: try MigrationDirectory.load(project.url("migrations")))
        guard case .migrated(let report) = try installer.prepareStore() else {
            Issue.record("not migrated")
            return
        }
        expectEqual(report.migrations.map { $0.count(.inserted) }, [2], "\(report)")
        try expectEqual(
            project.rows("app.store", "SELECT Z_PK, Z_ENT, Z_OPT, ZTITLE, ZAUTHOR FROM ZBOOK"),
            [
                "1|2|1|'Flint'|1"
            ])
        try expectEqual(
            project.rows(
                "app.store",
                "SELECT ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS FROM ACHANGE ORDER BY Z_PK"),
            [
                "0|1|1|1|NULL", "0|2|1|1|NULL",
            ])
        try expectEqual(
            project.rows("app.store", "SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT"),
            [
                "1|1", "2|1", "16001|2", "16002|1", "16003|1",
            ])
        try expectEqual(installer.prepareStore(), .upToDate)
    }

    /// `inspect STORE Entity` shows a UUID attribute as the UUID the fixtures and migrations write.
    @Test func inspectShowsAUUIDAttributeAsItsText() throws {
        let project = try appStoreAlone()
        let inspect = try project.seedkit("inspect", "app.store", "Book")
        expectEqual(inspect.status, 0, "\(inspect)")
        let lines = inspect.stdout.split(separator: "\n").map(String.init)
        expectEqual(
            lines.first, "Z_PK  author             pages  published             title                id",
            "\(inspect.stdout)")
        expectEqual(
            lines.dropFirst(2).first,
            "1     Ursula K. Le Guin  387    1974-05-01T00:00:00Z  The Dispossessed     0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D01",
            "\(inspect.stdout)")
        let filtered = try project.seedkit(
            "inspect", "app.store", "Book", "--where", "ZID = X'0E8F1C0A1D524C6B9F436A1E2B3C4D03'")
        #expect(
            filtered.status == 0 && filtered.stdout.contains("Invisible Cities") && !filtered.stdout.contains("Lathe"),
            "\(filtered)")
    }

    /// A developer's store from the simulator may have been installed from an earlier seed and
    /// migrated by seedkit (its ledger, meta and table specs), and mirrored to CloudKit (record
    /// metadata naming the developer's records).
    ///
    /// The template is the store "as the app created it": none of that may reach it, or every seed
    /// built from it.
    @Test func initLeavesNeitherSeedkitsLedgerNorCloudKitRowsInTheTemplate() throws {
        let project = try appStoreAlone()
        try project.write(
            "migrations/0001-flint.json",
            #"{"insert": {"Book": [{"title": "Flint", "pages": 3, "author": "Italo Calvino"}]}}"#)
        let migrate = try project.seedkit("migrate", "app.store", "--migrations", "migrations")
        expectEqual(migrate.status, 0, "\(migrate)")
        try project.database("app.store").write { db in
            try db.execute(
                sql: """
                    CREATE TABLE ANSCKRECORDMETADATA (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZENTITYID INTEGER, ZENTITYPK INTEGER, ZCKRECORDNAME VARCHAR);
                    INSERT INTO ANSCKRECORDMETADATA VALUES (1, 16004, 1, 2, 1, 'the-developers-record');
                    INSERT INTO Z_PRIMARYKEY VALUES (16004, 'NSCKRecordMetadata', 0, 1);
                    """)
        }
        try FileManager.default.removeItem(at: project.url("migrations"))
        let initialized = try project.seedkit("init", "--coredata", "app.store")
        expectEqual(initialized.status, 0, "\(initialized)")
        try expectEqual(
            project.rows(
                "seeds/app.store", "SELECT count(*) FROM sqlite_master WHERE name LIKE '\\_seedkit\\_%' ESCAPE '\\'"),
            ["0"])
        try expectEqual(project.rows("seeds/app.store", "SELECT count(*) FROM ANSCKRECORDMETADATA"), ["0"])
        try expectEqual(
            project.rows("seeds/app.store", "SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT"),
            [
                "1|0", "2|0", "16001|0", "16002|0", "16003|0", "16004|0",
            ])
        // The new project's first migration applies to its seed (no foreign ledger claims 0001).
        try project.write("migrations/0001-dune.yml", "insert:\n  Book:\n    - { title: Dune, pages: 412 }\n")
        let build = try project.seedkit("build", "--without-history")
        expectEqual(build.status, 0, "\(build)")
        try expectEqual(
            project.rows("build/seed.store", "SELECT number, name, origin FROM _seedkit_migrations"),
            [
                "1|'dune'|'seed'"
            ])
        try expectEqual(project.rows("build/seed.store", "SELECT count(*) FROM ANSCKRECORDMETADATA"), ["0"])
    }

    /// A template copied from a device that synced holds that device's CloudKit record metadata:
    /// `build` refuses it with or without history, naming the table.
    @Test func buildRefusesATemplateHoldingCloudKitRecordMetadata() throws {
        let project = try swiftDataProject()
        try project.database("seeds/default.store").write { db in
            try db.execute(
                sql: """
                    CREATE TABLE ANSCKRECORDMETADATA (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZENTITYID INTEGER, ZENTITYPK INTEGER, ZCKRECORDNAME VARCHAR);
                    INSERT INTO ANSCKRECORDMETADATA VALUES (1, 16004, 1, 2, 1, 'the-developers-record');
                    """)
        }
        let before = try #require(project.read("seeds/default.store"))
        for flags in [["--allow-cloudkit"], ["--without-history"]] {
            let build = try project.seedkit(["build", "--migrations", "none"] + flags)
            expectEqual(build.status, 3, "\(flags): \(build)")
            #expect(
                build.stderr.contains(
                    "error: the template holds CloudKit mirroring metadata (ANSCKRECORDMETADATA: 1 row) from the device it was copied from, which every seed built from it would give every user; nothing was written. Make the template with seedkit init --coredata STORE"
                ), "\(build.stderr)")
            #expect(!project.exists("build/seed.store"))
        }
        expectEqual(project.read("seeds/default.store"), before)
        // Emptied (as init --coredata leaves it), the mirrored template builds with --allow-cloudkit.
        try project.database("seeds/default.store").write { db in try db.execute(sql: "DELETE FROM ANSCKRECORDMETADATA")
        }
        let build = try project.seedkit("build", "--migrations", "none", "--allow-cloudkit")
        expectEqual(build.status, 0, "\(build)")
    }

    /// The README says to take the app's store from the simulator as the template.
    ///
    /// Once the app installs seeds, that store holds seedkit's ledger: a seed built on it would
    /// claim another release's migrations, and the project's own first migration would be refused
    /// on it.
    @Test func buildRefusesATemplateSeedkitAlreadyWrote() throws {
        let project = try swiftDataProject()
        try project.write("migrations/0001-flint.json", #"{"insert": {"Book": [{"title": "Flint", "pages": 3}]}}"#)
        let migrate = try project.seedkit("migrate", "seeds/default.store", "--without-history")
        expectEqual(migrate.status, 0, "\(migrate)")
        try project.database("seeds/default.store").write { db in
            try db.execute(sql: "DELETE FROM ZBOOK; UPDATE Z_PRIMARYKEY SET Z_MAX = 0")
        }
        try FileManager.default.removeItem(at: project.url("migrations"))
        let before = try #require(project.read("seeds/default.store"))
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 3, "\(build)")
        #expect(
            build.stderr.contains(
                "error: the template is a store seedkit has written (its ledger lists 1 migration: 0001-flint), not the store as the app created it: every seed built from it would claim those migrations; nothing was written. Make the template with seedkit init --coredata STORE, which takes seedkit's tables out"
            ), "\(build.stderr)")
        #expect(!project.exists("build/seed.store"))
        expectEqual(project.read("seeds/default.store"), before)
    }
}
