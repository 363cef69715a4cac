import Foundation
import GRDB
import SeedTestSupport
import Testing

/// Issue 35: entities the seed does not fill.
///
/// A manifest entry without `file:` made `build` fail (`table 'Book' has no file`), and `build`
/// refused a migration updating rows the fixtures do not hold, so an app whose rows seedkit did not
/// make could not ship an update to them. `migrate_only: true` says the seed leaves the table as
/// the template makes it and the release's migrations change the users' own rows
/// (docs/reference.md, "Tables only migrations write").
@Suite struct MigrateOnlyTableTests {
    /// The SwiftData example with Book migrate-only and a migration that updates a book no
    /// fixture holds (the user's own).
    private func project(migration: String) throws -> TemporaryProject {
        let project = try swiftDataProject()
        try project.write(
            "seeds/seedkit.yml",
            """
            template: default.store
            output: ../build/seed.store
            tables:
              Author: { file: data/Author.csv, key: name }
              Book:
                migrate_only: true
                key: title
                refs: { author: Author.name }

            """)
        try project.write("migrations/0001-pages.yml", migration)
        return project
    }

    private let update = """
        update:
          Book:
            - { key: The user's book, from: { pages: 3 }, to: { pages: 4 } }

        """

    @Test func aBuildLeavesAMigrateOnlyTableEmptyAndAcceptsUpdatesOfRowsItDoesNotHold() throws {
        let project = try project(migration: update)
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        #expect(build.stdout.contains("contains migrations 0001-pages"), "\(build)")
        try expectEqual(project.rows("build/seed.store", "SELECT count(*) FROM ZBOOK"), ["0"])
        try expectEqual(project.rows("build/seed.store", "SELECT count(*) FROM ZAUTHOR"), ["2"])

        // A user's store that has the book: migrate updates it, by its key.
        try FileManager.default.copyItem(atPath: project.path("build/seed.store"), toPath: project.path("user.store"))
        try project.database("user.store").write { db in
            try db.execute(
                sql: """
                    DELETE FROM _seedkit_migrations;
                    INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZID, ZPAGES) VALUES
                        (1, 2, 1, 'The user''s book', x'21111111222233334444555555555555', 3);
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_NAME = 'Book';
                    """)
        }
        let migrate = try project.seedkit("migrate", "user.store")
        expectEqual(migrate.status, 0, "\(migrate)")
        try expectEqual(
            project.rows("user.store", "SELECT ZTITLE, ZPAGES, Z_OPT FROM ZBOOK"), ["'The user''s book'|4|2"])
    }

    @Test func anInsertIntoAMigrateOnlyTableIsRefusedAtItsLine() throws {
        let project = try project(migration: "insert:\n  Book:\n    - { title: Flint, pages: 3 }\n")
        let build = try project.seedkit("build")
        expectEqual(build.status, 2, "\(build)")
        expectEqual(
            build.stderrLines,
            [
                "migrations/0001-pages.yml:3: error: insert into Book, a migrate_only table: the seed records this migration as applied without the row, so a fresh install would never have it; give Book a file: that holds the row instead of migrate_only [2100]"
            ], "\(build)")
        #expect(!FileManager.default.fileExists(atPath: project.path("build/seed.store")))
    }

    @Test func aMigrateOnlyTableWithAFileIsAContradiction() throws {
        let project = try project(migration: update)
        try project.write(
            "seeds/seedkit.yml",
            "template: default.store\noutput: ../build/seed.store\ntables:\n  Book:\n    file: data/Book.csv\n    migrate_only: true\n"
        )
        let build = try project.seedkit("build")
        expectEqual(build.status, 2, "\(build)")
        expectEqual(
            build.stderrLines,
            [
                "seeds/seedkit.yml:6:5: error: table 'Book' is migrate_only: true and has file: (line 5); the seed leaves a migrate-only table as the template makes it, so drop one of them [2100]"
            ], "\(build)")
    }

    /// Without the flag, a table with no file is still an error, which now names the flag.
    @Test func aTableWithoutAFileStillFailsTheBuildAndNamesTheFlag() throws {
        let project = try project(migration: update)
        try project.write(
            "seeds/seedkit.yml",
            "template: default.store\noutput: ../build/seed.store\ntables:\n  Book: { key: title }\n")
        let build = try project.seedkit("build")
        expectEqual(build.status, 2, "\(build)")
        #expect(build.stderr.contains("give it migrate_only: true if the seed leaves it empty"), "\(build)")
    }

    /// check-upgrade's simulated user edited a UUID attribute by appending text, which the column
    /// refused (`"…(edited by the user)" is not a UUID`), so the check was not run; then compared
    /// the UUID it wrote (text) with what it read back, and reported a kept row as LOST.
    @Test func checkUpgradeGivesAUserRowAUUIDOfItsOwnAndFindsItKept() throws {
        let project = try swiftDataProject()
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        try project.write("seeds/releases/1.0.store", try #require(project.read("build/seed.store")))
        let authors = try String(contentsOfFile: project.path("seeds/data/Author.csv"), encoding: .utf8)
        try project.write("seeds/data/Author.csv", authors + "Ada,6BA7B810-9DAD-41D1-80B4-00C04FD430C9\n")
        let generate = try project.seedkit("new-migration", "add-ada", "--from", "seeds/releases/1.0.store")
        expectEqual(generate.status, 0, "\(generate)")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.store")
        expectEqual(check.status, 0, "\(check)")
        #expect(!check.stdout.contains("is not a UUID"), "\(check)")
        #expect(
            check.stdout.contains(
                "ok: user row Author 'Ursula K. Le Guin (added by the user)'.id = \"C0DAFB1F-B076-BE2C-65F3-FCFA17D3CCFE\" kept"
            ), "\(check)")
    }
}
