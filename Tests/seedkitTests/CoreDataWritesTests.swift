import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// Issue 11, items 6–14: what seedkit writes must be what Core Data writes. Each test re-creates
/// the real layout it stands for in a synthetic store.

@Suite struct CoreDataRelationshipColumnTests {
    /// Two real layouts in one store: a one-to-one `Post.color` ↔ `Color.post` (`ZPOST.ZCOLOR` and
    /// `ZCOLOR.ZPOST` both set in every real pair), and a to-one `Review.book` to `Book`, which has a
    /// sub-entity `Ebook`: stored as `ZBOOK` (the target's `Z_PK`) and `Z1_BOOK` (the target's `Z_ENT`).
    private func project() throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.writeCoreDataProject(
            model: "Blog.xcdatamodel",
            entities: """
                <entity name="Book" representedClassName="Book" syncable="YES">
                    <attribute name="title" attributeType="String"/>
                    <relationship name="reviews" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Review" inverseName="book" inverseEntity="Review"/>
                </entity>
                <entity name="Ebook" representedClassName="Ebook" parentEntity="Book" syncable="YES">
                    <attribute name="format" optional="YES" attributeType="String"/>
                </entity>
                <entity name="Review" representedClassName="Review" syncable="YES">
                    <attribute name="text" attributeType="String"/>
                    <relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="reviews" inverseEntity="Book"/>
                </entity>
                <entity name="Post" representedClassName="Post" syncable="YES">
                    <attribute name="title" attributeType="String"/>
                    <relationship name="color" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Color" inverseName="post" inverseEntity="Color"/>
                </entity>
                <entity name="Color" representedClassName="Color" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <relationship name="post" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Post" inverseName="color" inverseEntity="Post"/>
                </entity>
                """,
            tables: """
                    CREATE TABLE ZBOOK (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZFORMAT VARCHAR, ZTITLE VARCHAR);
                    CREATE TABLE ZREVIEW (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZBOOK INTEGER, Z1_BOOK INTEGER, ZTEXT VARCHAR);
                    CREATE TABLE ZPOST (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOLOR INTEGER, ZTITLE VARCHAR);
                    CREATE TABLE ZCOLOR (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPOST INTEGER, ZNAME VARCHAR);
                """,
            primaryKeys: [
                (1, "Book", 0, 0), (2, "Ebook", 1, 0), (3, "Review", 0, 0), (4, "Post", 0, 0), (5, "Color", 0, 0),
            ])
        try project.write(
            "seeds/seedkit.yml",
            """
            model: Blog.xcdatamodel
            template: empty.sqlite
            output: ../seed.sqlite
            tables:
              Book: { file: data/books.csv, key: title }
              Ebook: { file: data/ebooks.csv, key: title }
              Review: { file: data/reviews.csv, key: text, refs: { book: Book.title } }
              Color: { file: data/colors.csv, key: name }
              Post: { file: data/posts.csv, key: title, refs: { color: Color.name } }

            """)
        try project.write("seeds/data/books.csv", "title\nDune\n")
        try project.write("seeds/data/ebooks.csv", "title,format\nEmma,epub\n")
        try project.write("seeds/data/reviews.csv", "text,book\nGreat,Dune\nLovely,Emma\n")
        try project.write("seeds/data/colors.csv", "name\nRed\nBlue\nGreen\n")
        try project.write("seeds/data/posts.csv", "title,color\nHello,Red\nWorld,Blue\n")
        return project
    }

    @Test func oneToOneKeysAndEntityTypeColumnsAreWrittenOnBothSides() throws {
        let project = try project()
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 0, "\(build)")
        try expectEqual(
            project.rows(
                "seed.sqlite", "SELECT Z_PK, Z_ENT, Z_OPT, ZBOOK, Z1_BOOK, ZTEXT FROM ZREVIEW ORDER BY Z_PK"),
            [
                "1|3|1|1|1|'Great'", "2|3|1|2|2|'Lovely'",
            ])
        try expectEqual(
            project.rows("seed.sqlite", "SELECT Z_PK, Z_OPT, ZCOLOR, ZTITLE FROM ZPOST ORDER BY Z_PK"),
            [
                "1|1|1|'Hello'", "2|1|2|'World'",
            ])
        try expectEqual(
            project.rows("seed.sqlite", "SELECT Z_PK, Z_OPT, ZPOST, ZNAME FROM ZCOLOR ORDER BY Z_PK"),
            [
                "1|1|1|'Red'", "2|1|2|'Blue'", "3|1|NULL|'Green'",
            ])
        // The entity-type column is bookkeeping: not shown in the app's terms.
        try expectEqual(
            project.seedkit("inspect", "seed.sqlite", "Review", "--format", "csv").stdout,
            "id,book,text\r\n1,Dune,Great\r\n2,Emma,Lovely\r\n")
        try expectEqual(project.seedkit("verify", "seed.sqlite").status, 0)

        try project.write(
            "migrations/0001-changes.yml",
            """
            insert:
              Review:
                - { text: Fine, book: Emma }
              Color:
                - { name: Yellow }
              Post:
                - { title: New, color: Green }
            update:
              Review:
                - { key: Great, from: { book: Dune }, to: { book: Emma } }
              Post:
                - { key: World, from: { color: Blue }, to: { color: Yellow } }
            delete:
              Post:
                - { key: Hello, from: {} }

            """)
        let migrate = try project.seedkit("migrate", "seed.sqlite")
        expectEqual(migrate.status, 0, "\(migrate)")
        try expectEqual(
            project.rows("seed.sqlite", "SELECT Z_PK, Z_OPT, ZBOOK, Z1_BOOK, ZTEXT FROM ZREVIEW ORDER BY Z_PK"),
            [
                "1|2|2|2|'Great'", "2|1|2|2|'Lovely'", "3|1|2|2|'Fine'",
            ])
        try expectEqual(
            project.rows("seed.sqlite", "SELECT ZTITLE, Z_OPT FROM ZBOOK ORDER BY Z_PK"),
            [
                // Emma's relationships change twice in the run: one save, one bump.
                "'Dune'|2", "'Emma'|2",
            ])
        try expectEqual(
            project.rows("seed.sqlite", "SELECT Z_PK, Z_OPT, ZCOLOR, ZTITLE FROM ZPOST ORDER BY Z_PK"),
            [
                "2|2|4|'World'", "3|1|3|'New'",
            ])
        // Red lost Hello, Blue lost World, Green gained New: + 1 each; Yellow was inserted and linked in one run: 1.
        try expectEqual(
            project.rows("seed.sqlite", "SELECT Z_PK, Z_OPT, ZPOST, ZNAME FROM ZCOLOR ORDER BY Z_PK"),
            [
                "1|2|NULL|'Red'", "2|2|NULL|'Blue'", "3|2|3|'Green'", "4|1|2|'Yellow'",
            ])
        try expectEqual(project.seedkit("verify", "seed.sqlite").status, 0)

        // verify reports a one-sided pair.
        try project.database("seed.sqlite").write { db in
            try db.execute(sql: "UPDATE ZCOLOR SET ZPOST = NULL WHERE ZNAME = 'Green'")
        }
        let verify = try project.seedkit("verify", "seed.sqlite")
        expectEqual(verify.status, 1)
        expectEqual(
            verify.stdout,
            """
            seed.sqlite: Post[New].color: one-sided one-to-one: color points at Color 3, whose post is NULL; Core Data sets both sides [1550]
            seed.sqlite: 1 problem

            """, "\(verify)")
    }
}

@Suite struct CoreDataUUIDTests {
    /// A model keyed by a UUID attribute named `id` (stored as 16 bytes in a BLOB column) and a
    /// to-one relationship whose ref is keyed by that UUID.
    @Test func migrationsTakeUUIDsInTheirTextFormAndRefsKeyedByThem() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.writeCoreDataProject(
            model: "Devices.xcdatamodel",
            entities: """
                <entity name="Device" representedClassName="Device" syncable="YES">
                    <attribute name="id" attributeType="UUID" usesScalarValueType="NO"/>
                    <attribute name="name" attributeType="String"/>
                    <relationship name="sessions" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Session" inverseName="device" inverseEntity="Session"/>
                </entity>
                <entity name="Session" representedClassName="Session" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <relationship name="device" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Device" inverseName="sessions" inverseEntity="Device"/>
                </entity>
                """,
            tables: """
                    CREATE TABLE ZDEVICE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZID BLOB);
                    CREATE TABLE ZSESSION (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZDEVICE INTEGER, ZNAME VARCHAR);
                """, primaryKeys: [(1, "Device", 0, 0), (2, "Session", 0, 0)])
        try project.write(
            "seeds/seedkit.yml",
            """
            model: Devices.xcdatamodel
            template: empty.sqlite
            output: ../seed.sqlite
            tables:
              Device: { file: data/devices.csv, key: id }
              Session: { file: data/sessions.csv, key: name, refs: { device: Device.id } }

            """)
        try project.write("seeds/data/devices.csv", "id,name\n0E0D0C0B-0A09-0807-0605-040302010000,Phone\n")
        try project.write("seeds/data/sessions.csv", "name,device\nMorning,0E0D0C0B-0A09-0807-0605-040302010000\n")
        try expectEqual(project.seedkit("build", "--migrations", "none").status, 0)
        try FileManager.default.copyItem(atPath: project.path("seed.sqlite"), toPath: project.path("app.sqlite"))
        try project.write(
            "migrations/0001-tablet.yml",
            """
            insert:
              Device:
                - { id: 1F1E1D1C-1B1A-1918-1716-151413121110, name: Tablet }
              Session:
                - { name: Evening, device: 1F1E1D1C-1B1A-1918-1716-151413121110 }
            update:
              Device:
                - { key: 0E0D0C0B-0A09-0807-0605-040302010000, from: { name: Phone }, to: { name: Old phone } }

            """)
        for (store, manifest) in [("seed.sqlite", [String]()), ("app.sqlite", ["--manifest", "none"])] {
            let migrate = try project.seedkit(["migrate", store] + manifest)
            expectEqual(migrate.status, 0, "\(migrate)")
            #expect(migrate.stdout.contains("applied 0001-tablet: 2 inserted, 1 updated"), "\(migrate)")
            try expectEqual(
                project.rows(store, "SELECT Z_PK, hex(ZID), ZNAME FROM ZDEVICE ORDER BY Z_PK"),
                [
                    "1|'0E0D0C0B0A0908070605040302010000'|'Old phone'", "2|'1F1E1D1C1B1A19181716151413121110'|'Tablet'",
                ])
            try expectEqual(
                project.rows(store, "SELECT ZNAME, ZDEVICE FROM ZSESSION ORDER BY Z_PK"),
                [
                    "'Morning'|1", "'Evening'|2",
                ])
        }
        // An attribute named id keeps its name; the row's Z_PK is shown as Z_PK, so every name is unique.
        let json = try project.seedkit("inspect", "seed.sqlite", "Device", "--format", "json", "--manifest", "none")
        expectEqual(json.status, 0, "\(json)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["columns"] as? [String] == ["Z_PK", "name", "id"], "\(json.stdout)")
        let rows = try #require(object["rows"] as? [[String: Any]])
        expectEqual(rows.map { $0.keys.sorted() }, [["Z_PK", "id", "name"], ["Z_PK", "id", "name"]])
        expectEqual(rows.map { $0["Z_PK"] as? Int }, [1, 2])
    }
}

@Suite struct CoreDataHistoryTests {
    /// A store of an app that tracks persistent history (every NSPersistentCloudKitContainer app):
    /// `ATRANSACTION`, `ACHANGE`, `ATRANSACTIONSTRING` (Z_ENT 16001–16003 in Z_PRIMARYKEY) and a
    /// change row per inserted object.
    ///
    /// The chapter's update (a book joining BookCategory 52) records an update of BookCategory's
    /// `books`: counted to-one relationships, then attributes, then to-many relationships (name,
    /// books), its bit is 0x40, as Screen Time's store settles (docs/swiftdata.md; by name it would
    /// have been 0x80, and seedkit refused it before).
    @Test func anUpdateOfAToManyIsRecordedWithItsBitAfterTheAttributes() throws {
        let project = try TemporaryProject(bookStore: false)
        try CoreDataReference.write(into: try project.database("store.sqlite"))
        try project.database("store.sqlite").write { db in
            try db.execute(
                sql: """
                    CREATE TABLE ACHANGE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB);
                    CREATE TABLE ATRANSACTION (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB);
                    CREATE TABLE ATRANSACTIONSTRING (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR NOT NULL UNIQUE);
                    INSERT INTO Z_PRIMARYKEY VALUES (16001, 'ACHANGE', 0, 5), (16002, 'ATRANSACTION', 0, 1), (16003, 'ATRANSACTIONSTRING', 0, 1);
                    INSERT INTO ATRANSACTIONSTRING VALUES (1, 16003, 1, 'com.example.bookstore');
                    INSERT INTO ATRANSACTION VALUES (1, 16002, 1, NULL, 1, NULL, NULL, 700000000.0, NULL, NULL, NULL, NULL, NULL);
                    INSERT INTO ACHANGE VALUES (1, 16001, 1, 0, 2, 51, 1, NULL), (2, 16001, 1, 0, 2, 52, 1, NULL), (3, 16001, 1, 0, 1, 76, 1, NULL), (4, 16001, 1, 0, 1, 77, 1, NULL), (5, 16001, 1, 0, 1, 78, 1, NULL);
                    """)
        }
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/CoreDataBookStore")
        let arguments = [
            "--manifest", example.appendingPathComponent("seeds/seedkit.yml").path, "--migrations",
            example.appendingPathComponent("migrations").path,
        ]
        let migrate = try project.seedkit(["migrate", "store.sqlite"] + arguments)
        expectEqual(migrate.status, 0, "\(migrate)")
        let updates = try project.rows(
            "store.sqlite",
            "SELECT ZCHANGETYPE, ZENTITY, ZENTITYPK, hex(ZCOLUMNS) FROM ACHANGE WHERE Z_PK > 5 ORDER BY Z_PK")
        // Book 79 inserted (no mask); BookCategory 52 (name, books) updated: books is bit 1.
        expectEqual(updates, ["0|1|79|''", "1|2|52|'40'"], "\(updates)")
        let inspect = try project.seedkit("inspect", "store.sqlite")
        let total = try project.rows("store.sqlite", "SELECT count(*) FROM ACHANGE")
        #expect(
            inspect.stdout.contains(
                "  history       tracked: 2 transactions, \(total[0]) changes in all; the last by seedkit"),
            "\(inspect)")
    }
}

@Suite struct CoreDataFailedMigrateTests {
    /// A failed migrate (exit 2) of a WAL store with commits only in its -wal must not checkpoint:
    /// the store and its -wal stay byte for byte.
    @Test func aFailedMigrateLeavesAWALStoreAndItsWALAsTheyWere() throws {
        let project = try TemporaryProject.withUserStore()
        let writer = try DatabaseQueue(path: project.path("user.sqlite"))
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "INSERT INTO books (title, price, category_id) VALUES ('In the WAL', 1, 1)")
        }
        // Copy the store and its live -wal while the writer still holds them (closing would checkpoint).
        try FileManager.default.copyItem(atPath: project.path("user.sqlite"), toPath: project.path("wal.sqlite"))
        try FileManager.default.copyItem(
            atPath: project.path("user.sqlite-wal"), toPath: project.path("wal.sqlite-wal"))
        try writer.close()
        let store = try #require(project.read("wal.sqlite"))
        let wal = try #require(project.read("wal.sqlite-wal"))
        try project.write(
            "migrations/0002-bad.yml",
            "insert:\n  books:\n    - { title: X, price: 1, category_id: Fiction, colour: red }\n")
        let failed = try project.seedkit("migrate", "wal.sqlite")
        expectEqual(failed.status, 2, "\(failed)")
        expectEqual(project.read("wal.sqlite"), store, "the store file is unchanged: no checkpoint")
        expectEqual(project.read("wal.sqlite-wal"), wal, "the -wal is unchanged and still there")
        try project.remove("migrations/0002-bad.yml")
        let migrate = try project.seedkit("migrate", "wal.sqlite")
        expectEqual(migrate.status, 0, "\(migrate)")
        try expectEqual(
            project.rows("wal.sqlite", "SELECT title FROM books ORDER BY id"),
            [
                "'The first book'", "'The second book'", "'The third book'", "'In the WAL'", "'The fourth book'",
            ])
    }

    /// A WAL store with no -wal beside it (an app's store after it quit, a SwiftData store): a
    /// failed migrate leaves the store byte for byte and no -wal or -shm where there were none.
    @Test func aFailedMigrateLeavesNoWALWhereThereWasNone() throws {
        let project = try TemporaryProject.withUserStore()
        let writer = try DatabaseQueue(path: project.path("user.sqlite"))
        try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try writer.close()
        #expect(!project.exists("user.sqlite-wal") && !project.exists("user.sqlite-shm"))
        let store = try #require(project.read("user.sqlite"))
        try project.write(
            "migrations/0002-bad.yml",
            "insert:\n  books:\n    - { title: X, price: 1, category_id: Fiction, colour: red }\n")
        let failed = try project.seedkit("migrate", "user.sqlite")
        expectEqual(failed.status, 2, "\(failed)")
        expectEqual(project.read("user.sqlite"), store, "the store file is unchanged")
        expectEqual(
            project.listing(".").filter { $0.hasPrefix("user.sqlite") }, ["user.sqlite"],
            "no -wal or -shm left behind")
    }
}
