import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import SeedTooling
import Testing

@Suite struct MigrationGeneratorTests {
    @Test func namesAreNumberedSlugs() {
        expectEqual(MigrationGenerator.slug("Fix the Prices!! (2027)"), "fix-the-prices-2027")
        expectEqual(
            MigrationGenerator.fileName(number: 2, name: "Fix the Prices!! (2027)"), "0002-fix-the-prices-2027.yml")
        expectEqual(MigrationGenerator.slug("Ærø naïve"), "ærø-naïve")
    }

    @Test func theScaffoldIsAMigrationThatChangesNothing() throws {
        let project = try TemporaryProject()
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write("migrations/0002-empty.yml", MigrationGenerator.scaffold(id: "0002-empty"))
        let migrations = try project.migrations()
        expectEqual(migrations.map(\.id), ["0002-empty"])
        #expect(
            MigrationGenerator.scaffold(id: "0002-empty").hasPrefix("# 0002-empty: describe the data change here.\n"))
    }

    /// The old seed has release 1.0's rows; the current fixtures insert, update and delete.
    @Test func writesInsertsUpdatesAndDeletesWithTheirFromValues() throws {
        let project = try TemporaryProject()
        try project.buildSeed("old.sqlite", migrations: [])
        try project.write(
            "seeds/data/books.csv",
            "title,price,category_id\nThe first book,11,Fiction\nThe second book,15,Fiction\nThe fifth book,14,Biography\n"
        )
        try project.buildSeed("new.sqlite", migrations: [])
        let generator = MigrationGenerator(manifest: try project.manifest())
        let generated = try #require(
            try generator.generate(
                old: project.database("old.sqlite"), current: project.database("new.sqlite"), header: "# 0002-release\n"
            ))
        expectEqual(generated.summary, "1 insert, 1 update, 1 delete")
        expectEqual(
            generated.yaml,
            """
            # 0002-release
            insert:
              books:
                - { title: "The fifth book", price: 14.0, category_id: "Biography" }
            update:
              books:
                - key: "The first book"
                  from: { price: 10.0 }
                  to: { price: 11.0 }
            delete:
              books:
                - key: "The third book"
                  from: { price: 10.0, category_id: "Biography" }

            """)
        // What it wrote applies: the old seed migrated holds the new fixtures' rows.
        try project.write("migrations/0002-release.yml", generated.yaml)
        try project.remove("migrations/0001-add-fourth-book.yml")
        let migrator = try SeedMigrator(migrations: try project.migrations())
        _ = try migrator.migrate(try project.database("old.sqlite"))
        try expectEqual(
            project.books("old.sqlite"), ["The fifth book|14.0", "The first book|11.0", "The second book|15.0"])
    }

    @Test func twoSeedsWithTheSameRowsNeedNoMigration() throws {
        let project = try TemporaryProject()
        try project.buildSeed("old.sqlite", migrations: [])
        try project.buildSeed("new.sqlite", migrations: [])
        let generator = MigrationGenerator(manifest: try project.manifest())
        #expect(
            try generator.generate(
                old: project.database("old.sqlite"), current: project.database("new.sqlite"), header: "# 0002") == nil)
    }
}
