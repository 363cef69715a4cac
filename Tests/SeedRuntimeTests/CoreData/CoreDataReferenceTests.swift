import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

private func referenceStore() throws -> (DatabaseQueue, metadata: Data) {
    let queue = try DatabaseQueue()
    return (queue, try CoreDataReference.write(into: queue))
}

private let specs = [
    TableSpec(name: "BookCategory", key: ["name"]),
    TableSpec(name: "Book", key: ["title"], refs: ["category": .init(table: "BookCategory", column: "name")]),
]

private func migration(_ number: Int, _ json: String) throws -> Migration {
    var bytes = Array(json.utf8)
    let document = try bytes.withUnsafeMutableBytes { try JSONScanner.parseDocument(UnsafeRawBufferPointer($0)) }
    return try Migration.make(fileName: "\(number)-m.json", file: "\(number)-m.json", document: document)
}

private func rows(_ queue: DatabaseQueue, _ sql: String) throws -> [String] {
    try queue.read { db in
        try Row.fetchAll(db, sql: sql).map { row in
            (0..<row.count).map { "\(row[$0] as DatabaseValue)" }.joined(separator: "|")
        }
    }
}

@Suite struct CoreDataReferenceTests {
    @Test func addingTheFourthBookWritesExactlyWhatCoreDataWrote() throws {
        let (store, metadata) = try referenceStore()
        let migrator = try SeedMigrator(migrations: [
            try migration(
                1,
                """
                {"insert": {"Book": [{"title": "The fourth book", "price": 12, "category": "Biography"}]}}
                """)
        ])
        let report = try migrator.migrate(store, options: .init(tables: specs))
        #expect(report.migrations.first?.count(.inserted) == 1)
        try expectEqual(
            rows(store, "SELECT Z_PK, Z_ENT, Z_OPT, ZCATEGORY, ZPRICE, ZTITLE FROM ZBOOK ORDER BY Z_PK"),
            [
                "76|1|1|51|10.0|\"The first book\"", "77|1|1|51|15.0|\"The second book\"",
                "78|1|1|52|10.0|\"The third book\"",
                "79|1|1|52|12.0|\"The fourth book\"",
            ])
        try expectEqual(
            rows(store, "SELECT Z_PK, Z_ENT, Z_OPT, ZNAME FROM ZBOOKCATEGORY ORDER BY Z_PK"),
            [
                "51|2|1|\"Fiction\"", "52|2|2|\"Biography\"",
            ])
        try expectEqual(rows(store, "SELECT * FROM ZPAGE"), [])
        try expectEqual(
            rows(store, "SELECT * FROM Z_PRIMARYKEY ORDER BY Z_ENT"),
            [
                "1|\"Book\"|0|79", "2|\"BookCategory\"|0|52", "3|\"Page\"|0|0",
            ])
        try expectEqual(
            store.read { db in try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA") }, metadata,
            "the model's version hashes are untouched")
        try expectEqual(
            store.read { db in try String.fetchOne(db, sql: "SELECT Z_UUID FROM Z_METADATA") },
            "B1C2D3E4-0000-4000-8000-0123456789AB")
        // And again: nothing happens twice.
        #expect(try migrator.migrate(store, options: .init(tables: specs)).migrations.isEmpty)
    }

    @Test func updatesAndDeletesBumpZOptOnTheRowAndOnBothSidesOfAChangedRelationship() throws {
        let (store, _) = try referenceStore()
        let migrator = try SeedMigrator(migrations: [
            try migration(
                1,
                """
                {"update": {"Book": [{"key": "The first book", "from": {"price": 10, "category": "Fiction"}, "to": {"price": 11, "category": "Biography"}}]},
                 "delete": {"Book": [{"key": "The second book", "from": {"price": 15}}]}}
                """)
        ])
        _ = try migrator.migrate(store, options: .init(tables: specs))
        try expectEqual(
            rows(store, "SELECT Z_PK, Z_OPT, ZCATEGORY, ZPRICE FROM ZBOOK ORDER BY Z_PK"),
            [
                "76|2|52|11.0", "78|1|52|10.0",
            ])
        // Fiction lost the first book and the second, Biography gained the first: each saved once (+1).
        try expectEqual(rows(store, "SELECT Z_PK, Z_OPT FROM ZBOOKCATEGORY ORDER BY Z_PK"), ["51|2", "52|2"])
        try expectEqual(
            rows(store, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book'"), ["78"],
            "deletes do not move Z_MAX")
    }

    @Test func aSubEntityRowGetsItsOwnZEntAndItsRootsNextZPk() throws {
        let store = try DatabaseQueue()
        try store.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR, ZPAGES INTEGER);
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    INSERT INTO Z_PRIMARYKEY VALUES (1, 'Item', 0, 5), (2, 'Novel', 1, 0);
                    INSERT INTO ZITEM VALUES (5, 1, 1, 'An item', NULL);
                    """)
        }
        let migrator = try SeedMigrator(migrations: [
            try migration(
                1,
                """
                {"insert": {"Novel": [{"title": "A novel", "pages": 300}], "Item": [{"title": "Another item"}]}}
                """)
        ])
        _ = try migrator.migrate(
            store,
            options: .init(tables: [TableSpec(name: "Novel", key: ["title"]), TableSpec(name: "Item", key: ["title"])]))
        try expectEqual(
            rows(store, "SELECT Z_PK, Z_ENT, Z_OPT, ZTITLE FROM ZITEM ORDER BY Z_PK"),
            [
                "5|1|1|\"An item\"", "6|2|1|\"A novel\"", "7|1|1|\"Another item\"",
            ])
        try expectEqual(
            rows(store, "SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT"), ["\"Item\"|7", "\"Novel\"|0"])
    }

    @Test func datesAreSecondsSince2001() throws {
        let (store, _) = try referenceStore()
        try store.write { db in
            try db.execute(sql: "ALTER TABLE ZBOOK ADD COLUMN ZPUBLISHED TIMESTAMP")
        }
        let migrator = try SeedMigrator(migrations: [
            try migration(
                1,
                """
                {"insert": {"Book": [{"title": "Dated", "price": 1, "category": "Fiction", "published": "2001-01-02T00:00:30+01:00"}]}}
                """)
        ])
        _ = try migrator.migrate(store, options: .init(tables: specs))
        let published = try store.read { db in
            try Double.fetchOne(db, sql: "SELECT ZPUBLISHED FROM ZBOOK WHERE ZTITLE = 'Dated'")
        }
        // one day and 30 s after 2001-01-01T00:00:00Z, less the +01:00 offset
        let expected: Double = 86_400 + 30 - 3_600
        expectEqual(published, expected)
    }

    @Test func aStoreWhoseZPrimaryKeyIsBehindItsTablesIsRefusedUnchanged() throws {
        let (store, _) = try referenceStore()
        try store.write { db in try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 70 WHERE Z_NAME = 'Book'") }
        let migrator = try SeedMigrator(migrations: [
            try migration(
                1,
                """
                {"insert": {"Book": [{"title": "The fourth book", "price": 12, "category": "Biography"}]}}
                """)
        ])
        #expect {
            try migrator.migrate(store, options: .init(tables: specs))
        } throws: { error in
            guard let error = error as? SeedError else { return false }
            return error.kind == .refused
                && "\(error)".contains("Z_PRIMARYKEY says the highest Book Z_PK is 70, but ZBOOK has 78")
        }
        try expectEqual(rows(store, "SELECT count(*) FROM ZBOOK"), ["3"])
    }
}
