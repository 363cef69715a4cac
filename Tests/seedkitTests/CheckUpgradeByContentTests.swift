import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

@testable import SeedTooling

/// Issue 41: `check-upgrade`'s verdict is the upgraded seed compared by content with a fresh
/// build, the simulated user's rows read back as SQLite holds them.
///
/// Each case failed on 17ab545.
@Suite struct CheckUpgradeByContentTests {
    /// A project of one table, `books (title, price)`, shipped as seeds/releases/1.0.sqlite.
    private func booksProject(schema: String, books: String) throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write("seeds/schema.sql", schema)
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  books: { file: data/books.csv, key: title }\n"
        )
        try project.write("seeds/data/books.csv", books)
        try expectEqual(project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status, 0)
        return project
    }

    /// A child keyed `[parent_ref, tag]` deleted in the release that renames its parent: the key
    /// names the parent by its new key, the old seed by its old one (it was a typo, 2030, exit 1).
    @Test func aDeletedChildOfARenamedParentIsNotATypo() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE p (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT);\nCREATE TABLE c (id INTEGER PRIMARY KEY, p_id INTEGER NOT NULL REFERENCES p(id), tag TEXT NOT NULL, v INTEGER, UNIQUE (p_id, tag));\n"
        )
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  p: { file: data/p.csv, key: code }\n  c: { file: data/c.csv, key: [p_id, tag], refs: { p_id: p.code } }\n"
        )
        try project.write("seeds/data/p.csv", "code,name\na,Alpha\nq,Q\n")
        try project.write("seeds/data/c.csv", "p_id,tag,v\na,x,1\na,y,2\nq,z,3\n")
        try expectEqual(project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status, 0)
        try project.write("seeds/data/p.csv", "code,name\nb,Alpha\nq,Q\n")
        try project.write("seeds/data/c.csv", "p_id,tag,v\nb,x,1\nq,z,3\n")
        let generated = try project.seedkit(
            "new-migration", "ren", "--from", "seeds/releases/1.0.sqlite", "--rename", "p:a=b")
        expectEqual(generated.status, 0, "\(generated)")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
        #expect(check.stdout.hasPrefix("seeds/releases/1.0.sqlite: applied 0001-ren; converges with a fresh build\n"))
        #expect(check.stdout.contains("  c: 1 row the release touched as in a fresh build (1 deleted)\n"), "\(check)")
        #expect(
            check.stdout.contains("  ok: user row c 'b', 'x (added by the user)' still refers to the renamed p 'b'\n"),
            "\(check)")
        // And migrate agrees: the upgraded store has no row c (b, y).
        try FileManager.default.copyItem(
            atPath: project.path("seeds/releases/1.0.sqlite"), toPath: project.path("user.sqlite"))
        try expectEqual(project.seedkit("migrate", "user.sqlite").status, 0)
        let tags = try project.database("user.sqlite").read { db in
            try String.fetchAll(db, sql: "SELECT p.code || c.tag FROM c JOIN p ON p.id = c.p_id ORDER BY 1")
        }
        expectEqual(tags, ["bx", "qz"])
    }

    /// gemoji's shape (`emoji.json` 3.0.1 → 4.1.0): tags from a `query:` over `json_each`, keyed
    /// `[emoji, tag]`.
    ///
    /// The user's row referring to a deleted emoji was looked for under the emoji it was copied
    /// from, and reported LOST.
    @Test func aUserRowReferringToADeletedParentIsFoundUnderThatParent() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE emoji (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, glyph TEXT NOT NULL);\nCREATE TABLE emoji_tags (emoji_id INTEGER NOT NULL REFERENCES emoji(id), tag TEXT NOT NULL, PRIMARY KEY (emoji_id, tag));\n"
        )
        try project.write(
            "seeds/seedkit.yml",
            """
            schema: schema.sql
            output: ../build/seed.sqlite
            sources:
              raw: { file: data/emoji.json }
            tables:
              emoji:
                query: SELECT json_extract(aliases, '$[0]') AS name, emoji AS glyph FROM raw
                key: name
              emoji_tags:
                query: SELECT json_extract(raw.aliases, '$[0]') AS emoji_id, t.value AS tag FROM raw, json_each(raw.tags) AS t
                key: [emoji_id, tag]
                refs: { emoji_id: emoji.name }

            """)
        let kept =
            #"{"emoji":"😀","aliases":["grinning"],"tags":["smile","happy"]},{"emoji":"😃","aliases":["smiley"],"tags":["happy"]}"#
        try project.write(
            "seeds/data/emoji.json",
            "[\(kept),{\"emoji\":\"👰\",\"aliases\":[\"bride\"],\"tags\":[\"wedding\"]},{\"emoji\":\"💂\",\"aliases\":[\"guard\"],\"tags\":[]}]\n"
        )
        try expectEqual(project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status, 0)
        try project.write("seeds/data/emoji.json", "[\(kept)]\n")
        try expectEqual(project.seedkit("new-migration", "rel", "--from", "seeds/releases/1.0.sqlite").status, 0)
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
        #expect(!check.stdout.contains("LOST"), "\(check)")
        #expect(
            check.stdout.contains(
                "  ok: user row emoji_tags 'bride', 'smile (added by the user)'.tag = \"smile (added by the user)\" kept\n"
            ), "\(check)")
        #expect(
            check.stdout.contains(
                "  ok: seed row emoji 'bride', which a user row refers to, kept (its delete denied)\n"),
            "\(check)")
        #expect(check.stdout.contains("  emoji: 2 rows the release touched as in a fresh build (2 deleted)\n"))
    }

    /// A SwiftData date is a REAL (seconds since 2001) with a fraction: the user's edit was read
    /// back through a conversion and called LOST, "overwritten with" the same number.
    @Test func aUsersEditOfARealDateIsComparedAsSQLiteHoldsIt() throws {
        let project = try swiftDataProject()
        let books = try #require(project.read("seeds/data/Book.csv").map { String(decoding: $0, as: UTF8.self) })
        try project.write(
            "seeds/data/Book.csv", books.replacingOccurrences(of: "1974-05-01", with: "2026-01-30T08:21:46.80792Z"))
        let built = try project.seedkit("build", "--migrations", "none")
        expectEqual(built.status, 0, "\(built)")
        try FileManager.default.createDirectory(
            atPath: project.path("seeds/releases"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: project.path("build/seed.store"), toPath: project.path("seeds/releases/1.0.store"))
        try project.write(
            "seeds/data/Book.csv", books.replacingOccurrences(of: "1974-05-01", with: "2026-01-31T08:21:46.80792Z"))
        try expectEqual(project.seedkit("new-migration", "d", "--from", "seeds/releases/1.0.store").status, 0)
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.store")
        expectEqual(check.status, 0, "\(check)")
        #expect(
            check.stdout.contains("  ok: user edit Book 'The Dispossessed'.published = 791454107.80792 kept\n"),
            "\(check)")
        #expect(check.stdout.hasSuffix("1 old seed converges\n"), "\(check)")
    }

    /// A release deleting a row whose user edit the schema refuses: the row has its verdict
    /// (counted ok), and the edit not tried says SQLite's reason.
    ///
    /// Nothing was printed for it.
    @Test func aDeletedRowHasAVerdictAndAnEditNotTriedSaysWhy() throws {
        let project = try booksProject(
            schema:
                "CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, price INTEGER CHECK (price <= 24));\n",
            books: "title,price\nA,24\nB,20\n")
        try project.write("seeds/data/books.csv", "title,price\nB,20\n")
        try expectEqual(project.seedkit("new-migration", "rel", "--from", "seeds/releases/1.0.sqlite").status, 0)
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
        #expect(check.stdout.contains("  books: 1 row the release touched as in a fresh build (1 deleted)\n"))
        #expect(
            check.stdout.contains(
                "  not checked: books 'A': the delete was not tried against a user's edit or a user's row referring to it: the old seed refused the user's edit of price: cannot update books 'A': CHECK constraint failed: price <= 24"
            ), "\(check)")
        let json = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite", "--format", "json")
        let outcomes = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]], "\(json)")
        expectEqual(outcomes.first?["okRows"] as? [String], ["books 'A' deleted as in a fresh build"])
        let tables = outcomes.first?["tables"] as? [[String: Any]]
        expectEqual(tables?.first?["deleted"] as? Int, 1)
    }

    /// `schema.sql` gains a column and no schema step adds it: a divergence (exit 1), as a new
    /// table is, not SQLite's `no such column` (exit 4).
    @Test func aColumnNoSchemaStepAddsDiverges() throws {
        let project = try booksProject(
            schema: "CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, price REAL);\n",
            books: "title,price\nA,1.5\nB,2\nC,3\n")
        try project.write("seeds/data/books.csv", "title,price\nA,1.5\nB,2.5\n")
        try expectEqual(project.seedkit("new-migration", "rel", "--from", "seeds/releases/1.0.sqlite").status, 0)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, price REAL, note TEXT);\n")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 1, "\(check)")
        #expect(
            check.stdout.hasPrefix(
                "seeds/releases/1.0.sqlite: applied 0001-rel; DIVERGES from a fresh build\n  schema: column books.note only in a fresh build\n"
            ), "\(check)")
        #expect(check.stdout.hasSuffix("1 of 1 old seeds do not converge\n"), "\(check)")
    }

    /// A wrong `from:` (25 where 24 shipped): the divergence names the migration, its line and
    /// what the run said of the row.
    @Test func aWrongFromNamesTheMigrationAndItsLine() throws {
        let project = try booksProject(
            schema: "CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, price INTEGER);\n",
            books: "title,price\nA,24\nB,20\n")
        try project.write("seeds/data/books.csv", "title,price\nA,19\nB,20\n")
        try expectEqual(project.seedkit("new-migration", "rel", "--from", "seeds/releases/1.0.sqlite").status, 0)
        let path = "migrations/0001-rel.yml"
        let written = String(decoding: try #require(project.read(path)), as: UTF8.self)
        try project.write(path, written.replacingOccurrences(of: "from: { price: 24 }", with: "from: { price: 25 }"))
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 1, "\(check)")
        #expect(
            check.stdout.contains(
                "  books 'A'.price: got 24, expected 19\n    migrations/0001-rel.yml:4: migration 0001-rel did not apply its change: conflict: changed in the store (price is 24, expected 25); the store's values are kept\n"
            ), "\(check)")
        #expect(check.stdout.contains("  books: 0 rows the release touched as in a fresh build; 1 DIVERGES\n"))
    }
}

/// Issue 45: check-upgrade's work follows the release.
///
/// Counted, not clocked: the statements run on its copies of the old seed (each run of a prepared
/// statement counts) and the steps SQLite's virtual machine took for them (the rows they read and
/// wrote).
@Suite struct CheckUpgradeComplexityTests {
    /// A seed of `count` books and a release that changes a tenth of them; the statements and VM steps counted.
    private func statements(_ count: Int) throws -> (statements: Int, steps: Int) {
        try counts(count).check
    }

    /// ``statements(_:)`` for a release that updates one row in `every` (deletes one in 4 × `every`,
    /// inserts `count` / 2 × `every`), and those of one `migrate` run of it on a copy of the old seed.
    private func counts(_ count: Int, every: Int = 10) throws -> (
        check: (statements: Int, steps: Int), migrate: (statements: Int, steps: Int)
    ) {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);\nCREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, price REAL NOT NULL, category_id INTEGER REFERENCES categories(id));\n"
        )
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  categories: { file: data/categories.csv, key: name }\n  books: { file: data/books.csv, key: title, refs: { category_id: categories.name } }\n"
        )
        try project.write("seeds/data/categories.csv", "name\nFiction\nBiography\n")
        func books(_ release: Bool) -> String {
            "title,price,category_id\n"
                + (0..<count).map { index in
                    let changed = release && index % every == 0
                    let deleted = release && index % (4 * every) == 5
                    return deleted
                        ? ""
                        : "Book \(index),\(changed ? index + 1 : index),\(index % 3 == 0 ? "Biography" : "Fiction")\n"
                }.joined()
                + (release ? (0..<count / (2 * every)).map { "New \($0),1,Fiction\n" }.joined() : "")
        }
        try project.write("seeds/data/books.csv", books(false))
        try expectEqual(project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status, 0)
        try project.write("seeds/data/books.csv", books(true))
        try expectEqual(project.seedkit("new-migration", "rel", "--from", "seeds/releases/1.0.sqlite").status, 0)
        try expectEqual(project.seedkit("build").status, 0)
        let manifest = try Manifest.load(path: project.path("seeds/seedkit.yml"))
        let migrations = try MigrationDirectory.load(
            project.url("migrations"), displayPath: "migrations", yamlParser: YAMLDocument.parser)
        var checker = UpgradeChecker(manifest: manifest, migrations: migrations)
        let counted = StatementCount()
        checker.statements = counted
        let outcome = try #require(
            try checker.check([project.path("seeds/releases/1.0.sqlite")], fresh: project.url("build/seed.sqlite"))
                .first)
        #expect(outcome.passed, "\(outcome.divergences) \(outcome.lostEdits)")
        expectEqual(outcome.tables.first { $0.table == "books" }?.ok.map(\.kind), ["inserted", "updated", "deleted"])
        let single = StatementCount()
        var configuration = Configuration()
        configuration.prepareDatabase { db in single.count(db) }
        let copy = try DatabaseQueue(configuration: configuration)
        try StoreAccess.openReadOnly(project.path("seeds/releases/1.0.sqlite")).backup(to: copy)
        let options = SeedMigrator.Options(tables: manifest.specs, validator: ManifestValidator(manifest: manifest))
        let report = try SeedMigrator(migrations: migrations).migrate(copy, options: options)
        expectEqual(report.migrations.map(\.id), ["0001-rel"])
        return ((counted.value, counted.steps), (single.value, single.steps))
    }

    /// The simulated user's run applies the release's changes of the rows it touched, not all of
    /// them: twice the changed rows (same seed) add to the check what they add to one `migrate`
    /// run of the release (the seed's own run), not to two.
    @Test func theUsersRunCostsTheRowsItTouched() throws {
        let small = try counts(800, every: 20)
        let large = try counts(800, every: 10)
        let check = large.check.steps - small.check.steps
        let migrate = large.migrate.steps - small.migrate.steps
        #expect(migrate > 0, "\(small) → \(large)")
        #expect(
            Double(check) <= 1.3 * Double(migrate),
            "VM steps the doubled release adds: to the check \(check), to one migrate run \(migrate)")
    }

    @Test func doublingTheRowsAtMostDoublesTheStatements() throws {
        let small = try statements(400)
        let large = try statements(800)
        #expect(large.statements > small.statements, "the count follows the release: \(small) → \(large)")
        #expect(large.statements <= 2 * small.statements, "at most doubled: \(small) → \(large)")
        #expect(small.steps > 10 * small.statements, "SQLite's steps are counted: \(small)")
        #expect(large.steps <= 2 * small.steps, "rows read and written at most doubled: \(small) → \(large)")
    }
}

/// Issue 45: the Unicode Character Database's shape (a release of 10,501 inserts and 455
/// updates printed 10,965 lines): by default a line per table, the verdict and what the simulated
/// user did, under 100 lines; `--verbose` and `--format json` list every row the release touched.
@Suite struct CheckUpgradeOutputShapeTests {
    @Test func aBigReleaseIsSummedUpByDefaultAndListedInFullInJSON() throws {
        let (inserts, updates) = (10_000, 455)
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE chars (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL, category TEXT);\n"
        )
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  chars: { file: data/chars.csv, key: code }\n")
        func chars(_ release: Bool) -> String {
            "code,name,category\n"
                + (0..<1_000).map { index in
                    "\(String(index, radix: 16)),CHAR \(index),\(release && index < updates ? "Lu" : "Ll")\n"
                }.joined()
                + (release ? (0..<inserts).map { "u\(String($0, radix: 16)),NEW \($0),So\n" }.joined() : "")
        }
        try project.write("seeds/data/chars.csv", chars(false))
        try expectEqual(project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status, 0)
        try project.write("seeds/data/chars.csv", chars(true))
        try expectEqual(project.seedkit("new-migration", "rel", "--from", "seeds/releases/1.0.sqlite").status, 0)

        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
        let lines = check.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count < 100, "\(lines.count) lines:\n\(check.stdout)")
        #expect(
            check.stdout.contains(
                "  chars: \(inserts + updates) rows the release touched as in a fresh build (\(inserts) inserted, \(updates) updated)\n"
            ), "\(check)")
        #expect(!check.stdout.contains("as in a fresh build\n  ok: chars"), "no ok row listed by default")
        #expect(check.stdout.hasSuffix("1 old seed converges\n"), "\(check)")

        let verbose = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite", "--verbose")
        let listed = verbose.stdout.split(separator: "\n").filter { $0.hasSuffix(" as in a fresh build") }
        expectEqual(listed.filter { $0.hasPrefix("  ok: chars ") }.count, inserts + updates)

        let json = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite", "--format", "json")
        expectEqual(json.status, 0)
        let outcomes = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]], "\(json)")
        let rows = try #require(outcomes.first?["okRows"] as? [String])
        expectEqual(rows.count, inserts + updates)
        expectEqual(Set(rows).count, inserts + updates, "each row once")
        #expect(rows.contains("chars 'u270f' inserted as in a fresh build"))
        #expect(rows.contains("chars '1c6' updated as in a fresh build"))
        let tables = try #require(outcomes.first?["tables"] as? [[String: Any]])
        expectEqual(tables.first?["inserted"] as? Int, inserts)
        expectEqual(tables.first?["updated"] as? Int, updates)
        // What the simulated user did is listed in every format: the text's ok lines are the JSON's kept edits.
        let kept = try #require(outcomes.first?["keptEdits"] as? [String])
        #expect(!kept.isEmpty)
        for edit in kept { #expect(check.stdout.contains("  ok: \(edit)\n"), "\(edit)") }
    }
}
