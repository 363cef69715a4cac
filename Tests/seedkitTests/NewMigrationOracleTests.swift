import Foundation
import GRDB
import SeedTestSupport
import Testing

/// new-migration's oracle: `new-migration NAME --from OLD`, then `migrate` a copy of OLD with the
/// written file, then `diff --exit-code` against the fresh build (NEW) exits 0 (docs/releases.md).
@Suite struct NewMigrationOracleTests {
    /// A project of `schema` and the manifest's `tables` lines, its fixtures `files`, with
    /// seeds/releases/1.0.sqlite built from them; the fixtures then become `changed`.
    private func release(schema: String, tables: String, files: [String: String], changed: [String: String])
        throws -> TemporaryProject
    {
        let project = try TemporaryProject(bookStore: false)
        try project.write("seeds/schema.sql", schema)
        try project.write("seeds/seedkit.yml", "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n" + tables)
        for (name, text) in files { try project.write("seeds/data/" + name, text) }
        try FileManager.default.createDirectory(
            atPath: project.path("seeds/releases"), withIntermediateDirectories: true)
        let built = try project.seedkit("build", "--output", "seeds/releases/1.0.sqlite")
        expectEqual(built.status, 0, "\(built)")
        for (name, text) in changed { try project.write("seeds/data/" + name, text) }
        return project
    }

    /// Writes the release, migrates a copy of the old seed with it and diffs the copy against
    /// the fresh build: the diff's result, the migration's text, migrate's report.
    private func oracle(_ project: TemporaryProject) throws -> (
        diff: CommandResult, yaml: String, migrate: String, written: String
    ) {
        let written = try project.seedkit("new-migration", "r", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(written.status, 0, "\(written)")
        let yaml = String(decoding: project.read("migrations/0001-r.yml") ?? Data(), as: UTF8.self)
        try expectEqual(project.seedkit("build").status, 0)
        try FileManager.default.copyItem(
            atPath: project.path("seeds/releases/1.0.sqlite"), toPath: project.path("user.sqlite"))
        let migrate = try project.seedkit("migrate", "user.sqlite")
        expectEqual(migrate.status, 0, "\(migrate)")
        let diff = try project.seedkit("diff", "user.sqlite", "build/seed.sqlite", "--exit-code")
        return (diff, yaml, "\(migrate)", written.stdout)
    }

    /// 'veg' → 'VEG' in a `COLLATE NOCASE` key: SQLite calls them one key, so the release renames
    /// the row (an update of its key) instead of a delete `migrate` refuses and an insert it skips;
    /// the child whose ref only follows the rename is not updated.
    @Test func aNocaseKeyChangedOnlyInCaseIsRenamed() throws {
        let project = try release(
            schema: """
                CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE COLLATE NOCASE, n INTEGER);
                CREATE TABLE c (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, t_id INTEGER REFERENCES t(id));

                """,
            tables: "  t: { file: data/t.csv, key: k }\n  c: { file: data/c.csv, key: name, refs: { t_id: t.k } }\n",
            files: ["t.csv": "k,n\nveg,1\nfruit,2\n", "c.csv": "name,t_id\nleek,veg\npear,fruit\n"],
            changed: ["t.csv": "k,n\nVEG,1\nfruit,2\n", "c.csv": "name,t_id\nleek,VEG\npear,fruit\n"])
        let result = try oracle(project)
        expectEqual(result.diff.status, 0, "\(result.diff)\n\(result.yaml)\n\(result.migrate)")
        #expect(!result.yaml.contains("delete:") && !result.yaml.contains("insert:"), "\(result.yaml)")
        #expect(result.yaml.contains(#"to: { k: "VEG" }"#), "\(result.yaml)")
        #expect(!result.yaml.contains("  c:"), "\(result.yaml)")
        #expect(result.written.contains("rename t 'veg' → 'VEG' (one key under its collation)"), "\(result.written)")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
    }

    /// `COLLATE RTRIM`: 'veg  ' → 'veg' is one key too; a BINARY key's 'veg' → 'VEG' is two rows.
    @Test func anRtrimKeyLosingTrailingSpacesIsRenamedAndABinaryKeyIsNot() throws {
        let project = try release(
            schema: """
                CREATE TABLE t (k TEXT PRIMARY KEY COLLATE RTRIM, n INTEGER);
                CREATE TABLE b (k TEXT PRIMARY KEY, n INTEGER);

                """,
            tables: "  t: { file: data/t.json, key: k }\n  b: { file: data/b.csv, key: k }\n",
            files: ["t.json": #"[{"k": "veg  ", "n": 1}, {"k": "fruit", "n": 2}]"#, "b.csv": "k,n\nveg,1\n"],
            changed: ["t.json": #"[{"k": "veg", "n": 1}, {"k": "fruit", "n": 2}]"#, "b.csv": "k,n\nVEG,1\n"])
        let result = try oracle(project)
        expectEqual(result.diff.status, 0, "\(result.diff)\n\(result.yaml)\n\(result.migrate)")
        #expect(result.yaml.contains(#"to: { k: "veg" }"#), "\(result.yaml)")
        #expect(result.written.contains("1 insert, 1 update (1 rename), 1 delete"), "\(result.written)")
    }

    /// An untyped column's 9 → 9.0: the same number to SQLite (`9 IS 9.0`, and sqldiff reports no
    /// difference), so no change to write, and the migrated store is the fresh build's.
    @Test func anUntypedColumnsIntegerBecomingAnEqualRealIsNoChange() throws {
        let project = try release(
            schema: "CREATE TABLE t (k TEXT PRIMARY KEY, qty);\n", tables: "  t: { file: data/t.json, key: k }\n",
            files: ["t.json": #"[{"k": "a", "qty": 9}, {"k": "b", "qty": 1}]"#],
            changed: ["t.json": #"[{"k": "a", "qty": 9.0}, {"k": "b", "qty": 2}]"#])
        let result = try oracle(project)
        expectEqual(result.diff.status, 0, "\(result.diff)\n\(result.yaml)\n\(result.migrate)")
        #expect(!result.yaml.contains("key: \"a\""), "\(result.yaml)")
        #expect(result.yaml.contains("key: \"b\""), "\(result.yaml)")
    }
}
