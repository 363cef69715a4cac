import Foundation
import GRDB
import SeedTestSupport
import Testing

/// Issue 35: relationships without an inverse.
///
/// A Core Data store has no FOREIGN KEY constraints, so the model says which columns point at a row
/// (docs/core-data.md, "Deletes and pointers to a row"): a delete is denied while one holds the
/// row, and `verify` reports the keys that point at nothing.
@Suite struct SwiftDataPointerTests {
    /// The example's store with `Book.author` a to-one without an inverse and `Author.favorites`
    /// a to-many without one (Core Data keeps it in the destination's table: `ZBOOK.Z1FAVORITES`,
    /// 1 being Author's `Z_ENT`, which make-store.py writes).
    ///
    /// Authors A, B, C; book T by A, U a favorite of B, V pointing at author 9 and favorite of 7,
    /// which are no rows.
    private func storeWithoutInverses() throws -> TemporaryProject {
        let project = try swiftDataStore(editing: [
            (#"[("books", "Book", "author", True, False, 1)]"#, #"[("favorites", "Book", None, True, True, 2)]"#),
            (#"("author", "Author", "books", False, True, 1)"#, #"("author", "Author", None, False, True, 1)"#),
        ])
        try project.database("app.store").write { db in
            try db.execute(
                sql: """
                    INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME, ZID) VALUES
                        (1, 1, 1, 'A', x'11111111222233334444555555555555'), (2, 1, 1, 'B', x'11111111222233334444555555555556'),
                        (3, 1, 1, 'C', x'11111111222233334444555555555557');
                    INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZID, ZPAGES, ZAUTHOR, Z1FAVORITES) VALUES
                        (1, 2, 1, 'T', x'21111111222233334444555555555555', 5, 1, NULL), (2, 2, 1, 'U', x'21111111222233334444555555555556', 5, NULL, 2),
                        (3, 2, 1, 'V', x'21111111222233334444555555555557', 5, 9, 7);
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 3 WHERE Z_ENT IN (1, 2);
                    """)
        }
        // A manifest that names no refs (as `init` writes for relationships it cannot key).
        try project.write(
            "seeds/seedkit.yml",
            "template: ../app.store\noutput: ../build/seed.store\ntables:\n  Author: { key: name }\n  Book: { key: title }\n"
        )
        return project
    }

    /// `delete: Author` held by a to-one without an inverse (no ref in the manifest) or owning an
    /// inverse-less to-many was deleted, leaving books pointing at nothing.
    ///
    /// Now denied (1600); an author nothing points at is deleted.
    @Test func aDeleteIsDeniedWhileAnyColumnPointsAtTheRow() throws {
        let project = try storeWithoutInverses()
        try project.write(
            "migrations/0001-authors.yml",
            "delete:\n  Author:\n    - { key: A, from: {} }\n    - { key: B, from: {} }\n    - { key: C, from: {} }\n")
        let migrate = try project.seedkit("migrate", "app.store", "--manifest", "seeds/seedkit.yml")
        expectEqual(migrate.status, 0, "\(migrate)")
        expectEqual(
            migrate.stderrLines,
            [
                "migrations/0001-authors.yml:3: warning: delete denied on Author 'A': still referenced by Book.author (1 Book row holds it; column ZBOOK.ZAUTHOR); delete or move them first in a migration; not deleted [1600]",
                "migrations/0001-authors.yml:4: warning: delete denied on Author 'B': still referenced by Author.favorites (1 Book row holds it; column ZBOOK.Z1FAVORITES); delete or move them first in a migration; not deleted [1600]",
            ], "\(migrate)")
        try expectEqual(project.rows("app.store", "SELECT Z_PK, ZNAME FROM ZAUTHOR ORDER BY Z_PK"), ["1|'A'", "2|'B'"])
    }

    /// `verify` said `ok (integrity, foreign keys)` with books pointing at no author: each
    /// relationship column's dangling keys are reported (2030, exit 1), with the model from the
    /// store's Z_MODELCACHE when no manifest is given.
    @Test func verifyReportsRelationshipColumnsPointingAtNoRow() throws {
        let project = try storeWithoutInverses()
        let verify = try project.seedkit("verify", "app.store")
        expectEqual(verify.status, 1, "\(verify)")
        expectEqual(
            verify.stdout,
            """
            app.store: Author.favorites: 1 Book row (Z_PK 3) is held by no Author (column ZBOOK.Z1FAVORITES) [2030]
            app.store: Book.author: 1 Book row (Z_PK 3) points at no Author (column ZBOOK.ZAUTHOR) [2030]
            app.store: 2 problems

            """, "\(verify)")
        try project.database("app.store").write { db in
            try db.execute(sql: "UPDATE ZBOOK SET ZAUTHOR = 3, Z1FAVORITES = NULL WHERE Z_PK = 3")
        }
        let sound = try project.seedkit("verify", "app.store")
        expectEqual(sound.status, 0, "\(sound)")
    }
}

extension SwiftDataPointerTests {
    /// `inspect STORE Book` showed the inverse-less to-many `Author.favorites`, kept in ZBOOK as
    /// `Z1FAVORITES`, as a column `1favorites` holding a `Z_PK`; it names the owner's relationship
    /// and shows the owner by its key (as MetaCocktails' `Ingredient` now shows `Cocktail.spec`).
    @Test func inspectShowsAToManyWithoutAnInverseAsItsOwnersRelationship() throws {
        let project = try storeWithoutInverses()
        let inspect = try project.seedkit("inspect", "app.store", "Book", "--format", "csv", "--manifest", "none")
        expectEqual(inspect.status, 0, "\(inspect)")
        let lines = inspect.stdout.split(separator: "\r\n").map(String.init)
        #expect(lines.first?.contains(",Author.favorites,") == true, "\(inspect)")
        #expect(!inspect.stdout.contains("1favorites"), "\(inspect)")
        // U is a favorite of B; V points at author 9, favorite 7: no rows, shown as stored.
        let columns = lines.first?.split(separator: ",").map(String.init) ?? []
        let favorites = try #require(columns.firstIndex(of: "Author.favorites"))
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        expectEqual(rows.map { $0.indices.contains(favorites) ? $0[favorites] : "?" }, ["", "B", "7"], "\(inspect)")
    }
}
