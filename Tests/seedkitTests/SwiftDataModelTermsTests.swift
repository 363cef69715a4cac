import Foundation
import GRDB
import SeedTestSupport
import Testing

/// Issue 35: with no manifest, `inspect STORE Entity` showed a SwiftData store's columns
/// lower-cased (`pagecount` for `pageCount`) and to-one relationships as raw `Z_PK`s, and
/// `diff` matched rows by `Z_PK` and named columns the same way, where docs/core-data.md
/// promises attribute names and refs by the target's key.
///
/// The model the store keeps (`Z_MODELCACHE`) now names them, and its uniqueness constraints key
/// the rows.
@Suite struct SwiftDataModelTermsTests {
    /// The example's store with `Book.pages` renamed `pageCount`; author A (UUID …55) wrote book T.
    private func store() throws -> TemporaryProject {
        let project = try swiftDataStore(editing: [(#"("pages", 300"#, #"("pageCount", 300"#)])
        try project.database("app.store").write { db in
            try db.execute(
                sql: """
                    INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME, ZID) VALUES
                        (1, 1, 1, 'A', x'11111111222233334444555555555555'), (2, 1, 1, 'B', x'11111111222233334444555555555556');
                    INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZID, ZPAGECOUNT, ZAUTHOR) VALUES
                        (1, 2, 1, 'T', x'21111111222233334444555555555555', 5, 1);
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 2 WHERE Z_ENT = 1;
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_ENT = 2;
                    """)
        }
        return project
    }

    /// Issue 42 (pegase): `--columns` with an entity's name said `no table`, and `--where` took only
    /// the store's columns (`ZNAME`) while the output says `name`.
    ///
    /// Both take the names shown now; a ref is matched by its target's key, a UUID by its text, and
    /// the store's columns still work.
    @Test func inspectColumnsAndWhereTakeTheNamesShown() throws {
        let project = try store()
        let picked = try project.seedkit(
            "inspect", "app.store", "Book", "--columns", "title,author,id", "--where",
            "author = 'A' AND id = '21111111-2222-3333-4444-555555555555'", "--format", "csv")
        expectEqual(picked.status, 0, "\(picked)")
        expectEqual(picked.stdout, "title,author,id\r\nT,A,21111111-2222-3333-4444-555555555555\r\n", "\(picked)")
        let stored = try project.seedkit(
            "inspect", "app.store", "Book", "--columns", "title", "--where", "ZPAGECOUNT > 4", "--format", "csv")
        expectEqual(stored.stdout, "title\r\nT\r\n", "\(stored)")
        let none = try project.seedkit("inspect", "app.store", "Book", "--where", "author = 'B'", "--format", "csv")
        expectEqual(none.stdout, "Z_PK,author,pageCount,published,title,id\r\n", "\(none)")
        let unknown = try project.seedkit("inspect", "app.store", "Book", "--columns", "pages")
        expectEqual(unknown.status, 2, "\(unknown)")
        #expect(
            unknown.stderr.contains(
                "entity Book has no attribute or relationship 'pages' (it has Z_PK, author, pageCount, published, title, id)"
            ),
            "\(unknown)")
    }

    /// Issue 42 (pegase): verify named a row keyed by a UUID attribute `<16 bytes 9e427b35…>` and
    /// its table `ZBOOK`; it says the entity and the UUID's text, as fixtures write them.
    @Test func verifyNamesARowByItsUUIDText() throws {
        let project = try store()
        expectEqual(try project.seedkit("init", "--coredata", "app.store").status, 0)
        let manifest = String(decoding: project.read("seeds/seedkit.yml") ?? Data(), as: UTF8.self)
        #expect(manifest.contains("key: title"), "\(manifest)")
        try project.write("seeds/seedkit.yml", manifest.replacingOccurrences(of: "key: title", with: "key: id"))
        try project.database("app.store").write { db in try db.execute(sql: "UPDATE ZBOOK SET ZTITLE = NULL") }
        let verify = try project.seedkit("verify", "app.store")
        expectEqual(verify.status, 1, "\(verify)")
        #expect(
            verify.stdout.contains(
                "app.store: Book[21111111-2222-3333-4444-555555555555].title: title is required but missing [1570]"),
            "\(verify)")
    }

    @Test func inspectShowsAttributeNamesAndRefsByTheTargetsKey() throws {
        let project = try store()
        let inspect = try project.seedkit("inspect", "app.store", "Book", "--format", "csv")
        expectEqual(inspect.status, 0, "\(inspect)")
        // CSV as RFC 4180 writes it: CRLF line ends.
        expectEqual(
            inspect.stdout,
            "Z_PK,author,pageCount,published,title,id\r\n1,A,5,,T,21111111-2222-3333-4444-555555555555\r\n",
            "\(inspect)")
        // --raw: refs as stored.
        let raw = try project.seedkit("inspect", "app.store", "Book", "--format", "csv", "--raw")
        #expect(raw.stdout.hasSuffix("\r\n1,1,5,,T,21111111-2222-3333-4444-555555555555\r\n"), "\(raw)")
    }

    @Test func diffMatchesRowsByTheModelsKeyInItsTerms() throws {
        let project = try store()
        try FileManager.default.copyItem(atPath: project.path("app.store"), toPath: project.path("b.store"))
        try project.database("b.store").write { db in
            // The user's store numbered its rows otherwise: T is Z_PK 7 there, and moved to author B.
            try db.execute(
                sql: """
                    UPDATE ZBOOK SET Z_PK = 7, ZPAGECOUNT = 6, ZAUTHOR = 2;
                    INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZID, ZPAGECOUNT, ZAUTHOR) VALUES
                        (8, 2, 1, 'U', x'21111111222233334444555555555556', 7, 1);
                    """)
        }
        let diff = try project.seedkit("diff", "app.store", "b.store", "--table", "Book")
        expectEqual(
            diff.stdout,
            """
            Book: 1 added, 0 removed, 1 changed (by title)
              + 'U': author 'A', pageCount 7, published NULL, id '21111111-2222-3333-4444-555555555556'
              ~ 'T': author 'A' → 'B', pageCount 5 → 6

            """, "\(diff)")
    }
}

extension SwiftDataModelTermsTests {
    /// A migration's value of the wrong type was said about `ZBOOK.ZPAGECOUNT`, a column the
    /// migration never named; it is said in the migration's terms, the entity and attribute.
    @Test func aValueOfTheWrongTypeIsSaidAboutTheAttribute() throws {
        let project = try store()
        try project.write("migrations/0001-book.yml", "insert:\n  Book:\n    - { title: U, pageCount: many }\n")
        let migrate = try project.seedkit("migrate", "app.store", "--manifest", "none")
        expectEqual(migrate.status, 1, "\(migrate)")
        expectEqual(
            migrate.stderr,
            "migrations/0001-book.yml:3: error: Book.pageCount: \"many\" is not an integer (the column is INTEGER) [2010]\n",
            "\(migrate)")
    }
}
