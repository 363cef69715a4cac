import Foundation
import SeedTestSupport
import Testing

/// Examples/SwiftDataStore as committed, run as its README says: a SwiftData app's project whose
/// model has composite attributes (`Shelf.kind`, `placement`, `size`) and a to-many without an
/// inverse (`Shelf.books`), with a shipped release (seeds/releases/1.0.store) and the migration
/// that brings it to the fixtures (migrations/0001-second-release.yml), in a store tracking history.
@Suite struct SwiftDataExampleTests {
    private static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples/SwiftDataStore")

    /// The example's files, as a clone has them, in a project of their own.
    private func committedExample() throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        let files = [
            "seeds/seedkit.yml", "seeds/default.store", "seeds/data/Author.csv", "seeds/data/Book.csv",
            "seeds/data/Shelf.csv", "seeds/releases/1.0.store", "migrations/0001-second-release.yml",
        ]
        for file in files {
            try project.write(file, try Data(contentsOf: Self.example.appendingPathComponent(file)))
        }
        return project
    }

    @Test func theExampleAsCommittedBuildsUpgradesAndMigrates() throws {
        let project = try committedExample()
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        #expect(build.stdout.contains("  Shelf              3 rows\n"), "\(build)")
        let shelves =
            "SELECT ZLABEL, ZKIND, ZWALL, ZFLOOR, ZWINDOW, ZWIDTH, ZDEPTH, ZUNIT, CAST(ZWOODS AS TEXT) FROM ZSHELF ORDER BY ZLABEL"
        expectEqual(
            try project.rows("build/seed.store", shelves),
            [
                "'Attic'|'reference'|NULL|'floor'|NULL|NULL|NULL|NULL|NULL",
                "'Hall'|'fiction'|NULL|NULL|'window'|1.2|0.3|'m'|'[\"oak\"]'",
                "'Study'|'reference'|'wall'|NULL|NULL|0.8|0.25|'m'|'[\"pine\",\"walnut\"]'",
            ])
        let books = "SELECT b.ZTITLE, s.ZLABEL FROM ZBOOK b LEFT JOIN ZSHELF s ON s.Z_PK = b.Z3BOOKS ORDER BY b.ZTITLE"
        expectEqual(
            try project.rows("build/seed.store", books),
            [
                "'Invisible Cities'|'Study'", "'The Dispossessed'|'Hall'", "'The Lathe of Heaven'|'Hall'",
                "'The Left Hand of Darkness'|NULL",
            ])

        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.store")
        expectEqual(check.status, 0, "\(check)")
        #expect(check.stdout.hasSuffix("1 old seed converges\n"), "\(check)")

        // An app's store at release 1.0, migrated with history as the README shows.
        try project.write("APP.store", try #require(project.read("seeds/releases/1.0.store")))
        let migrate = try project.seedkit("migrate", "APP.store", "--migrations", "migrations")
        expectEqual(migrate.status, 0, "\(migrate)")
        expectEqual(
            migrate.stdout,
            """
            applied 0001-second-release: 2 inserted
              inserted        Shelf 'Attic'
              inserted        Book 'The Left Hand of Darkness'
            APP.store: 1 migration applied

            """)
        let diff = try project.seedkit("diff", "APP.store", "build/seed.store")
        for entity in ["Author", "Book", "Shelf"] {
            #expect(diff.stdout.contains("\(entity): no differences\n"), "\(diff)")
        }
        let history = try project.rows(
            "APP.store", "SELECT ZCHANGETYPE, count(*) FROM ACHANGE WHERE ZTRANSACTIONID = 2 GROUP BY 1")
        expectEqual(
            history, ["0|2", "1|1"], "two inserts and Author's update (its books) in the migration's transaction")
    }

    /// The committed template is what `make-store.py --composites` writes, byte for byte.
    @Test func theExamplesTemplateIsWhatMakeStoreWrites() throws {
        let project = try TemporaryProject(bookStore: false)
        let made = try run(
            Python3.executable,
            Python3.arguments([
                Self.example.appendingPathComponent("make-store.py").path, "--composites",
                project.path("made.store"),
            ]),
            in: project.root)
        expectEqual(made.status, 0, "\(made)")
        expectEqual(
            project.read("made.store"), try Data(contentsOf: Self.example.appendingPathComponent("seeds/default.store"))
        )
    }
}
