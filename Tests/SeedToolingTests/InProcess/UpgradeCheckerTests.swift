import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import SeedTooling
import Testing

/// Release 1.0 is the BookStore's three books; the current fixtures add a fourth.
@Suite struct UpgradeCheckerTests {
    private func release() throws -> TemporaryProject {
        let project = try TemporaryProject()
        try project.buildSeed("seeds/releases/1.0.sqlite", migrations: [])
        try project.write("seeds/data/books.csv", BookStore.books + "The fourth book,12,Biography\n")
        try project.buildSeed()
        return project
    }

    @Test func aMigrationThatBringsTheOldSeedToTheFixturesPasses() throws {
        let project = try release()
        let checker = UpgradeChecker(manifest: try project.manifest(), migrations: try project.migrations())
        let outcomes = try checker.check(
            [project.path("seeds/releases/1.0.sqlite")], fresh: project.url("build/seed.sqlite"))
        let outcome = try #require(outcomes.first)
        expectEqual(outcomes.count, 1)
        expectEqual(outcome.applied, ["0001-add-fourth-book"])
        #expect(outcome.divergences.isEmpty)
        #expect(outcome.lostEdits.isEmpty)
        #expect(!outcome.keptEdits.isEmpty, "the simulated user's edits were tried and kept")
        #expect(outcome.passed)
        // The migrated copy is what an existing user's store becomes.
        let copy = try checker.migratedCopy(of: project.path("seeds/releases/1.0.sqlite"))
        let titles = try copy.read { db in try String.fetchAll(db, sql: "SELECT title FROM books ORDER BY title") }
        expectEqual(titles, ["The first book", "The fourth book", "The second book", "The third book"])
        try expectEqual(project.books("seeds/releases/1.0.sqlite").count, 3, "the old seed itself is not written")
    }

    @Test func aFixtureChangeNoMigrationCarriesIsADivergence() throws {
        let project = try release()
        try project.write(
            "seeds/data/books.csv",
            BookStore.books.replacingOccurrences(of: "The second book,15,", with: "The second book,16,")
                + "The fourth book,12,Biography\n")
        try project.buildSeed()
        let checker = UpgradeChecker(manifest: try project.manifest(), migrations: try project.migrations())
        let outcome = try #require(
            try checker.check([project.path("seeds/releases/1.0.sqlite")], fresh: project.url("build/seed.sqlite"))
                .first)
        #expect(!outcome.passed)
        expectEqual(
            outcome.divergences.map { "\($0.table) \($0.key) \($0.column ?? "-"): \($0.got) ≠ \($0.expected)" },
            [
                "books 'The second book' price: 15.0 ≠ 16.0"
            ])
    }

    @Test func aSeedNewerThanTheMigrationsIsRefused() throws {
        let project = try release()
        let checker = UpgradeChecker(manifest: try project.manifest(), migrations: [])
        let outcome = try #require(
            try checker.check([project.path("build/seed.sqlite")], fresh: project.url("build/seed.sqlite")).first)
        #expect(outcome.refused)
        #expect(!outcome.passed)
        #expect(
            outcome.failure?.contains("the store is newer than these migrations: it has 0001-add-fourth-book applied")
                == true, "\(outcome.failure ?? "")")
    }

    /// A .sql migration saved with CRLF line ends: the statement that failed is quoted, not an
    /// empty string ("\r\n" is one Character; a split on "\n" alone saw one line).
    @Test func theFailingStatementOfAMigrationWithCRLFLineEndsIsQuoted() throws {
        let project = try release()
        try project.write(
            "migrations/0002-broken.sql",
            "UPDATE books SET price = price;\r\n\r\nINSERT INTO no_such_table VALUES (1);\r\n")
        let checker = UpgradeChecker(manifest: try project.manifest(), migrations: try project.migrations())
        let outcome = try #require(
            try checker.check([project.path("seeds/releases/1.0.sqlite")], fresh: project.url("build/seed.sqlite"))
                .first)
        #expect(!outcome.passed)
        #expect(outcome.failure?.contains("0002-broken.sql:3:1: error: ") == true, "\(outcome.failure ?? "")")
        #expect(
            outcome.failure?.hasSuffix("; statement: INSERT INTO no_such_table VALUES (1);") == true,
            "\(outcome.failure ?? "")")
    }
}
