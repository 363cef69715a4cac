import Foundation
import GRDB
import SeedTestSupport
import Testing

/// Issue 35: a SwiftData app keyed by `@Attribute(.unique) var id: UUID` (a 16-byte BLOB) reads
/// and writes its UUIDs as text everywhere (docs/core-data.md, "Keys and UUIDs"); an entity
/// with no key is never updated or deleted by its `Z_PK`.
@Suite struct SwiftDataUUIDTests {
    static let leGuin = "3F2504E0-4F89-41D3-9A0C-0305E82C3301"
    static let calvino = "6BA7B810-9DAD-41D1-80B4-00C04FD430C8"

    /// The example keyed by its UUIDs: Author and Book by `id`, a book's `author` by `Author.id`.
    private func keyedByUUID() throws -> TemporaryProject {
        let project = try swiftDataProject()
        try project.write(
            "seeds/seedkit.yml",
            """
            template: default.store
            output: ../build/seed.store
            tables:
              Author: { file: data/Author.csv, key: id }
              Book: { file: data/Book.csv, key: id, refs: { author: Author.id } }
            """)
        try project.write(
            "seeds/data/Book.csv",
            """
            title,id,pages,published,author
            The Dispossessed,0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D01,387,1974-05-01,\(Self.leGuin)
            The Lathe of Heaven,0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D02,184,1971-01-01,\(Self.leGuin)
            Invisible Cities,0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D03,165,1972-11-01,\(Self.calvino)

            """)
        return project
    }

    /// `new-migration --from` wrote a ref to a UUID-keyed parent as base64
    /// (`"a6e4EJ2tQdGAtADAT9QwyA=="`), which its own `build` then refused (2030).
    @Test func newMigrationWritesARefToAUUIDKeyAsItsText() throws {
        let project = try keyedByUUID()
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        try FileManager.default.createDirectory(
            atPath: project.path("seeds/releases"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: project.path("build/seed.store"), toPath: project.path("seeds/releases/1.0.store"))
        let fixture = try #require(project.read("seeds/data/Book.csv"))
        try project.write(
            "seeds/data/Book.csv",
            fixture + Data("Flint,0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D07,3,,\(Self.calvino)\n".utf8))
        let generated = try project.seedkit("new-migration", "flint", "--from", "seeds/releases/1.0.store")
        expectEqual(generated.status, 0, "\(generated)")
        let migration = try #require(
            project.read("migrations/0001-flint.yml").map { String(decoding: $0, as: UTF8.self) })
        #expect(migration.contains(#"author: "\#(Self.calvino)""#), "\(migration)")
        #expect(!migration.contains("=="), "\(migration)")
        let rebuilt = try project.seedkit("build")
        expectEqual(rebuilt.status, 0, "\(rebuilt)")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.store")
        expectEqual(check.status, 0, "\(check)")
        // The simulated user's author under a UUID of its own (was: `"3F25… (added by the user)" is not a UUID`, not checked).
        #expect(
            check.stdout.contains(
                "  ok: user row Author 'C0DAFB1F-B076-BE2C-65F3-FCFA17D3CCFE'.name = \"Ursula K. Le Guin (edited by the user)\" kept\n"
            ), "\(check)")
        #expect(!check.stdout.contains("is not a UUID"), "\(check)")
        // inspect shows the ref by its parent's UUID, not `<16 bytes …>`.
        let inspect = try project.seedkit("inspect", "build/seed.store", "Book")
        expectEqual(inspect.status, 0, "\(inspect)")
        #expect(inspect.stdout.contains(Self.calvino), "\(inspect)")
        #expect(!inspect.stdout.contains("bytes"), "\(inspect)")
    }

    /// A fixture's ref to a UUID key that matches no row was reported as `parentRecipe '<16 bytes>'
    /// matches no SDRecipe.id` (ChefTime's store, 96 times): which one? Now the UUID's text.
    @Test func aRefToNoRowNamesTheUUID() throws {
        let project = try keyedByUUID()
        let fixture = try #require(project.read("seeds/data/Book.csv"))
        try project.write(
            "seeds/data/Book.csv",
            fixture + Data("Flint,0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D07,3,,6ba7b810-9dad-41d1-80b4-00c04fd4ffff\n".utf8))
        let build = try project.seedkit("build")
        expectEqual(build.status, 1, "\(build)")
        expectEqual(
            build.stderrLines,
            [
                "seeds/data/Book.csv:5:5: error: author '6BA7B810-9DAD-41D1-80B4-00C04FD4FFFF' matches no Author.id [2030]"
            ], "\(build)")
    }

    /// `build` said an update's UUID key "matches no row … in the fixtures" while the row was
    /// there: the release check read the fresh seed without the model.
    ///
    /// Either case is the same UUID.
    @Test func buildFindsAnUpdatesUUIDKeyInTheFixturesInEitherCase() throws {
        let project = try keyedByUUID()
        try project.write(
            "migrations/0001-pages.yml",
            """
            update:
              Book:
                - { key: "0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D01", from: { pages: 386 }, to: { pages: 387 } }
                - { key: "0e8f1c0a-1d52-4c6b-9f43-6a1e2b3c4d02", from: { pages: 183 }, to: { pages: 184 } }
                - { key: "0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D0F", from: { pages: 1 }, to: { pages: 2 } }
            """)
        let build = try project.seedkit("build")
        expectEqual(build.status, 1, "\(build)")
        // Only the typo (…4D0F, in no fixture) is reported.
        expectEqual(
            build.stderrLines,
            [
                "migrations/0001-pages.yml:5: error: update Book '0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D0F': the key matches no row of Book in the fixtures or any migration's inserts or renames (a typo? migrate would report the row missing and record the migration as applied) [2030]"
            ], "\(build)")
    }

    /// A conflict on a ref to a UUID-keyed parent names both parents by their UUIDs (two
    /// different ones never print alike as `<16 bytes>`).
    @Test func aConflictShowsUUIDsAsText() throws {
        let project = try keyedByUUID()
        try expectEqual(project.seedkit("build").status, 0)
        try FileManager.default.copyItem(atPath: project.path("build/seed.store"), toPath: project.path("user.store"))
        let other = "11111111-2222-3333-4444-555555555555"
        try project.database("user.store").write { db in
            try db.execute(
                sql:
                    "INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME, ZID) VALUES (3, 1, 1, 'Borges', x'11111111222233334444555555555555')"
            )
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 3 WHERE Z_ENT = 1")
            try db.execute(sql: "UPDATE ZBOOK SET ZAUTHOR = 3 WHERE Z_PK = 1")
        }
        try project.write(
            "migrations/0001-move.yml",
            """
            update:
              Book:
                - { key: "0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D01", from: { author: "\(Self.leGuin)" }, to: { author: "\(Self.calvino.lowercased())" } }
            """)
        let migrate = try project.seedkit("migrate", "user.store")
        expectEqual(migrate.status, 0, "\(migrate)")
        #expect(
            migrate.stdout.contains(
                "conflict        Book '0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D01': changed in the store"), "\(migrate)")
        #expect(migrate.stdout.contains("(author is '\(other)', expected '\(Self.leGuin)')"), "\(migrate)")
        #expect(!migrate.stdout.contains("bytes") && !migrate.stderr.contains("bytes"), "\(migrate)")
    }

    /// A conflict on a UUID attribute that is not the key (the example keys Book by title): both
    /// UUIDs as text, the attribute by the model's name (was `ZID is <16 bytes>, expected <16 bytes>`).
    @Test func aConflictOnAUUIDAttributeShowsBothUUIDs() throws {
        let project = try swiftDataProject()
        try expectEqual(project.seedkit("build").status, 0)
        try FileManager.default.copyItem(atPath: project.path("build/seed.store"), toPath: project.path("user.store"))
        try project.database("user.store").write { db in
            try db.execute(
                sql: "UPDATE ZBOOK SET ZID = x'0E8F1C0A1D524C6B9F436A1E2B3C4DFF' WHERE ZTITLE = 'The Dispossessed'")
        }
        try project.write(
            "migrations/0001-id.yml",
            """
            update:
              Book:
                - { key: The Dispossessed, from: { id: 0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D01 }, to: { id: 0e8f1c0a-1d52-4c6b-9f43-6a1e2b3c4d0a } }
            """)
        let migrate = try project.seedkit("migrate", "user.store")
        expectEqual(migrate.status, 0, "\(migrate)")
        #expect(
            migrate.stdout.contains(
                "conflict        Book 'The Dispossessed': changed in the store (id is '0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4DFF', expected '0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D01')"
            ), "\(migrate)")
    }

    /// An app's own store, no manifest: `inspect` and `diff` printed UUIDs as `<16 bytes 1111…>`,
    /// two different ones alike.
    ///
    /// The model the store keeps says which columns are UUIDs.
    @Test func anAppsStoreShowsUUIDsAsTextWithoutAManifest() throws {
        let example = try swiftDataProject()
        let project = try TemporaryProject(bookStore: false)
        try project.write("before.store", try #require(example.read("seeds/default.store")))
        try project.database("before.store").write { db in
            try db.execute(
                sql: """
                    INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME, ZID) VALUES
                        (1, 1, 1, 'B', x'11111111222233334444555555555556'), (2, 1, 1, 'C', x'11111111222233334444555555555557');
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 2 WHERE Z_ENT = 1;
                    """)
        }
        try project.write("after.store", try #require(project.read("before.store")))
        try project.database("after.store").write { db in
            try db.execute(sql: "UPDATE ZAUTHOR SET ZID = x'99999999222233334444555555555556' WHERE Z_PK = 1")
        }
        let inspect = try project.seedkit("inspect", "before.store", "Author", "--format", "csv")
        expectEqual(inspect.status, 0, "\(inspect)")
        #expect(inspect.stdout.contains("B,11111111-2222-3333-4444-555555555556\r\n"), "\(inspect)")
        #expect(inspect.stdout.contains("C,11111111-2222-3333-4444-555555555557\r\n"), "\(inspect)")
        // Rows matched by the model's key (Author.name), not by Z_PK.
        let diff = try project.seedkit("diff", "before.store", "after.store")
        #expect(
            diff.stdout.contains(
                "~ 'B': id '11111111-2222-3333-4444-555555555556' → '99999999-2222-3333-4444-555555555556'"), "\(diff)")
        #expect(!diff.stdout.contains("bytes"), "\(diff)")
    }

    /// The release checks the same: `build` accepted `update: Author: - key: 1` for an Author with
    /// no key (and recorded it as contained in the seed).
    ///
    /// Now exit 2 at the migration's line.
    @Test func buildRefusesAChangeOfAnEntityWithoutAKey() throws {
        let project = try swiftDataProject()
        // Author listed without `key:` (the manifest's specs win over the model's uniqueness).
        let manifest = try #require(project.read("seeds/seedkit.yml").map { String(decoding: $0, as: UTF8.self) })
        try project.write(
            "seeds/seedkit.yml",
            manifest.replacingOccurrences(
                of: "    file: data/Author.csv\n    key: name\n", with: "    file: data/Author.csv\n"
            )
            .replacingOccurrences(of: "    refs:\n      author: Author.name\n", with: ""))
        let books = try #require(project.read("seeds/data/Book.csv").map { String(decoding: $0, as: UTF8.self) })
        try project.write(
            "seeds/data/Book.csv",
            books.replacingOccurrences(of: ",Ursula K. Le Guin\n", with: ",\n").replacingOccurrences(
                of: ",Italo Calvino\n", with: ",\n"))
        try expectEqual(project.seedkit("build").status, 0)
        for body in [
            "update:\n  Author:\n    - { key: 1, from: { name: Ursula K. Le Guin }, to: { name: Ursula Le Guin } }\n",
            "delete:\n  Author:\n    - { key: 2, from: {} }\n",
        ] {
            try project.write("migrations/0001-author.yml", body)
            let build = try project.seedkit("build")
            expectEqual(build.status, 2, "\(build)")
            #expect(
                build.stderr.hasPrefix(
                    "migrations/0001-author.yml:3: error: Author cannot be updated or deleted by its Z_PK"), "\(build)")
        }
    }

    /// An entity without a key (no `key:`, no `@Attribute(.unique)`): `key: 1` was applied to
    /// `Z_PK` 1, a different object in every user's store.
    ///
    /// Refused, nothing written.
    @Test func anEntityWithoutAKeyIsNeitherUpdatedNorDeleted() throws {
        // Book's `title` is not unique in this model: Book has no key.
        let project = try swiftDataStore(editing: [(#"[["title"]]),"#, "[]),")])
        try project.database("app.store").write { db in
            try db.execute(
                sql: """
                    INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME, ZID) VALUES (1, 1, 1, 'Le Guin', x'11111111222233334444555555555555');
                    INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZID, ZPAGES, ZAUTHOR) VALUES (1, 2, 1, 'Flint', x'21111111222233334444555555555555', 5, 1);
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_ENT IN (1, 2);
                    """)
        }
        let before = try #require(project.read("app.store"))
        for (name, body) in [
            ("update", "update:\n  Book:\n    - { key: 1, from: { pages: 5 }, to: { pages: 6 } }\n"),
            ("delete", "delete:\n  Book:\n    - { key: 1, from: {} }\n"),
        ] {
            try project.write("migrations/0001-\(name).yml", body)
            let migrate = try project.seedkit("migrate", "app.store")
            expectEqual(migrate.status, 2, "\(migrate)")
            #expect(
                migrate.stderr.hasPrefix(
                    "migrations/0001-\(name).yml:3: error: Book cannot be updated or deleted by its Z_PK, a number each user's store assigns on its own"
                ), "\(migrate)")
            #expect(
                migrate.stderr.contains("give Book a key in a manifest (tables: { Book: { key: ATTRIBUTE } })"),
                "\(migrate)")
            expectEqual(project.read("app.store"), before, "\(name) wrote to the store")
            #expect(!project.exists("app.store-wal"))
            try FileManager.default.removeItem(atPath: project.path("migrations/0001-\(name).yml"))
        }
        // Author keeps its key (`name`): updated as ever.
        try project.write(
            "migrations/0001-author.yml",
            "update:\n  Author:\n    - { key: Le Guin, from: { name: Le Guin }, to: { name: Ursula K. Le Guin } }\n")
        let author = try project.seedkit("migrate", "app.store")
        expectEqual(author.status, 0, "\(author)")
        try expectEqual(project.rows("app.store", "SELECT ZNAME FROM ZAUTHOR"), ["'Ursula K. Le Guin'"])
    }
}

/// A project holding `app.store`, made by Examples/SwiftDataStore/make-store.py with each
/// `(text, replacement)` edit applied to its model (every text must be in the script).
func swiftDataStore(editing edits: [(String, String)]) throws -> TemporaryProject {
    let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Examples/SwiftDataStore/make-store.py")
    var script = try String(contentsOf: example, encoding: .utf8)
    for (text, replacement) in edits {
        #expect(script.contains(text), "make-store.py no longer holds \(text)")
        script = script.replacingOccurrences(of: text, with: replacement)
    }
    let project = try TemporaryProject(bookStore: false)
    try project.write("make.py", script)
    let made = try run(
        Python3.executable, Python3.arguments([project.path("make.py"), project.path("app.store")]),
        in: project.root)
    expectEqual(made.status, 0, "\(made)")
    return project
}

/// `init --coredata app.store`, `build`, and the seed shipped as `seeds/releases/1.0.store`: the
/// first release of a project made from an app's store.
func shipFirstRelease(_ project: TemporaryProject) throws {
    let initialized = try project.seedkit("init", "--coredata", "app.store")
    expectEqual(initialized.status, 0, "\(initialized)")
    let build = try project.seedkit("build")
    expectEqual(build.status, 0, "\(build)")
    try project.write("seeds/releases/1.0.store", try #require(project.read("build/seed.store")))
}
