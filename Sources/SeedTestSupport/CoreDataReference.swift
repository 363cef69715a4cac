import Foundation
public import GRDB

/// The BookStore store of "Pro iOS Persistence", chapter 4, as Core Data wrote it before the
/// chapter's update (docs/core-data.md, "Writing as Core Data does"), row by row.
public enum CoreDataReference {
    /// Writes the store into `queue` and returns its `Z_METADATA.Z_PLIST` bytes (a binary plist with version hashes).
    @discardableResult
    public static func write(into queue: DatabaseQueue) throws -> Data {
        let plist = try PropertyListSerialization.data(
            fromPropertyList: [
                "NSStoreModelVersionHashes": [
                    "Book": Data(repeating: 1, count: 32), "BookCategory": Data(repeating: 2, count: 32),
                    "Page": Data(repeating: 3, count: 32),
                ],
                "NSStoreType": "SQLite", "NSPersistenceFrameworkVersion": 866,
            ] as [String: Any], format: .binary, options: 0)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE ZBOOK (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCATEGORY INTEGER, ZPRICE FLOAT, ZTITLE VARCHAR);
                    CREATE TABLE ZBOOKCATEGORY (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR);
                    CREATE TABLE ZPAGE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZBOOK INTEGER, Z_FOK_BOOK INTEGER, ZTEXT VARCHAR);
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    INSERT INTO Z_PRIMARYKEY VALUES (1, 'Book', 0, 78), (2, 'BookCategory', 0, 52), (3, 'Page', 0, 0);
                    INSERT INTO ZBOOKCATEGORY VALUES (51, 2, 1, 'Fiction'), (52, 2, 1, 'Biography');
                    INSERT INTO ZBOOK VALUES (76, 1, 1, 51, 10.0, 'The first book'), (77, 1, 1, 51, 15.0, 'The second book'), (78, 1, 1, 52, 10.0, 'The third book');
                    """)
            try db.execute(
                sql: "INSERT INTO Z_METADATA VALUES (1, 'B1C2D3E4-0000-4000-8000-0123456789AB', ?)", arguments: [plist])
        }
        return plist
    }
}
