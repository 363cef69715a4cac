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
        try project.write(
            "seeds/schema.sql",
            """
            CREATE TABLE notes (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, note TEXT);
            CREATE TABLE links (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, note_id INTEGER REFERENCES notes(id));

            """)
        try project.write(
            "seeds/seedkit.yml",
            """
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
            expectEqual(result.status, 0, "\(result)")
            try FileManager.default.copyItem(
                atPath: project.path("build/seed.sqlite"), toPath: project.path("user.sqlite"))
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
        try expectEqual(
            hexRows(project, "user.sqlite", "SELECT hex(code) || '|' || hex(note) FROM notes ORDER BY id"),
            [
                "420078|61626300646566", "420079|6E",
            ])
        try expectEqual(
            hexRows(project, "user.sqlite", "SELECT hex(n.code) FROM links l JOIN notes n ON n.id = l.note_id"),
            [
                "420079"
            ])
        let json = try project.seedkit("inspect", "user.sqlite", "notes", "--format", "json")
        expectEqual(json.status, 0, "\(json)")
        #expect(json.stdout.contains(#""abc\u0000def""#), "\(json)")
        #expect(json.stdout.contains(#""B\u0000x""#) && json.stdout.contains(#""B\u0000y""#), "\(json)")
        let links = try project.seedkit("inspect", "user.sqlite", "links", "--format", "json")
        #expect(links.stdout.contains(#""B\u0000y""#), "\(links)")
        // CSV cannot carry a NUL back to build: it says so (JSON does).
        let csv = try project.seedkit("inspect", "user.sqlite", "notes", "--format", "csv")
        #expect(
            csv.stdout.utf8.contains(0)
                && csv.stderr
                    == "user.sqlite: warning: a value holds a NUL, which a CSV fixture cannot carry (build refuses the file); --format json keeps it\n",
            "\(csv)")
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
        expectEqual(again.status, 0, "\(again)")
        try expectEqual(
            hexRows(
                project, "build/seed.sqlite",
                "SELECT hex(l.name) || '>' || hex(n.code) FROM links l JOIN notes n ON n.id = l.note_id ORDER BY l.id"),
            ["6C31>420078", "6C32>420079"])
    }

    /// A child listed before its parent waits (parked) until the parent is in, found again by its key.
    @Test func aRowWaitingForAParentWithANulInItsKeyFindsIt() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE nodes (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, parent_id INTEGER REFERENCES nodes(id));\n"
        )
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  nodes:\n    file: data/nodes.json\n    key: code\n    refs:\n      parent_id: nodes.code\n"
        )
        try project.write(
            "seeds/data/nodes.json",
            #"[{"code": "B\u0000y", "parent_id": "B\u0000x"}, {"code": "B\u0000z", "parent_id": "B\u0000y"}, {"code": "B\u0000x"}]"#
        )
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        try expectEqual(
            hexRows(
                project, "build/seed.sqlite",
                "SELECT hex(c.code) || '>' || hex(p.code) FROM nodes c JOIN nodes p ON p.id = c.parent_id ORDER BY c.code"
            ), ["420079>420078", "42007A>420079"])
    }

    @Test func aMigrationOverNulTextUpdatesAndRecordsOnlyWhatApplied() throws {
        let project = try notesProject(
            notes: #"[{"code": "B\u0000x", "note": "abc\u0000def"}, {"code": "B\u0000y", "note": "n"}]"#)
        try project.write(
            "migrations/0001-fix.json",
            #"""
            {"update": {"notes": [{"key": "B\u0000x", "from": {"note": "abc\u0000def"}, "to": {"note": "ghi\u0000jkl"}}]},
             "insert": {"notes": [{"code": "B\u0000z", "note": "new\u0000"}]},
             "delete": {"notes": [{"key": "B\u0000y", "from": {"note": "n"}}]}}
            """#)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(!result.stderr.contains("conflict") && !result.stderr.contains("missing"), "\(result)")
        try expectEqual(
            hexRows(project, "user.sqlite", "SELECT hex(code) || '|' || hex(note) FROM notes ORDER BY id"),
            [
                "420078|676869006A6B6C", "42007A|6E657700",
            ])
        // Run again: nothing to do, nothing changed.
        let again = try project.seedkit("migrate", "user.sqlite")
        expectEqual(again.status, 0, "\(again)")
        try expectEqual(hexRows(project, "user.sqlite", "SELECT count(*) FROM notes"), ["2"])
    }

    @Test func aMigrationWhoseNulTextDiffersIsAConflictThatShowsTheNul() throws {
        let project = try notesProject(notes: #"[{"code": "B\u0000x", "note": "abc\u0000def"}]"#)
        try project.write(
            "migrations/0001-fix.json",
            #"{"update": {"notes": [{"key": "B\u0000x", "from": {"note": "abc\u0000xyz"}, "to": {"note": "new"}}]}}"#)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(
            result.stderr.contains(
                #"conflict on notes 'B\0x': changed in the store (note is 'abc\0def', expected 'abc\0xyz')"#),
            "\(result)")
        try expectEqual(hexRows(project, "user.sqlite", "SELECT hex(note) FROM notes"), ["61626300646566"])
    }

    @Test func newMigrationAndDiffSeeTheBytesAfterANul() throws {
        let project = try notesProject(notes: #"[{"code": "k", "note": "abc\u0000def"}]"#)
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("old.sqlite"))
        try project.write("seeds/data/notes.json", #"[{"code": "k", "note": "abc\u0000xyz"}]"#)
        try expectEqual(project.seedkit("build", "--migrations", "none").status, 0)
        let diff = try project.seedkit("diff", "old.sqlite", "build/seed.sqlite", "--format", "json")
        #expect(diff.stdout.contains(#""abc\u0000def""#) && diff.stdout.contains(#""abc\u0000xyz""#), "\(diff)")
        let made = try project.seedkit("new-migration", "change", "--from", "old.sqlite")
        expectEqual(made.status, 0, "\(made)")
        #expect(!made.stdout.contains("no migration needed") && !made.stderr.contains("no migration needed"), "\(made)")
        // What it wrote carries the whole text: the old seed, migrated, equals the new build.
        let proof = try project.seedkit("check-upgrade", "old.sqlite")
        expectEqual(proof.status, 0, "\(proof)")
        try FileManager.default.copyItem(atPath: project.path("old.sqlite"), toPath: project.path("migrated.sqlite"))
        try expectEqual(project.seedkit("migrate", "migrated.sqlite").status, 0)
        try expectEqual(hexRows(project, "migrated.sqlite", "SELECT hex(note) FROM notes"), ["6162630078797A"])
    }

    // MARK: - One comparison: bytes, as SQLite's BINARY collation

    static let nfc = "Caf\u{E9}"
    static let nfd = "Cafe\u{301}"

    /// BookStore with categories `nfc` (or the given names) and one book in it.
    private func cafeProject(categories: [String], book: String) throws -> TemporaryProject {
        let project = try TemporaryProject()
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write("seeds/data/categories.csv", "name\n" + categories.map { $0 + "\n" }.joined())
        try project.write("seeds/data/books.csv", "title,price,category_id\nOne,10,\(book)\n")
        return project
    }

    @Test func composedAndDecomposedKeysAreTwoRowsToBuildAndRefs() throws {
        let project = try cafeProject(categories: [Self.nfc, Self.nfd], book: Self.nfd)
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        try expectEqual(
            hexRows(
                project, "build/seed.sqlite",
                "SELECT hex(c.name) FROM books b JOIN categories c ON c.id = b.category_id"), ["43616665CC81"])
        try expectEqual(hexRows(project, "build/seed.sqlite", "SELECT count(*) FROM categories"), ["2"])
    }

    @Test func aComposedToDecomposedChangeIsAMigrationADiffAndARename() throws {
        let project = try cafeProject(categories: [Self.nfc], book: Self.nfc)
        try expectEqual(project.seedkit("build", "--output", "old.sqlite").status, 0)
        try project.write("seeds/data/categories.csv", "name\n\(Self.nfd)\n")
        try project.write("seeds/data/books.csv", "title,price,category_id\nOne,10,\(Self.nfd)\n")
        try expectEqual(project.seedkit("build").status, 0)
        // diff sees a change and shows which bytes differ.
        let diff = try project.seedkit("diff", "old.sqlite", "build/seed.sqlite")
        expectEqual(diff.status, 0, "\(diff)")
        #expect(diff.stdout.contains(#"Cafe\u0301"#), "\(diff)")
        #expect(diff.stdout.contains(#"  + 'Cafe\u0301'"#) && diff.stdout.contains(#"  - 'Caf\u00E9'"#), "\(diff)")
        // Before the migration exists, check-upgrade's divergences tell the two keys apart too.
        let before = try project.seedkit("check-upgrade", "old.sqlite")
        #expect(
            before.status == 1 && before.stdout.contains(#"categories 'Cafe\u0301': got no row, expected a row"#),
            "\(before)")
        // new-migration sees it too, and with a hint writes a rename that carries the book along.
        let made = try project.seedkit(
            "new-migration", "nfd", "--from", "old.sqlite", "--rename", "categories:\(Self.nfc)=\(Self.nfd)")
        expectEqual(made.status, 0, "\(made)")
        expectEqual(
            made.stdout,
            "wrote migrations/0001-nfd.yml: 0 inserts, 1 update (1 rename), 0 deletes\n  rename categories 'Caf\\u00E9' → 'Cafe\\u0301' (--rename)\n",
            "\(made)")
        let proof = try project.seedkit("check-upgrade", "old.sqlite")
        expectEqual(proof.status, 0, "\(proof)")
        try FileManager.default.copyItem(atPath: project.path("old.sqlite"), toPath: project.path("user.sqlite"))
        try expectEqual(project.seedkit("migrate", "user.sqlite").status, 0)
        try expectEqual(
            hexRows(
                project, "user.sqlite", "SELECT hex(c.name) FROM books b JOIN categories c ON c.id = b.category_id"),
            ["43616665CC81"])
        try expectEqual(hexRows(project, "user.sqlite", "SELECT count(*) FROM categories"), ["1"])
    }

    @Test func aStoresDecomposedValueIsAConflictForAComposedFrom() throws {
        let project = try cafeProject(categories: ["Fiction"], book: "Fiction")
        try expectEqual(project.seedkit("build", "--output", "user.sqlite").status, 0)
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "UPDATE books SET title = ?", arguments: [Self.nfd])
        }
        try project.write(
            "migrations/0001-title.yml",
            "update:\n  books:\n    - { key: \"\(Self.nfc)\", from: { price: 10 }, to: { price: 11 } }\n")
        let result = try project.seedkit("migrate", "user.sqlite")
        // The key is not in the store (its bytes differ): missing, not an update of the user's row.
        expectEqual(result.status, 0, "\(result)")
        #expect(result.stdout.contains("1 missing"), "\(result)")
        try expectEqual(hexRows(project, "user.sqlite", "SELECT CAST(price AS TEXT) FROM books"), ["10.0"])
    }

    @Test func aFromComparesBytesNotCanonicalEquivalence() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql", "CREATE TABLE notes (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, note TEXT);\n")
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  notes:\n    file: data/notes.csv\n    key: code\n"
        )
        try project.write("seeds/data/notes.csv", "code,note\nk,\(Self.nfd)\n")
        try expectEqual(project.seedkit("build", "--output", "user.sqlite").status, 0)
        try FileManager.default.copyItem(atPath: project.path("user.sqlite"), toPath: project.path("old.sqlite"))
        try project.write(
            "migrations/0001-note.yml",
            "update:\n  notes:\n    - { key: k, from: { note: \"\(Self.nfc)\" }, to: { note: New } }\n")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(
            result.stderr.contains(
                #"conflict on notes 'k': changed in the store (note is 'Cafe\u0301', expected 'Caf\u00E9')"#),
            "\(result)")
        try expectEqual(hexRows(project, "user.sqlite", "SELECT hex(note) FROM notes"), ["43616665CC81"])
        // new-migration from that store to fixtures holding the composed form sees a change.
        try project.write("seeds/data/notes.csv", "code,note\nk,\(Self.nfc)\n")
        try project.remove("migrations/0001-note.yml")
        let made = try project.seedkit("new-migration", "nfc", "--from", "old.sqlite")
        expectEqual(made.status, 0, "\(made)")
        #expect(made.stdout.hasPrefix("wrote migrations/0001-nfc.yml: 0 inserts, 1 update, 0 deletes"), "\(made)")
    }

    /// An update from one form to the other is reported with the scalars of each, not as
    /// 'Café' → 'Café', in the run's report and in --dry-run's plan.
    @Test func anUpdateBetweenTextsThatPrintAlikeShowsTheirScalars() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql", "CREATE TABLE notes (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, note TEXT);\n")
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  notes:\n    file: data/notes.csv\n    key: code\n"
        )
        try project.write("seeds/data/notes.csv", "code,note\nk,\(Self.nfc)\n")
        try expectEqual(project.seedkit("build", "--output", "user.sqlite").status, 0)
        try project.write(
            "migrations/0001-note.yml",
            "update:\n  notes:\n    - { key: k, from: { note: \"\(Self.nfc)\" }, to: { note: \"\(Self.nfd)\" } }\n")
        let plan = try project.seedkit("migrate", "--dry-run", "user.sqlite")
        expectEqual(plan.status, 0, "\(plan)")
        #expect(plan.stdout.contains(#"updated         notes 'k': note 'Caf\u00E9' → 'Cafe\u0301'"#), "\(plan)")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(result.stdout.contains(#"updated         notes 'k': note 'Caf\u00E9' → 'Cafe\u0301'"#), "\(result)")
        try expectEqual(hexRows(project, "user.sqlite", "SELECT hex(note) FROM notes"), ["43616665CC81"])
    }

    // MARK: - Names as SQLite matches them: ASCII case only

    private func accentProject(fixture: String) throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE, \"\u{E9}\" TEXT, \"\u{C9}\" TEXT);\n")
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  t:\n    file: data/t.json\n    key: k\n")
        try project.write("seeds/data/t.json", fixture)
        return project
    }

    @Test func fieldsNamedLowerAndUpperAccentedAreTwoColumns() throws {
        let project = try accentProject(
            fixture: #"[{"k": "a", "\u00e9": "lower", "\u00c9": "upper"}, {"k": "b", "\u00c9": "only upper"}]"#)
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        try expectEqual(
            hexRows(
                project, "build/seed.sqlite",
                "SELECT k || '|' || ifnull(\"\u{E9}\", 'NULL') || '|' || ifnull(\"\u{C9}\", 'NULL') FROM t ORDER BY id"),
            ["a|lower|upper", "b|NULL|only upper"])
        // A migration's insert and update match them the same way.
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("user.sqlite"))
        try project.write(
            "migrations/0001-more.json",
            #"""
            {"insert": {"t": [{"k": "c", "\u00c9": "C upper", "\u00e9": "c lower"}, {"k": "d", "\u00c9": "D upper"}]},
             "update": {"t": [{"key": "b", "from": {"\u00c9": "only upper"}, "to": {"\u00c9": "B upper"}}]}}
            """#)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(!result.stderr.contains("conflict"), "\(result)")
        try expectEqual(
            hexRows(
                project, "user.sqlite",
                "SELECT k || '|' || ifnull(\"\u{E9}\", 'NULL') || '|' || ifnull(\"\u{C9}\", 'NULL') FROM t ORDER BY id"),
            ["a|lower|upper", "b|NULL|B upper", "c|c lower|C upper", "d|NULL|D upper"])
    }

    @Test func columnsNamedWithComposedAndDecomposedAccentsAreTwoColumns() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE, \"\u{E9}\" TEXT, \"e\u{301}\" TEXT);\n")
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  t:\n    file: data/t.json\n    key: k\n")
        try project.write("seeds/data/t.json", #"[{"k": "a", "\u00e9": "composed", "e\u0301": "decomposed"}]"#)
        let build = try project.seedkit("build", "--output", "user.sqlite")
        expectEqual(build.status, 0, "\(build)")
        try project.write(
            "migrations/0001-d.json",
            #"{"update": {"t": [{"key": "a", "from": {"e\u0301": "decomposed"}, "to": {"e\u0301": "D"}}]}}"#)
        let migrate = try project.seedkit("migrate", "user.sqlite")
        #expect(migrate.status == 0 && !migrate.stderr.contains("conflict"), "\(migrate)")
        try expectEqual(
            hexRows(project, "user.sqlite", "SELECT \"\u{E9}\" || '|' || \"e\u{301}\" FROM t"), ["composed|D"])
    }

    @Test func asciiCaseStillFoldsInNames() throws {
        let project = try accentProject(fixture: #"[{"K": "a", "\u00e9": "x"}]"#)
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        try expectEqual(hexRows(project, "build/seed.sqlite", "SELECT k || '|' || \"\u{E9}\" FROM t"), ["a|x"])
    }

    // MARK: - Human output escapes what a terminal acts on

    @Test func controlCharactersInValuesAndNamesAreEscapedForPeople() throws {
        let project = try notesProject(notes: #"[{"code": "k", "note": "\u001b]0;owned\u0007\r\u001b[K"}]"#)
        try project.database("user.sqlite").write { db in try db.execute(sql: "CREATE TABLE \"evil\u{1B}[2J\" (x)") }
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "INSERT INTO \"evil\u{1B}[2J\" VALUES ('\u{1B}[2J')")
        }
        for arguments in [
            ["inspect", "user.sqlite"], ["inspect", "user.sqlite", "notes"],
            ["inspect", "user.sqlite", "notes", "--format", "markdown"],
            ["inspect", "user.sqlite", "evil\u{1B}[2J"], ["diff", "build/seed.sqlite", "user.sqlite"],
        ] {
            let result = try project.seedkit(arguments)
            #expect(
                !result.stdout.contains("\u{1B}") && !result.stdout.contains("\u{7}") && !result.stdout.contains("\r"),
                "\(arguments): \(result)")
            #expect(!result.stderr.contains("\u{1B}") && !result.stderr.contains("\r"), "\(arguments): \(result)")
        }
        let shown = try project.seedkit("inspect", "user.sqlite", "notes")
        #expect(shown.stdout.contains(#"\x1b]0;owned\x07\r\x1b[K"#), "\(shown)")
        // JSON stays exact JSON.
        let json = try project.seedkit("inspect", "user.sqlite", "notes", "--format", "json")
        #expect(json.stdout.contains(#""\u001b]0;owned\u0007\r\u001b[K""#), "\(json)")
        // A conflict line cannot be overwritten by the value it shows.
        try project.write(
            "migrations/0001-fix.json",
            #"{"update": {"notes": [{"key": "k", "from": {"note": "x"}, "to": {"note": "y"}}]}}"#)
        let migrate = try project.seedkit("migrate", "user.sqlite")
        expectEqual(migrate.status, 0, "\(migrate)")
        #expect(migrate.stderr.contains(#"(note is '\x1b]0;owned\x07\r\x1b[K', expected 'x')"#), "\(migrate)")
        #expect(!migrate.stderr.contains("\u{1B}"), "\(migrate)")
    }

    // MARK: - REAL ±Infinity round-trips

    @Test func infinityRoundTripsThroughCSVAndJSON() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql", "CREATE TABLE readings (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, v REAL);\n")
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  readings:\n    file: data/readings.csv\n    key: name\n"
        )
        try project.write("seeds/data/readings.csv", "name,v\nup,1e999\ndown,-1e999\nplain,1.5\n")
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        try expectEqual(
            hexRows(
                project, "build/seed.sqlite",
                "SELECT name || '|' || (v = 1e999) || (v = -1e999) FROM readings ORDER BY id"),
            [
                "up|10", "down|01", "plain|00",
            ])
        // csv prints what the build reads back as the same value.
        let csv = try project.seedkit("inspect", "build/seed.sqlite", "readings", "--format", "csv")
        expectEqual(csv.stdout, "id,name,v\r\n1,up,1e999\r\n2,down,-1e999\r\n3,plain,1.5\r\n", "\(csv)")
        try project.write("seeds/data/readings.csv", csv.stdout)
        try FileManager.default.copyItem(
            atPath: project.path("build/seed.sqlite"), toPath: project.path("first.sqlite"))
        try expectEqual(project.seedkit("build").status, 0)
        let same = try project.seedkit("diff", "first.sqlite", "build/seed.sqlite", "--exit-code")
        expectEqual(same.status, 0, "\(same)")
        // JSON carries infinity as a number (1e999), never null.
        try project.database("build/seed.sqlite").write { db in
            try db.execute(sql: "UPDATE readings SET v = NULL WHERE name = 'up'")
        }
        let diff = try project.seedkit("diff", "first.sqlite", "build/seed.sqlite", "--format", "json")
        #expect(diff.stdout.contains(#""old": 1e999"#) && diff.stdout.contains(#""new": null"#), "\(diff)")
        let json = try project.seedkit("inspect", "first.sqlite", "readings", "--format", "json")
        #expect(json.stdout.contains("-1e999") && !json.stdout.contains("null"), "\(json)")
        // An INTEGER column still refuses a number past its range.
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE readings (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, v INTEGER);\n")
        try project.write("seeds/data/readings.csv", "name,v\nup,1e999\n")
        try expectEqual(project.seedkit("build").status, 1)
    }

    // MARK: - A column's collation decides its `from` check

    @Test func aFromComparesUnderTheColumnsDeclaredCollation() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, tag TEXT COLLATE NOCASE, pad TEXT COLLATE RTRIM, note TEXT);\n"
        )
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  notes:\n    file: data/notes.csv\n    key: code\n"
        )
        try project.write("seeds/data/notes.csv", "code,tag,pad,note\nk,fiction,a  ,x\nj,fiction,a,x\n")
        try expectEqual(project.seedkit("build", "--output", "user.sqlite").status, 0)
        try project.write(
            "migrations/0001-note.yml",
            """
            update:
              notes:
                - { key: k, from: { tag: FICTION, pad: a }, to: { tag: drama, pad: b } }
                - { key: j, from: { note: X }, to: { note: z } }

            """)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        // NOCASE and RTRIM say the row still holds what shipped; BINARY says 'x' is not 'X'.
        try expectEqual(
            hexRows(
                project, "user.sqlite", "SELECT code || '=' || tag || '|' || pad || '|' || note FROM notes ORDER BY id"),
            ["k=drama|b|x", "j=fiction|a|x"])
        #expect(
            result.stderr.contains("conflict on notes 'j': changed in the store (note is 'x', expected 'X')"),
            "\(result)")
        #expect(!result.stderr.contains("notes 'k'"), "\(result)")
    }

    // MARK: - check-upgrade says what it checked

    @Test func checkUpgradeAddsAUserRowToKeyAndRefTablesAndSaysWhatItCouldNotCheck() throws {
        let project = try TemporaryProject.withRelease()
        try project.write(
            "seeds/schema.sql",
            BookStore.schema + """
                CREATE TABLE shelves (id INTEGER PRIMARY KEY, book_id INTEGER NOT NULL REFERENCES books(id), label TEXT NOT NULL, UNIQUE (book_id, label));
                CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, body TEXT);
                CREATE TABLE reading_log (id INTEGER PRIMARY KEY, book_id INTEGER REFERENCES books(id), at TEXT);

                """)
        try project.write(
            "seeds/seedkit.yml",
            BookStore.manifest + """
                  shelves:
                    file: data/shelves.csv
                    key: [book_id, label]
                    refs:
                      book_id: books.title
                  notes:
                    file: data/notes.csv
                    key: title

                """)
        try project.write("seeds/data/shelves.csv", "book_id,label\nThe first book,front\n")
        try project.write("seeds/data/notes.csv", "title,body\n")
        try expectEqual(project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status, 0)
        let result = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(result.status, 0, "\(result)")
        // A table of keys and refs gets a user row too; an empty one is listed as not checked, with why.
        #expect(
            result.stdout.contains(
                #"ok: user row shelves 'The first book', 'front (added by the user)'.label = "front (added by the user)" kept"#
            ), "\(result)")
        #expect(
            result.stdout.contains(
                #"ok: user row categories 'Fiction (added by the user)'.name = "Fiction (added by the user)" kept"#),
            "\(result)")
        #expect(
            result.stdout.contains("not checked: notes: no user row was added: the old seed has no row of it to copy"),
            "\(result)")
        #expect(
            result.stdout.contains(
                "not checked: reading_log (the app's own table) refers to books: no user row of it was simulated"),
            "\(result)")
        let json = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite", "--format", "json")
        #expect(
            json.stdout.contains(#""notChecked": ["#) && json.stdout.contains("notes: no user row was added"), "\(json)"
        )
    }

    @Test func checkUpgradeEditsAJSONColumnWithValidJSON() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE items (id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE, meta TEXT CHECK (json_valid(meta)));\n"
        )
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  items:\n    file: data/items.json\n    key: k\n"
        )
        try project.write("seeds/data/items.json", #"[{"k": "a", "meta": {"x": 1}}, {"k": "b", "meta": [1, 2]}]"#)
        try expectEqual(project.seedkit("build", "--output", "old.sqlite").status, 0)
        try project.write("seeds/data/items.json", #"[{"k": "a", "meta": {"x": 2}}, {"k": "b", "meta": [1, 2, 3]}]"#)
        let made = try project.seedkit("new-migration", "meta", "--from", "old.sqlite")
        expectEqual(made.status, 0, "\(made)")
        let check = try project.seedkit("check-upgrade", "old.sqlite")
        expectEqual(check.status, 0, "\(check)")
        #expect(check.stdout.contains("ok: user edit items 'a'.meta = "), "\(check)")
        #expect(check.stdout.contains("ok: user edit items 'b'.meta = "), "\(check)")
        #expect(
            !check.stdout.contains("not checked: items 'a'") && !check.stdout.contains("not checked: items 'b'"),
            "\(check)")
    }

    @Test func checkUpgradeEscapesTheValuesItShows() throws {
        let project = try notesProject(notes: #"[{"code": "k", "note": "\u001b]0;owned\u0007\r\u001b[K"}]"#)
        try project.write("seeds/data/notes.json", #"[{"code": "k", "note": "\u001b]0;owned\u0007\r\u001b[J"}]"#)
        let made = try project.seedkit("new-migration", "fix", "--from", "user.sqlite")
        expectEqual(made.status, 0, "\(made)")
        let proof = try project.seedkit("check-upgrade", "user.sqlite")
        expectEqual(proof.status, 0, "\(proof)")
        #expect(
            proof.stdout.contains(
                #"ok: user edit notes 'k'.note = "\x1b]0;owned\x07\r\x1b[K (edited by the user)" kept"#), "\(proof)")
        #expect(!proof.stdout.contains("\u{1B}") && !proof.stdout.contains("\r"), "\(proof)")
    }
}
