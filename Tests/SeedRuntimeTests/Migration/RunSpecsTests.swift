import GRDB
import SeedTestSupport
import Testing

@testable import SeedRuntime

/// A migration run's table specs (``RunSpecs``), built once through the dialect, and the
/// case-insensitive SQL names (``SQLName``) its lookups use.
@Suite struct RunSpecsTests {
    static let books = TableSpec(
        name: "books", key: ["Title"], refs: ["category_id": TableSpec.Reference(table: "categories", column: "name")],
        defaults: ["Price": .integer(10)])

    @Test func plainSQLiteSpecsAreFoundByEitherNameAndColumnsInAnyCase() {
        let specs = RunSpecs([Self.books], dialect: PlainSQLiteDialect())
        expectEqual(specs.spec(sqlTable: "books"), Self.books)
        expectEqual(specs.spec(named: "books"), Self.books)
        expectEqual(specs.spec(sqlTable: "categories"), nil)
        expectEqual(specs.spec(of: "books", as: "books", coreData: nil), Self.books)
        let ref = specs.writtenRef("books", SQLName("CATEGORY_ID"))
        #expect(ref?.relationship == "category_id")
        #expect(ref?.reference == TableSpec.Reference(table: "categories", column: "name"))
        expectEqual(specs.writtenColumn("books", SQLName("title")), "Title")
        expectEqual(specs.writtenColumn("books", SQLName("price")), nil)  // neither key nor ref
        expectEqual(RunSpecs().spec(sqlTable: "books"), nil)
    }

    /// Book (1) with sub-entity Novel (2), and Category (3): Novel's rows live in ZBOOK.
    private func coreData() throws -> CoreDataDialect {
        let queue = try DatabaseQueue()
        return try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE ZBOOK (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR, ZPRICE INTEGER, ZCATEGORY INTEGER);
                    CREATE TABLE ZCATEGORY (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR);
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    INSERT INTO Z_PRIMARYKEY VALUES (1, 'Book', 0, 0), (2, 'Novel', 1, 0), (3, 'Category', 0, 0);
                    """)
            return try #require(try CoreDataDialect.read(db))
        }
    }

    @Test func coreDataSpecsAreInTheStoresNamesAndRefsKeepTheEntityTheyName() throws {
        let dialect = try coreData()
        let book = TableSpec(
            name: "Book", key: ["title"], refs: ["category": TableSpec.Reference(table: "Category", column: "name")],
            defaults: ["price": .integer(10)])
        let category = TableSpec(name: "Category", key: ["name"])
        let specs = RunSpecs([book, category], dialect: dialect)
        let stored = TableSpec(
            name: "ZBOOK", key: ["ZTITLE"],
            refs: ["ZCATEGORY": TableSpec.Reference(table: "Category", column: "ZNAME")],
            defaults: ["ZPRICE": .integer(10)])
        expectEqual(specs.spec(sqlTable: "ZBOOK"), stored)
        expectEqual(specs.spec(named: "Book"), stored)
        expectEqual(specs.spec(named: "ZBOOK"), nil)
        // A sub-entity the specs do not list takes its nearest listed ancestor's spec.
        expectEqual(specs.spec(of: "ZBOOK", as: "Novel", coreData: dialect), stored)
        expectEqual(
            specs.spec(of: "ZCATEGORY", as: "Category", coreData: dialect), TableSpec(name: "ZCATEGORY", key: ["ZNAME"])
        )
        #expect(specs.writtenRef("ZBOOK", SQLName("zcategory"))?.relationship == "category")
        expectEqual(specs.writtenColumn("ZBOOK", SQLName("ZTitle")), "title")
        // The one translation of specs: the store's names for refs' tables too, defaults kept (diff, release).
        expectEqual(
            dialect.storeSpec(book),
            TableSpec(
                name: "ZBOOK", key: ["ZTITLE"],
                refs: ["ZCATEGORY": TableSpec.Reference(table: "ZCATEGORY", column: "ZNAME")],
                defaults: ["ZPRICE": .integer(10)]))
    }

    @Test func sqlNamesCompareAndHashIgnoringCaseAndKeepTheirSpelling() {
        expectEqual(SQLName("Books"), SQLName("bOOKS"))
        expectEqual(SQLName("Books").hashValue, SQLName("books").hashValue)
        expectEqual(SQLName("Books").description, "Books")
        expectEqual(SQLName("Books").lowered, "books")
        expectEqual(Set([SQLName("a"), SQLName("A"), SQLName("b")]).count, 2)
        #expect(SQLName("Title").matches("TITLE"))
        #expect(!SQLName("Title").matches("Titles"))
        expectEqual([SQLName("price"): 1][SQLName("PRICE")], 1)
        // Beyond ASCII, as SQLite compares names (it folds ASCII case only): `É` and `é` are two
        // names, KELVIN SIGN is not k, and the decomposed `é` is not the composed one.
        #expect(
            SQLName("ÉCOLE") != SQLName("école") && SQLName("ÉCOLE") == SQLName("École")
                && SQLName("ÉCOLE").hashValue == SQLName("École").hashValue)
        #expect(!"ÉCOLE".isSameName(as: "école") && "ÉCOLE".isSameName(as: "École"))
        #expect(!"K".isSameName(as: "\u{212A}"))
        #expect(SQLName("e\u{301}") != SQLName("\u{E9}") && !"e\u{301}".isSameName(as: "\u{E9}"))
        #expect("Price".isSameName(as: "pRICE"))
        #expect(!"price".isSameName(as: "prices"))
        #expect(!"price".isSameName(as: "pride"))
        #expect("".isSameName(as: ""))
    }
}
