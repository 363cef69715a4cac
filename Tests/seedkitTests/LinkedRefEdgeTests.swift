import Foundation
import GRDB
import SeedTestSupport
import Testing

/// Where linking a nullable ref to a row not in yet (be8d104) must not show: a table's triggers
/// and manifest checks see its rows as the fixtures give them (such rows wait, as before); a
/// table named `l`; a one-to-one whose schema says ON CONFLICT REPLACE.
@Suite struct LinkedRefEdgeTests {
    private func project(schema: String, nodes: String) throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write("seeds/schema.sql", schema)
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  nodes: { file: data/nodes.csv, key: name, refs: { parent_id: nodes.name } }\n"
        )
        try project.write("seeds/data/nodes.csv", nodes)
        return project
    }

    private func strings(_ project: TemporaryProject, _ sql: String) throws -> [String] {
        try DatabaseQueue(path: project.path("build/seed.sqlite")).read { db in try String.fetchAll(db, sql: sql) }
    }

    /// An AFTER INSERT trigger that keeps a count of children: the child listed before its
    /// parent must be counted as the one listed after it is (it went in with its ref empty).
    @Test func anAfterInsertTriggerSeesTheRefOfAChildListedBeforeItsParent() throws {
        let project = try project(
            schema: """
                CREATE TABLE nodes (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, parent_id INTEGER REFERENCES nodes(id));
                CREATE TABLE counts (name TEXT PRIMARY KEY, children INTEGER NOT NULL);
                CREATE TRIGGER count_child AFTER INSERT ON nodes WHEN NEW.parent_id IS NOT NULL BEGIN
                  INSERT INTO counts (name, children) SELECT name, 1 FROM nodes WHERE id = NEW.parent_id
                    ON CONFLICT (name) DO UPDATE SET children = children + 1;
                END;

                """,
            nodes: "name,parent_id\nearly,root\nroot,\nlate,root\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(try strings(project, "SELECT name || ' ' || children FROM counts ORDER BY name"), ["root 2"])
    }

    /// A column named `rowid` hides the rowid behind that name: the links reach the rows by
    /// `_rowid_` (the read-back failed the build, exit 4), and so does a manifest check.
    @Test func aColumnNamedRowidDoesNotHideTheRowsTheLinksSet() throws {
        let project = try project(
            schema:
                "CREATE TABLE nodes (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, rowid TEXT, parent_id INTEGER REFERENCES nodes(id));\n",
            nodes: "name,rowid,parent_id\na,9,c\nb,8,a\nc,7,\n" + (0..<100).map { "n\($0),\($0),n\($0 + 1)\n" }.joined()
                + "n100,x,\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(
            try strings(
                project,
                "SELECT n.name || ' ' || n.rowid || ' → ' || coalesce(p.name, '-') FROM nodes n LEFT JOIN nodes p ON p.id = n.parent_id WHERE n.name IN ('a', 'b', 'c', 'n0', 'n99', 'n100') ORDER BY n.id"
            ), ["a 9 → c", "b 8 → a", "c 7 → -", "n0 0 → n1", "n99 99 → n100", "n100 x → -"])

        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  nodes:\n    file: data/nodes.csv\n    key: name\n    refs: { parent_id: nodes.name }\n    checks: [{ sql: \"rowid <> 'x'\", message: not x }]\n"
        )
        let checked = try project.seedkit("build")
        expectEqual(checked.status, 1, "\(checked)")
        #expect(checked.stderr.contains("data/nodes.csv:105"), "\(checked.stderr)")
    }

    /// An AFTER UPDATE trigger (an audit log) fires for no row: the fixtures update nothing.
    @Test func anAfterUpdateTriggerDoesNotFireForARefSetAfterwards() throws {
        let project = try project(
            schema: """
                CREATE TABLE nodes (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, parent_id INTEGER REFERENCES nodes(id));
                CREATE TABLE audit (name TEXT NOT NULL);
                CREATE TRIGGER audit_update AFTER UPDATE ON nodes BEGIN INSERT INTO audit (name) VALUES (NEW.name); END;

                """,
            nodes: "name,parent_id\nleaf,root\nroot,\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(try strings(project, "SELECT name FROM audit"), [])
        expectEqual(
            try strings(
                project,
                "SELECT n.name || ' → ' || coalesce(p.name, '-') FROM nodes n LEFT JOIN nodes p ON p.id = n.parent_id ORDER BY n.name"
            ),
            ["leaf → root", "root → -"])
    }

    /// A manifest check that reads the ref: it holds of the row the fixture gives (the child listed
    /// before its parent has that parent), so the build passes as it does with the parent first.
    @Test func aManifestCheckOnTheRefSeesTheParentOfAChildListedFirst() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE nodes (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, parent_id INTEGER REFERENCES nodes(id));\n"
        )
        try project.write(
            "seeds/seedkit.yml",
            """
            schema: schema.sql
            output: ../build/seed.sqlite
            tables:
              nodes:
                file: data/nodes.csv
                key: name
                refs: { parent_id: nodes.name }
                checks:
                  - sql: "name = 'root' OR parent_id IS NOT NULL"
                    message: every node but the root has a parent

            """)
        try project.write("seeds/data/nodes.csv", "name,parent_id\nleaf,root\nroot,\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(
            try strings(
                project,
                "SELECT n.name || ' → ' || coalesce(p.name, '-') FROM nodes n LEFT JOIN nodes p ON p.id = n.parent_id ORDER BY n.name"
            ),
            ["leaf → root", "root → -"])
    }

    /// A table named `l`: the UPDATE that sets the refs gave its links that alias (SQLite error, exit 4).
    @Test func aTableNamedLWithARefToALaterRowBuilds() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE l (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, parent_id INTEGER REFERENCES l(id));\n")
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  l: { file: data/l.csv, key: name, refs: { parent_id: l.name } }\n"
        )
        try project.write("seeds/data/l.csv", "name,parent_id\nleaf,root\nroot,\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(
            try strings(
                project,
                "SELECT n.name || ' → ' || coalesce(p.name, '-') FROM l n LEFT JOIN l p ON p.id = n.parent_id ORDER BY n.name"
            ),
            ["leaf → root", "root → -"])
    }

    /// A one-to-one ref with ON CONFLICT REPLACE that two rows give one later parent: the linking
    /// UPDATE replaced line 2's row and the build only counted a row missing (1550), naming no
    /// row; it runs OR ABORT now, and the second row is named as a duplicate, as when the parent
    /// is listed first.
    @Test func aReplacingOneToOneSetToOneLaterParentNamesTheSecondRow() throws {
        let project = try project(
            schema:
                "CREATE TABLE nodes (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, parent_id INTEGER UNIQUE ON CONFLICT REPLACE REFERENCES nodes(id));\n",
            nodes: "name,parent_id\na,c\nb,c\nc,\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderr,
            "seeds/data/nodes.csv:3:2: error: duplicate key parent_id 'c': an earlier row has the same (the schema's ON CONFLICT REPLACE would have deleted that row; seedkit keeps every row or fails) [2040]\n",
            "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
    }

    /// Links hold when a schema (or template) row has the largest rowid.
    ///
    /// SQLite then picks the rowids of new rows at random, so a multi-row INSERT's rows are not
    /// numbered one after another. The links of children listed before their parents were set on
    /// other rows (the read-back failed the build, exit 4 "please report it";
    /// `--without-read-back` wrote wrong parents silently).
    @Test func linksHoldWhenTheTableAlreadyHasTheLargestRowid() throws {
        let project = try project(
            schema: """
                CREATE TABLE nodes (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, parent_id INTEGER REFERENCES nodes(id));
                INSERT INTO nodes VALUES (9223372036854775807, 'max', NULL);

                """,
            nodes: "name,parent_id\n" + (0..<100).map { "n\($0),n\($0 + 1)\n" }.joined() + "n100,\n")
        let query =
            "SELECT count(*) FROM nodes n JOIN nodes p ON p.id = n.parent_id WHERE p.name = 'n' || (substr(n.name, 2) + 1)"
        for arguments in [["build"], ["build", "--without-read-back"]] {
            try? FileManager.default.removeItem(atPath: project.path("build/seed.sqlite"))
            let result = try project.seedkit(arguments)
            expectEqual(result.status, 0, "\(arguments) \(result)")
            expectEqual(try strings(project, query), ["100"], "\(arguments)")
        }
    }

    /// A FOREIGN KEY to the table itself on a column the fixture leaves to its DEFAULT: SQLite
    /// checks a multi-row INSERT's keys at its end, so rows naming a row later in the same
    /// statement passed (the build succeeded) where one by one each fails, as a table with a
    /// trigger (always one by one) shows.
    @Test func aSelfReferencingDefaultFailsAsOneByOne() throws {
        let schema =
            "CREATE TABLE nodes (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, parent_id INTEGER REFERENCES nodes(id), home_id INTEGER DEFAULT 3 REFERENCES nodes(id));\n"
        let nodes = "name,parent_id\nn0,\n" + (1..<40).map { "n\($0),n\($0 - 1)\n" }.joined()
        let bulk = try project(schema: schema, nodes: nodes)
        let single = try project(
            schema: schema + "CREATE TRIGGER noop AFTER INSERT ON nodes BEGIN SELECT 1; END;\n", nodes: nodes)
        let (bulkResult, singleResult) = (try bulk.seedkit("build"), try single.seedkit("build"))
        expectEqual(singleResult.status, 1, "\(singleResult)")
        expectEqual(bulkResult.status, singleResult.status, "\(bulkResult)")
        expectEqual(bulkResult.stderr, singleResult.stderr)
    }
}
