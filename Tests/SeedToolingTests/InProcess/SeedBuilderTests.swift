import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import SeedTooling
import Testing

@Suite struct SeedBuilderTests {
    @Test func buildsTheFixturesAndRecordsTheMigrationsAsTheSeeds() throws {
        let project = try TemporaryProject()
        let summary = try project.buildSeed()
        expectEqual(summary.tables.map(\.name), ["categories", "books"])
        expectEqual(summary.tables.map(\.rows), [2, 3])
        expectEqual(summary.migrations, 1)
        #expect(summary.contentHash.hasPrefix("sha256:") && summary.contentHash.count == 71, "\(summary.contentHash)")
        try expectEqual(
            project.books("build/seed.sqlite"),
            [
                "The first book|10.0", "The second book|15.0", "The third book|10.0",
            ])
        let ledger = try project.database("build/seed.sqlite").read { db in try MigrationLedger.entries(db) }
        expectEqual(ledger.map(\.id), ["0001-add-fourth-book"])
        expectEqual(ledger.map(\.origin), [.seed])
        expectEqual(project.listing("build"), ["seed.sqlite"], "no temporary file left beside the output")
    }

    @Test func theSameInputsBuildTheSameBytes() throws {
        let project = try TemporaryProject()
        let first = try project.buildSeed("build/a.sqlite")
        let second = try project.buildSeed("build/b.sqlite")
        expectEqual(first.contentHash, second.contentHash)
        expectEqual(project.read("build/a.sqlite"), project.read("build/b.sqlite"))
    }

    @Test func aRuleViolationFailsWithEveryProblemAndWritesNothing() throws {
        let project = try TemporaryProject()
        try project.write(
            "seeds/data/books.csv",
            "title,price,category_id\nThe first book,-10,Fiction\nThe second book,2000,Fiction\nThe third book,10,Nowhere\n"
        )
        do {
            try project.buildSeed()
            Issue.record("the build should fail")
        } catch let error as SeedError {
            expectEqual(error.kind, .invalidData)
            expectEqual(error.diagnostics.map(\.code), [.numberTooSmall, .numberTooLarge, .unresolvedReference])
            expectEqual(error.diagnostics.map(\.line), [2, 3, 4])
            expectEqual(error.diagnostics[0].message, "price -10 is less than the minimum 0")
        }
        #expect(!project.exists("build/seed.sqlite"))
    }

    @Test func aManifestWithoutSchemaOrTemplateIsUnsupported() throws {
        let project = try TemporaryProject()
        try project.write(
            "seeds/seedkit.yml", BookStore.manifest.replacingOccurrences(of: "schema: schema.sql\n", with: ""))
        let error = try #require(SeedBuilder.unsupported(try project.manifest()))
        expectEqual(error.kind, .configuration)
        expectEqual(
            error.diagnostics.map(\.message), ["a build needs schema: (a .sql file) or template: (an empty store)"])
    }
}
