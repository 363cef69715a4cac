import Foundation
import GRDB
import SeedTestSupport
import Testing

/// A to-many relationship without an inverse (`Shelf.books: [Book]`, MetaCocktails'
/// `Cocktail.spec`) is kept by Core Data in the destination's table, a column
/// `Z<owner's Z_ENT><NAME>` holding the owner's `Z_PK` (`ZBOOK.Z3BOOKS`; all 1,893 of
/// MetaCocktails' `ZINGREDIENT.Z1SPEC` are set).
///
/// `init --coredata STORE` left it out of the fixtures, so the seed lost every such link. A fixture
/// of the rows holding it names it as `inspect` shows it: the owner's relationship (`Shelf.books`),
/// by the owner's key.
@Suite struct SwiftDataHeldToManyTests {
    /// The example's store with `Shelf` (make-store.py --composites): two shelves, three books,
    /// two of them on shelf A1, one on none.
    private func store() throws -> TemporaryProject {
        let project = try swiftDataStore(editing: [
            ("if \"--composites\" in sys.argv:\n    sys.argv.remove(\"--composites\")\n", "if True:\n")
        ])
        try project.database("app.store").write { db in
            try db.execute(
                sql: """
                    INSERT INTO ZSHELF (Z_PK, Z_ENT, Z_OPT, ZLABEL, ZKIND) VALUES (1, 3, 1, 'A1', 'fiction'), (2, 3, 1, 'B2', 'reference');
                    INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZID, ZPAGES, Z3BOOKS) VALUES
                        (1, 2, 1, 'Flint', x'21111111222233334444555555555555', 5, 1),
                        (2, 2, 1, 'Odes', x'31111111222233334444555555555555', 7, NULL),
                        (3, 2, 1, 'Tide', x'41111111222233334444555555555555', 9, 1);
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 2 WHERE Z_ENT = 3;
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 3 WHERE Z_ENT = 2;
                    """)
        }
        return project
    }

    private static let links = "SELECT ZTITLE, Z3BOOKS FROM ZBOOK ORDER BY ZTITLE"
    /// Shelf's mask with only `books`: its 9 stored attributes (label; kind; placement's wall, floor,
    /// window; size's width, depth, unit, woods) then `books`, bit 9 of two bytes.
    private static let booksBit = "0040"

    @Test func initThenBuildKeepsTheLinksOfAToManyWithoutAnInverse() throws {
        let project = try store()
        let initialized = try project.seedkit("init", "--coredata", "app.store")
        expectEqual(initialized.status, 0, "\(initialized)")
        let books = try #require(project.read("seeds/data/Book.csv").map { String(decoding: $0, as: UTF8.self) })
        expectEqual(
            books,
            """
            id,pages,published,title,author,Shelf.books
            21111111-2222-3333-4444-555555555555,5,,Flint,,A1
            31111111-2222-3333-4444-555555555555,7,,Odes,,
            41111111-2222-3333-4444-555555555555,9,,Tide,,A1

            """)
        let manifest = try #require(project.read("seeds/seedkit.yml").map { String(decoding: $0, as: UTF8.self) })
        #expect(manifest.contains("      Shelf.books: Shelf.label\n"), "\(manifest)")
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        expectEqual(try project.rows("build/seed.store", Self.links), ["'Flint'|1", "'Odes'|NULL", "'Tide'|1"])
        let diff = try project.seedkit("diff", "app.store", "build/seed.store", "--manifest", "none")
        #expect(diff.stdout.contains("Book: no differences\n"), "\(diff)")

        // A key no shelf has is an unresolved ref at its line, as any ref's.
        try project.write("seeds/data/Book.csv", books.replacingOccurrences(of: "Tide,,A1", with: "Tide,,Z9"))
        let wrong = try project.seedkit("build")
        expectEqual(wrong.status, 1, "\(wrong)")
        #expect(wrong.stderr.contains("seeds/data/Book.csv:4:"), "\(wrong)")
        #expect(wrong.stderr.contains("'Z9' matches no Shelf.label"), "\(wrong)")
    }

    /// A migration moves a book to another shelf by naming the relationship as the fixture does.
    @Test func aMigrationMovesARowBetweenOwners() throws {
        let project = try store()
        expectEqual(try project.seedkit("init", "--coredata", "app.store").status, 0)
        try project.write(
            "migrations/0001-move.yml",
            "update:\n  Book:\n    - { key: Odes, from: { Shelf.books: null }, to: { Shelf.books: B2 } }\n")
        // With history: the owners' update records it (pegase's own history: an Account joining a
        // folder is an update of EntityFolderAccount with `children`'s bit), the book's row none.
        let migrate = try project.seedkit("migrate", "app.store")
        expectEqual(migrate.status, 0, "\(migrate)")
        #expect(migrate.stdout.contains("  updated         Book 'Odes': Shelf.books NULL → 'B2'\n"), "\(migrate)")
        expectEqual(try project.rows("app.store", Self.links), ["'Flint'|1", "'Odes'|2", "'Tide'|1"])
        try expectEqual(
            project.rows(
                "app.store",
                "SELECT ZCHANGETYPE, ZENTITY, ZENTITYPK, hex(ZCOLUMNS) FROM ACHANGE WHERE ZTRANSACTIONID = (SELECT max(Z_PK) FROM ATRANSACTION)"
            ), ["1|3|2|'\(Self.booksBit)'"])
        // An insert onto a shelf is recorded the same way (CartKit's `CartModel.items`: the cart's
        // Z_OPT moved on while its history recorded nothing).
        try project.write(
            "migrations/0002-wave.yml",
            "insert:\n  Book:\n    - { title: Wave, pages: 3, id: 51111111-2222-3333-4444-555555555555, Shelf.books: A1 }\n"
        )
        let insert = try project.seedkit("migrate", "app.store")
        expectEqual(insert.status, 0, "\(insert)")
        try expectEqual(
            project.rows(
                "app.store",
                "SELECT ZCHANGETYPE, ZENTITY, ZENTITYPK, hex(ZCOLUMNS) FROM ACHANGE WHERE ZTRANSACTIONID = (SELECT max(Z_PK) FROM ATRANSACTION) ORDER BY Z_PK"
            ), ["0|2|4|''", "1|3|1|'\(Self.booksBit)'"])
    }

    /// The round trip: the fixture changed (a book moved, one added on a shelf) →
    /// `new-migration --from` the shipped seed → `check-upgrade` → `migrate` of the app's store
    /// gives the rows a fresh build holds.
    @Test func aMoveTravelsThroughNewMigrationCheckUpgradeAndMigrate() throws {
        let project = try store()
        try shipFirstRelease(project)
        let books = try #require(project.read("seeds/data/Book.csv").map { String(decoding: $0, as: UTF8.self) })
        try project.write(
            "seeds/data/Book.csv",
            books.replacingOccurrences(of: ",Odes,,\n", with: ",Odes,,B2\n")
                + "51111111-2222-3333-4444-555555555555,3,,Wave,,A1\n")
        let generated = try project.seedkit("new-migration", "shelves", "--from", "seeds/releases/1.0.store")
        expectEqual(generated.status, 0, "\(generated)")
        let file = try #require(
            project.read("migrations/0001-shelves.yml").map { String(decoding: $0, as: UTF8.self) })
        #expect(file.contains("\"Shelf.books\": \"A1\""), "\(file)")
        #expect(file.contains("to: { \"Shelf.books\": \"B2\" }"), "\(file)")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.store", "--without-history")
        expectEqual(check.status, 0, "\(check)")
        let migrate = try project.seedkit("migrate", "app.store", "--without-history")
        expectEqual(migrate.status, 0, "\(migrate)")
        expectEqual(try project.seedkit("build").status, 0)
        let fresh = "SELECT b.ZTITLE, s.ZLABEL FROM ZBOOK b LEFT JOIN ZSHELF s ON s.Z_PK = b.Z3BOOKS ORDER BY b.ZTITLE"
        expectEqual(try project.rows("app.store", fresh), try project.rows("build/seed.store", fresh))
        expectEqual(
            try project.rows("app.store", fresh), ["'Flint'|'A1'", "'Odes'|'B2'", "'Tide'|'A1'", "'Wave'|'A1'"])
    }
}
