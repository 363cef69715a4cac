import Foundation
import GRDB
import SeedTestSupport
import Testing

/// A missing migrations folder is not "nothing to do": a deploy script run from the wrong
/// folder, or with a typo in `--migrations`, must fail (exit 2), not report "up to date".
@Suite struct MigrationsFolderTests {
    @Test(arguments: [
        ["migrate", "user.sqlite"], ["status", "user.sqlite"], ["status", "user.sqlite", "--exit-code"],
        ["export-migrations", "out"],
    ])
    func commandsThatApplyOrShipMigrationsRefuseAMissingDefaultFolder(_ arguments: [String]) throws {
        let project = try TemporaryProject.withUserStore()
        try FileManager.default.removeItem(atPath: project.path("migrations"))
        let before = project.read("user.sqlite")
        let result = try project.seedkit(arguments)
        expectEqual(result.status, 2, "\(result)")
        #expect(
            result.stderr.contains(
                "migrations: error: no migrations folder here; run seedkit in the project's folder, or pass --migrations DIR (--migrations none for none) [2100]"
            ), "\(result)")
        expectEqual(project.read("user.sqlite"), before)
        #expect(!FileManager.default.fileExists(atPath: project.path("out")))
    }

    @Test(arguments: [
        ["migrate", "user.sqlite"], ["status", "user.sqlite"], ["export-migrations", "out"],
        ["build", "--output", "other.sqlite"],
        ["check-upgrade", "user.sqlite"], ["new-migration", "next"],
    ])
    func aMigrationsFolderNamedOnTheCommandLineMustExist(_ arguments: [String]) throws {
        let project = try TemporaryProject.withUserStore()
        let before = project.read("user.sqlite")
        let result = try project.seedkit(arguments + ["--migrations", "migratons"])
        expectEqual(result.status, 2, "\(result)")
        #expect(
            result.stderr.contains("migratons: error: no such migrations folder (--migrations none for none) [2100]"),
            "\(result)")
        expectEqual(project.read("user.sqlite"), before)
        #expect(!FileManager.default.fileExists(atPath: project.path("other.sqlite")))
    }

    @Test func noneMeansNoMigrationsAndAProjectWithoutTheFolderStillBuilds() throws {
        let project = try TemporaryProject.withUserStore()
        let status = try project.seedkit("status", "user.sqlite", "--migrations", "none")
        expectEqual(status.status, 0, "\(status)")
        try FileManager.default.removeItem(atPath: project.path("migrations"))
        let build = try project.seedkit("build", "--output", "fresh.sqlite")
        expectEqual(build.status, 0, "\(build)")
        #expect(build.stdout.contains("built fresh.sqlite"), "\(build)")
    }
}

/// `export-migrations DIR` into a folder holding a migration it does not write (removed or
/// renumbered since the last export) would ship that file in the app, which would apply it.
@Suite struct ExportStaleMigrationTests {
    @Test func aMigrationTheExportDoesNotWriteIsRefusedAndNothingIsWritten() throws {
        let project = try TemporaryProject.withUserStore()
        try FileManager.default.createDirectory(
            atPath: project.path("app/migrations"), withIntermediateDirectories: true)
        try project.write(
            "app/migrations/0009-old.json",
            #"{"insert": {"books": [{"title": "Ghost", "price": 1, "category_id": "Fiction"}]}}"#)
        try project.write("app/migrations/notes.txt", "not a migration\n")
        let result = try project.seedkit("export-migrations", "app/migrations")
        expectEqual(result.status, 2, "\(result)")
        expectEqual(
            result.stderr,
            "app/migrations/0009-old.json: error: a migration this export does not write; an app would apply it: remove it (export-migrations never deletes files), nothing was written [2100]\n",
            "\(result)")
        try expectEqual(
            FileManager.default.contentsOfDirectory(atPath: project.path("app/migrations")).sorted(),
            [
                "0009-old.json", "notes.txt",
            ])
        // Once it is gone, exporting again over an earlier export is fine.
        try FileManager.default.removeItem(atPath: project.path("app/migrations/0009-old.json"))
        try expectEqual(project.seedkit("export-migrations", "app/migrations").status, 0)
        let again = try project.seedkit("export-migrations", "app/migrations")
        expectEqual(again.status, 0, "\(again)")
        #expect(again.stdout.hasPrefix("wrote app/migrations/0001-add-fourth-book.json  sha256:"), "\(again)")
    }
}

/// `status --exit-code` is a gate: it must not pass (exit 0) a store `migrate` will refuse.
@Suite struct StatusGateTests {
    @Test func aChangedOrMissingMigrationIsExit3WithExitCode() throws {
        let project = try TemporaryProject.withUserStore()
        try expectEqual(project.seedkit("migrate", "user.sqlite").status, 0)
        try expectEqual(project.seedkit("status", "user.sqlite", "--exit-code").status, 0)
        let file = try #require(
            try FileManager.default.contentsOfDirectory(atPath: project.path("migrations")).first {
                $0.hasPrefix("0001-")
            })
        let original = try #require(project.read("migrations/\(file)"))
        try project.write(
            "migrations/\(file)",
            String(decoding: original, as: UTF8.self).replacingOccurrences(of: "price: 12", with: "price: 13"))
        let changed = try project.seedkit("status", "user.sqlite", "--exit-code")
        expectEqual(changed.status, 3, "\(changed)")
        #expect(changed.stdout.contains("changed"), "\(changed)")
        try expectEqual(project.seedkit("status", "user.sqlite").status, 0, "without --exit-code status only reports")
        try FileManager.default.removeItem(atPath: project.path("migrations/\(file)"))
        let missing = try project.seedkit("status", "user.sqlite", "--exit-code")
        expectEqual(missing.status, 3, "\(missing)")
        #expect(missing.stdout.contains("missing"), "\(missing)")
        let annotated = try project.seedkit("status", "user.sqlite", "--format", "github")
        #expect(
            annotated.stdout.hasPrefix(
                "::error file=user.sqlite,title=seedkit status::0001-add-fourth-book missing: recorded in the store, no file here; the store will be refused\n"
            ), "\(annotated)")
    }

    /// `check-upgrade --format github` (what `seedkit init`'s workflow runs) annotates each reason
    /// an old seed fails; it used to print only the human report.
    @Test func checkUpgradeAnnotatesADivergenceForGitHub() throws {
        let project = try TemporaryProject.withUserStore()
        let file = try #require(
            try FileManager.default.contentsOfDirectory(atPath: project.path("migrations")).first {
                $0.hasPrefix("0001-")
            })
        try FileManager.default.copyItem(atPath: project.path("user.sqlite"), toPath: project.path("old.sqlite"))
        let original = try #require(project.read("migrations/\(file)"))
        try project.write(
            "migrations/\(file)",
            String(decoding: original, as: UTF8.self).replacingOccurrences(of: "price: 12", with: "price: 13"))
        let result = try project.seedkit("check-upgrade", "old.sqlite", "--format", "github")
        expectEqual(result.status, 1, "\(result)")
        #expect(
            result.stdout.contains(
                "::error file=old.sqlite,title=seedkit check-upgrade::diverges from a fresh build: books 'The fourth book': got a row, expected no row\n"
            ), "\(result)")
        let human = try project.seedkit("check-upgrade", "old.sqlite")
        #expect(!human.stdout.contains("::error"), "\(human)")
    }
}

@Suite struct SchemaFileMessageTests {
    /// `schema: schemas.sql` (a typo) said only "cannot read the schema file".
    @Test func aMissingSchemaFileSaysItDoesNotExistAndWhichManifestNamesIt() throws {
        let project = try TemporaryProject()
        let manifest = try #require(project.read("seeds/seedkit.yml"))
        try project.write(
            "seeds/seedkit.yml",
            String(decoding: manifest, as: UTF8.self).replacingOccurrences(
                of: "schema: schema.sql", with: "schema: schemas.sql"))
        let result = try project.seedkit("build")
        expectEqual(result.status, 2, "\(result)")
        expectEqual(
            result.stderr,
            "seeds/schemas.sql: error: the schema file does not exist (manifest: seeds/seedkit.yml) [2100]\n",
            "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
    }
}

/// Deletes listed parents first wait for the rest of the migration: a chain goes in one retry
/// pass (it took one pass per link: 1,000 links listed parents first took 100 s).
@Suite struct BlockedDeleteChainTests {
    @Test func aChainListedParentsFirstIsDeletedWholeAndAUsersChildKeepsItsParents() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE nodes (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, parent_id INTEGER REFERENCES nodes(id));\n"
        )
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../seed.sqlite\ntables:\n  nodes: { file: data/nodes.csv, key: name, refs: { parent_id: nodes.name } }\n"
        )
        let count = 400
        try project.write(
            "seeds/data/nodes.csv",
            "name,parent_id\nroot,\n" + (0..<count).map { "n\($0),\($0 == 0 ? "root" : "n\($0 - 1)")\n" }.joined())
        try expectEqual(project.seedkit("build", "--migrations", "none").status, 0)
        try FileManager.default.copyItem(atPath: project.path("seed.sqlite"), toPath: project.path("user.sqlite"))
        try project.write(
            "migrations/0001-prune.yml",
            "delete:\n  nodes:\n"
                + (0..<count).map { "    - { key: n\($0), from: { parent_id: \($0 == 0 ? "root" : "n\($0 - 1)") } }\n" }
                .joined())
        let clean = try project.seedkit("migrate", "seed.sqlite")
        expectEqual(clean.status, 0, "\(clean)")
        #expect(clean.stdout.contains("applied 0001-prune: \(count) deleted"), "\(clean)")
        try expectEqual(project.rows("seed.sqlite", "SELECT name FROM nodes"), ["'root'"])
        // A user's node under n199 keeps n0…n199 (each reported), and n200… go.
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "INSERT INTO nodes (name, parent_id) SELECT 'mine', id FROM nodes WHERE name = 'n199'")
        }
        let kept = try project.seedkit("migrate", "user.sqlite")
        expectEqual(kept.status, 0, "\(kept)")
        #expect(kept.stdout.contains("applied 0001-prune: \(count - 200) deleted, 200 delete-denied"), "\(kept)")
        try expectEqual(project.rows("user.sqlite", "SELECT count(*) FROM nodes"), ["202"])
    }

    /// A waiting delete is judged by the store at its own place in the migration: a later
    /// update that renames its parent does not turn it into a false conflict (found by review).
    @Test func aWaitingDeleteIsNotJudgedByTheMigrationsLaterChanges() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE nodes (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, parent_id INTEGER REFERENCES nodes(id));\n"
        )
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../seed.sqlite\ntables:\n  nodes: { file: data/nodes.csv, key: name, refs: { parent_id: nodes.name } }\n"
        )
        try project.write("seeds/data/nodes.csv", "name,parent_id\nP,\nC,P\nG,C\n")
        try expectEqual(project.seedkit("build", "--migrations", "none").status, 0)
        try project.write(
            "migrations/0001-reshape.yml",
            """
            delete:
              nodes:
                - { key: C, from: { parent_id: P } }
            update:
              nodes:
                - { key: P, from: { name: P }, to: { name: P2 } }
                - { key: G, from: { parent_id: C }, to: { parent_id: P2 } }

            """)
        let migrate = try project.seedkit("migrate", "seed.sqlite")
        expectEqual(migrate.status, 0, "\(migrate)")
        #expect(migrate.stdout.contains("applied 0001-reshape: 2 updated, 1 deleted"), "\(migrate)")
        try expectEqual(
            project.rows(
                "seed.sqlite",
                "SELECT n.name, p.name FROM nodes n LEFT JOIN nodes p ON p.id = n.parent_id ORDER BY n.id"),
            [
                "'P2'|NULL", "'G'|'P2'",
            ])
    }

    /// A user's edit of a row that one migration updates and a later one renames is found under
    /// its new key: check-upgrade said "LOST … now has 0 rows" (a false alarm).
    @Test func anEditOfARowALaterMigrationRenamesIsFoundUnderItsNewKey() throws {
        let project = try TemporaryProject()
        try expectEqual(project.seedkit("build").status, 0)
        try FileManager.default.createDirectory(
            atPath: project.path("seeds/releases"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: project.path("build/seed.sqlite"), toPath: project.path("seeds/releases/1.0.sqlite"))
        try project.write(
            "migrations/0002-reprice.yml",
            "update:\n  books:\n    - { key: The second book, from: { price: 15 }, to: { price: 16 } }\n")
        try project.write(
            "migrations/0003-rename.yml",
            "update:\n  books:\n    - { key: The second book, from: { title: The second book }, to: { title: The 2nd book } }\n"
        )
        try project.write(
            "seeds/data/books.csv",
            "title,price,category_id\nThe first book,10,Fiction\nThe 2nd book,16,Fiction\nThe third book,10,Biography\n"
        )
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
        #expect(!check.stdout.contains("LOST"), "\(check)")
        #expect(check.stdout.contains("ok: user edit books 'The 2nd book'.price = "), "\(check)")
    }
}
