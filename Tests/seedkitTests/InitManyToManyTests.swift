import Foundation
import GRDB
import SeedTestSupport
import Testing

/// `init --coredata STORE` left a store's many-to-many links out of the fixtures (a comment said
/// how to add them): MetaCocktails' 407 `Z_1GARNISH` rows (`Cocktail.garnish` ↔
/// `Garnish.cocktails`) were missing from every seed.
///
/// Now one side's fixture lists them by the other side's key; a key with a comma (two of
/// MetaCocktails' garnishes have one) as a JSON array.
@Suite struct InitManyToManyTests {
    /// make-store.py's Author and Book, with `Tag` and `Book.tags` ↔ `Tag.books` (join table
    /// `Z_2TAGS(Z_2BOOKS, Z_3TAGS)`, as Core Data names it after the first entity's relationship).
    private func store(tagKey: Bool = true) throws -> TemporaryProject {
        let project = try swiftDataStore(editing: [
            (
                "[(\"author\", \"Author\", \"books\", False, True, 1)],",
                "[(\"author\", \"Author\", \"books\", False, True, 1), (\"tags\", \"Tag\", \"books\", True, True, 1)],"
            ),
            (
                "SHELF = (",
                "ENTITIES.append((\"Tag\", [(\"name\", 700, \"NSString\", None, False)], [(\"books\", \"Book\", \"tags\", True, True, 1)], \(tagKey ? "[[\"name\"]]" : "[]")))\nSHELF = ("
            ),
        ])
        try project.database("app.store").write { db in
            try db.execute(
                sql: """
                    CREATE TABLE Z_2TAGS (Z_2BOOKS INTEGER, Z_3TAGS INTEGER, PRIMARY KEY (Z_2BOOKS, Z_3TAGS));
                    INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, 3, 1, 'Classics'), (2, 3, 1, 'Half a lime, squeezed');
                    INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZID, ZPAGES) VALUES
                        (1, 2, 1, 'Flint', x'21111111222233334444555555555555', 5),
                        (2, 2, 1, 'Odes', x'31111111222233334444555555555555', 7),
                        (3, 2, 1, 'Tide', x'41111111222233334444555555555555', 9);
                    INSERT INTO Z_2TAGS VALUES (1, 1), (2, 1), (2, 2);
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 2 WHERE Z_ENT = 3;
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 3 WHERE Z_ENT = 2;
                    """)
        }
        return project
    }

    @Test func initListsAManyToManyOnOneSideAndTheSeedHoldsItsJoinRows() throws {
        let project = try store()
        let initialized = try project.seedkit("init", "--coredata", "app.store")
        expectEqual(initialized.status, 0, "\(initialized)")
        let books = try #require(project.read("seeds/data/Book.csv").map { String(decoding: $0, as: UTF8.self) })
        expectEqual(
            books,
            """
            id,pages,published,title,author,tags
            21111111-2222-3333-4444-555555555555,5,,Flint,,Classics
            31111111-2222-3333-4444-555555555555,7,,Odes,,"[""Classics"",""Half a lime, squeezed""]"
            41111111-2222-3333-4444-555555555555,9,,Tide,,

            """)
        let manifest = try #require(project.read("seeds/seedkit.yml").map { String(decoding: $0, as: UTF8.self) })
        #expect(manifest.contains("      tags: Tag.name   # many-to-many\n"), "\(manifest)")
        // The other side is not listed too: its comment still says how.
        #expect(manifest.contains("    # books (many-to-many to Book) can be set here"), "\(manifest)")
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        let joins = "SELECT Z_2BOOKS, Z_3TAGS FROM Z_2TAGS ORDER BY 1, 2"
        expectEqual(try project.rows("build/seed.store", joins), try project.rows("app.store", joins))
        expectEqual(try project.rows("build/seed.store", joins), ["1|1", "2|1", "2|2"])
    }

    /// The issue's round trip: a fixture row copied under a new key → `new-migration --from` (the
    /// insert lists the row's tags: it listed none before, so the copy lost its links) →
    /// `check-upgrade` → `migrate` gives a row linked as its source is.
    @Test func aCopiedRowKeepsItsManyToManyThroughARelease() throws {
        let project = try store()
        try shipFirstRelease(project)
        let books = try #require(project.read("seeds/data/Book.csv").map { String(decoding: $0, as: UTF8.self) })
        try project.write(
            "seeds/data/Book.csv",
            books
                + "51111111-2222-3333-4444-555555555555,7,,Odes (copy),,\"[\"\"Classics\"\",\"\"Half a lime, squeezed\"\"]\"\n"
        )
        let generated = try project.seedkit("new-migration", "copy", "--from", "seeds/releases/1.0.store")
        expectEqual(generated.status, 0, "\(generated)")
        let file = try #require(project.read("migrations/0001-copy.yml").map { String(decoding: $0, as: UTF8.self) })
        #expect(file.contains(", tags: [\"Classics\", \"Half a lime, squeezed\"] }"), "\(file)")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.store")
        expectEqual(check.status, 0, "\(check)")
        let migrate = try project.seedkit("migrate", "app.store")
        expectEqual(migrate.status, 0, "\(migrate)")
        let tags = """
            SELECT b.ZTITLE, t.ZNAME FROM Z_2TAGS j JOIN ZBOOK b ON b.Z_PK = j.Z_2BOOKS JOIN ZTAG t ON t.Z_PK = j.Z_3TAGS
            WHERE b.ZTITLE LIKE 'Odes%' ORDER BY 1, 2
            """
        expectEqual(
            try project.rows("app.store", tags),
            [
                "'Odes'|'Classics'", "'Odes'|'Half a lime, squeezed'", "'Odes (copy)'|'Classics'",
                "'Odes (copy)'|'Half a lime, squeezed'",
            ])
    }

    /// A link to a row with no key cannot be listed by key: init says how many it left out, and where.
    @Test func aLinkToARowWithoutAKeyIsSaidNotDroppedSilently() throws {
        let project = try store()
        try project.database("app.store").write { db in
            try db.execute(sql: "UPDATE ZTAG SET ZNAME = NULL WHERE Z_PK = 2")
        }
        let initialized = try project.seedkit("init", "--coredata", "app.store")
        expectEqual(initialized.status, 0, "\(initialized)")
        #expect(
            initialized.stdout.contains("1 link of Book.tags left out: the related row has no key"), "\(initialized)")
        let books = try #require(project.read("seeds/data/Book.csv").map { String(decoding: $0, as: UTF8.self) })
        #expect(books.contains(",Odes,,Classics\n"), "\(books)")
    }

    /// Found by the store corpus (richardpiazza/XCServerCoreData: Configuration.repositories,
    /// Device.integrations): a many-to-many to an entity without a one-column key was listed in
    /// no fixture and its links were dropped without a word (212 and 1,419 of them).
    ///
    /// init says how many it left out, and why.
    @Test func linksToAnEntityWithoutAKeyAreSaidNotDroppedSilently() throws {
        let project = try store(tagKey: false)
        let initialized = try project.seedkit("init", "--coredata", "app.store")
        expectEqual(initialized.status, 0, "\(initialized)")
        #expect(
            initialized.stdout.contains(
                "3 links of Book.tags left out: Tag has no one-column key, so a fixture cannot list them"),
            "\(initialized)")
    }
}
