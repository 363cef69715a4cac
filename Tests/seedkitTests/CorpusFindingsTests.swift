import Foundation
import GRDB
import SeedTestSupport
import Testing

/// Issue 42: what the store corpus (Tests/Corpus/stores.txt) and pegase's run found, each on a
/// store of the same shape made by Examples/SwiftDataStore/make-store.py (docs/core-data.md,
/// "The store corpus").
@Suite struct CorpusFindingsTests {
    /// The example's store (Book.author a to-one whose inverse is Author.books): authors A and B,
    /// book T by A published 2001-01-01 (0 seconds since 2001), book U by B published a day before.
    private func bookStore() throws -> TemporaryProject {
        let project = try swiftDataStore(editing: [])
        try project.database("app.store").write { db in
            try db.execute(
                sql: """
                    INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME, ZID) VALUES
                        (1, 1, 1, 'A', x'11111111222233334444555555555555'), (2, 1, 1, 'B', x'11111111222233334444555555555556');
                    INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZID, ZPAGES, ZAUTHOR, ZPUBLISHED) VALUES
                        (1, 2, 1, 'T', x'21111111222233334444555555555555', 5, 1, 0),
                        (2, 2, 1, 'U', x'21111111222233334444555555555556', 7, 2, -86400);
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 2 WHERE Z_ENT IN (1, 2);
                    """)
        }
        return project
    }

    /// pegase: a delete denied by a ref the manifest names said `still referenced by
    /// ZENTITYSOUSOPERATION.zcategory`, the SQL table and a lower-cased column.
    ///
    /// It names the entity and relationship as the user writes them: `Book.author`.
    @Test func aDeleteDeniedByARefNamesTheEntityAndRelationship() throws {
        let project = try bookStore()
        try project.write(
            "seeds/seedkit.yml",
            """
            template: ../app.store
            output: ../build/seed.store
            tables:
              Author: { key: name }
              Book: { key: title, refs: { author: Author.name } }

            """)
        try project.write("migrations/0001-authors.yml", "delete:\n  Author:\n    - { key: A, from: {} }\n")
        let migrate = try project.seedkit("migrate", "app.store", "--manifest", "seeds/seedkit.yml")
        expectEqual(migrate.status, 0, "\(migrate)")
        expectEqual(
            migrate.stderrLines,
            [
                "migrations/0001-authors.yml:3: warning: delete denied on Author 'A': still referenced by Book.author; not deleted [1600]"
            ], "\(migrate)")
        try expectEqual(project.rows("app.store", "SELECT ZNAME FROM ZAUTHOR ORDER BY Z_PK"), ["'A'", "'B'"])
    }

    /// pegase: `new-migration --from` wrote a Core Data date as its seconds since 2001
    /// (`-978300000`) where the fixtures give ISO 8601.
    ///
    /// It writes them as the fixtures do (an update's `from` and `to`, an inserted row, a deleted
    /// row's `from`), and `migrate` stores the seconds Core Data keeps.
    @Test func newMigrationWritesCoreDataDatesAsTheFixturesDo() throws {
        let project = try bookStore()
        try shipFirstRelease(project)
        let fixture = String(decoding: try #require(project.read("seeds/data/Book.csv")), as: UTF8.self)
        #expect(fixture.contains("2001-01-01T00:00:00Z"), "\(fixture)")
        var lines = fixture.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // T published a day later; U deleted; V added, published 2001-01-03.
        let header = lines[0].split(separator: ",").map(String.init)
        lines = lines.filter { !$0.split(separator: ",").contains("U") }
        lines = lines.map { $0.replacingOccurrences(of: "2001-01-01T00:00:00Z", with: "2001-01-02T00:00:00Z") }
        let added = header.map { column -> String in
            switch column {
            case "title": return "V"
            case "id": return "21111111-2222-3333-4444-555555555557"
            case "pages": return "9"
            case "published": return "2001-01-03T00:00:00Z"
            default: return ""
            }
        }
        lines.insert(added.joined(separator: ","), at: lines.count - 1)
        try project.write("seeds/data/Book.csv", lines.joined(separator: "\n"))
        let generated = try project.seedkit("new-migration", "dates", "--from", "seeds/releases/1.0.store")
        expectEqual(generated.status, 0, "\(generated)")
        let name = try #require(
            FileManager.default.contentsOfDirectory(atPath: project.path("migrations")).first { $0.hasSuffix(".yml") })
        let migration = String(decoding: try #require(project.read("migrations/\(name)")), as: UTF8.self)
        for date in ["2000-12-31T00:00:00Z", "2001-01-01T00:00:00Z", "2001-01-02T00:00:00Z", "2001-01-03T00:00:00Z"] {
            #expect(migration.contains("published: \"\(date)\""), "\(date) in\n\(migration)")
        }
        #expect(!migration.contains("published: 0") && !migration.contains("86400"), "\(migration)")
        let migrate = try project.seedkit("migrate", "app.store", "--without-history")
        expectEqual(migrate.status, 0, "\(migrate)")
        try expectEqual(
            project.rows("app.store", "SELECT ZTITLE, ZPUBLISHED FROM ZBOOK ORDER BY ZTITLE"),
            ["'T'|86400", "'V'|172800"])
    }
}
