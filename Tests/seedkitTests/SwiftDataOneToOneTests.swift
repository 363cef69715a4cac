import Foundation
import GRDB
import SeedTestSupport
import Testing

/// Issue 42 (pegase's Account ↔ InitAccount): a one-to-one whose other side the model requires.
///
/// Giving one Author another's Book left the first Book's required `author` NULL, exit 0, and only
/// verify found it afterwards. Core Data refuses to save such an object: so does migrate.
@Suite struct SwiftDataOneToOneTests {
    /// The example's model with Author.book ↔ Book.author one-to-one, Book.author required; two
    /// authors, each with their book.
    private func store() throws -> TemporaryProject {
        let project = try swiftDataStore(editing: [
            (#"[("books", "Book", "author", True, False, 1)]"#, #"[("book", "Book", "author", False, True, 1)]"#),
            (#"[("author", "Author", "books", False, True, 1)]"#, #"[("author", "Author", "book", False, False, 1)]"#),
        ])
        try project.database("app.store").write { db in
            try db.execute(
                sql: """
                    INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME, ZID, ZBOOK) VALUES
                        (1, 1, 1, 'A', x'11111111222233334444555555555555', 1), (2, 1, 1, 'B', x'11111111222233334444555555555556', 2);
                    INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZID, ZPAGES, ZAUTHOR) VALUES
                        (1, 2, 1, 'T1', x'21111111222233334444555555555555', 5, 1), (2, 2, 1, 'T2', x'21111111222233334444555555555556', 5, 2);
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 2 WHERE Z_ENT IN (1, 2);
                    """)
        }
        return project
    }

    @Test func takingARequiredOneToOnesOtherSideIsRefused() throws {
        let project = try store()
        expectEqual(try project.seedkit("init", "--coredata", "app.store").status, 0)
        try project.write(
            "migrations/0001-swap.yml", "update:\n  Author:\n    - { key: A, from: { book: T1 }, to: { book: T2 } }\n")
        let before = project.sha256("app.store")
        let migrate = try project.seedkit("migrate", "app.store", "--without-history")
        expectEqual(migrate.status, 3, "\(migrate)")
        #expect(
            migrate.stderr.contains(
                "the change takes a one-to-one's other side away from a row of Book, and Book.author is required by the model (non-optional)"
            ), "\(migrate)")
        expectEqual(project.sha256("app.store"), before)
    }

    /// pegase: a migration with several rows the store refuses named only the first (the run
    /// stopped there).
    ///
    /// Every row is named, by its line, with the reason said once; nothing is written (exit 3).
    @Test func everyRefusedRowOfAMigrationIsNamed() throws {
        let project = try store()
        expectEqual(try project.seedkit("init", "--coredata", "app.store").status, 0)
        try project.write(
            "migrations/0001-swap.yml",
            """
            update:
              Author:
                - { key: A, from: { book: T1 }, to: { book: T2 } }
                - { key: B, from: { book: T2 }, to: { book: T1 } }

            """)
        let before = project.sha256("app.store")
        let migrate = try project.seedkit("migrate", "app.store", "--without-history")
        expectEqual(migrate.status, 3, "\(migrate)")
        let refused = migrate.stderrLines.filter {
            $0.contains("the change takes a one-to-one's other side away from a row of Book")
        }
        expectEqual(refused.count, 1, "\(migrate)")
        #expect(
            refused.first?.hasSuffix(
                "(2 rows refused for this: migrations/0001-swap.yml:3, migrations/0001-swap.yml:4) [2200]") == true,
            "\(migrate)")
        expectEqual(project.sha256("app.store"), before)
    }

    /// Found by the store corpus (pegase: an Account copied with its one-to-ones): fixtures that
    /// give one one-to-one target to two rows built a seed whose sides disagree, exit 0, and only
    /// verify said so.
    ///
    /// The build refuses it, naming the row.
    @Test func fixturesGivingOneOneToOneTargetToTwoRowsAreRefused() throws {
        let project = try store()
        expectEqual(try project.seedkit("init", "--coredata", "app.store").status, 0)
        let authors = String(decoding: project.read("seeds/data/Author.csv") ?? Data(), as: UTF8.self)
        #expect(authors.contains(",B,T2"), "\(authors)")
        try project.write("seeds/data/Author.csv", authors.replacingOccurrences(of: ",B,T2", with: ",B,T1"))
        let build = try project.seedkit("build", "--without-history")
        expectEqual(build.status, 1, "\(build)")
        #expect(
            build.stderr.contains(
                "seeds/data/Author.csv: error: Author [B].book: one-sided one-to-one: book points at Book 1, whose author is 1"
            ), "\(build)")
        #expect(build.stderr.contains("the fixtures give this target to another row too [1550]"), "\(build)")
        #expect(!project.exists("build/seed.store"))
    }

    /// Found by the store corpus (sergd2005/ResourcesManager: CraftingRecipe.producedItem ↔
    /// Item.craftingRecipe): an entity without a key, whose rows a relationship names by their
    /// line in the fixture, in a cycle of refs.
    ///
    /// Its rows that waited for their parent went in after the ones that did not, taking other
    /// rows' numbers: Book T1's author became B, and the build refused its own one-to-ones. The
    /// rows go in in the fixture's order.
    @Test func rowsOfAnEntityWithoutAKeyKeepTheirLinesInACycle() throws {
        let project = try swiftDataStore(editing: [
            (#"[("books", "Book", "author", True, False, 1)]"#, #"[("book", "Book", "author", False, True, 1)]"#),
            (#"[("author", "Author", "books", False, True, 1)]"#, #"[("author", "Author", "book", False, False, 1)]"#),
        ])
        try project.write("seeds/empty.store", try #require(project.read("app.store")))
        try project.write(
            "seeds/seedkit.yml",
            """
            template: empty.store
            output: ../build/seed.store
            tables:
              Author:
                file: data/Author.csv
                refs: { book: Book.title }
              Book:
                file: data/Book.csv
                key: title

            """)
        try project.write(
            "seeds/data/Author.csv",
            """
            name,id,book
            A,11111111-2222-3333-4444-555555555555,T1
            B,11111111-2222-3333-4444-555555555556,
            C,11111111-2222-3333-4444-555555555557,T2

            """)
        try project.write(
            "seeds/data/Book.csv",
            """
            title,id,pages,author
            T1,21111111-2222-3333-4444-555555555555,5,1
            T2,21111111-2222-3333-4444-555555555556,5,3

            """)
        let build = try project.seedkit("build", "--without-history")
        expectEqual(build.status, 0, "\(build)")
        try expectEqual(
            project.rows(
                "build/seed.store",
                "SELECT a.Z_PK, a.ZNAME, b.ZTITLE, b.ZAUTHOR FROM ZAUTHOR a LEFT JOIN ZBOOK b ON b.Z_PK = a.ZBOOK ORDER BY a.Z_PK"
            ),
            ["1|'A'|'T1'|1", "2|'B'|NULL|NULL", "3|'C'|'T2'|3"])
    }
}
