import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// Issue 34, "SQLite decides": text is read whole (a NUL inside survives every path), values
/// compare as SQLite compares them (bytes, not Unicode equivalence), names match as SQLite
/// matches them (ASCII case only), and human output escapes what a terminal would act on.
@Suite struct TextAsStoredTests {
    /// A project of `notes(code TEXT key, note TEXT)` and `links(name key, note_id → notes.code)`
    /// from JSON fixtures, built once and copied to `user.sqlite`.
    private func notesProject(notes: String, links: String = "[]", build: Bool = true) throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write("seeds/schema.sql", """
            CREATE TABLE notes (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, note TEXT);
            CREATE TABLE links (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, note_id INTEGER REFERENCES notes(id));

            """)
        try project.write("seeds/seedkit.yml", """
            schema: schema.sql
            output: ../build/seed.sqlite
            tables:
              notes:
                file: data/notes.json
                key: code
              links:
                file: data/links.json
                key: name
                refs:
                  note_id: notes.code

            """)
        try project.write("seeds/data/notes.json", notes)
        try project.write("seeds/data/links.json", links)
        if build {
            let result = try project.seedkit("build", "--migrations", "none")
            #expect(result.status == 0, "\(result)")
            try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("user.sqlite"))
        }
        return project
    }

    private func hexRows(_ project: TemporaryProject, _ path: String, _ sql: String) throws -> [String] {
        try project.database(path).read { db in try String.fetchAll(db, sql: sql) }
    }

    // MARK: - A NUL inside text

    @Test func aNulInsideTextSurvivesBuildRefsAndInspect() throws {
        let project = try notesProject(
            notes: #"[{"code": "B\u0000x", "note": "abc\u0000def"}, {"code": "B\u0000y", "note": "n"}]"#,
            links: #"[{"name": "l1", "note_id": "B\u0000y"}]"#)
        // Stored exactly, and the ref found its parent by the whole key.
        #expect(try hexRows(project, "user.sqlite", "SELECT hex(code) || '|' || hex(note) FROM notes ORDER BY id") == ["420078|61626300646566", "420079|6E"])
        #expect(try hexRows(project, "user.sqlite", "SELECT hex(n.code) FROM links l JOIN notes n ON n.id = l.note_id") == ["420079"])
        let json = try project.seedkit("inspect", "user.sqlite", "notes", "--format", "json")
        #expect(json.status == 0, "\(json)")
        #expect(json.stdout.contains(#""abc\u0000def""#), "\(json)")
        #expect(json.stdout.contains(#""B\u0000x""#) && json.stdout.contains(#""B\u0000y""#), "\(json)")
        let links = try project.seedkit("inspect", "user.sqlite", "links", "--format", "json")
        #expect(links.stdout.contains(#""B\u0000y""#), "\(links)")
        // People see the NUL as an escape, not a cut.
        let table = try project.seedkit("inspect", "user.sqlite", "notes")
        #expect(table.stdout.contains(#"abc\0def"#), "\(table)")
        #expect(table.stdout.contains(#"B\0x"#) && table.stdout.contains(#"B\0y"#), "\(table)")
    }

    @Test func aRebuildOverAStoreWithNulKeysFindsItsRows() throws {
        let project = try notesProject(
            notes: #"[{"code": "B\u0000x", "note": "abc\u0000def"}, {"code": "B\u0000y", "note": "n"}]"#,
            links: #"[{"name": "l1", "note_id": "B\u0000x"}, {"name": "l2", "note_id": "B\u0000y"}]"#)
        // A second build (same inputs) checks keys against what the first wrote.
        let again = try project.seedkit("build", "--migrations", "none")
        #expect(again.status == 0, "\(again)")
        #expect(try hexRows(project, "build/seed.sqlite", "SELECT hex(l.name) || '>' || hex(n.code) FROM links l JOIN notes n ON n.id = l.note_id ORDER BY l.id") == ["6C31>420078", "6C32>420079"])
    }

    @Test func aMigrationOverNulTextUpdatesAndRecordsOnlyWhatApplied() throws {
        let project = try notesProject(notes: #"[{"code": "B\u0000x", "note": "abc\u0000def"}, {"code": "B\u0000y", "note": "n"}]"#)
        try project.write("migrations/0001-fix.json", #"""
            {"update": {"notes": [{"key": "B\u0000x", "from": {"note": "abc\u0000def"}, "to": {"note": "ghi\u0000jkl"}}]},
             "insert": {"notes": [{"code": "B\u0000z", "note": "new\u0000"}]},
             "delete": {"notes": [{"key": "B\u0000y", "from": {"note": "n"}}]}}
            """#)
        let result = try project.seedkit("migrate", "user.sqlite")
        #expect(result.status == 0, "\(result)")
        #expect(!result.stderr.contains("conflict") && !result.stderr.contains("missing"), "\(result)")
        #expect(try hexRows(project, "user.sqlite", "SELECT hex(code) || '|' || hex(note) FROM notes ORDER BY id") == ["420078|676869006A6B6C", "42007A|6E657700"])
        // Run again: nothing to do, nothing changed.
        let again = try project.seedkit("migrate", "user.sqlite")
        #expect(again.status == 0, "\(again)")
        #expect(try hexRows(project, "user.sqlite", "SELECT count(*) FROM notes") == ["2"])
    }

    @Test func aMigrationWhoseNulTextDiffersIsAConflictThatShowsTheNul() throws {
        let project = try notesProject(notes: #"[{"code": "B\u0000x", "note": "abc\u0000def"}]"#)
        try project.write("migrations/0001-fix.json", #"{"update": {"notes": [{"key": "B\u0000x", "from": {"note": "abc\u0000xyz"}, "to": {"note": "new"}}]}}"#)
        let result = try project.seedkit("migrate", "user.sqlite")
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains(#"conflict on notes 'B\0x': changed in the store (note is 'abc\0def', expected 'abc\0xyz')"#), "\(result)")
        #expect(try hexRows(project, "user.sqlite", "SELECT hex(note) FROM notes") == ["61626300646566"])
    }

    @Test func newMigrationAndDiffSeeTheBytesAfterANul() throws {
        let project = try notesProject(notes: #"[{"code": "k", "note": "abc\u0000def"}]"#)
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("old.sqlite"))
        try project.write("seeds/data/notes.json", #"[{"code": "k", "note": "abc\u0000xyz"}]"#)
        #expect(try project.seedkit("build", "--migrations", "none").status == 0)
        let diff = try project.seedkit("diff", "old.sqlite", "build/seed.sqlite", "--format", "json")
        #expect(diff.stdout.contains(#""abc\u0000def""#) && diff.stdout.contains(#""abc\u0000xyz""#), "\(diff)")
        let made = try project.seedkit("new-migration", "change", "--from", "old.sqlite")
        #expect(made.status == 0, "\(made)")
        #expect(!made.stdout.contains("no migration needed") && !made.stderr.contains("no migration needed"), "\(made)")
    }
}
