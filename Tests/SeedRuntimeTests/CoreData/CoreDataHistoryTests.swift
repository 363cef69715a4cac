import Foundation
import GRDB
import SeedTestSupport
import Testing

@testable import SeedRuntime

/// A store shaped as sergd2005/ResourcesManager's SwiftData `default.store` is (the history
/// tables' DDL byte for byte as both real stores in docs/swiftdata.md have it; the entity
/// tables as ResourcesManager's), holding what its first three transactions left.
private func realShapedStore() throws -> DatabaseQueue {
    let queue = try DatabaseQueue()
    try queue.write { db in
        try db.execute(
            sql: """
                CREATE TABLE ZCOMPONENT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOUNT INTEGER, ZCRAFTINGRECIPE INTEGER, ZITEM INTEGER, ZID BLOB );
                CREATE TABLE ZCRAFTINGRECIPE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPRODUCEDITEM INTEGER, ZPRODUCEDITEMCOUNT VARCHAR );
                CREATE TABLE ZITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCRAFTINGRECIPE INTEGER, ZNAME VARCHAR );
                CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB );
                CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB );
                CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
                CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID);
                CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS);
                CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS);
                CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS);
                CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS);
                CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC);
                INSERT INTO Z_PRIMARYKEY VALUES (1, 'Component', 0, 0), (2, 'CraftingRecipe', 0, 1), (3, 'Item', 0, 2),
                    (16001, 'CHANGE', 0, 4), (16002, 'TRANSACTION', 0, 3), (16003, 'TRANSACTIONSTRING', 0, 4);
                INSERT INTO ATRANSACTIONSTRING VALUES (1, 16003, NULL, 'com.sdsoftware.ResourcesManager'), (2, 16003, NULL, 'ResourcesManager');
                INSERT INTO ATRANSACTION VALUES (1, 16002, NULL, NULL, 1, NULL, 2, 743906532.380816, NULL, NULL, NULL, NULL, NULL),
                    (2, 16002, NULL, NULL, 1, NULL, 2, 743906537.169958, NULL, NULL, NULL, NULL, NULL),
                    (3, 16002, NULL, NULL, 1, NULL, 2, 743906540.391543, NULL, NULL, NULL, NULL, NULL);
                INSERT INTO ACHANGE VALUES (1, 16001, NULL, 0, 3, 1, 1, NULL), (2, 16001, NULL, 0, 3, 2, 2, NULL),
                    (3, 16001, NULL, 0, 2, 1, 3, NULL), (4, 16001, NULL, 1, 3, 1, 3, X'80');
                INSERT INTO ZITEM VALUES (1, 3, 2, 1, 'Stone Axe'), (2, 3, 1, NULL, 'Stick');
                INSERT INTO ZCRAFTINGRECIPE VALUES (1, 2, 1, 1, '1');
                """)
    }
    return queue
}

private typealias Property = CoreDataHistory.Property
private let item: [Property] = [.init(name: "name", kind: .attribute), .init(name: "craftingRecipe", kind: .toOne)]
private let recipe: [Property] = [
    .init(name: "producedItemCount", kind: .attribute), .init(name: "producedItem", kind: .toOne),
    .init(name: "requiredComponents", kind: .toMany),
]
private let component: [Property] = [
    .init(name: "id", kind: .attribute), .init(name: "count", kind: .attribute),
    .init(name: "craftingRecipe", kind: .toOne), .init(name: "item", kind: .toOne),
]

private func rows(_ queue: DatabaseQueue, _ sql: String) throws -> [String] {
    try queue.read { db in
        try Row.fetchAll(db, sql: sql).map { row in
            (0..<row.count).map { "\(row[$0] as DatabaseValue)" }.joined(separator: "|")
        }
    }
}

@Suite struct CoreDataHistoryTests {
    /// The masks ResourcesManager's store holds, from the same properties.
    @Test func masksAreTheRealStoresMasks() throws {
        try expectEqual(
            CoreDataHistory.columnsMask(entity: "Item", properties: item, changed: ["craftingRecipe"]), Data([0x80]))
        try expectEqual(
            CoreDataHistory.columnsMask(
                entity: "CraftingRecipe", properties: recipe, changed: ["requiredComponents"]), Data([0x20]))
        try expectEqual(
            CoreDataHistory.columnsMask(
                entity: "CraftingRecipe", properties: recipe, changed: ["producedItemCount"]), Data([0x40]))
        try expectEqual(
            CoreDataHistory.columnsMask(
                entity: "CraftingRecipe", properties: recipe, changed: ["producedItem", "requiredComponents"]),
            Data([0xA0]))
    }

    /// To-one relationships, then attributes, then to-many relationships, each by name: what
    /// Screen Time's `RMAdminStore-Local.sqlite` shows (plaso's test data, `docs/swiftdata.md`),
    /// where by name and by kind differ.
    @Test func masksCountToOnesThenAttributesThenToManys() throws {
        // Component: by name count, craftingRecipe, id, item; by kind craftingRecipe, item, count, id.
        try expectEqual(
            CoreDataHistory.columnsMask(entity: "Component", properties: component, changed: ["count"]), Data([0x20]))
        try expectEqual(
            CoreDataHistory.columnsMask(entity: "Component", properties: component, changed: ["item"]), Data([0x40]))
        try expectEqual(
            CoreDataHistory.columnsMask(
                entity: "Component", properties: component, changed: ["craftingRecipe", "id"]), Data([0x90]))
        // SwiftData's Author { name, id, books: [Book] }: id, name, books.
        let author: [Property] = [
            .init(name: "name", kind: .attribute), .init(name: "id", kind: .attribute),
            .init(name: "books", kind: .toMany),
        ]
        try expectEqual(
            CoreDataHistory.columnsMask(entity: "Author", properties: author, changed: ["books"]), Data([0x20]))
        try expectEqual(
            CoreDataHistory.columnsMask(entity: "Author", properties: author, changed: ["id"]), Data([0x80]))
        // RMAdminStore's Usage (device, user | lastEventDate, lastUpdatedDate | blocks): a UsageBlock
        // inserted with its lastUpdatedDate set is 18 there (by name it would be 88).
        let usage: [Property] = [
            .init(name: "user", kind: .toOne), .init(name: "blocks", kind: .toMany),
            .init(name: "device", kind: .toOne),
            .init(name: "lastEventDate", kind: .attribute), .init(name: "lastUpdatedDate", kind: .attribute),
        ]
        try expectEqual(
            CoreDataHistory.columnsMask(entity: "Usage", properties: usage, changed: ["lastUpdatedDate", "blocks"]),
            Data([0x18]))
        try expectEqual(
            CoreDataHistory.columnsMask(entity: "Usage", properties: usage, changed: ["lastUpdatedDate"]), Data([0x10]))
    }

    /// More than 8 properties: ⌈n/8⌉ bytes, property i in byte i/8 from its high bit, as
    /// RMAdminStore's UsageBlock (11 properties, 2 bytes) and UserDeviceState (15, 2 bytes)
    /// and knowledgeC's StructuredMetadata (122, 16 bytes) show.
    @Test func wideMasksTakeOneByteForEachEightProperties() throws {
        let block: [Property] =
            [
                "screenTimeInSeconds", "startDate", "lastEventDate", "numberOfPickupsWithoutApplicationUsage",
                "longestSessionStartDate",
                "longestSessionEndDate", "durationInMinutes", "firstPickupDate",
            ].map { Property(name: $0, kind: .attribute) }
            + [
                .init(name: "categories", kind: .toMany), .init(name: "usage", kind: .toOne),
                .init(name: "countedItems", kind: .toMany),
            ]
        // A UsageCategory inserted into the block, with lastEventDate, longestSessionEndDate and
        // screenTimeInSeconds: 1940 in the store; a UsageCountedItem instead: 1920.
        try expectEqual(
            CoreDataHistory.columnsMask(
                entity: "UsageBlock", properties: block,
                changed: ["lastEventDate", "longestSessionEndDate", "screenTimeInSeconds", "categories"]),
            Data([0x19, 0x40]))
        try expectEqual(
            CoreDataHistory.columnsMask(
                entity: "UsageBlock", properties: block,
                changed: ["lastEventDate", "longestSessionEndDate", "screenTimeInSeconds", "countedItems"]),
            Data([0x19, 0x20]))
        let eight = (0..<8).map { Property(name: "a\($0)", kind: .attribute) }
        try expectEqual(CoreDataHistory.columnsMask(entity: "Eight", properties: eight, changed: ["a7"]), Data([0x01]))
        let nine = eight + [Property(name: "a8", kind: .attribute)]
        try expectEqual(
            CoreDataHistory.columnsMask(entity: "Nine", properties: nine, changed: ["a8"]), Data([0x00, 0x80]))
        // knowledgeC's StructuredMetadata: 121 attributes and the to-many `event`, last: bit 121.
        let metadata =
            (0..<121).map { Property(name: "m\($0)", kind: .attribute) } + [Property(name: "event", kind: .toMany)]
        try expectEqual(
            CoreDataHistory.columnsMask(entity: "StructuredMetadata", properties: metadata, changed: ["event"]),
            Data(repeating: 0, count: 15) + Data([0x40]))
    }

    /// pegase (issue 42): EntityTransaction as its model lists it once the transient `solde` is
    /// left out (the model's facts leave transients out of the mask).
    ///
    /// The store's own history, framework 1522, records a SousOperation joining a transaction as
    /// Transaction `0010`: bit 11, `sousOperations`, which it is only without `solde`.
    @Test func aTransientAttributeTakesNoBit() throws {
        let transaction: [Property] =
            [
                "_sectionIdentifier", "bankStatement", "checkNumber", "createAt", "dateOperation", "datePointage",
                "updatedAt", "uuid",
            ].map { Property(name: $0, kind: .attribute) }
            + [
                Property(name: "account", kind: .toOne), Property(name: "paymentMode", kind: .toOne),
                Property(name: "sousOperations", kind: .toMany), Property(name: "status", kind: .toOne),
            ]
        try expectEqual(
            CoreDataHistory.columnsMask(
                entity: "EntityTransaction", properties: transaction, changed: ["sousOperations"]),
            Data([0x00, 0x10]))
    }

    @Test func unsettledMasksAreRefused() throws {
        let derived = #expect(throws: SeedError.self) {
            try CoreDataHistory.columnsMask(
                entity: "Item", properties: item + [.init(name: "cached", kind: .attribute, unvouched: true)],
                changed: ["name"])
        }
        #expect(derived?.kind == .refused)
        #expect(derived?.description.contains("Item.cached is derived") == true)
        let inherited = #expect(throws: SeedError.self) {
            try CoreDataHistory.columnsMask(entity: "Item", properties: item, changed: ["name"], inherits: true)
        }
        #expect(inherited?.description.contains("Item has a parent or sub-entities") == true)
        let polymorphic = #expect(throws: SeedError.self) {
            try CoreDataHistory.columnsMask(
                entity: "CloudState",
                properties: [
                    .init(name: "inCloud", kind: .attribute),
                    .init(name: "object", kind: .toOne, destinationInherits: true),
                ], changed: ["inCloud"])
        }
        #expect(
            polymorphic?.description.contains("CloudState.object points at an entity with a parent or sub-entities")
                == true, "\(String(describing: polymorphic))")
        #expect(throws: SeedError.self) {
            try CoreDataHistory.columnsMask(entity: "Item", properties: item, changed: ["nope"])
        }
        #expect(throws: SeedError.self) {
            try CoreDataHistory.columnsMask(entity: "Item", properties: item, changed: [])
        }
    }

    /// ChefTime's `SDFolder` (jdeda/iOS-ChefTime@aac1b60, docs/swiftdata.md, "Composite attributes"):
    /// Apple's 81 update rows are `8000` (parentFolder, Tx 7 and 13) and `0080` (recipes: a recipe
    /// deleted, Tx 14–21, …), 2 bytes.
    ///
    /// seedkit refused every update of the entity (exit 3). Bit 8 leaves 7 slots after
    /// parentFolder: the composite's 4 elements count, the composite not, and `folders`, a
    /// one-to-many to SDFolder itself, counts after `recipes` or not at all.
    @Test func anSDFolderMaskIsApplesMask() throws {
        let sdFolder: [Property] =
            [
                .init(name: "folders", kind: .toMany, ownEntity: .oneToMany), .init(name: "recipes", kind: .toMany),
                .init(name: "id", kind: .attribute), .init(name: "parentFolder", kind: .toOne, ownEntity: .other),
            ]
            + ["systemAll", "systemStandard", "systemRecentlyDeleted", "user"].map {
                Property(name: "folderType.\($0)", kind: .attribute, composite: true)
            } + [.init(name: "imageData", kind: .attribute), .init(name: "name", kind: .attribute)]
        func mask(_ changed: Set<String>) throws -> Data {
            try CoreDataHistory.columnsMask(entity: "SDFolder", properties: sdFolder, changed: changed)
        }
        try expectEqual(mask(["recipes"]), Data([0x00, 0x80]))
        try expectEqual(mask(["parentFolder"]), Data([0x80, 0x00]))
        try expectEqual(mask(["parentFolder", "recipes"]), Data([0x80, 0x80]))
        // `folders`: bit 9 of 10, or none of 9: no store shows which.
        let folders = #expect(throws: SeedError.self) { try mask(["folders"]) }
        #expect(
            folders?.description.contains(
                "SDFolder.folders is a to-many relationship to SDFolder itself, and no real store shows whether it counts in the changed-properties mask (ZCOLUMNS)"
            ) == true, "\(String(describing: folders))")
        // Where the elements count among the attributes no store shows: an attribute's update is refused.
        let element = #expect(throws: SeedError.self) { try mask(["folderType.user"]) }
        #expect(element?.kind == .refused)
        #expect(
            element?.description.contains(
                "cannot record the update of SDFolder in the store's persistent history: SDFolder.folderType is a composite attribute (a Codable enum or struct), and no real store shows where its elements count among SDFolder's attributes"
            ) == true, "\(String(describing: element))")
        let name = #expect(throws: SeedError.self) { try mask(["name"]) }
        #expect(
            name?.description.contains(
                "where SDFolder.name counts in the changed-properties mask (ZCOLUMNS) depends on how the elements of SDFolder's composite attribute folderType (a Codable enum or struct) count among its attributes"
            ) == true, "\(String(describing: name))")
        // SDRecipe, with neither, is written as Apple wrote its 116 updates: `80`, parentFolder.
        let recipe: [Property] = [
            .init(name: "aboutSections", kind: .toMany), .init(name: "id", kind: .attribute),
            .init(name: "imageData", kind: .attribute), .init(name: "ingredientSections", kind: .toMany),
            .init(name: "name", kind: .attribute), .init(name: "parentFolder", kind: .toOne),
            .init(name: "stepSections", kind: .toMany),
        ]
        try expectEqual(
            CoreDataHistory.columnsMask(entity: "SDRecipe", properties: recipe, changed: ["parentFolder"]), Data([0x80])
        )
    }

    /// A to-many to its own entity counts after the other to-manys or not at all (what ChefTime's
    /// `SDFolder` leaves open); a to-one to it counts, among the to-ones by name or after them.
    ///
    /// An update is written only where every candidate gives the same bytes, width included.
    @Test func relationshipsToTheEntityItselfCountAsTheStoresShow() throws {
        let folder: [Property] = [
            .init(name: "account", kind: .toOne), .init(name: "parent", kind: .toOne, ownEntity: .other),
            .init(name: "title", kind: .attribute), .init(name: "children", kind: .toMany, ownEntity: .oneToMany),
            .init(name: "notes", kind: .toMany),
        ]
        try expectEqual(
            CoreDataHistory.columnsMask(entity: "Folder", properties: folder, changed: ["notes"]), Data([0x10]))
        #expect(throws: SeedError.self) {
            try CoreDataHistory.columnsMask(entity: "Folder", properties: folder, changed: ["children"])
        }
        // `parent` is the last to-one by name and if counted after the others: written.
        try expectEqual(
            CoreDataHistory.columnsMask(entity: "Folder", properties: folder, changed: ["account", "parent"]),
            Data([0xC0]))
        // A to-one to the entity itself that sorts before another to-one: that one's place is in doubt.
        let zoned = folder + [.init(name: "zone", kind: .toOne)]
        let zone = #expect(throws: SeedError.self) {
            try CoreDataHistory.columnsMask(entity: "Folder", properties: zoned, changed: ["zone"])
        }
        #expect(
            zone?.description.contains(
                "where Folder.zone counts in the changed-properties mask (ZCOLUMNS) depends on how Folder.parent (a to-one relationship to Folder itself) counts among the other to-ones"
            ) == true, "\(String(describing: zone))")
        try expectEqual(
            CoreDataHistory.columnsMask(entity: "Folder", properties: zoned, changed: ["title"]), Data([0x10]))
        // A many-to-many to itself: by name, after the other to-manys, or not counted.
        let person: [Property] = [
            .init(name: "name", kind: .attribute), .init(name: "friends", kind: .toMany, ownEntity: .other),
            .init(name: "groups", kind: .toMany),
        ]
        let groups = #expect(throws: SeedError.self) {
            try CoreDataHistory.columnsMask(entity: "Person", properties: person, changed: ["groups"])
        }
        #expect(groups?.kind == .refused)
        #expect(
            groups?.description.contains(
                "where Person.groups counts in the changed-properties mask (ZCOLUMNS) depends on how Person.friends (a to-many relationship to Person itself"
            )
                == true, "\(String(describing: groups))")
        try expectEqual(
            CoreDataHistory.columnsMask(entity: "Person", properties: person, changed: ["name"]), Data([0x80]))
        // Whether a to-many to itself counts moves the width: 8 properties and `children` make 9.
        let wide =
            (0..<7).map { Property(name: "a\($0)", kind: .attribute) } + [
                Property(name: "notes", kind: .toMany),
                Property(name: "children", kind: .toMany, ownEntity: .oneToMany),
            ]
        let width = #expect(throws: SeedError.self) {
            try CoreDataHistory.columnsMask(entity: "Folder", properties: wide, changed: ["a0"])
        }
        #expect(
            width?.description.contains(
                "the changed-properties mask's (ZCOLUMNS) width depends on whether Folder.children (a to-many relationship to Folder itself) counts at all"
            ) == true, "\(String(describing: width))")
    }

    /// A transaction as ResourcesManager's fourth (a Component added to recipe 1), written by
    /// seedkit, compared field by field with the rows Core Data wrote there.
    @Test func aTransactionIsWrittenAsCoreDataWritesIt() throws {
        let store = try realShapedStore()
        let when = Date(timeIntervalSinceReferenceDate: 743906543.27066)
        let written = try store.write { db in
            try db.execute(
                sql: "INSERT INTO ZCOMPONENT VALUES (1, 1, 1, 1, 1, NULL, X'C8AD661E8B9C40E8B7366BF3C3A7DB3B')")
            let mask = try CoreDataHistory.columnsMask(
                entity: "CraftingRecipe", properties: recipe, changed: ["requiredComponents"])
            return try CoreDataHistory.write(
                [
                    .init(
                        entityName: "CraftingRecipe", entity: 2, primaryKey: 1, kind: .update,
                        changed: ["requiredComponents"]),
                    .init(entityName: "Component", entity: 1, primaryKey: 1, kind: .insert),
                ], masks: [0: mask], transaction: .init(timestamp: when), in: db)
        }
        expectEqual(written, .init(transaction: 4, changes: [5, 6]))
        // Real Tx 4: (4, 16002, NULL, NULL, 1, NULL, 2, 743906543.27066, NULL…): the app's bundle
        // and process strings; seedkit's own author, bundle and process strings instead.
        try expectEqual(
            rows(store, "SELECT * FROM ATRANSACTION WHERE Z_PK = 4"),
            [
                "4|16002|NULL|5|5|NULL|5|743906543.27066|NULL|NULL|NULL|NULL|NULL"
            ])
        try expectEqual(rows(store, "SELECT typeof(ZTIMESTAMP) FROM ATRANSACTION WHERE Z_PK = 4"), ["\"real\""])
        // Strings: Z_MAX 4 ran ahead of the two rows, so seedkit's string is 5, and is interned once.
        try expectEqual(
            rows(store, "SELECT * FROM ATRANSACTIONSTRING ORDER BY Z_PK"),
            [
                "1|16003|NULL|\"com.sdsoftware.ResourcesManager\"", "2|16003|NULL|\"ResourcesManager\"",
                "5|16003|NULL|\"seedkit\"",
            ])
        // Real rows 5 and 6: (5, 16001, NULL, 0, 1, 1, 4, NULL), (6, 16001, NULL, 1, 2, 1, 4, X'20'): insert first.
        let changeRows = try rows(
            store,
            "SELECT Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, CASE WHEN ZCOLUMNS IS NULL THEN 'NULL' ELSE hex(ZCOLUMNS) END FROM ACHANGE WHERE Z_PK > 4"
        )
        expectEqual(
            changeRows,
            [
                "5|16001|NULL|0|1|1|4|\"NULL\"", "6|16001|NULL|1|2|1|4|\"20\"",
            ], "\(changeRows)")
        try expectEqual(
            rows(store, "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000"),
            [
                "16001|\"CHANGE\"|6", "16002|\"TRANSACTION\"|4", "16003|\"TRANSACTIONSTRING\"|5",
            ])
        // A second transaction reuses the interned string.
        try store.write { db in
            _ = try CoreDataHistory.write(
                [.init(entityName: "Item", entity: 3, primaryKey: 2, kind: .delete)], masks: [:],
                transaction: .init(contextName: "seedkit", timestamp: when), in: db)
        }
        try expectEqual(
            rows(
                store, "SELECT ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS FROM ATRANSACTION WHERE Z_PK = 5"),
            ["5|5|5|5"])
        try expectEqual(rows(store, "SELECT count(*) FROM ATRANSACTIONSTRING"), ["3"])
        try expectEqual(
            rows(
                store, "SELECT ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS IS NULL FROM ACHANGE WHERE ZTRANSACTIONID = 5"),
            ["2|3|2|1"])
    }

    @Test func ordersInsertsUpdatesDeletesAsTheRealStores() throws {
        let store = try realShapedStore()
        let written = try store.write { db in
            try CoreDataHistory.write(
                [
                    .init(entityName: "Item", entity: 3, primaryKey: 2, kind: .delete),
                    .init(
                        entityName: "CraftingRecipe", entity: 2, primaryKey: 1, kind: .update,
                        changed: ["requiredComponents"]),
                    .init(entityName: "Component", entity: 1, primaryKey: 1, kind: .delete),
                    .init(entityName: "Item", entity: 3, primaryKey: 3, kind: .insert),
                ], masks: [1: Data([0x20])], in: db)
        }
        #expect(written?.changes == [5, 6, 7, 8])
        // Real Tx 5: update 2/1, delete 1/1, delete 3/2.
        try expectEqual(
            rows(
                store, "SELECT ZCHANGETYPE, ZENTITY, ZENTITYPK FROM ACHANGE WHERE ZTRANSACTIONID = 4 ORDER BY Z_PK"),
            ["0|3|3", "1|2|1", "2|1|1", "2|3|2"])
    }

    @Test func refusesWhatItCannotVouchFor() throws {
        let store = try realShapedStore()
        let before = try rows(store, "SELECT count(*) FROM ACHANGE")
        let noMask = #expect(throws: SeedError.self) {
            try store.write { db in
                try CoreDataHistory.write(
                    [.init(entityName: "Item", entity: 3, primaryKey: 1, kind: .update, changed: ["name"])], masks: [:],
                    in: db)
            }
        }
        #expect(noMask?.kind == .refused)
        try store.write { db in try db.execute(sql: "ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE0 VARCHAR") }
        let tombstones = #expect(throws: SeedError.self) {
            try store.write { db in
                try CoreDataHistory.write(
                    [.init(entityName: "Item", entity: 3, primaryKey: 2, kind: .delete)], masks: [:], in: db)
            }
        }
        #expect(
            tombstones?.description.contains("ACHANGE keeps tombstones (ZTOMBSTONE0…)") == true,
            "\(String(describing: tombstones))")
        try store.write { db in try db.execute(sql: "ALTER TABLE ATRANSACTION ADD COLUMN ZSOMETHING INTEGER") }
        let shape = #expect(throws: SeedError.self) {
            try store.write { db in
                try CoreDataHistory.write(
                    [.init(entityName: "Item", entity: 3, primaryKey: 9, kind: .insert)], masks: [:], in: db)
            }
        }
        #expect(shape?.description.contains("ATRANSACTION has columns") == true)
        try expectEqual(rows(store, "SELECT count(*) FROM ACHANGE"), before)
        try expectEqual(rows(store, "SELECT count(*) FROM ATRANSACTIONSTRING"), ["2"])
        try expectEqual(store.write { db in try CoreDataHistory.write([], masks: [:], in: db) }, nil)
    }
}
