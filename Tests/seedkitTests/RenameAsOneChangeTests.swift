import Foundation
import SeedTestSupport
import Testing

/// A renamed row in a key-only table (`tags(name)`), with rows of another table keyed by their ref
/// to it: `new-migration` without `--rename` says which rename is likely (the rows referring to it
/// say so: the table's own columns cannot), and `diff` shows a rename a release made as one
/// changed row, its children as changed rows too (issue 44).
@Suite struct RenameAsOneChangeTests {
    private func tagsProject() throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            """
            CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
            CREATE TABLE items (id INTEGER PRIMARY KEY, tag_id INTEGER NOT NULL REFERENCES tags(id),
                label TEXT NOT NULL, qty INTEGER, UNIQUE (tag_id, label));
            CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL UNIQUE, tag_id INTEGER REFERENCES tags(id));

            """)
        try project.write(
            "seeds/seedkit.yml",
            """
            schema: schema.sql
            output: ../build/seed.sqlite
            tables:
              tags: { file: data/tags.csv, key: name }
              items: { file: data/items.csv, key: [tag_id, label], refs: { tag_id: tags.name } }
              notes: { file: data/notes.csv, key: body, refs: { tag_id: tags.name } }

            """)
        try project.write("seeds/data/tags.csv", "name\nred\nblue\n")
        try project.write("seeds/data/items.csv", "tag_id,label,qty\nred,a,1\nred,b,2\nblue,c,3\n")
        try project.write("seeds/data/notes.csv", "body,tag_id\nwarm,red\ncold,blue\n")
        try FileManager.default.createDirectory(
            atPath: project.path("seeds/releases"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: project.path("migrations"), withIntermediateDirectories: true)
        try expectEqual(project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status, 0)
        // 1.1: red is now crimson; its items and note follow it, and b's quantity changes too.
        try project.write("seeds/data/tags.csv", "name\ncrimson\nblue\n")
        try project.write("seeds/data/items.csv", "tag_id,label,qty\ncrimson,a,1\ncrimson,b,5\nblue,c,3\n")
        try project.write("seeds/data/notes.csv", "body,tag_id\nwarm,crimson\ncold,blue\n")
        return project
    }

    @Test func aKeyOnlyRowRenamedIsALikelyRenameByTheRowsReferringToIt() throws {
        let project = try tagsProject()
        let result = try project.seedkit("new-migration", "release 1.1", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(result.status, 0, "\(result)")
        // One hint, the parent's: the items' own likely renames are only their ref following it.
        expectEqual(
            result.stdout,
            """
            wrote migrations/0001-release-1-1.yml: 3 inserts, 1 update, 3 deletes
              likely rename tags 'red' → 'crimson' (3 rows of items, notes that referred to 'red' refer to 'crimson' instead): written as a delete and an insert; if it is one row renamed, run again with --rename 'tags:red=crimson'

            """)
    }

    @Test func aRenameTheReleaseMadeShowsAsOneChangedRowAndItsChildrenAsChanged() throws {
        let project = try tagsProject()
        let written = try project.seedkit(
            "new-migration", "release 1.1", "--from", "seeds/releases/1.0.sqlite", "--rename", "tags:red=crimson")
        expectEqual(written.status, 0, "\(written)")
        try expectEqual(project.seedkit("build").status, 0)
        let diff = try project.seedkit("diff", "seeds/releases/1.0.sqlite", "build/seed.sqlite")
        expectEqual(diff.status, 0, "\(diff)")
        expectEqual(
            diff.stdout,
            """
            tags: 0 added, 0 removed, 1 changed (by name)
              ~ 'red': name 'red' → 'crimson'
            items: 0 added, 0 removed, 2 changed (by tag_id, label)
              ~ 'red', 'a': tag_id 'red' → 'crimson'
              ~ 'red', 'b': tag_id 'red' → 'crimson', qty 2 → 5
            notes: 0 added, 0 removed, 1 changed (by body)
              ~ 'warm': tag_id 'red' → 'crimson'

            """)
        let json = try project.seedkit("diff", "seeds/releases/1.0.sqlite", "build/seed.sqlite", "--format", "json")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json)")
        let tables = try #require(object["tables"] as? [[String: Any]])
        for table in tables {
            expectEqual((table["added"] as? [Any])?.count, 0, "\(table)")
            expectEqual((table["removed"] as? [Any])?.count, 0, "\(table)")
        }
        // Without the migrations (or before the release) it is a delete and an insert, as the stores hold it.
        let plain = try project.seedkit(
            "diff", "seeds/releases/1.0.sqlite", "build/seed.sqlite", "--migrations", "none", "--table", "tags")
        expectEqual(plain.stdout, "tags: 1 added, 1 removed, 0 changed (by name)\n  + 'crimson'\n  - 'red'\n")
        let missing = try project.seedkit(
            "diff", "seeds/releases/1.0.sqlite", "build/seed.sqlite", "--migrations", "nowhere")
        expectEqual(missing.status, 2, "\(missing)")
        #expect(missing.stderr.contains("nowhere: error: no such migrations folder"), "\(missing)")
    }
}
