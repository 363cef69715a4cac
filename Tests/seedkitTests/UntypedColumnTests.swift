import Foundation
import GRDB
import SeedTestSupport
import Testing

/// One conversion rule for a column with no declared type (SQLite's BLOB affinity), in fixtures
/// and migrations alike: a value is stored as its source types it — a CSV field as text, a JSON
/// or YAML number as a number, a quoted one as text — as SQLite stores what it is given there;
/// a declared type converts by its affinity (`ANY` is numeric).
///
/// new-migration writes each value with its type, so a release converges (docs/reference.md,
/// "Fixtures").
@Suite struct UntypedColumnTests {
    private func project() throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write("seeds/schema.sql", "CREATE TABLE t (k TEXT PRIMARY KEY, x, y ANY);\n")
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  t: { file: data/t.csv, key: k }\n  j: { file: data/j.json, key: k }\n"
        )
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE t (k TEXT PRIMARY KEY, x, y ANY);\nCREATE TABLE j (k TEXT PRIMARY KEY, x);\n")
        try project.write("seeds/data/t.csv", "k,x,y\na,10,10\nb,007,007\nc,1.5,1.5\n")
        try project.write("seeds/data/j.json", #"[{"k": "a", "x": 10}, {"k": "b", "x": "10"}, {"k": "c", "x": 1.5}]"#)
        return project
    }

    private func typed(_ project: TemporaryProject, _ store: String, _ sql: String) throws -> [String] {
        try project.database(store).read { db in try String.fetchAll(db, sql: sql) }
    }

    @Test func aValueIsStoredAsItsSourceTypesItInFixturesAndMigrations() throws {
        let project = try project()
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        let rows = "SELECT k || ' ' || quote(x) || ' ' || typeof(x) FROM t ORDER BY k"
        expectEqual(try typed(project, "build/seed.sqlite", rows), ["a '10' text", "b '007' text", "c '1.5' text"])
        expectEqual(
            try typed(project, "build/seed.sqlite", "SELECT k || ' ' || typeof(y) FROM t ORDER BY k"),
            ["a integer", "b integer", "c real"])
        expectEqual(
            try typed(
                project, "build/seed.sqlite", "SELECT k || ' ' || quote(x) || ' ' || typeof(x) FROM j ORDER BY k"),
            ["a 10 integer", "b '10' text", "c 1.5 real"])
        // A migration's values the same way: YAML's quoted text stays text, its numbers numbers.
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("user.sqlite"))
        try project.write(
            "migrations/0001-more.yml", "insert:\n  t:\n    - { k: d, x: \"10\" }\n    - { k: e, x: 10 }\n")
        let migrate = try project.seedkit("migrate", "user.sqlite")
        expectEqual(migrate.status, 0, "\(migrate)")
        expectEqual(
            try typed(
                project, "user.sqlite",
                "SELECT k || ' ' || quote(x) || ' ' || typeof(x) FROM t WHERE k IN ('d', 'e') ORDER BY k"),
            ["d '10' text", "e 10 integer"])
    }

    @Test func aReleaseOfNumericLookingTextConverges() throws {
        let project = try project()
        try FileManager.default.createDirectory(
            atPath: project.path("seeds/releases"), withIntermediateDirectories: true)
        try expectEqual(project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status, 0)
        try project.write("seeds/data/t.csv", "k,x,y\na,11,10\nb,007,007\nc,1.5,1.5\nf,12,12\n")
        let written = try project.seedkit("new-migration", "r", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(written.status, 0, "\(written)")
        let yaml = String(decoding: try #require(project.read("migrations/0001-r.yml")), as: UTF8.self)
        #expect(yaml.contains(#"- { k: "f", x: "12", "y": 12 }"#), "\(yaml)")
        #expect(yaml.contains(#"from: { x: "10" }"#) && yaml.contains(#"to: { x: "11" }"#), "\(yaml)")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
        #expect(check.stdout.contains("1 old seed converges"), "\(check)")
    }
}
