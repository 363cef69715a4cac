import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

@testable import SeedRuntime
@testable import SeedTooling

/// Issue 45: the checks `build` runs on the migrations present (refs, update keys, what `migrate`
/// would refuse) cost in proportion to the migrations' rows.
///
/// Counted, not clocked: the statements the build runs on the seed (each run of a prepared
/// statement counts).
@Suite struct BuildMigrationCostTests {
    /// A release of `count` books (key isbn, a ref to a category) and a migration that brings the
    /// previous release to it: a tenth of the rows updated, a tenth deleted, a twentieth inserted.
    private func project(_ count: Int, lastUpdate: String = "") throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);\nCREATE TABLE books (id INTEGER PRIMARY KEY, isbn TEXT NOT NULL UNIQUE, price REAL NOT NULL, category_id INTEGER REFERENCES categories(id));\n"
        )
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  categories: { file: data/categories.csv, key: name }\n  books: { file: data/books.csv, key: isbn, refs: { category_id: categories.name } }\n"
        )
        try project.write("seeds/data/categories.csv", "name\nFiction\nBiography\n")
        var fixture = "isbn,price,category_id\n"
        var updates = ""
        var deletes = ""
        var inserts = ""
        for index in 0..<count {
            let category = index % 3 == 0 ? "Biography" : "Fiction"
            if index % 10 == 1 {
                deletes += "    - { key: \"B\(index)\", from: { price: \(index), category_id: \(category) } }\n"
                continue
            }
            if index % 10 == 0 {
                updates += "    - { key: \"B\(index)\", from: { price: \(index) }, to: { price: \(index + 1) } }\n"
            }
            fixture += "B\(index),\(index % 10 == 0 ? index + 1 : index),\(category)\n"
        }
        for index in 0..<count / 20 {
            inserts += "    - { isbn: \"N\(index)\", price: 1, category_id: Fiction }\n"
            fixture += "N\(index),1,Fiction\n"
        }
        try project.write("seeds/data/books.csv", fixture)
        try project.write(
            "migrations/0001-release.yml",
            "insert:\n  books:\n\(inserts)update:\n  books:\n\(updates)\(lastUpdate)delete:\n  books:\n\(deletes)")
        return project
    }

    /// The statements a build of `project` runs, with its migrations or without any.
    private func statements(_ project: TemporaryProject, migrations: Bool) throws -> Int {
        let manifest = try Manifest.load(path: project.path("seeds/seedkit.yml"))
        let loaded =
            migrations
            ? try MigrationDirectory.load(
                project.url("migrations"), displayPath: "migrations", yamlParser: YAMLDocument.parser) : []
        var builder = SeedBuilder(manifest: manifest, migrations: loaded)
        let counted = StatementCount()
        builder.statements = counted
        let summary = try builder.build(to: project.url("build/seed.sqlite"))
        expectEqual(summary.migrations, loaded.count)
        return counted.value
    }

    /// What the migrations add to a build of `count` rows.
    private func migrationStatements(_ count: Int) throws -> Int {
        let project = try project(count)
        return try statements(project, migrations: true) - statements(project, migrations: false)
    }

    @Test func doublingTheMigrationsRowsAtMostDoublesWhatTheyAddToTheBuild() throws {
        let small = try migrationStatements(400)
        let large = try migrationStatements(800)
        #expect(small > 0, "the migrations are checked")
        #expect(large > small, "the count follows the migration: \(small) → \(large)")
        #expect(large <= 2 * small, "at most doubled: \(small) → \(large)")
    }

    /// The configuration check runs one row of each shape: a problem in a shape first met after
    /// hundreds of good rows is still found, at its own line, and nothing is written.
    @Test func aProblemInALaterRowOfANewShapeStillFailsTheBuild() throws {
        let project = try project(400, lastUpdate: "    - { key: \"B20\", to: { price: 5 } }\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 2, "\(result)")
        #expect(result.stderr.contains("migrations/0001-release.yml:"), "\(result.stderr)")
        #expect(result.stderr.contains("sets 'price' without a 'from' value"), "\(result.stderr)")
        #expect(!project.exists("build/seed.sqlite"))
    }

    /// The migrations read on another thread while the fixtures are read (as `seedkit build`
    /// reads them) give the seed a build given them read gives, byte for byte.
    @Test func migrationsReadBesideTheFixturesGiveTheSameSeed() throws {
        let project = try project(400)
        let manifest = try Manifest.load(path: project.path("seeds/seedkit.yml"))
        let folder = project.url("migrations")
        let read: @Sendable () throws(SeedError) -> [Migration] = { () throws(SeedError) in
            try MigrationDirectory.read(
                folder, displayPath: "migrations", yamlParser: YAMLDocument.parser, missingIsEmpty: false)
        }
        let first = try SeedBuilder(manifest: manifest, migrations: read()).build(to: project.url("build/a.sqlite"))
        let beside = SeedBuilder(manifest: manifest, readingMigrations: read)
        let second = try beside.build(to: project.url("build/b.sqlite"))
        expectEqual(second.migrations, 1)
        expectEqual(second.contentHash, first.contentHash)
        expectEqual(try beside.readMigrations().map(\.id), try read().map(\.id))
        let bytes = try #require(project.read("build/a.sqlite"))
        #expect(project.read("build/b.sqlite") == bytes, "the same bytes")
    }

    /// A migration that does not read fails the build with its own error, ahead of the
    /// fixtures' (as when it was read before the build), and nothing is written.
    @Test func aMigrationThatDoesNotReadFailsTheBuildAheadOfTheFixtures() throws {
        let project = try project(40)
        try project.write("seeds/data/books.csv", "isbn,price,category_id\nB1,cheap,Fiction\n")
        try project.write("migrations/0002-broken.yml", "update:\n  books: [\n")
        for arguments in [["build"], ["build", "--check"]] {
            let result = try project.seedkit(arguments)
            expectEqual(result.status, 2, "\(result)")
            #expect(result.stderr.contains("migrations/0002-broken.yml:"), "\(result.stderr)")
            #expect(result.stderr.contains("YAML:"), "\(result.stderr)")
            #expect(!result.stderr.contains("books.csv"), "the fixtures' error is not reached: \(result.stderr)")
            #expect(!project.exists("build/seed.sqlite"))
        }
    }

    /// An output that is one of the migrations is refused, whichever check finds it: a text
    /// migration (not a SQLite file) and an empty `.sql` one (a file a build may replace).
    @Test(arguments: ["migrations/0001-release.yml", "migrations/0002-nothing.sql"])
    func anOutputThatIsAMigrationIsRefusedAndKept(_ output: String) throws {
        let project = try project(40)
        try project.write("migrations/0002-nothing.sql", "")
        let before = try #require(project.read(output))
        let result = try project.seedkit("build", "--output", output)
        expectEqual(result.status, 2, "\(result)")
        #expect(result.stderr.contains("error: the output is one of the build's inputs ("), "\(result.stderr)")
        #expect(project.read(output) == before)
    }

    /// The configuration check runs one row of each shape (the columns, by name as SQLite
    /// matches them, and whether each value is null, a scalar, or which list or object): of
    /// 303 inserted rows in 4 shapes it runs 4, whatever the columns' order or case.
    @Test func theConfigurationCheckRunsOneRowOfEachShape() throws {
        var rows = "insert:\n  books:\n"
        for index in 0..<100 {
            rows += "    - { isbn: \"A\(index)\", price: \(index), category_id: Fiction }\n"
            rows += "    - { PRICE: \(index), Isbn: \"B\(index)\", category_id: Fiction }\n"
            rows += "    - { isbn: \"C\(index)\", price: null, category_id: Fiction }\n"
        }
        rows += "    - { isbn: \"D\", price: 1, category_id: [Fiction] }\n"
        rows += "    - { isbn: \"E\", price: 1, category_id: [Biography] }\n"
        rows += "    - { isbn: \"F\", price: 2, category_id: [Fiction] }\n"
        let migration = try Migration.make(
            fileName: "0001-rows.yml", file: "0001-rows.yml", document: YAMLDocument.parse(rows, file: "0001-rows.yml"))
        let sample = SeedMigrator.sampled(migration, tables: [])
        guard case .changes(let changes) = sample.body, case .insert(_, let kept) = changes.operations.first else {
            Issue.record("no inserts")
            return
        }
        expectEqual(kept.map(\.line), [3, 5, 303, 304])
    }
}

/// The update-key check (``KeyFinder``) finds each entity's rows by its own key: Core Data stores
/// a sub-entity in its parent's table, under the key the manifest gives it.
@Suite struct BuildMigrationKeySharedTableTests {
    @Test func aSubEntityInItsParentsTableIsLookedUpByItsOwnKey() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.writeCoreDataProject(
            model: "Shelf.xcdatamodel",
            entities: """
                <entity name="Book" representedClassName="Book" syncable="YES">
                    <attribute name="title" attributeType="String"/>
                    <attribute name="note" optional="YES" attributeType="String"/>
                </entity>
                <entity name="Ebook" representedClassName="Ebook" parentEntity="Book" syncable="YES">
                    <attribute name="format" optional="YES" attributeType="String"/>
                </entity>
                """,
            tables: """
                    CREATE TABLE ZBOOK (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZFORMAT VARCHAR, ZNOTE VARCHAR, ZTITLE VARCHAR);
                """,
            primaryKeys: [(1, "Book", 0, 0), (2, "Ebook", 1, 0)])
        try project.write(
            "seeds/seedkit.yml",
            """
            model: Shelf.xcdatamodel
            template: empty.sqlite
            output: ../seed.sqlite
            tables:
              Book: { file: data/books.csv, key: title }
              Ebook: { file: data/ebooks.csv, key: format }

            """)
        try project.write("seeds/data/books.csv", "title,note\nDune,old\n")
        try project.write("seeds/data/ebooks.csv", "title,format,note\nEmma,epub,old\n")
        try project.write(
            "migrations/0001-changes.yml",
            """
            update:
              Book:
                - { key: Dune, from: { note: old }, to: { note: new } }
              Ebook:
                - { key: epub, from: { note: old }, to: { note: new } }

            """)
        // Looked up under Book's key (title) once Book's statement was prepared: 'epub' was no
        // title, and the build failed (exit 1) on a key the fixtures have.
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        expectEqual(build.stderr, "")
        // A key neither entity has is still a typo.
        try project.write(
            "migrations/0002-typo.yml", "update:\n  Ebook:\n    - { key: Dune, from: { note: new }, to: { note: x } }\n"
        )
        let typo = try project.seedkit("build")
        expectEqual(typo.status, 1, "\(typo)")
        #expect(typo.stderr.contains("update Ebook 'Dune': the key matches no row of Ebook"), "\(typo.stderr)")
    }
}
