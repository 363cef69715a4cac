import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// Issue 35: a fixture or migration gives a composite attribute in the Swift type's shape, a
/// struct as a map of its members (`size: {width: 1.5}`) and an enum without raw values as its
/// case's name (`placement: window`), and gets exactly the columns the stored form
/// (`size.width`, `placement.window`) writes
/// (docs/swiftdata.md, "Giving a composite in the Swift shape").
///
/// The store is make-store.py's with `--composites` (its `Shelf`).
@Suite struct SwiftDataSwiftShapeTests {
    private func shelfStore() throws -> TemporaryProject {
        try swiftDataStore(editing: [
            ("if \"--composites\" in sys.argv:\n    sys.argv.remove(\"--composites\")\n", "if True:\n")
        ])
    }

    /// Every row of every table of the store at `path` but seedkit's own and `except`, as text, table by table.
    private func dump(_ project: TemporaryProject, _ path: String, except: [String] = []) throws -> [String] {
        try project.database(path).read { db in
            let tables = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            ).filter { !$0.hasPrefix("_seedkit") && !except.contains($0) }
            return try tables.flatMap { table in
                try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\" ORDER BY rowid").map { row in
                    table + ": " + (0..<row.count).map { "\(row[$0] as DatabaseValue)" }.joined(separator: "|")
                }
            }
        }
    }

    private static let shelfColumns =
        "SELECT ZLABEL, ZKIND, ZWALL, ZFLOOR, ZWINDOW, ZWIDTH, ZDEPTH, ZUNIT, ZWOODS FROM ZSHELF ORDER BY ZLABEL"

    /// A JSON fixture record giving `size` as a map and `placement` as a case name was refused
    /// (`size`, `placement`: no such column, 2020); it now builds the seed the stored form builds.
    @Test func aJSONFixtureGivesCompositesInTheSwiftShape() throws {
        let project = try shelfStore()
        try project.write(
            "seeds/seedkit.yml",
            "template: ../app.store\noutput: ../build/seed.store\ntables:\n  Shelf: { file: data/Shelf.json, key: label }\n"
        )
        try project.write(
            "seeds/data/Shelf.json",
            """
            [
              {"label": "A1", "kind": "fiction", "placement.window": "window", "size.width": 1.5, "size.depth": 0.25, "size.unit": "m", "size.woods": "[\\"oak\\",\\"pine\\"]"},
              {"label": "B2", "kind": "reference"},
              {"label": "C3", "kind": "fiction", "placement.floor": "floor", "size.unit": "cm"}
            ]
            """)
        let dotted = try project.seedkit("build")
        #expect(dotted.status == 0, "\(dotted)")
        let stored = try dump(project, "build/seed.store")
        #expect(
            try project.rows("build/seed.store", Self.shelfColumns) == [
                "'A1'|'fiction'|NULL|NULL|'window'|1.5|0.25|'m'|X'5B226F616B222C2270696E65225D'",
                "'B2'|'reference'|NULL|NULL|NULL|NULL|NULL|NULL|NULL",
                "'C3'|'fiction'|NULL|'floor'|NULL|NULL|NULL|'cm'|NULL",
            ])
        try project.write(
            "seeds/data/Shelf.json",
            """
            [
              {"label": "A1", "kind": "fiction", "placement": "window", "size": {"width": 1.5, "depth": 0.25, "unit": "m", "woods": ["oak", "pine"]}},
              {"label": "B2", "kind": "reference", "placement": null, "size": null},
              {"label": "C3", "kind": "fiction", "placement": "floor", "size": {"unit": "cm"}}
            ]
            """)
        let swift = try project.seedkit("build")
        #expect(swift.status == 0, "\(swift)")
        #expect(try dump(project, "build/seed.store") == stored)
        #expect(stored.filter { $0.hasPrefix("ZSHELF: ") }.count == 3)
    }

    /// A migration's `insert:` and `update: … from: … to:` in the Swift shape, YAML and JSON, were
    /// refused (`Shelf has no column 'size'`); they now write what the stored form writes: every
    /// row of the store alike, the history's changes included.
    @Test func aMigrationInsertsAndUpdatesInTheSwiftShape() throws {
        let project = try shelfStore()
        try project.write("stored.store", try #require(project.read("app.store")))
        try project.write("swift.store", try #require(project.read("app.store")))
        let stored = (
            insert: """
            insert:
              Shelf:
                - { label: A1, kind: fiction, placement.window: window, size.width: 1.5, size.unit: m, size.woods: '["oak"]' }
                - { label: B2, kind: reference }
            """,
            update: """
            {"update": {"Shelf": [
              {"key": "A1", "from": {"placement.wall": null, "placement.floor": null, "placement.window": "window", "size.width": 1.5, "size.depth": null},
               "to": {"placement.wall": "wall", "placement.floor": null, "placement.window": null, "size.width": 2, "size.depth": 0.5}},
              {"key": "B2", "from": {"placement.wall": null, "placement.floor": null, "placement.window": null}, "to": {"placement.floor": "floor"}}
            ]}}
            """
        )
        let swift = (
            insert: """
            insert:
              Shelf:
                - { label: A1, kind: fiction, placement: window, size: { width: 1.5, unit: m, woods: [oak] } }
                - { label: B2, kind: reference, placement: null, size: null }
            """,
            update: """
            {"update": {"Shelf": [
              {"key": "A1", "from": {"placement": "window", "size": {"width": 1.5, "depth": null}},
               "to": {"placement": "wall", "size": {"width": 2, "depth": 0.5}}},
              {"key": "B2", "from": {"placement": null}, "to": {"placement": "floor"}}
            ]}}
            """
        )
        var reports: [String] = []
        for (store, migration) in [("stored.store", stored), ("swift.store", swift)] {
            try project.write("migrations/0001-shelves.yml", migration.insert)
            try? project.remove("migrations/0002-move.json")
            let insert = try project.seedkit("migrate", store)
            #expect(insert.status == 0, "\(store): \(insert)")
            try project.write("migrations/0002-move.json", migration.update)
            let update = try project.seedkit("migrate", store, "--without-history")
            #expect(update.status == 0, "\(store): \(update)")
            reports.append(update.stdout.replacingOccurrences(of: store, with: "STORE"))
        }
        // The report names what changed: not the other cases, set to the NULL they held.
        #expect(reports.count == 2 && reports[0] == reports[1], "\(reports)")
        #expect(!reports[1].contains("NULL → NULL") && reports[1].contains("'window' → NULL"), "\(reports)")
        #expect(
            try project.rows("swift.store", Self.shelfColumns) == [
                "'A1'|'fiction'|'wall'|NULL|NULL|2.0|0.5|'m'|X'5B226F616B225D'",
                "'B2'|'reference'|NULL|'floor'|NULL|NULL|NULL|NULL|NULL",
            ])
        // The runs' times differ (ATRANSACTION's timestamps); every other row is the same.
        #expect(
            try dump(project, "swift.store", except: ["ATRANSACTION"])
                == dump(project, "stored.store", except: ["ATRANSACTION"]))
        #expect(try project.rows("swift.store", "SELECT ZCHANGETYPE, ZENTITYPK FROM ACHANGE") == ["0|1", "0|2"])
    }
}

extension SwiftDataSwiftShapeTests {
    /// What the Swift shape refuses, each at the value's line and column with its code, nothing written.
    @Test func aMigrationsSwiftShapeIsRefusedAtTheValue() throws {
        let project = try shelfStore()
        let before = try #require(project.read("app.store"))
        let cases: [(row: String, value: String, status: Int32, message: String)] = [
            (
                "{ label: C3, kind: fiction, placement: door }", "door", 1,
                "Shelf: placement is 'door', which is none of its cases (wall, floor, window); give the case's name [1550]"
            ),
            (
                "{ label: C3, kind: fiction, size: { width: 2, colour: red } }", "{ width", 2,
                "Shelf: size has no member 'colour' (its members: width, depth, unit, woods) [2020]"
            ),
            (
                "{ label: C3, kind: fiction, size: big }", "big", 1,
                "Shelf: size is a struct (members width, depth, unit, woods): give it as a map of its members ({width: …}), or null for none, not \"big\" [2010]"
            ),
            (
                "{ label: C3, kind: fiction, size: {} }", "{}", 1,
                "Shelf: size is a struct (members width, depth, unit, woods): give it as a map of its members ({width: …}), or null for none, not {} [2010]"
            ),
            (
                "{ label: C3, kind: fiction, placement: wall, placement.wall: wall }", "wall,", 2,
                "Shelf: placement is given twice, whole (placement) and by its element placement.wall; give one form [2100]"
            ),
            (
                "{ label: { text: C3 }, kind: fiction }", "{ text", 1,
                "Shelf: label is given a map, but it is no struct (a Codable struct is a composite attribute; this one holds a single value; give JSON text as a string) [2010]"
            ),
        ]
        for (row, value, status, message) in cases {
            let line = "    - \(row)"
            let column = try #require(line.range(of: value)).lowerBound.utf16Offset(in: line) + 1
            try project.write("migrations/0001-shelf.yml", "insert:\n  Shelf:\n\(line)\n")
            let migrate = try project.seedkit("migrate", "app.store")
            #expect(migrate.status == status, "\(row): \(migrate)")
            #expect(
                migrate.stderr.hasPrefix("migrations/0001-shelf.yml:3:\(column): error: \(message)\n"),
                "\(row): \(migrate)")
            #expect(project.read("app.store") == before)
        }
        // An update to an empty map was "already up to date": it sets nothing.
        try project.write(
            "migrations/0001-shelf.yml",
            "update:\n  Shelf:\n    - { key: A1, from: { size: null }, to: { size: {} } }\n")
        let empty = try project.seedkit("migrate", "app.store", "--without-history")
        #expect(empty.status == 1, "\(empty)")
        #expect(
            empty.stderr.hasPrefix(
                "migrations/0001-shelf.yml:3:52: error: Shelf: size is a struct (members width, depth, unit, woods): give it as a map of its members ({width: …}), or null for none, not {} [2010]\n"
            ), "\(empty)")
        #expect(project.read("app.store") == before)
    }

    /// A JSON fixture's record in the Swift shape is refused at the field (its position in the
    /// record); a CSV fixture's header names the stored elements, as before.
    @Test func aFixturesSwiftShapeIsRefusedAtTheField() throws {
        let project = try shelfStore()
        try project.write(
            "seeds/seedkit.yml",
            "template: ../app.store\noutput: ../build/seed.store\ntables:\n  Shelf: { file: data/Shelf.json, key: label }\n"
        )
        try project.write(
            "seeds/data/Shelf.json",
            """
            [
              {"label": "A1", "kind": "fiction", "placement": "door"},
              {"label": "B2", "kind": "fiction", "size": {"colour": "red"}},
              {"label": "C3", "size.unit": "cm", "kind": "fiction", "size": {"unit": "m"}}
            ]
            """)
        let build = try project.seedkit("build")
        #expect(build.status == 1, "\(build)")
        #expect(
            build.stderr.contains(
                "seeds/data/Shelf.json:2:3: error: Shelf: placement is 'door', which is none of its cases (wall, floor, window); give the case's name [1550]"
            ), "\(build)")
        #expect(
            build.stderr.contains(
                "seeds/data/Shelf.json:3:3: error: Shelf: size has no member 'colour' (its members: width, depth, unit, woods) [2020]"
            ), "\(build)")
        #expect(
            build.stderr.contains(
                "seeds/data/Shelf.json:4:4: error: Shelf: size is given twice, whole (size) and by its element size.unit; give one form [2001]"
            ), "\(build)")
        #expect(!project.exists("build/seed.store"))

        try project.write(
            "seeds/seedkit.yml",
            "template: ../app.store\noutput: ../build/seed.store\ntables:\n  Shelf: { file: data/Shelf.csv, key: label }\n"
        )
        try project.write("seeds/data/Shelf.csv", "label,kind,placement\nA1,fiction,window\n")
        let csv = try project.seedkit("build")
        #expect(csv.status == 1, "\(csv)")
        #expect(csv.stderr.contains("seeds/data/Shelf.csv:1:3: error: "), "\(csv)")
        #expect(csv.stderr.contains("[2020]"), "\(csv)")
    }
}

extension SwiftDataSwiftShapeTests {
    /// A release whose migration is written in the Swift shape, on a seed shipped from the app's
    /// store: `build` checks it against the fixtures (CSV, stored form), `check-upgrade` migrates
    /// the shipped seed with it and converges with the fresh build, and `migrate` writes it.
    @Test func checkUpgradeConvergesOnAMigrationInTheSwiftShape() throws {
        let project = try shelfStore()
        try project.database("app.store").write { db in
            try db.execute(
                sql: """
                    INSERT INTO ZSHELF (Z_PK, Z_ENT, Z_OPT, ZLABEL, ZKIND, ZWALL, ZFLOOR, ZWINDOW, ZWIDTH, ZDEPTH, ZUNIT, ZWOODS) VALUES
                        (1, 3, 1, 'A1', 'fiction', NULL, NULL, 'window', 1.5, 0.25, 'm', CAST('["oak","pine"]' AS BLOB)),
                        (2, 3, 1, 'B2', 'reference', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 2 WHERE Z_ENT = 3;
                    """)
        }
        try shipFirstRelease(project)
        let shelves = try #require(project.read("seeds/data/Shelf.csv").map { String(decoding: $0, as: UTF8.self) })
        #expect(shelves.contains("\nfiction,A1,,,window,1.5,0.25,m,"), "\(shelves)")
        try project.write(
            "seeds/data/Shelf.csv",
            shelves.replacingOccurrences(of: "\nfiction,A1,,,window,1.5,0.25,m,", with: "\nfiction,A1,wall,,,2,0.25,m,")
                + "reference,C3,,floor,,,,cm,\n")
        try project.write(
            "migrations/0001-move.yml",
            """
            insert:
              Shelf:
                - { label: C3, kind: reference, placement: floor, size: { unit: cm } }
            update:
              Shelf:
                - { key: A1, from: { placement: window, size: { width: 1.5 } }, to: { placement: wall, size: { width: 2 } } }
            """)
        let build = try project.seedkit("build")
        #expect(build.status == 0, "\(build)")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.store", "--without-history")
        #expect(check.status == 0, "\(check)")
        #expect(check.stdout.contains("applied 0001-move; converges with a fresh build"), "\(check)")
        // The simulated user edits a member the update changes, not an enum's case column, which
        // holds only its case's name (it said "the old seed refused the edit of placement").
        #expect(check.stdout.contains("  ok: user edit Shelf 'A1'.size.width = 2.5 kept\n"), "\(check)")
        let migrate = try project.seedkit("migrate", "app.store", "--without-history")
        #expect(migrate.status == 0, "\(migrate)")
        #expect(
            try project.rows("app.store", Self.shelfColumns) == [
                "'A1'|'fiction'|'wall'|NULL|NULL|2.0|0.25|'m'|X'5B226F616B222C2270696E65225D'",
                "'B2'|'reference'|NULL|NULL|NULL|NULL|NULL|NULL|NULL",
                "'C3'|'reference'|NULL|'floor'|NULL|NULL|NULL|'cm'|NULL",
            ])
    }
}

extension SwiftDataSwiftShapeTests {
    /// An app applying a bundled migration at launch has no model, only the facts its seed
    /// recorded: it expands the Swift shape as the CLI does.
    @Test func anAppAtLaunchReadsTheSwiftShapeFromItsSeedsFacts() throws {
        let project = try shelfStore()
        #expect(try project.seedkit("init", "--coredata", "app.store").status == 0)
        let build = try project.seedkit("build")
        #expect(build.status == 0, "\(build)")
        try project.write("user.store", try #require(project.read("build/seed.store")))
        try project.write(
            "migrations/0001-shelf.json",
            #"{"insert": {"Shelf": [{"label": "C3", "kind": "reference", "placement": "floor", "size": {"width": 2, "woods": ["elm"]}}]}}"#
        )
        let queue = try DatabaseQueue(path: project.path("user.store"))
        _ = try SeedMigrator(migrations: MigrationDirectory.load(project.url("migrations"))).migrate(queue)
        try queue.close()
        #expect(
            try project.rows("user.store", Self.shelfColumns) == [
                "'C3'|'reference'|NULL|'floor'|NULL|2.0|NULL|NULL|X'5B22656C6D225D'"
            ])
    }
}

extension SwiftDataSwiftShapeTests {
    /// A release deleting a shelf, its `from:` in the Swift shape: check-upgrade's simulated user
    /// edited the first value of the `from:`, the enum's case column `placement.window`, which
    /// the old seed refused, and the delete was then neither checked nor said to be unchecked.
    @Test func checkUpgradeTriesADeleteAgainstAUsersEditOfAMember() throws {
        let project = try shelfStore()
        try project.database("app.store").write { db in
            try db.execute(
                sql: """
                    INSERT INTO ZSHELF (Z_PK, Z_ENT, Z_OPT, ZLABEL, ZKIND, ZWINDOW, ZWIDTH, ZDEPTH, ZUNIT) VALUES
                        (1, 3, 1, 'A1', 'fiction', 'window', 1.5, 0.25, 'm'), (2, 3, 1, 'B2', 'fiction', NULL, NULL, NULL, NULL);
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 2 WHERE Z_ENT = 3;
                    """)
        }
        try shipFirstRelease(project)
        let shelves = try #require(project.read("seeds/data/Shelf.csv").map { String(decoding: $0, as: UTF8.self) })
        try project.write(
            "seeds/data/Shelf.csv",
            shelves.split(separator: "\n").filter { !$0.hasPrefix("fiction,A1,") }.joined(separator: "\n") + "\n")
        try project.write(
            "migrations/0001-drop.yml",
            "delete:\n  Shelf:\n    - { key: A1, from: { placement: window, size: { width: 1.5 } } }\n")
        #expect(try project.seedkit("build").status == 0)
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.store")
        #expect(check.status == 0, "\(check)")
        #expect(check.stdout.contains("  ok: user edit Shelf 'A1'.size.width = 2.5 kept\n"), "\(check)")
    }
}
