import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// Issue 21: `seedkit init --coredata STORE` scaffolds a project from a store alone (its model
/// from Z_MODELCACHE, its rows as fixtures, the store without them as template), and the
/// project builds a seed holding the same rows.
private let revised = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent(
        "SeedToolingTests/Fixtures/RealStores/wibosco-CoreDataMigrationRevised-Example/CoreDataMigration_Example_3.sqlite"
    )

@Suite struct InitFromStoreTests {
    /// The SwiftData-shaped store of Examples/SwiftDataStore, holding the example's seed: keys from
    /// `.unique`, UUIDs, the author ref by name; rebuilt, every row is as it was, Z_PK included.
    ///
    /// A store's text is exported whole (issue 34): a NUL inside a value survives into the fixture.
    @Test func textWithANulIsExportedWhole() throws {
        let original = try swiftDataProject()
        try expectEqual(original.seedkit("build", "--migrations", "none", "--without-history").status, 0)
        try original.database("build/seed.store").write { db in
            _ = try db.execute(
                "UPDATE ZBOOK SET ZTITLE = ? WHERE ZTITLE = 'Invisible Cities'",
                binding: [.text("Invisible\u{0}Cities")])
        }
        let project = try TemporaryProject(bookStore: false)
        let scaffolded = try project.seedkit("init", "--coredata", original.path("build/seed.store"))
        expectEqual(scaffolded.status, 0, "\(scaffolded)")
        let fixture = project.read("seeds/data/Book.csv") ?? Data()
        #expect(
            fixture.range(of: Data(",Invisible\u{0}Cities,".utf8)) != nil,
            "\(String(decoding: fixture, as: UTF8.self).debugDescription)")
    }

    @Test func aSwiftDataStoreScaffoldsAProjectThatRebuildsItsRows() throws {
        let original = try swiftDataProject()
        let seeded = try original.seedkit("build", "--migrations", "none", "--without-history")
        expectEqual(seeded.status, 0, "\(seeded)")
        let project = try TemporaryProject(bookStore: false)
        let scaffolded = try project.seedkit("init", "--coredata", original.path("build/seed.store"))
        expectEqual(scaffolded.status, 0, "\(scaffolded)")
        #expect(scaffolded.stdout.contains("wrote seeds/seed.store"), "\(scaffolded)")
        let manifest = String(decoding: project.read("seeds/seedkit.yml") ?? Data(), as: UTF8.self)
        #expect(!manifest.contains("\nmodel:") && manifest.contains("\ntemplate: seed.store"), "\(manifest)")
        #expect(manifest.contains("  Author:\n    file: data/Author.csv\n    key: name "), "\(manifest)")
        #expect(
            manifest.contains("    key: title ") && manifest.contains("    refs:\n      author: Author.name\n"),
            "\(manifest)")
        expectEqual(
            String(decoding: project.read("seeds/data/Book.csv") ?? Data(), as: UTF8.self),
            """
            id,pages,published,title,author
            0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D01,387,1974-05-01T00:00:00Z,The Dispossessed,Ursula K. Le Guin
            0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D02,184,1971-01-01T00:00:00Z,The Lathe of Heaven,Ursula K. Le Guin
            0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D03,165,1972-11-01T00:00:00Z,Invisible Cities,Italo Calvino

            """)
        // The template: no rows, Z_MAX 0, the model kept.
        try expectEqual(
            project.rows(
                "seeds/seed.store",
                "SELECT (SELECT count(*) FROM ZAUTHOR) + (SELECT count(*) FROM ZBOOK), (SELECT sum(Z_MAX) FROM Z_PRIMARYKEY), (SELECT count(*) FROM Z_MODELCACHE)"
            ), ["0|0|1"])
        let build = try project.seedkit("build", "--migrations", "none", "--without-history")
        expectEqual(build.status, 0, "\(build)")
        for sql in [
            "SELECT * FROM ZAUTHOR ORDER BY Z_PK", "SELECT * FROM ZBOOK ORDER BY Z_PK",
            "SELECT * FROM Z_PRIMARYKEY ORDER BY Z_ENT",
        ] {
            try expectEqual(project.rows("build/seed.store", sql), original.rows("build/seed.store", sql), "\(sql)")
        }
    }

    /// A real store Core Data wrote (wibosco/CoreDataMigrationRevised-Example, MIT): no uniqueness
    /// constraints, so no keys (a comment says why) and Section.post as the Z_PK the build gives
    /// the post; dates with microseconds, multi-line text.
    ///
    /// Rebuilt, every row is byte for byte as it was.
    @Test func aRealCoreDataStoreScaffoldsAProjectThatRebuildsItsRows() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write("original.sqlite", try Data(contentsOf: revised))
        let scaffolded = try project.seedkit("init", "--coredata", revised.path)
        expectEqual(scaffolded.status, 0, "\(scaffolded)")
        let manifest = String(decoding: project.read("seeds/seedkit.yml") ?? Data(), as: UTF8.self)
        #expect(
            manifest.contains(
                "  Section:\n    file: data/Section.csv\n    # No key: the model has no uniqueness constraint on Section"
            ), "\(manifest)")
        #expect(!manifest.contains("    key:") && !manifest.contains("    refs:"), "\(manifest)")
        #expect(scaffolded.stdout.contains("the fixture of entity Post: the store's 12 rows"), "\(scaffolded)")
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 0, "\(build)")
        for sql in [
            "SELECT * FROM ZPOST ORDER BY Z_PK", "SELECT * FROM ZSECTION ORDER BY Z_PK",
            "SELECT * FROM Z_PRIMARYKEY ORDER BY Z_ENT",
        ] {
            let rebuilt = try project.rows("build/seed.sqlite", sql)
            let before = try project.rows("original.sqlite", sql)
            expectEqual(
                rebuilt, before, "\(sql): \(zip(rebuilt, before).first { $0 != $1 }.map { "\($0) ≠ \($1)" } ?? "")")
        }
        try expectEqual(
            project.rows("build/seed.sqlite", "SELECT count(*) FROM ZSECTION WHERE ZPOST IS NOT NULL"), ["14"])
    }

    @Test func aStoreWithoutItsModelOrWithATemplateIsRefused() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write("old.sqlite", try Data(contentsOf: revised))
        let withTemplate = try project.seedkit("init", "--coredata", "old.sqlite", "--template", "old.sqlite", "out")
        #expect(
            withTemplate.status == 2
                && withTemplate.stderr.contains("is a store: init --coredata STORE makes the template from it"),
            "\(withTemplate)")
        try project.database("old.sqlite").write { db in try db.execute(sql: "DELETE FROM Z_MODELCACHE") }
        let noModel = try project.seedkit("init", "--coredata", "old.sqlite", "out")
        expectEqual(noModel.status, 2, "\(noModel)")
        #expect(noModel.stderr.contains("old.sqlite: error: the store keeps no model (no Z_MODELCACHE)"), "\(noModel)")
        #expect(!project.exists("out"))
    }

    /// Issue 42, found by the store corpus (scripts/corpus.py): objc.io's Moody store.
    ///
    /// Its Country has a key of two columns (`[numericISO3166Code, uniquenessDummy]`), so init left
    /// every `Mood.country` and `Country.continent` empty and the seed lost them (build exit 0);
    /// and its `colors` is a Transformable with the app's own transformer, whose bytes are no
    /// archive, which build refused. Compared here by SQL against the store itself.
    @Test func moodyStoreRoundTripsItsRefsToACompositeKeyAndItsOwnTransformer() throws {
        let store = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("SeedToolingTests/Fixtures/RealStores/objcio-core-data/Moody.moody")
        let project = try TemporaryProject(bookStore: false)
        try project.write("app.store", try Data(contentsOf: store))
        let scaffolded = try project.seedkit("init", "--coredata", "app.store")
        expectEqual(scaffolded.status, 0, "\(scaffolded)")
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        let links = """
            SELECT m.ZREMOTEIDENTIFIER, c.ZNUMERICISO3166CODE, k.ZNUMERICISO3166CODE, hex(m.ZCOLORS)
            FROM ZMOOD m LEFT JOIN ZGEOGRAPHICREGION c ON c.Z_PK = m.ZCOUNTRY
            LEFT JOIN ZGEOGRAPHICREGION k ON k.Z_PK = c.ZCONTINENT ORDER BY 1
            """
        let original = try project.rows("app.store", links)
        expectEqual(original.count, 4)
        #expect(original.allSatisfy { !$0.contains("|NULL|") }, "\(original)")
        try expectEqual(project.rows("build/seed.store", links), original)
    }
}
