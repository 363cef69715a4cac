import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import SeedTooling
import Testing

/// Issue 35: when two properties of an entity ask for one column, Core Data numbers the later by
/// name (docs/swiftdata.md, "Composite attributes"): MetaCocktails' `Cocktail` keeps `author.id`
/// in `ZID` and its own `id` in `ZID1`; its `IngredientBase` keeps `id` in `ZID` and `prep.id`
/// in `ZID1`.
///
/// seedkit refused such attributes, so `init --coredata` made `Cocktail` migrate-only and its 416
/// rows were not in the seed. The stores here are make-store.py's `--numbered` Shelf, of the same
/// shape (`aisle.id` in `ZID`, `id` in `ZID1`; `label` in `ZLABEL`, `zone.label` in `ZLABEL1`).
@Suite struct SwiftDataNumberedColumnTests {
    private func numberedStore() throws -> TemporaryProject {
        let project = try swiftDataStore(editing: [
            ("if \"--numbered\" in sys.argv:\n    sys.argv.remove(\"--numbered\")\n", "if True:\n")
        ])
        try project.database("app.store").write { db in
            try db.execute(
                sql: """
                    INSERT INTO ZSHELF (Z_PK, Z_ENT, Z_OPT, ZLABEL, ZKIND, ZID, ZNAME, ZID1, ZLABEL1) VALUES
                        (1, 3, 1, 'A1', 'fiction', x'A1A1A1A1222233334444555555555555', 'North',
                            x'11111111222233334444555555555555', 'front'),
                        (2, 3, 1, 'B2', 'reference', NULL, NULL, x'22222222222233334444555555555555', NULL);
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 2 WHERE Z_ENT = 3;
                    """)
        }
        return project
    }

    private static let numberedColumns =
        "SELECT ZLABEL, ZKIND, hex(ZID), ZNAME, hex(ZID1), ZLABEL1 FROM ZSHELF ORDER BY ZLABEL"

    /// `init --coredata` → `build`: the seed's `ZSHELF` equals the store's, the numbered columns
    /// included (before: `id` and `zone` were refused, Shelf was migrate-only and the seed empty).
    @Test func initThenBuildFillsTheColumnsCoreDataNumbered() throws {
        let project = try numberedStore()
        let initialized = try project.seedkit("init", "--coredata", "app.store")
        expectEqual(initialized.status, 0, "\(initialized)")
        let manifest = try #require(project.read("seeds/seedkit.yml").map { String(decoding: $0, as: UTF8.self) })
        #expect(manifest.contains("  Shelf:\n    file: data/Shelf.csv\n"), "\(manifest)")
        let shelves = try #require(project.read("seeds/data/Shelf.csv").map { String(decoding: $0, as: UTF8.self) })
        let lines = shelves.split(separator: "\n").map(String.init)
        let header = lines.first?.split(separator: ",").map(String.init) ?? []
        let a1 = lines.count > 1 ? Self.fields(lines[1]) : []
        func field(_ name: String) -> String? {
            header.firstIndex(of: name).flatMap { a1.indices.contains($0) ? a1[$0] : nil }
        }
        expectEqual(field("aisle.id"), "A1A1A1A1-2222-3333-4444-555555555555", "\(shelves)")
        expectEqual(field("id"), "11111111-2222-3333-4444-555555555555", "\(shelves)")
        expectEqual(field("label"), "A1", "\(shelves)")
        expectEqual(field("zone.label"), "front", "\(shelves)")
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        let seed = try project.rows("build/seed.store", Self.numberedColumns)
        expectEqual(seed.count, 2)
        try expectEqual(seed, project.rows("app.store", Self.numberedColumns), "\(seed)")
        let diff = try project.seedkit("diff", "app.store", "build/seed.store", "--manifest", "none")
        expectEqual(diff.status, 0, "\(diff)")
        #expect(diff.stdout.contains("Shelf: no differences\n"), "\(diff)")
    }

    /// A migration names the properties; `migrate` writes `id` into `ZID1` and `zone.label` into
    /// `ZLABEL1`.
    ///
    /// A fixture row copied under a new key travels through `new-migration --from`, `check-upgrade`
    /// and `migrate` equal to its source.
    @Test func aMigrationWritesTheColumnsCoreDataNumbered() throws {
        let project = try numberedStore()
        try shipFirstRelease(project)
        let shelves = try #require(project.read("seeds/data/Shelf.csv").map { String(decoding: $0, as: UTF8.self) })
        let a1 = try #require(shelves.split(separator: "\n").dropFirst().first.map(String.init))
        let copied = a1.replacingOccurrences(of: ",A1,", with: ",A9,")
            .replacingOccurrences(
                of: "11111111-2222-3333-4444-555555555555", with: "99999999-2222-3333-4444-555555555555")
        #expect(copied != a1 && copied.contains(",A9,"), "\(a1)")
        try project.write("seeds/data/Shelf.csv", shelves + copied + "\n")
        let generated = try project.seedkit("new-migration", "a9", "--from", "seeds/releases/1.0.store")
        expectEqual(generated.status, 0, "\(generated)")
        let migration = try #require(project.read("migrations/0001-a9.yml").map { String(decoding: $0, as: UTF8.self) })
        #expect(migration.contains("99999999-2222-3333-4444-555555555555"), "\(migration)")
        #expect(migration.contains(#""zone.label": "front""#), "\(migration)")
        let rebuilt = try project.seedkit("build")
        expectEqual(rebuilt.status, 0, "\(rebuilt)")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.store")
        expectEqual(check.status, 0, "\(check)")
        let migrate = try project.seedkit("migrate", "app.store")
        expectEqual(migrate.status, 0, "\(migrate)")
        let rows = try project.rows(
            "app.store",
            "SELECT ZKIND, hex(ZID), ZNAME, hex(ZID1), ZLABEL1 FROM ZSHELF WHERE ZLABEL IN ('A1', 'A9') ORDER BY ZLABEL"
        )
        expectEqual(
            rows,
            [
                "'fiction'|'A1A1A1A1222233334444555555555555'|'North'|'11111111222233334444555555555555'|'front'",
                "'fiction'|'A1A1A1A1222233334444555555555555'|'North'|'99999999222233334444555555555555'|'front'",
            ])
        // An update sets `zone.label` in ZLABEL1 (Shelf has composites: no history mask, so without history).
        try project.write(
            "migrations/0002-zone.yml",
            "update:\n  Shelf:\n    - { key: B2, from: { zone.label: null }, to: { zone.label: back } }\n")
        let second = try project.seedkit("migrate", "app.store", "--without-history")
        expectEqual(second.status, 0, "\(second)")
        let b2 = try project.rows("app.store", "SELECT ZLABEL, ZLABEL1 FROM ZSHELF WHERE ZLABEL = 'B2'")
        expectEqual(b2, ["'B2'|'back'"])
    }

    /// A model whose rule puts a property in a numbered column the table does not have does not
    /// describe the store: `migrate` refuses it (exit 3), naming both properties, and writes nothing;
    /// `verify` reports it.
    @Test func aNumberedColumnTheTableLacksIsRefusedNamingBoth() throws {
        let project = try numberedStore()
        try project.database("app.store").write { db in
            try db.execute(sql: "ALTER TABLE ZSHELF RENAME COLUMN ZID1 TO ZSERIAL")
        }
        try project.write("migrations/0001-shelf.yml", "insert:\n  Shelf:\n    - { label: C3, kind: fiction }\n")
        let before = try #require(project.read("app.store"))
        let migrate = try project.seedkit("migrate", "app.store", "--without-history")
        expectEqual(migrate.status, 3, "\(migrate)")
        #expect(
            migrate.stderr.contains(
                "Shelf.id: Core Data numbers its column ZID1 (aisle.id, first by name, keeps ZID), but ZSHELF has no column ZID1"
            ), "\(migrate)")
        expectEqual(project.read("app.store"), before)
        // verify says the same, for each such column (it said ok: the columns it reads are all there).
        let verify = try project.seedkit("verify", "app.store")
        expectEqual(verify.status, 3, "\(verify)")
        #expect(
            (verify.stdout + verify.stderr).contains(
                "Shelf: Shelf.id: Core Data numbers its column ZID1 (aisle.id, first by name, keeps ZID), but ZSHELF has no column ZID1: the model does not fit the store [2200]"
            ), "\(verify)")
    }

    /// Sibling sub-entities that each have a `size` share their root's table, where Core Data
    /// numbers one of the columns (`ZSIZE`, `ZSIZE1`).
    ///
    /// By the rule each entity's `size` is `ZSIZE`, so a build wrote both there; which sibling Core
    /// Data moves, no real store read shows. The build is refused (exit 3) naming the column and
    /// both properties, and nothing is written.
    @Test func aNumberedColumnNoPropertyAsksForIsRefusedNamingThem() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.writeCoreDataProject(
            model: "Shapes.xcdatamodel",
            entities: """
                <entity name="Shape" representedClassName="Shape" isAbstract="YES" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                </entity>
                <entity name="Circle" representedClassName="Circle" parentEntity="Shape" syncable="YES">
                    <attribute name="size" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                </entity>
                <entity name="Square" representedClassName="Square" parentEntity="Shape" syncable="YES">
                    <attribute name="size" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                </entity>
                """,
            tables: """
                    CREATE TABLE ZSHAPE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSIZE FLOAT, ZSIZE1 FLOAT, ZNAME VARCHAR);
                """,
            primaryKeys: [(1, "Shape", 0, 0), (2, "Circle", 1, 0), (3, "Square", 1, 0)])
        try project.write(
            "seeds/seedkit.yml",
            """
            model: Shapes.xcdatamodel
            template: empty.sqlite
            output: ../seed.sqlite
            tables:
              Circle: { file: data/circles.csv, key: name }
              Square: { file: data/squares.csv, key: name }

            """)
        try project.write("seeds/data/circles.csv", "name,size\nDot,1.5\n")
        try project.write("seeds/data/squares.csv", "name,size\nBox,2.5\n")
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 3, "\(build)")
        #expect(
            build.stderr.contains(
                "ZSHAPE.ZSIZE1 is a column Core Data numbered beside ZSIZE, which Circle.size, Square.size ask for, and no property asks for it by the rule seedkit follows"
            ), "\(build)")
        #expect(!project.exists("seed.sqlite"))
    }

    /// CSV fields of one line without quotes or commas inside (the rows here have none).
    private static func fields(_ line: String) -> [String] {
        line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
}
