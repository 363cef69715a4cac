import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// Issue 33: published data as it is. Real files are read as their publishers ship them, and the
/// schema is read through SQLite, never by splitting SQL text.
@Suite struct PublishedDataTests {
    /// A project with one table `t` whose schema is `schema` and whose fixture is `data/t.csv`.
    private func project(schema: String, csv: String = "a,b\nx,y\n", manifestTable: String = "    file: data/t.csv\n    key: a\n") throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write("seeds/seedkit.yml", "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  t:\n" + manifestTable)
        try project.write("seeds/schema.sql", schema)
        try project.write("seeds/data/t.csv", csv)
        return project
    }

    // MARK: - The schema is read through SQLite

    static let commented = "CREATE TABLE t (\n  a TEXT PRIMARY KEY,  -- x, y\n  b TEXT /* c, d */ NOT NULL, \"c\" INTEGER CHECK (c IN (1, 2)), -- trailing, comment\n  CHECK (a <> b)\n);\n"

    @Test func aCommentHoldingACommaChangesNothingDiffSees() throws {
        let project = try project(schema: Self.commented, csv: "a,b,c\nx,y,1\n")
        let build = try project.seedkit("build")
        try #require(build.status == 0, "\(build)")
        let diff = try project.seedkit("diff", "build/seed.sqlite", "build/seed.sqlite", "--exit-code")
        #expect(diff.status == 0, "\(diff)")
        #expect(!diff.stdout.contains("schema"), "\(diff)")
        #expect(!diff.stdout.contains("--"), "\(diff)")
    }

    @Test func aCommentedSchemaShipsAndPassesCheckUpgradeWithNoSchemaStep() throws {
        let project = try project(schema: Self.commented, csv: "a,b,c\nx,y,1\n")
        let release = try project.seedkit("build", "--output", "seeds/releases/1.0.sqlite")
        try #require(release.status == 0, "\(release)")
        try project.write("seeds/data/t.csv", "a,b,c\nx,y,1\nz,w,2\n")
        let generated = try project.seedkit("new-migration", "more", "--from", "seeds/releases/1.0.sqlite")
        #expect(generated.status == 0, "\(generated)")
        #expect(project.listing("migrations") == ["0001-more.yml"], "\(generated)")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        #expect(check.status == 0, "\(check)")
        #expect(!check.stdout.contains("DIVERGES"), "\(check)")
    }

    @Test func aQuotedNameAndACommentDoNotMakeAColumnDiffer() throws {
        // The same table written two ways: SQLite reads the same columns, types and constraints.
        let one = try project(schema: "CREATE TABLE t (a TEXT PRIMARY KEY, b TEXT NOT NULL);\n")
        try #require(try one.seedkit("build").status == 0)
        let two = try project(schema: "CREATE TABLE t (\n  \"a\" TEXT PRIMARY KEY, -- the key, it is text\n  [b] TEXT NOT NULL\n);\n")
        try #require(try two.seedkit("build").status == 0)
        let diff = try one.seedkit("diff", "build/seed.sqlite", two.path("build/seed.sqlite"), "--exit-code")
        #expect(!diff.stdout.contains("schema"), "\(diff)")
    }

    @Test func aNewColumnAfterACommentIsAddedWithItsDefinition() throws {
        let project = try project(schema: "CREATE TABLE t (\n  a TEXT PRIMARY KEY, -- key, text\n  b TEXT\n);\n")
        try #require(try project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status == 0)
        try project.write("seeds/schema.sql", "CREATE TABLE t (\n  a TEXT PRIMARY KEY, -- key, text\n  b TEXT, -- b, too\n  c INTEGER DEFAULT 7 -- new, with a default\n);\n")
        try project.write("seeds/data/t.csv", "a,b,c\nx,y,7\n")
        let generated = try project.seedkit("new-migration", "column", "--from", "seeds/releases/1.0.sqlite")
        #expect(generated.status == 0, "\(generated)")
        let files = project.listing("migrations")
        let name = try #require(files.first { $0.hasSuffix(".sql") }, "\(files)")
        let sql = String(decoding: try #require(project.read("migrations/\(name)")), as: UTF8.self)
        #expect(sql.contains("ADD COLUMN c INTEGER DEFAULT 7;"), "\(sql)")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        #expect(check.status == 0, "\(check)")
    }
}
