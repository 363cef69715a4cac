import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// Issue 11, items 1–5: stores Core Data wrote for real apps that seedkit crashed on or
/// refused. Each test re-creates the real layout (tables, columns, values) in a synthetic store.

private func sha(_ project: TemporaryProject, _ path: String) -> Data? { project.read(path) }

@Suite struct CoreDataManyToManyDeleteTests {
    /// A bookmarks app: `User.favorites` (ordered, Cascade) ↔ `Bookmark.favoritedBy` (Nullify), the
    /// relationship named in the manifest's refs, stored as Core Data stores it:
    /// `Z_1FAVORITES(Z_1FAVORITEDBY, Z_2FAVORITES, Z_FOK_2FAVORITES)` with User = 1, Bookmark = 2.
    private func project(bookmarkRule: String = "Nullify") throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.writeCoreDataProject(
            model: "Bookmarks.xcdatamodel",
            entities: """
                <entity name="User" representedClassName="User" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <relationship name="favorites" optional="YES" toMany="YES" ordered="YES" deletionRule="Cascade" destinationEntity="Bookmark" inverseName="favoritedBy" inverseEntity="Bookmark"/>
                </entity>
                <entity name="Bookmark" representedClassName="Bookmark" syncable="YES">
                    <attribute name="title" attributeType="String"/>
                    <relationship name="favoritedBy" optional="YES" toMany="YES" deletionRule="\(bookmarkRule)" destinationEntity="User" inverseName="favorites" inverseEntity="User"/>
                </entity>
                """,
            tables: """
                    CREATE TABLE ZUSER (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR);
                    CREATE TABLE ZBOOKMARK (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR);
                    CREATE TABLE Z_1FAVORITES (Z_1FAVORITEDBY INTEGER, Z_2FAVORITES INTEGER, Z_FOK_2FAVORITES INTEGER, PRIMARY KEY (Z_1FAVORITEDBY, Z_2FAVORITES));
                """, primaryKeys: [(1, "User", 0, 0), (2, "Bookmark", 0, 0)])
        try project.write(
            "seeds/seedkit.yml",
            """
            model: Bookmarks.xcdatamodel
            template: empty.sqlite
            output: ../seed.sqlite
            tables:
              Bookmark: { file: data/bookmarks.csv, key: title }
              User: { file: data/users.csv, key: name, refs: { favorites: Bookmark.title } }

            """)
        try project.write("seeds/data/bookmarks.csv", "title\nSwift\nRust\nGo\n")
        try project.write("seeds/data/users.csv", "name,favorites\nAnn,\"Swift, Rust\"\nBob,Rust\n")
        try expectEqual(project.seedkit("build", "--migrations", "none").status, 0)
        try FileManager.default.copyItem(atPath: project.path("seed.sqlite"), toPath: project.path("app.sqlite"))
        return project
    }

    @Test func nullifyRemovesTheJoinRowsAndBumpsTheOtherSide() throws {
        let project = try project()
        // Go has no links (this crashed with "no such column: zfavorites"); Rust is a favourite of both users.
        try project.write(
            "migrations/0001-prune.yml",
            "delete:\n  Bookmark:\n    - { key: Go, from: {} }\n    - { key: Rust, from: {} }\n")
        for (store, manifest) in [("seed.sqlite", [String]()), ("app.sqlite", ["--manifest", "none"])] {
            let migrate = try project.seedkit(["migrate", store] + manifest)
            expectEqual(migrate.status, 0, "\(migrate)")
            #expect(migrate.stdout.contains("applied 0001-prune: 2 deleted"), "\(migrate)")
            try expectEqual(project.rows(store, "SELECT ZTITLE FROM ZBOOKMARK ORDER BY Z_PK"), ["'Swift'"])
            try expectEqual(
                project.rows(
                    store,
                    "SELECT Z_1FAVORITEDBY, Z_2FAVORITES, Z_FOK_2FAVORITES FROM Z_1FAVORITES ORDER BY Z_1FAVORITEDBY"),
                ["1|1|2048"])
            try expectEqual(
                project.rows(store, "SELECT ZNAME, Z_OPT FROM ZUSER ORDER BY Z_PK"), ["'Ann'|2", "'Bob'|2"],
                "both users' favorites changed")
        }
    }

    /// An app at launch (no manifest, no model) whose store came from a seed built before seedkit
    /// recorded the model's facts: the bundled seed's facts decide (Nullify), as the CLI's model would.
    @Test func anAppMigratingAtLaunchUsesTheBundledSeedsDeletionRules() throws {
        let project = try project()
        try project.database("app.sqlite").write { db in
            try db.execute(sql: "DELETE FROM _seedkit_meta WHERE key = 'coredata_model'")
        }
        try project.write("migrations/0001-prune.json", #"{"delete": {"Bookmark": [{"key": "Rust", "from": {}}]}}"#)
        let migrations = try MigrationDirectory.load(project.url("migrations"))
        let outcome = try SeedInstaller(
            store: project.url("app.sqlite"), seed: project.url("seed.sqlite"), migrations: migrations
        ).prepareStore()
        guard case .migrated(let report) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(report.migrations.first?.count(.deleted) == 1, "\(report)")
        try expectEqual(
            project.rows("app.sqlite", "SELECT Z_1FAVORITEDBY, Z_2FAVORITES, Z_FOK_2FAVORITES FROM Z_1FAVORITES"),
            ["1|1|2048"])
    }

    @Test func cascadeAndDenyKeepTheRowAndSayWhy() throws {
        let project = try project(bookmarkRule: "Deny")
        let before = try #require(project.read("seed.sqlite"))
        try project.write(
            "migrations/0001-prune.yml",
            "delete:\n  User:\n    - { key: Ann, from: {} }\n  Bookmark:\n    - { key: Swift, from: {} }\n")
        let migrate = try project.seedkit("migrate", "seed.sqlite")
        expectEqual(migrate.status, 0, "\(migrate)")
        expectEqual(
            migrate.stderr,
            """
            migrations/0001-prune.yml:3: warning: delete denied on User 'Ann': its relationship favorites has the deletion rule Cascade: Core Data would delete its 2 related rows too (Z_1FAVORITES.Z_1FAVORITEDBY), and seedkit never deletes rows it cannot tell the user did not change; delete them in the same migration; not deleted [1600]
            migrations/0001-prune.yml:5: warning: delete denied on Bookmark 'Swift': still related through favoritedBy (Z_1FAVORITES.Z_2FAVORITES), whose deletion rule is Deny; not deleted [1600]

            """, "\(migrate)")
        try expectEqual(project.rows("seed.sqlite", "SELECT count(*) FROM Z_1FAVORITES"), ["3"])
        // --on-conflict fail turns them into errors, and nothing is written.
        try FileManager.default.copyItem(atPath: project.path("app.sqlite"), toPath: project.path("strict.sqlite"))
        let strict = try project.seedkit("migrate", "strict.sqlite", "--on-conflict", "fail")
        expectEqual(strict.status, 1)
        expectEqual(project.read("strict.sqlite"), project.read("app.sqlite"))
        _ = before
    }

    /// Cascade as Core Data would, without deleting a row seedkit cannot vouch for: when the same
    /// migration also deletes every related row (each checked against its `from`), the row goes
    /// too, whatever order the migration lists them in.
    @Test func cascadeDeletesTheRowWhenTheMigrationAlsoDeletesItsRelatedRowsInAnyOrder() throws {
        let project = try project()
        try project.write(
            "migrations/0001-prune.yml",
            "delete:\n  User:\n    - { key: Ann, from: {} }\n  Bookmark:\n    - { key: Swift, from: {} }\n    - { key: Rust, from: {} }\n"
        )
        let migrate = try project.seedkit("migrate", "seed.sqlite")
        expectEqual(migrate.status, 0, "\(migrate)")
        expectEqual(migrate.stderr, "", "\(migrate)")
        #expect(migrate.stdout.contains("applied 0001-prune: 3 deleted"), "\(migrate)")
        try expectEqual(project.rows("seed.sqlite", "SELECT ZNAME, Z_OPT FROM ZUSER ORDER BY Z_PK"), ["'Bob'|2"])
        try expectEqual(project.rows("seed.sqlite", "SELECT ZTITLE FROM ZBOOKMARK ORDER BY Z_PK"), ["'Go'"])
        try expectEqual(project.rows("seed.sqlite", "SELECT count(*) FROM Z_1FAVORITES"), ["0"])
    }

    /// Renaming a row that a to-many relationship reaches (through its join table) keeps its links:
    /// the relationship named in refs has no column to follow the new key.
    @Test func renamingARowAManyToManyReachesKeepsItsLinks() throws {
        let project = try project()
        try project.write(
            "migrations/0001-rename.yml",
            "update:\n  Bookmark:\n    - { key: Rust, from: { title: Rust }, to: { title: Rust lang } }\n")
        let migrate = try project.seedkit("migrate", "seed.sqlite")
        expectEqual(migrate.status, 0, "\(migrate)")
        expectEqual(migrate.stderr, "", "\(migrate)")
        try expectEqual(
            project.rows("seed.sqlite", "SELECT ZTITLE FROM ZBOOKMARK ORDER BY Z_PK"),
            [
                "'Swift'", "'Rust lang'", "'Go'",
            ])
        try expectEqual(project.rows("seed.sqlite", "SELECT count(*) FROM Z_1FAVORITES"), ["3"])
    }

    /// The release workflow for a Cascade: the new fixtures drop Ann and her favorites;
    /// `new-migration --from` writes every delete, and the migrated store equals the new seed.
    @Test func newMigrationFromDeletesTheRowAndTheRowsItCascadesTo() throws {
        let project = try project()
        try FileManager.default.createDirectory(
            atPath: project.path("seeds/releases"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(
            atPath: project.path("seed.sqlite"), toPath: project.path("seeds/releases/1.0.sqlite"))
        try project.write("seeds/data/bookmarks.csv", "title\nGo\n")
        try project.write("seeds/data/users.csv", "name,favorites\nBob,\n")
        let generated = try project.seedkit("new-migration", "drop ann", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(generated.status, 0, "\(generated)")
        let migrate = try project.seedkit("migrate", "app.sqlite")
        expectEqual(migrate.status, 0, "\(migrate)")
        expectEqual(migrate.stderr, "", "\(migrate)")
        try expectEqual(project.rows("app.sqlite", "SELECT ZNAME FROM ZUSER ORDER BY Z_PK"), ["'Bob'"])
        try expectEqual(project.rows("app.sqlite", "SELECT ZTITLE FROM ZBOOKMARK ORDER BY Z_PK"), ["'Go'"])
        try expectEqual(project.rows("app.sqlite", "SELECT count(*) FROM Z_1FAVORITES"), ["0"])
        let upgrade = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(upgrade.status, 0, "\(upgrade)")
    }
}

@Suite struct CoreDataSubEntityKeyTests {
    /// A grocery app: abstract `Location` with sub-entities `LocationAtHome {key: storedIn}` and
    /// `LocationAtShop {key: aisle}`, both in `ZLOCATION`; `Item` points at one of each.
    private func project() throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.writeCoreDataProject(
            model: "Grocery.xcdatamodel",
            entities: """
                <entity name="Item" representedClassName="Item" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <relationship name="locationAtHome" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="LocationAtHome" inverseName="items" inverseEntity="LocationAtHome"/>
                    <relationship name="locationAtShop" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="LocationAtShop" inverseName="items" inverseEntity="LocationAtShop"/>
                </entity>
                <entity name="Location" representedClassName="Location" isAbstract="YES" syncable="YES">
                    <attribute name="summary" optional="YES" attributeType="String"/>
                </entity>
                <entity name="LocationAtHome" representedClassName="LocationAtHome" parentEntity="Location" syncable="YES">
                    <attribute name="storedIn" optional="YES" attributeType="String"/>
                    <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="locationAtHome" inverseEntity="Item"/>
                </entity>
                <entity name="LocationAtShop" representedClassName="LocationAtShop" parentEntity="Location" syncable="YES">
                    <attribute name="aisle" optional="YES" attributeType="String"/>
                    <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="locationAtShop" inverseEntity="Item"/>
                </entity>
                """,
            tables: """
                    CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZLOCATIONATHOME INTEGER, ZLOCATIONATSHOP INTEGER, ZNAME VARCHAR);
                    CREATE TABLE ZLOCATION (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSUMMARY VARCHAR, ZSTOREDIN VARCHAR, ZAISLE VARCHAR);
                """,
            primaryKeys: [
                (1, "Item", 0, 0), (2, "Location", 0, 0), (3, "LocationAtHome", 2, 0), (4, "LocationAtShop", 2, 0),
            ])
        try project.write(
            "seeds/seedkit.yml",
            """
            model: Grocery.xcdatamodel
            template: empty.sqlite
            output: ../seed.sqlite
            tables:
              LocationAtHome: { file: data/home.csv, key: storedIn }
              LocationAtShop: { file: data/shop.csv, key: aisle }
              Item: { file: data/items.csv, key: name, refs: { locationAtHome: LocationAtHome.summary, locationAtShop: LocationAtShop.summary } }

            """)
        // The same summary at home and at the shop: refs must tell them apart by Z_ENT.
        try project.write("seeds/data/home.csv", "storedIn,summary\nFridge,Cold\nCupboard,Dry\n")
        try project.write("seeds/data/shop.csv", "aisle,summary\nAisle 5,Cold\nAisle 9,Dry\n")
        try project.write("seeds/data/items.csv", "name,locationAtHome,locationAtShop\nMilk,Cold,Cold\nRice,Dry,Dry\n")
        return project
    }

    /// A delete that waits for the rest of the migration is retried under its own entity: it
    /// deleted the home's 'Aisle 5' (same key, other sub-entity, same table) and reported the
    /// shop's as deleted (found by review).
    @Test func aDeleteRetriedAtTheEndOfTheMigrationDeletesItsOwnEntitysRow() throws {
        let project = try project()
        try project.write("seeds/data/home.csv", "storedIn,summary\nFridge,Cold\nCupboard,Dry\nAisle 5,Damp\n")
        try expectEqual(project.seedkit("build", "--migrations", "none").status, 0)
        try project.write(
            "migrations/0001-close-aisle-5.yml",
            """
            delete:
              LocationAtShop:
                - { key: Aisle 5, from: { summary: Cold } }
            update:
              Item:
                - { key: Milk, from: { locationAtShop: Cold }, to: { locationAtShop: Dry } }

            """)
        let migrate = try project.seedkit("migrate", "seed.sqlite")
        expectEqual(migrate.status, 0, "\(migrate)")
        #expect(migrate.stdout.contains("deleted         LocationAtShop 'Aisle 5'"), "\(migrate)")
        try expectEqual(
            project.rows("seed.sqlite", "SELECT Z_ENT, ZSTOREDIN, ZAISLE FROM ZLOCATION ORDER BY Z_PK"),
            [
                "3|'Fridge'|NULL", "3|'Cupboard'|NULL", "3|'Aisle 5'|NULL", "4|NULL|'Aisle 9'",
            ])
    }

    @Test func subEntitiesOfOneTableHaveTheirOwnKeysAndRefsMatchTheirZEnt() throws {
        let project = try project()
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 0, "\(build)")
        try expectEqual(
            project.rows(
                "seed.sqlite", "SELECT Z_PK, Z_ENT, Z_OPT, ZSUMMARY, ZSTOREDIN, ZAISLE FROM ZLOCATION ORDER BY Z_PK"),
            [
                "1|3|1|'Cold'|'Fridge'|NULL", "2|3|1|'Dry'|'Cupboard'|NULL", "3|4|1|'Cold'|NULL|'Aisle 5'",
                "4|4|1|'Dry'|NULL|'Aisle 9'",
            ])
        try expectEqual(
            project.rows("seed.sqlite", "SELECT ZNAME, ZLOCATIONATHOME, ZLOCATIONATSHOP FROM ZITEM ORDER BY Z_PK"),
            ["'Milk'|1|3", "'Rice'|2|4"])
        try expectEqual(
            project.rows("seed.sqlite", "SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT"),
            [
                "'Item'|2", "'Location'|4", "'LocationAtHome'|0", "'LocationAtShop'|0",
            ])
        // A key repeated within one sub-entity is still a duplicate.
        try project.write("seeds/data/shop.csv", "aisle,summary\nAisle 5,Cold\nAisle 5,Dry\n")
        let duplicate = try project.seedkit("build", "--migrations", "none", "--output", "dup.sqlite")
        expectEqual(duplicate.status, 1)
        #expect(
            duplicate.stderr.contains(
                "seeds/data/shop.csv:3:1: error: duplicate key aisle 'Aisle 5': line 2 has the same [2040]"),
            "\(duplicate)")
        try project.write("seeds/data/shop.csv", "aisle,summary\nAisle 5,Cold\nAisle 9,Dry\n")

        // Migrations: each sub-entity by its own key; a ref by summary finds the shop's row, not the home's.
        try project.write(
            "migrations/0001-bakery.yml",
            """
            insert:
              LocationAtShop:
                - { aisle: Aisle 1, summary: Fresh }
              LocationAtHome:
                - { storedIn: Bread bin, summary: Fresh }
              Item:
                - { name: Bread, locationAtHome: Fresh, locationAtShop: Fresh }
            update:
              Item:
                - { key: Milk, from: { locationAtShop: Cold }, to: { locationAtShop: Dry } }

            """)
        let migrate = try project.seedkit("migrate", "seed.sqlite")
        expectEqual(migrate.status, 0, "\(migrate)")
        try expectEqual(
            project.rows(
                "seed.sqlite",
                "SELECT Z_PK, Z_ENT, ZSUMMARY, ZSTOREDIN, ZAISLE FROM ZLOCATION WHERE Z_PK > 4 ORDER BY Z_PK"),
            [
                "5|4|'Fresh'|NULL|'Aisle 1'", "6|3|'Fresh'|'Bread bin'|NULL",
            ])
        try expectEqual(
            project.rows("seed.sqlite", "SELECT ZNAME, ZLOCATIONATHOME, ZLOCATIONATSHOP FROM ZITEM ORDER BY Z_PK"),
            ["'Milk'|1|4", "'Rice'|2|4", "'Bread'|6|5"])
        // Inspecting the abstract entity shows both sub-entities' rows, with the entity and the model's names.
        let inspect = try project.seedkit("inspect", "seed.sqlite", "Location", "--format", "csv")
        expectEqual(
            inspect.stdout,
            """
            id,entity,summary,storedIn,aisle\r
            1,LocationAtHome,Cold,Fridge,\r
            2,LocationAtHome,Dry,Cupboard,\r
            3,LocationAtShop,Cold,,Aisle 5\r
            4,LocationAtShop,Dry,,Aisle 9\r
            5,LocationAtShop,Fresh,,Aisle 1\r
            6,LocationAtHome,Fresh,Bread bin,\r

            """, "\(inspect)")
    }
}

@Suite struct CoreDataDerivedAttributeTests {
    /// A bookmarks app with a derived attribute `Folder.bookmarkCount` (`bookmarks.@count`): Core
    /// Data keeps it with a trigger whose SQL computes the count and then calls
    /// `NSCoreDataDATriggerInsertUpdatedAffectedObjectValue`, a function Core Data registers on
    /// its own connection to hear about the change (trigger form as seen in real stores).
    private func project() throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.writeCoreDataProject(
            model: "Folders.xcdatamodel",
            entities: """
                <entity name="Folder" representedClassName="Folder" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <attribute name="bookmarkCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="bookmarks.@count" usesScalarValueType="YES"/>
                    <relationship name="bookmarks" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Bookmark" inverseName="folder" inverseEntity="Bookmark"/>
                </entity>
                <entity name="Bookmark" representedClassName="Bookmark" syncable="YES">
                    <attribute name="title" attributeType="String"/>
                    <relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="bookmarks" inverseEntity="Folder"/>
                </entity>
                <entity name="Note" representedClassName="Note" syncable="YES">
                    <attribute name="text" attributeType="String"/>
                    <attribute name="modified" optional="YES" attributeType="Date" derived="YES" derivationExpression="now()" usesScalarValueType="NO"/>
                </entity>
                """,
            tables: """
                    CREATE TABLE ZFOLDER (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZBOOKMARKCOUNT INTEGER, ZNAME VARCHAR);
                    CREATE TABLE ZBOOKMARK (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZFOLDER INTEGER, ZTITLE VARCHAR);
                    CREATE TABLE ZNOTE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZMODIFIED TIMESTAMP, ZTEXT VARCHAR);
                    CREATE TRIGGER IF NOT EXISTS Z_DA_ZFOLDER_Folder_bookmarkCount_INSERT AFTER INSERT ON ZBOOKMARK FOR EACH ROW BEGIN UPDATE ZFOLDER SET ZBOOKMARKCOUNT = (SELECT IFNULL(COUNT(ZFOLDER), 0) FROM ZBOOKMARK WHERE ZFOLDER = NEW.ZFOLDER) WHERE Z_PK = NEW.ZFOLDER; SELECT NSCoreDataDATriggerInsertUpdatedAffectedObjectValue('ZFOLDER', Z_ENT, Z_PK, 'bookmarkCount', ZBOOKMARKCOUNT) FROM ZFOLDER WHERE Z_PK = NEW.ZFOLDER; END;
                    CREATE TRIGGER IF NOT EXISTS Z_DA_ZFOLDER_Folder_bookmarkCount_UPDATE AFTER UPDATE OF ZFOLDER ON ZBOOKMARK FOR EACH ROW BEGIN UPDATE ZFOLDER SET ZBOOKMARKCOUNT = (SELECT IFNULL(COUNT(ZFOLDER), 0) FROM ZBOOKMARK WHERE ZFOLDER = ZFOLDER.Z_PK) WHERE Z_PK IN (NEW.ZFOLDER, OLD.ZFOLDER); SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZFOLDER', Z_ENT, Z_PK, 'bookmarkCount', ZBOOKMARKCOUNT) FROM ZFOLDER WHERE Z_PK IN (NEW.ZFOLDER, OLD.ZFOLDER); END;
                    CREATE TRIGGER IF NOT EXISTS Z_DA_ZNOTE_Note_modified_UPDATE AFTER UPDATE OF Z_OPT ON ZNOTE FOR EACH ROW BEGIN UPDATE ZNOTE SET ZMODIFIED = NSCoreDataNow() WHERE Z_PK = NEW.Z_PK; SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZNOTE', Z_ENT, Z_PK, 'modified', ZMODIFIED) FROM ZNOTE WHERE Z_PK = NEW.Z_PK; END;
                """, primaryKeys: [(1, "Folder", 0, 0), (2, "Bookmark", 0, 0), (3, "Note", 0, 0)])
        try project.write(
            "seeds/seedkit.yml",
            """
            model: Folders.xcdatamodel
            template: empty.sqlite
            output: ../seed.sqlite
            tables:
              Folder: { file: data/folders.csv, key: name }
              Bookmark: { file: data/bookmarks.csv, key: title, refs: { folder: Folder.name } }

            """)
        try project.write("seeds/data/folders.csv", "name\nWork\nHome\n")
        try project.write("seeds/data/bookmarks.csv", "title,folder\nDocs,Work\nMail,Work\nRecipes,Home\n")
        return project
    }

    @Test func countTriggersComputeTheDerivedValueAsCoreDataDoes() throws {
        let project = try project()
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 0, "\(build)")
        try expectEqual(
            project.rows("seed.sqlite", "SELECT ZNAME, ZBOOKMARKCOUNT FROM ZFOLDER ORDER BY Z_PK"),
            [
                "'Work'|2", "'Home'|1",
            ])
        try project.write(
            "migrations/0001-more.yml",
            """
            insert:
              Bookmark:
                - { title: News, folder: Home }
            update:
              Bookmark:
                - { key: Mail, from: { folder: Work }, to: { folder: Home } }

            """)
        let migrate = try project.seedkit("migrate", "seed.sqlite")
        expectEqual(migrate.status, 0, "\(migrate)")
        try expectEqual(
            project.rows("seed.sqlite", "SELECT ZNAME, ZBOOKMARKCOUNT, Z_OPT FROM ZFOLDER ORDER BY Z_PK"),
            [
                // Home gains News and Mail in one run: saved once, Z_OPT + 1.
                "'Work'|1|2", "'Home'|3|2",
            ])
    }

    @Test func aDerivedAttributeOnlyCoreDataComputesRefusesTheWrite() throws {
        let project = try project()
        try expectEqual(project.seedkit("build", "--migrations", "none").status, 0)
        try project.database("seed.sqlite").write { db in
            try db.execute(sql: "DROP TRIGGER Z_DA_ZNOTE_Note_modified_UPDATE")
            try db.execute(sql: "INSERT INTO ZNOTE VALUES (1, 3, 1, 0, 'Hello')")
            // Note keyed by its text: an entity without a key is not updated at all (SwiftDataUUIDTests).
            try db.execute(sql: "CREATE UNIQUE INDEX Z_Note_UNIQUE_text ON ZNOTE (ZTEXT COLLATE BINARY ASC)")
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_ENT = 3")
            try db.execute(
                sql:
                    "CREATE TRIGGER IF NOT EXISTS Z_DA_ZNOTE_Note_modified_UPDATE AFTER UPDATE OF Z_OPT ON ZNOTE FOR EACH ROW BEGIN UPDATE ZNOTE SET ZMODIFIED = NSCoreDataNow() WHERE Z_PK = NEW.Z_PK; SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZNOTE', Z_ENT, Z_PK, 'modified', ZMODIFIED) FROM ZNOTE WHERE Z_PK = NEW.Z_PK; END"
            )
        }
        let before = try #require(project.read("seed.sqlite"))
        try project.write(
            "migrations/0001-note.yml",
            "insert:\n  Bookmark:\n    - { title: News, folder: Home }\nupdate:\n  Note:\n    - { key: Hello, from: { text: Hello }, to: { text: Hi } }\n"
        )
        let migrate = try project.seedkit("migrate", "seed.sqlite", "--manifest", "none")
        expectEqual(migrate.status, 3, "\(migrate)")
        expectEqual(
            migrate.stderr,
            "seed.sqlite: error: Note.modified is a derived attribute computed by Core Data's own function NSCoreDataNow (trigger Z_DA_ZNOTE_Note_modified_UPDATE), which only Core Data provides; seedkit cannot compute its value as Core Data would, so it does not write to ZNOTE; nothing was written. Apply this change through Core Data in the app [2200]\n",
            "\(migrate)")
        expectEqual(project.read("seed.sqlite"), before)
    }
}

@Suite struct CoreDataRenamedEntityTests {
    /// Three levels of inheritance (`Car` → `SportCar` → `LuxuryCar`, all in `ZCAR`); the model
    /// renamed `ExpensiveSportCar` to `LuxuryCar` (`elementID`), and `Z_PRIMARYKEY.Z_NAME` kept the
    /// old name.
    ///
    /// Defaults sit at two levels: `SportCar.topSpeed` 300, `LuxuryCar.isLimitedEdition` YES.
    private func project() throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.writeCoreDataProject(
            model: "Cars.xcdatamodel",
            entities: """
                <entity name="Car" representedClassName="Car" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                </entity>
                <entity name="SportCar" representedClassName="SportCar" parentEntity="Car" syncable="YES">
                    <attribute name="topSpeed" optional="YES" attributeType="Integer 32" defaultValueString="300" usesScalarValueType="YES"/>
                </entity>
                <entity name="LuxuryCar" representedClassName="LuxuryCar" parentEntity="SportCar" elementID="ExpensiveSportCar" syncable="YES">
                    <attribute name="isLimitedEdition" optional="YES" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>
                </entity>
                <entity name="Truck" representedClassName="Truck" parentEntity="Car" syncable="YES">
                    <attribute name="plate" optional="YES" attributeType="String" defaultValueString="none"/>
                </entity>
                """,
            tables: """
                    CREATE TABLE ZCAR (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTOPSPEED INTEGER, ZISLIMITEDEDITION INTEGER, ZPLATE VARCHAR, ZNAME VARCHAR);
                    INSERT INTO ZCAR VALUES (1, 1, 1, NULL, NULL, NULL, 'Beetle'), (2, 3, 1, 400, 1, NULL, 'Veyron');
                """,
            primaryKeys: [(1, "Car", 0, 2), (2, "SportCar", 1, 0), (3, "ExpensiveSportCar", 2, 0), (4, "Truck", 1, 0)])
        // A migrate-only manifest: no template, no files. A sibling (Truck) listed first must not lend LuxuryCar its key or defaults.
        try project.write(
            "seeds/seedkit.yml", "model: Cars.xcdatamodel\ntables:\n  Truck: { key: plate }\n  Car: { key: name }\n")
        try FileManager.default.copyItem(atPath: project.path("seeds/empty.sqlite"), toPath: project.path("app.sqlite"))
        return project
    }

    @Test func renamedEntitiesAreFoundThroughTheirRenamingIdentifier() throws {
        let project = try project()
        let inspect = try project.seedkit("inspect", "app.sqlite", "LuxuryCar", "--format", "csv")
        expectEqual(inspect.status, 0, "\(inspect)")
        expectEqual(
            inspect.stdout, "id,topSpeed,isLimitedEdition,name\r\n2,400,1,Veyron\r\n",
            "a sibling's column (Truck.plate) is not LuxuryCar's: \(inspect)")
        // A fetch of Car returns every car, sub-entities included, with the entity shown.
        let cars = try project.seedkit("inspect", "app.sqlite", "Car", "--format", "csv")
        expectEqual(
            cars.stdout,
            "id,entity,topSpeed,isLimitedEdition,plate,name\r\n1,Car,,,,Beetle\r\n2,LuxuryCar,400,1,,Veyron\r\n",
            "\(cars)")
        try expectEqual(project.seedkit("verify", "app.sqlite").status, 0)
        // Inserting a LuxuryCar: its Z_ENT is ExpensiveSportCar's, and it gets the whole lineage's defaults.
        try project.write(
            "migrations/0001-chiron.yml",
            "insert:\n  LuxuryCar:\n    - { name: Chiron }\n  SportCar:\n    - { name: Cayman, topSpeed: 280 }\n")
        let migrate = try project.seedkit("migrate", "app.sqlite")
        expectEqual(migrate.status, 0, "\(migrate)")
        try expectEqual(
            project.rows(
                "app.sqlite",
                "SELECT Z_PK, Z_ENT, Z_OPT, ZTOPSPEED, ZISLIMITEDEDITION, ZPLATE, ZNAME FROM ZCAR ORDER BY Z_PK"),
            [
                "1|1|1|NULL|NULL|NULL|'Beetle'", "2|3|1|400|1|NULL|'Veyron'", "3|3|1|300|1|NULL|'Chiron'",
                "4|2|1|280|NULL|NULL|'Cayman'",
            ])
        try expectEqual(project.rows("app.sqlite", "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 1"), ["4"])
    }
}

@Suite struct CoreDataUntrackedMaxTests {
    /// A store whose `Z_PRIMARYKEY.Z_MAX` is -1 for every entity although its tables hold rows (seen
    /// in real stores): not an inconsistency; the next key follows the table's highest `Z_PK`.
    @Test func aZMaxOfMinusOneIsAcceptedByVerifyAndMigrateAlike() throws {
        let project = try TemporaryProject(bookStore: false)
        try CoreDataReference.write(into: try project.database("store.sqlite"))
        try project.database("store.sqlite").write { db in try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = -1") }
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/CoreDataBookStore")
        let manifest = example.appendingPathComponent("seeds/seedkit.yml").path
        let verify = try project.seedkit("verify", "store.sqlite", "--manifest", manifest)
        expectEqual(verify.status, 0, "\(verify)")
        let migrate = try project.seedkit(
            "migrate", "store.sqlite", "--manifest", manifest, "--migrations",
            example.appendingPathComponent("migrations").path)
        expectEqual(migrate.status, 0, "\(migrate)")
        try expectEqual(
            project.rows("store.sqlite", "SELECT Z_PK, Z_ENT, Z_OPT, ZCATEGORY, ZTITLE FROM ZBOOK WHERE Z_PK > 78"),
            ["79|1|1|52|'The fourth book'"])
        try expectEqual(
            project.rows("store.sqlite", "SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT"),
            [
                "'Book'|-1", "'BookCategory'|-1", "'Page'|-1",
            ], "left as Core Data keeps it")
        try expectEqual(project.seedkit("verify", "store.sqlite", "--manifest", manifest).status, 0)
    }
}
