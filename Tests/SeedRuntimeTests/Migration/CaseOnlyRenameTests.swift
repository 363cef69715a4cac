import Foundation
import SeedRuntime
import SeedTestSupport
import Testing

/// A rename that changes only the case of a NOCASE key: the new key matches the row itself,
/// which is no other row holding it (docs/releases.md, "Renames").
@Suite struct CaseOnlyRenameTests {
    @Test func aNocaseKeyRenamedToItsOwnOtherCaseIsRenamedNotAConflict() throws {
        let base = try multiRowStore(
            schema: """
                CREATE TABLE cats (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE COLLATE NOCASE);
                CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, cat_id INTEGER REFERENCES cats(id));
                """,
            seed: """
                INSERT INTO cats (id, name) VALUES (1, 'veg'), (2, 'fruit');
                INSERT INTO items (name, cat_id) VALUES ('leek', 1), ('pear', 2);
                """, coreData: false)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let specs = [
            TableSpec(name: "cats", key: ["name"]),
            TableSpec(name: "items", key: ["name"], refs: ["cat_id": .init(table: "cats", column: "name")]),
        ]
        let migration = try loadMigration(
            json: """
                {"update": {"cats": [
                    {"key": "veg", "from": {"name": "veg"}, "to": {"name": "VEG"}},
                    {"key": "fruit", "from": {"name": "fruit"}, "to": {"name": "Veg"}}
                ]}}
                """, fileName: "0001-case.json")
        let outcome = try multiRowRun(base, specs: specs, migrations: [migration], multiRow: true)
        // 'veg' → 'VEG': the only row with that key (NOCASE) is the renamed one. It was refused
        // as "already taken by another row" and the migration recorded as applied without it.
        #expect(outcome.report.contains("updated cats"), "\(outcome.report)")
        // 'fruit' → 'Veg': taken by another row (NOCASE), still a conflict.
        #expect(outcome.report.contains("already taken by another row"), "\(outcome.report)")
        expectEqual(outcome.tables["cats"], ["1|1|\"VEG\"", "2|2|\"fruit\""], "\(outcome.report)")
        expectEqual(outcome.tables["items"], ["1|1|\"leek\"|1", "2|2|\"pear\"|2"])
    }
}
