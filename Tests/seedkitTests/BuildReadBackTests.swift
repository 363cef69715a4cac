import Foundation
import GRDB
import SeedTestSupport
import Testing

/// Issue 41, the build side: the seed is read back and compared with the fixtures, an output
/// that is not a store is never replaced, and migrations are refused as `migrate` refuses them.
@Suite struct BuildReadBackTests {
    /// A project of one table `t` (plus what `schema` adds) whose fixture is `data/t.csv`.
    static func project(schema: String, manifest: String, files: [String: String]) throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write("seeds/schema.sql", schema)
        try project.write("seeds/seedkit.yml", "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n" + manifest)
        for (name, text) in files { try project.write("seeds/data/\(name)", text) }
        return project
    }

    // MARK: - Read-back

    @Test func aTriggerThatChangesTheRowsABuildInsertsFailsItNamingRowColumnAndBothValues() throws {
        let project = try Self.project(
            schema: """
                CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, note TEXT);
                CREATE TRIGGER shout AFTER INSERT ON t BEGIN UPDATE t SET note = upper(NEW.note) WHERE id = NEW.id; END;

                """,
            manifest: "  t: { file: data/t.csv, key: name }\n", files: ["t.csv": "name,note\na,quiet\nb,LOUD\n"])
        try project.write("build/seed.sqlite", Data("SQLite format 3\0 an earlier seed".utf8))
        let before = project.sha256("build/seed.sqlite")
        let result = try project.seedkit("build")
        expectEqual(result.status, 4, "\(result)")
        expectEqual(
            result.stderrLines,
            [
                "seeds/data/t.csv:2: error: read back from the seed, t differs from the fixture: row name 'a', column note: the fixture gives 'quiet', the seed holds 'QUIET' (the schema's triggers on t may change the rows a build inserts: shout; a seed holds the fixture's rows or the build fails); nothing was written (build/seed.sqlite is as it was) [2300]"
            ])
        expectEqual(project.sha256("build/seed.sqlite"), before, "the earlier seed is left as it was")
        #expect(project.listing("build") == ["seed.sqlite"], "no temporary file is left")
        // Without the read-back the trigger's rows ship, as before.
        let unchecked = try project.seedkit("build", "--without-read-back")
        expectEqual(unchecked.status, 0, "\(unchecked)")
    }

    @Test func aTriggerThatAddsRowsToALoadedTableFailsTheBuildWithTheCounts() throws {
        let project = try Self.project(
            schema: """
                CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
                CREATE TRIGGER echo AFTER INSERT ON t WHEN NEW.name NOT LIKE '%copy' BEGIN INSERT INTO t (name) VALUES (NEW.name || ' copy'); END;

                """,
            manifest: "  t: { file: data/t.csv, key: name }\n", files: ["t.csv": "name\na\n"])
        let result = try project.seedkit("build")
        expectEqual(result.status, 4, "\(result)")
        #expect(
            result.stderr.contains("the seed holds 2 rows of t, the fixture gives 1 (the schema's triggers on t"),
            "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
    }

    @Test func aTemplatesOwnRowsAreLeftOutOfTheReadBack() throws {
        let project = try TemporaryProject(bookStore: false)
        let template = try DatabaseQueue(path: project.path("seeds/template.sqlite"))
        try template.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, note TEXT)")
            try db.execute(sql: "INSERT INTO t (id, name, note) VALUES (7, 'kept', 'from the template')")
        }
        try template.close()
        try project.write(
            "seeds/seedkit.yml",
            "template: template.sqlite\noutput: ../build/seed.sqlite\ntables:\n  t: { file: data/t.csv, key: name }\n")
        try project.write("seeds/data/t.csv", "name,note\na,one\nb,\n")
        let result = try project.seedkit("build")
        try #require(result.status == 0, "\(result)")
        let rows = try project.database("build/seed.sqlite").read { db in
            try Row.fetchAll(db, sql: "SELECT name, note FROM t ORDER BY name")
        }
        expectEqual(
            rows,
            [
                ["name": "a", "note": "one"], ["name": "b", "note": nil],
                ["name": "kept", "note": "from the template"],
            ])
    }

    /// The first case: rows that refer to each other in a cycle, read back by SQL here.
    @Test func aCycleOfSelfRefsReadsBackAsTheFixtureGivesIt() throws {
        let project = try Self.project(
            schema:
                "CREATE TABLE t (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, x INTEGER REFERENCES t(id), y INTEGER REFERENCES t(id));\n",
            manifest: "  t: { file: data/t.csv, key: code, refs: { x: t.code, y: t.code } }\n",
            files: ["t.csv": "code,x,y\nb,,\na,A,A\nA,a,\n"])
        let result = try project.seedkit("build")
        try #require(result.status == 0, "\(result)")
        let rows = try project.database("build/seed.sqlite").read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT t.code, x.code AS x, y.code AS y FROM t LEFT JOIN t AS x ON x.id = t.x LEFT JOIN t AS y ON y.id = t.y ORDER BY t.code"
            )
        }
        expectEqual(
            rows,
            [
                ["code": "A", "x": "a", "y": nil], ["code": "a", "x": "A", "y": "A"],
                ["code": "b", "x": nil, "y": nil],
            ])
    }

    /// UnicodeData.txt's shape (`;`, no header, a titlecase that often names a later code): 256
    /// rows read back wrong on 17ab545.
    ///
    /// A few thousand generated rows, read back by SQL here.
    @Test func aUnicodeDataShapedSelfRefTableReadsBackWhole() throws {
        var random = SeededRandom(defaultSeed: 0x0063_0300)
        let count = 3000
        let codes = (0..<count).map { String(format: "%04X", 0x100 + $0 * 3) }
        var lines: [String] = []
        var expected: [String: [String?]] = [:]
        for (index, code) in codes.enumerated() {
            // upper: an earlier code; lower: a later one; title: either, often the row right after.
            func pick(_ range: Range<Int>) -> String? {
                guard !range.isEmpty, random.next() % 3 != 0 else { return nil }
                return codes[range.lowerBound + Int(random.next() % UInt64(range.count))]
            }
            let upper = pick(0..<index)
            let lower = pick((index + 1)..<count)
            let title = random.next() % 2 == 0 ? (index + 1 < count ? codes[index + 1] : nil) : pick(0..<count)
            lines.append(
                [code, "CHARACTER \(index)", "Ll", upper ?? "", lower ?? "", title ?? ""].joined(separator: ";"))
            expected[code] = [upper, lower, title]
        }
        let project = try Self.project(
            schema: """
                CREATE TABLE chars (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL, category TEXT,
                  uppercase INTEGER REFERENCES chars(id), lowercase INTEGER REFERENCES chars(id), titlecase INTEGER REFERENCES chars(id));

                """,
            manifest: """
                  chars:
                    file: data/UnicodeData.txt
                    format: csv
                    delimiter: ";"
                    header: [code, name, category, uppercase, lowercase, titlecase]
                    key: code
                    refs: { uppercase: chars.code, lowercase: chars.code, titlecase: chars.code }

                """, files: ["UnicodeData.txt": lines.joined(separator: "\n") + "\n"])
        // Without the build's read-back: the SQL here is the only judge.
        let result = try project.seedkit("build", "--without-read-back")
        try #require(result.status == 0, "\(result)")
        let rows = try project.database("build/seed.sqlite").read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT c.code, u.code AS upper, l.code AS lower, t.code AS title FROM chars AS c
                    LEFT JOIN chars AS u ON u.id = c.uppercase LEFT JOIN chars AS l ON l.id = c.lowercase
                    LEFT JOIN chars AS t ON t.id = c.titlecase
                    """)
        }
        expectEqual(rows.count, count)
        var wrong: [String] = []
        for row in rows {
            let code: String = row["code"]
            let held: [String?] = [row["upper"], row["lower"], row["title"]]
            if expected[code] != held { wrong.append(code) }
        }
        #expect(wrong.isEmpty, "\(wrong.count) rows read back wrong, first \(wrong.prefix(5))")
        expectEqual(try project.seedkit("build").status, 0, "the read-back agrees")
    }

    // MARK: - The output

    @Test func anOutputThatIsNotASQLiteStoreIsRefusedAndKept() throws {
        let project = try TemporaryProject()
        try project.write("notes.txt", "my notes\n")
        let result = try project.seedkit("build", "--output", "notes.txt")
        expectEqual(result.status, 2, "\(result)")
        expectEqual(
            result.stderrLines,
            [
                project.path("notes.txt")
                    + ": error: the output exists and is not a SQLite store (its first bytes are not \"SQLite format 3\"); a build replaces its output, so it would be lost: move it away or choose another --output; nothing was written [2100]"
            ])
        expectEqual(project.read("notes.txt"), Data("my notes\n".utf8))
    }

    @Test func anEmptyOutputOrAnEarlierSeedIsReplaced() throws {
        let project = try TemporaryProject()
        try project.write("empty.sqlite", Data())
        expectEqual(try project.seedkit("build", "--output", "empty.sqlite").status, 0)
        expectEqual(try project.seedkit("build", "--output", "empty.sqlite").status, 0, "a seed is replaced")
        let count = try project.database("empty.sqlite").read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM books")
        }
        expectEqual(count, 3)
    }

    // MARK: - Migrations migrate refuses

    @Test(arguments: [
        (
            ["update:", "  book:", "    - { key: The fourth book, from: { price: 12 }, to: { price: 13 } }"],
            "migrations/0002-typo.yml: error: unknown table 'book': the store has categories, books [2100]"
        ),
        (
            ["update:", "  books:", "    - { key: The fourth book, from: { prise: 12 }, to: { price: 13 } }"],
            "migrations/0002-typo.yml:3: error: update of books 'The fourth book' sets 'price' without a 'from' value; add what the previous seed shipped, so that a user's edit is never overwritten [2100]"
        ),
        (
            ["update:", "  books:", "    - { key: The fourth book, to: { price: 13 } }"],
            "migrations/0002-typo.yml:3: error: update of books 'The fourth book' sets 'price' without a 'from' value; add what the previous seed shipped, so that a user's edit is never overwritten [2100]"
        ),
    ])
    func aMigrationMigrateRefusesIsRefusedByBuildAndExport(lines: [String], message: String) throws {
        let project = try TemporaryProject.withUserStore()
        // Lines, not one text: a test log shows each argument on one line.
        try project.write("migrations/0002-typo.yml", lines.map { $0 + "\n" }.joined())
        let dryRun = try project.seedkit("migrate", "user.sqlite", "--dry-run")
        expectEqual(dryRun.status, 2, "\(dryRun)")
        #expect(dryRun.stderrLines.contains(message), "\(dryRun)")
        let build = try project.seedkit("build", "--output", "build/new.sqlite")
        expectEqual(build.status, 2, "\(build)")
        expectEqual(build.stderrLines, [message])
        #expect(!project.exists("build/new.sqlite"))
        let export = try project.seedkit("export-migrations", "exported")
        expectEqual(export.status, 2, "\(export)")
        expectEqual(export.stderrLines, [message])
        #expect(!project.exists("exported"))
    }
}
