import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// Values at the edges (issue 14): integers just past 64 bits, numbers that look integral,
/// dates with offsets and fractions, keys without a value.
///
/// Exact results or a clear error.
@Suite struct HostileValueTests {
    /// A one-table project: `counts(name TEXT, n INTEGER, at DATETIME, day DATE)`.
    private func countsProject(_ fixture: String, json: Bool = false, rules: String = "") throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE counts (id INTEGER PRIMARY KEY, name TEXT, n INTEGER, at DATETIME, day DATE);\n")
        try project.write(
            "seeds/seedkit.yml",
            """
            schema: schema.sql
            output: ../build/seed.sqlite
            tables:
              counts:
                file: data/counts.\(json ? "json" : "csv")
                key: name
            \(rules)
            """)
        try project.write("seeds/data/counts.\(json ? "json" : "csv")", fixture)
        return project
    }

    @Test func integersJustPast64BitsAreRefusedNotClampedInCSV() throws {
        let project = try countsProject(
            """
            name,n
            min,-9223372036854775808
            max,9223372036854775807
            below,-9223372036854775809
            far below,-9223372036854776832
            above,9223372036854775808
            exponent,1e19
            fraction,12.5

            """)
        let result = try project.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderr,
            """
            seeds/data/counts.csv:4:2: error: n: '-9223372036854775809' is not an integer from -9223372036854775808 to 9223372036854775807 (the column is INTEGER) [2010]
            seeds/data/counts.csv:5:2: error: n: '-9223372036854776832' is not an integer from -9223372036854775808 to 9223372036854775807 (the column is INTEGER) [2010]
            seeds/data/counts.csv:6:2: error: n: '9223372036854775808' is not an integer from -9223372036854775808 to 9223372036854775807 (the column is INTEGER) [2010]
            seeds/data/counts.csv:7:2: error: n: '1e19' is not an integer from -9223372036854775808 to 9223372036854775807 (the column is INTEGER) [2010]
            seeds/data/counts.csv:8:2: error: n: '12.5' is not an integer (the column is INTEGER) [2010]

            """, "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
    }

    @Test func integralDecimalsAndExponentsAreReadExactly() throws {
        let project = try countsProject(
            "name,n\nmin,-9223372036854775808\nmax,9223372036854775807\npoint,9223372036854775000.0\nexp,1.5e3\nzero,-0.0e5\nbig exp,9.223372036854775807e18\n"
        )
        let result = try project.seedkit("build")
        expectEqual(result.status, 0, "\(result)")
        try expectEqual(
            project.rows("build/seed.sqlite", "SELECT name, n FROM counts ORDER BY id"),
            [
                "'min'|-9223372036854775808", "'max'|9223372036854775807", "'point'|9223372036854775000",
                "'exp'|1500", "'zero'|0", "'big exp'|9223372036854775807",
            ])
    }

    @Test func integersJustPast64BitsAreRefusedInJSONFixtures() throws {
        let project = try countsProject(
            """
            [{"name": "ok", "n": -9223372036854775808},
             {"name": "below", "n": -9223372036854775809},
             {"name": "point", "n": 9223372036854775000.0}]
            """, json: true)
        let result = try project.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderr,
            "seeds/data/counts.json:2:2: error: n: -9223372036854775809 is not an integer from -9223372036854775808 to 9223372036854775807 (the column is INTEGER) [2010]\n",
            "\(result)")
    }

    /// A project with a built seed copied to `user.sqlite`.
    private func countsUserStore() throws -> TemporaryProject {
        let project = try countsProject("name,n\nfirst,1\n")
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 0, "\(build)")
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("user.sqlite"))
        return project
    }

    @Test func integersJustPast64BitsAreRefusedInMigrations() throws {
        let project = try countsUserStore()
        let before = sha256(of: project, "user.sqlite")
        for (file, text) in [
            ("0001-low.yml", "insert:\n  counts:\n    - { name: low, n: -9223372036854775809 }\n"),
            ("0001-low.json", #"{"insert": {"counts": [{"name": "low", "n": -9223372036854775809}]}}"#),
        ] {
            try project.write("migrations/\(file)", text)
            let result = try project.seedkit("migrate", "user.sqlite")
            expectEqual(result.status, 1, "\(result)")
            #expect(
                result.stderr.hasPrefix(
                    "migrations/\(file):\(file.hasSuffix("yml") ? 3 : 1): error: counts.n: \"-9223372036854775809\" is not an integer from -9223372036854775808 to 9223372036854775807 (the column is INTEGER) [2010]"
                ), "\(result)")
            expectEqual(sha256(of: project, "user.sqlite"), before)
            try project.remove("migrations/\(file)")
        }
        // A double past 2^53 can't say which integer was meant.
        try project.write(
            "migrations/0001-real.yml", "insert:\n  counts:\n    - { name: real, n: 9007199254740993.0 }\n")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 1, "\(result)")
        #expect(
            result.stderr.contains(
                "counts.n: 9007199254740992.0 is not an integer from -9223372036854775808 to 9223372036854775807 (write it as a whole number, without a point or exponent)"
            ), "\(result)")
        expectEqual(sha256(of: project, "user.sqlite"), before)
    }

    @Test func yamlInfinityAndNaNAreRefusedNotStoredAsNull() throws {
        let project = try countsUserStore()
        let before = sha256(of: project, "user.sqlite")
        try project.write(
            "migrations/0001-nan.yml",
            "insert:\n  counts:\n    - { name: nan, n: .nan }\n    - { name: inf, n: .inf }\n")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 1, "\(result)")
        #expect(
            result.stderr.contains("counts.n: nan is not a finite number (the column is INTEGER) [2010]"), "\(result)")
        // Infinity is shown as SQLite's literal for it (docs/reference.md).
        #expect(
            result.stderr.contains("counts.n: 1e999 is not a finite number (the column is INTEGER) [2010]"), "\(result)"
        )
        expectEqual(sha256(of: project, "user.sqlite"), before)
    }

    @Test func afterAndBeforeCompareInstantsNotText() throws {
        let project = try countsProject(
            """
            name,at
            offset earlier,2024-01-05T12:00:00+05:00
            half second later,2024-01-05T10:00:00.5Z
            same instant,2024-01-05T11:00:00+01:00
            late,2024-01-06T00:00:00.000001-00:00
            date only,2024-01-05

            """,
            rules: """
                    rules:
                      at: { after: 2024-01-05T10:00:00Z, before: 2024-01-06 }
                """)
        let result = try project.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderr,
            """
            seeds/data/counts.csv:2:2: error: at 2024-01-05T12:00:00+05:00 is not after 2024-01-05T10:00:00Z, the earliest allowed [1640]
            seeds/data/counts.csv:4:2: error: at 2024-01-05T11:00:00+01:00 is not after 2024-01-05T10:00:00Z, the earliest allowed [1640]
            seeds/data/counts.csv:5:2: error: at 2024-01-06T00:00:00.000001-00:00 is not before 2024-01-06, the latest allowed [1630]
            seeds/data/counts.csv:6:2: error: at 2024-01-05 is not after 2024-01-05T10:00:00Z, the earliest allowed [1640]

            """, "\(result)")
    }

    @Test func datesCompareAsDatesAndFractionsAreAcceptedInLimits() throws {
        let project = try countsProject(
            "name,day,at\nok,2024-02-29,2024-01-05T10:00:00.25Z\nsame,2024-01-01,2024-01-05T10:00:00.5Z\n",
            rules: """
                    rules:
                      day: { after: 2024-01-01, before: 2024-03-01 }
                      at: { after: 2024-01-05T10:00:00Z, before: "2024-01-05T10:00:00.5Z" }
                """)
        let result = try project.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderr,
            """
            seeds/data/counts.csv:3:2: error: day 2024-01-01 is not after 2024-01-01, the earliest allowed [1640]
            seeds/data/counts.csv:3:3: error: at 2024-01-05T10:00:00.5Z is not before 2024-01-05T10:00:00.5Z, the latest allowed [1630]

            """, "\(result)")
    }

    @Test func migrationsAndVerifyCompareDatesTheSameWay() throws {
        let project = try countsProject(
            "name,at\nfirst,2024-01-05T10:30:00Z\n",
            rules: """
                    rules:
                      at: { after: 2024-01-05T10:00:00Z }
                """)
        try expectEqual(project.seedkit("build", "--migrations", "none").status, 0)
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("user.sqlite"))
        let before = sha256(of: project, "user.sqlite")
        try project.write(
            "migrations/0001-early.yml",
            "insert:\n  counts:\n    - { name: early, at: \"2024-01-05T14:00:00+05:00\" }\n")
        let migrate = try project.seedkit("migrate", "user.sqlite")
        expectEqual(migrate.status, 1, "\(migrate)")
        #expect(
            migrate.stderr.contains(
                "migrations/0001-early.yml:3: error: counts: at 2024-01-05T14:00:00+05:00 is not after 2024-01-05T10:00:00Z, the earliest allowed [1640]"
            ), "\(migrate)")
        expectEqual(sha256(of: project, "user.sqlite"), before)
        try project.remove("migrations/0001-early.yml")
        // A row that got into a store some other way: verify finds it.
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "INSERT INTO counts (name, at) VALUES ('sneaked', '2024-01-05T12:00:00+05:00')")
        }
        let verify = try project.seedkit("verify", "user.sqlite")
        expectEqual(verify.status, 1, "\(verify)")
        #expect(verify.stdout.contains("2024-01-05T12:00:00+05:00 is not after 2024-01-05T10:00:00Z"), "\(verify)")
    }

    @Test func aNaturalKeyMustHaveAValueInEveryFixtureRow() throws {
        let project = try countsProject("name,n\n,1\n,2\nx,3\n")
        var result = try project.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderr,
            """
            seeds/data/counts.csv:2:1: error: name is empty, but it is part of the natural key of counts, which every row must have [1570]
            seeds/data/counts.csv:3:1: error: name is empty, but it is part of the natural key of counts, which every row must have [1570]

            """, "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
        // JSON: null or left out.
        let json = try countsProject("[{\"name\": null, \"n\": 1},\n {\"n\": 2},\n {\"name\": \"x\"}]\n", json: true)
        result = try json.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderr,
            """
            seeds/data/counts.json:1:1: error: name is empty, but it is part of the natural key of counts, which every row must have [1570]
            seeds/data/counts.json:2: error: name is missing, but it is part of the natural key of counts, which every row must have [1570]

            """, "\(result)")
        // A header without the key column.
        let headless = try countsProject("n\n1\n2\n")
        result = try headless.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderr,
            "seeds/data/counts.csv:1: error: name is part of the natural key of counts, but the header has no such column [1570]\n",
            "\(result)")
    }

    @Test func everyColumnOfACompositeKeyMustHaveAValue() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write("seeds/schema.sql", "CREATE TABLE pages (book TEXT, number INTEGER, text TEXT);\n")
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  pages: { file: data/pages.csv, key: [book, number] }\n"
        )
        try project.write("seeds/data/pages.csv", "book,number,text\nA,1,one\nA,,two\nA,,three\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderr,
            """
            seeds/data/pages.csv:3:2: error: number is empty, but it is part of the natural key of pages, which every row must have [1570]
            seeds/data/pages.csv:4:2: error: number is empty, but it is part of the natural key of pages, which every row must have [1570]

            """, "\(result)")
    }

    @Test func aMigrationRowNeedsAValueForItsNaturalKey() throws {
        let project = try countsUserStore()
        let before = sha256(of: project, "user.sqlite")
        try project.write(
            "migrations/0001-null-keys.yml",
            """
            insert:
              counts:
                - { name: null, n: 1 }
                - { n: 2 }
            update:
              counts:
                - { key: ~, from: { n: 1 }, to: { n: 2 } }

            """)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderr,
            """
            migrations/0001-null-keys.yml:3: error: this row for counts has no value for its key column 'name'; a natural key must have one [1570]
            migrations/0001-null-keys.yml:4: error: this row for counts has no value for its key column 'name'; a natural key must have one [1570]
            migrations/0001-null-keys.yml:7: error: the key of this counts row has no value for 'name'; a key must have one [1570]

            """, "\(result)")
        expectEqual(sha256(of: project, "user.sqlite"), before)
    }
}
