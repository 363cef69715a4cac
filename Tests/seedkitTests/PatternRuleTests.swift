import Foundation
import GRDB
import SeedTestSupport
import Testing

/// `pattern` rules end to end: build, migrate validation and verify give the same answers,
/// whether the compiled matcher or NSRegularExpression runs the pattern.
struct PatternRuleTests {
    private func project() throws -> TemporaryProject {
        let project = try TemporaryProject()
        try project.write(
            "seeds/schema.sql", "CREATE TABLE t (name TEXT PRIMARY KEY, code TEXT, tag TEXT, alt TEXT, n INTEGER);")
        try project.write(
            "seeds/seedkit.yml",
            """
            schema: schema.sql
            output: ../build/seed.sqlite
            tables:
              t:
                file: data/t.csv
                key: name
                rules:
                  code: { pattern: "^[A-Z]{2}\\\\d{3}$" }
                  tag: { pattern: "^(?=.*x).+$" }
                  alt: { pattern: "a|ab" }
                  n: { pattern: "^9\\\\d{2}$" }

            """)
        try project.remove("migrations/0001-add-fourth-book.yml")
        return project
    }

    @Test func buildReportsEveryValueThatDoesNotMatchWholeAndNothingElse() throws {
        let project = try project()
        try project.write(
            "seeds/data/t.csv",
            """
            name,code,tag,alt,n
            ok,AB123,x,ab,912
            arabic,AB\u{663}\u{664}\u{665},yx,a,900
            lower,ab123,x,ab,912
            newline,"AB123\n",x,ab,912
            tagless,AB123,y,ab,912
            longer,AB123,x,abb,912
            small,AB123,x,a,12

            """)
        let result = try project.seedkit("build")
        expectEqual(result.status, 1)
        let expected = [
            "seeds/data/t.csv:4:2: error: code 'ab123' does not match the pattern ^[A-Z]{2}\\d{3}$ [1680]",
            "seeds/data/t.csv:5:2: error: code 'AB123\n' does not match the pattern ^[A-Z]{2}\\d{3}$ [1680]",
            "seeds/data/t.csv:7:3: error: tag 'y' does not match the pattern ^(?=.*x).+$ [1680]",
            "seeds/data/t.csv:8:4: error: alt 'abb' does not match the pattern a|ab [1680]",
            "seeds/data/t.csv:9:5: error: n 12 does not match the pattern ^9\\d{2}$ [1680]",
        ]
        for line in expected { #expect(result.stderr.contains(line + "\n"), "\(result)") }
        expectEqual(result.stderr.components(separatedBy: "error:").count - 1, expected.count, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: project.url("build/seed.sqlite").path))
    }

    @Test func migrateAndVerifyApplyTheSamePatterns() throws {
        let project = try project()
        try project.write("seeds/data/t.csv", "name,code,tag,alt,n\nok,AB123,x,ab,912\n")
        try expectEqual(project.seedkit("build").status, 0)
        try FileManager.default.copyItem(at: project.url("build/seed.sqlite"), to: project.url("user.sqlite"))
        try project.write(
            "migrations/0001-more.yml",
            "insert:\n  t:\n    - { name: good, code: CD\u{665}\u{666}\u{667}, tag: xx, alt: a, n: 999 }\n    - { name: bad, code: C1, tag: x, alt: ab, n: 999 }\n"
        )
        let bytes = try #require(project.read("user.sqlite"))
        let migrate = try project.seedkit("migrate", "user.sqlite")
        expectEqual(migrate.status, 1)
        #expect(
            migrate.stderr.contains(
                "migrations/0001-more.yml:4: error: t: code 'C1' does not match the pattern ^[A-Z]{2}\\d{3}$ [1680]"),
            "\(migrate)")
        #expect(!migrate.stderr.contains("good"))
        expectEqual(project.read("user.sqlite"), bytes)
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "UPDATE t SET tag = 'y', alt = 'abab' WHERE name = 'ok'")
        }
        let verify = try project.seedkit("verify", "user.sqlite")
        expectEqual(verify.status, 1)
        #expect(verify.stdout.contains("1680"), "\(verify)")
        #expect(verify.stdout.contains("tag 'y' does not match the pattern ^(?=.*x).+$"), "\(verify)")
        #expect(verify.stdout.contains("alt 'abab' does not match the pattern a|ab"), "\(verify)")
    }
}
