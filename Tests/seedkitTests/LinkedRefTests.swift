import Foundation
import GRDB
import SeedTestSupport
import Testing

/// A nullable ref to a row not in yet goes in empty and is set once every row is in
/// (docs/reference.md, "The manifest (`seeds/seedkit.yml`)"): what the schema says about the
/// column still holds, and what it refuses is said at the row's line.
@Suite struct LinkedRefTests {
    private func project(column: String, nodes: String) throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE nodes (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, parent_id INTEGER \(column) REFERENCES nodes(id));\n"
        )
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  nodes: { file: data/nodes.csv, key: name, refs: { parent_id: nodes.name } }\n"
        )
        try project.write("seeds/data/nodes.csv", nodes)
        return project
    }

    private func tree(_ project: TemporaryProject) throws -> [String] {
        try DatabaseQueue(path: project.path("build/seed.sqlite")).read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT n.id || ' ' || n.name || ' → ' || coalesce(p.name, '-') FROM nodes n LEFT JOIN nodes p ON p.id = n.parent_id ORDER BY n.id"
            )
        }
    }

    @Test func rowsGoInInTheFixturesOrderAndTheirRefsAreSetAfterwards() throws {
        let project = try project(column: "", nodes: "name,parent_id\nleaf,mid\nmid,root\nroot,\nother,mid\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(try tree(project), ["1 leaf → mid", "2 mid → root", "3 root → -", "4 other → mid"])
    }

    /// A CHECK that refuses the empty ref: the row waits for its parent and goes in whole.
    @Test func aRowACheckRefusesWithItsRefEmptyWaitsForItsParent() throws {
        let project = try project(
            column: "CHECK (parent_id IS NOT NULL OR name = 'root')",
            nodes: "name,parent_id\nleaf,mid\nmid,root\nroot,\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(try tree(project), ["1 root → -", "2 mid → root", "3 leaf → mid"])
    }

    /// A one-to-one (UNIQUE ref) that two rows give the same later parent: the second is named.
    @Test func aUniqueRefTwoRowsSetToOneLaterParentIsADuplicateAtTheSecondRow() throws {
        let project = try project(column: "UNIQUE", nodes: "name,parent_id\na,c\nb,c\nc,\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderr,
            "seeds/data/nodes.csv:3:2: error: duplicate key parent_id 'c': an earlier row has the same [2040]\n",
            "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
    }

    @Test func aLaterKeyThatNoRowHasIsNamedAtItsRow() throws {
        let project = try project(column: "", nodes: "name,parent_id\na,b\nb,zz\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderr, "seeds/data/nodes.csv:3:2: error: parent_id 'zz' matches no nodes.name [2030]\n",
            "\(result)")
    }
}
