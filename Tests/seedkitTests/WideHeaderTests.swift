import Foundation
import SeedTestSupport
import Testing

/// A CSV header 100,000 fields wide (issue 14): checked in linear time, reported completely and
/// briefly.
///
/// Quadratic checks took 25 s at this width (and 6.5 minutes with a duplicate last), so the bounded
/// runner's 60-second limit would stop them.
@Suite struct WideHeaderTests {
    private func project(header: String) throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write("seeds/schema.sql", "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT);\n")
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  t: { file: data/t.csv }\n")
        try project.write("seeds/data/t.csv", header + "\n")
        return project
    }

    @Test func aDuplicateAtTheEndOf100000ColumnsIsFound() throws {
        let project = try project(header: (0..<100_000).map { "c\($0)" }.joined(separator: ",") + ",c5")
        let result = try runSeedkitBounded(["build"], in: project.root)
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderr,
            "seeds/data/t.csv:1:100001: error: column 'c5' appears twice in the header (fields 6 and 100001) [2001]\n",
            "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
    }

    @Test func unknownColumnsAreNamedUpTo20ThenCounted() throws {
        let project = try project(header: "id,name," + (0..<100_000).map { "c\($0)" }.joined(separator: ","))
        let result = try runSeedkitBounded(["build"], in: project.root)
        expectEqual(result.status, 1, "\(result)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        expectEqual(lines.count, 22, "\(lines.prefix(3)) … \(lines.suffix(2))")
        expectEqual(
            lines.first,
            "seeds/data/t.csv:1:3: error: column 'c0' names no column of table t (it has id, name); map it with columns: or skip it with ignore: [2020]"
        )
        expectEqual(
            lines.dropFirst(19).first,
            "seeds/data/t.csv:1:22: error: column 'c19' names no column of table t (it has id, name); map it with columns: or skip it with ignore: [2020]"
        )
        expectEqual(
            lines.dropLast().last,
            "seeds/data/t.csv:1:23: error: 99980 more columns from here on name no column of table t [2020]")
        expectEqual(lines.last, "21 errors", "a list this long ends with its totals")
        #expect(!project.exists("build/seed.sqlite"))
    }
}
