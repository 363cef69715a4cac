import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

@testable import SeedTooling

/// `new-migration NAME --from OLD --to NEW`, the seed `build` wrote compared instead of a fresh build.
///
/// See docs/reference.md, "Commands". The same files as the fresh build gives, checked
/// the same way; a NEW that is not a seed built from this project refused before anything is read.
@Suite struct NewMigrationToSeedTests {
    /// Release 1.0 (three books), then fixtures that change a price, remove a book, add two, and a
    /// category; `build/seed.sqlite` built from them with the project's migrations.
    private func release() throws -> (project: TemporaryProject, workflow: ReleaseWorkflow) {
        let project = try TemporaryProject.withRelease()
        try project.write("seeds/data/categories.csv", "name\nFiction\nBiography\nPoetry\n")
        try project.write(
            "seeds/data/books.csv",
            "title,price,category_id\nThe first book,11,Fiction\nThe third book,10,Biography\n"
                + "The fifth book,14,Poetry\nThe sixth book,9,Fiction\n")
        try project.buildSeed()
        return (project, ReleaseWorkflow(migrations: try project.migrations(), folder: project.path("migrations")))
    }

    private func changes(
        _ workflow: ReleaseWorkflow, _ project: TemporaryProject, to newSeed: String?
    ) throws -> [ReleaseWorkflow.File] {
        try workflow.changes(
            name: "release 1.1", from: project.path("seeds/releases/1.0.sqlite"), to: newSeed,
            manifest: { try project.manifest() }, renames: [],
            freshBuild: { _ in
                // Asked only without --to.
                #expect(newSeed == nil, "--to built the fixtures again")
                try project.buildSeed("build/fresh.sqlite")
                return project.url("build/fresh.sqlite")
            })
    }

    @Test func theBuiltSeedGivesTheFilesAFreshBuildGives() throws {
        let (project, workflow) = try release()
        let fresh = try changes(workflow, project, to: nil)
        let built = try changes(workflow, project, to: project.path("build/seed.sqlite"))
        expectEqual(built, fresh)
        expectEqual(built.map(\.summary), ["3 inserts, 1 update, 1 delete"])
        #expect(built.first?.text.contains("The fifth book") == true, "\(built)")
    }

    @Test func theWrittenMigrationTurnsTheOldSeedIntoTheNewOne() throws {
        let (project, workflow) = try release()
        let report = try workflow.newMigration(
            name: "release 1.1", from: project.path("seeds/releases/1.0.sqlite"),
            to: project.path("build/seed.sqlite"), renames: [],
            manifest: { () throws(SeedError) in try Manifest.load(path: project.path("seeds/seedkit.yml")) },
            hasManifest: true, freshBuild: { _ in throw CocoaError(.featureUnsupported) })
        expectEqual(report.written.map(\.path), [project.path("migrations/0001-release-1-1.yml")])
        // The oracle is not the generator: migrate applies the file to a copy of the old seed, and
        // diff finds it holding what the new seed holds.
        try FileManager.default.copyItem(
            at: project.url("seeds/releases/1.0.sqlite"), to: project.url("user.sqlite"))
        let migrate = try project.seedkit("migrate", "user.sqlite")
        expectEqual(migrate.status, 0, "\(migrate)")
        expectEqual(try project.books("user.sqlite"), try project.books("build/seed.sqlite"))
        let diff = try project.seedkit("diff", "user.sqlite", "build/seed.sqlite", "--exit-code")
        expectEqual(diff.status, 0, "\(diff)")
    }

    /// A NEW that holds what OLD holds (here OLD itself, a seed built from this manifest with no
    /// migrations): nothing is written, and the note names NEW, which was compared, not the
    /// fixtures, which were not read and here hold something else.
    @Test func nothingToMigrateNamesTheNewSeedNotTheFixtures() throws {
        let (project, workflow) = try release()
        let old = project.path("seeds/releases/1.0.sqlite")
        let report = try workflow.newMigration(
            name: "release 1.1", from: old, to: old, renames: [],
            manifest: { () throws(SeedError) in try Manifest.load(path: project.path("seeds/seedkit.yml")) },
            hasManifest: true, freshBuild: { _ in throw CocoaError(.featureUnsupported) })
        expectEqual(report.written.map(\.path), [])
        expectEqual(report.note, "\(old) holds what \(old) holds: no migration needed, nothing written")
        expectEqual(project.listing("migrations").filter { $0.hasSuffix(".yml") }, [])
    }

    /// Each NEW that is not a seed `build` wrote from this project, refused (exit 3) with its
    /// reason, before the old seed is read and with nothing written.
    @Test func aNewSeedNotBuiltFromThisProjectIsRefused() throws {
        let (project, _) = try release()
        try project.write("migrations/0001-add-fourth-book.yml", BookStore.fourthBook)
        try project.buildSeed("build/with.sqlite")
        try project.buildSeed("build/without.sqlite", migrations: [])
        try project.write("text.sqlite", "name\nFiction\n")
        let plain = try project.database("plain.sqlite")
        try plain.write { db in try db.execute(sql: "CREATE TABLE books (title TEXT)") }
        try plain.close()
        try FileManager.default.copyItem(at: project.url("build/without.sqlite"), to: project.url("migrated.sqlite"))
        expectEqual(try project.seedkit("migrate", "migrated.sqlite").status, 0)
        try project.write(
            "seeds/other.yml",
            BookStore.manifest.replacingOccurrences(of: "key: title", with: "key: [title, price]"))
        let other = try Manifest.load(path: project.path("seeds/other.yml"))
        _ = try SeedBuilder(manifest: other, migrations: try project.migrations()).build(
            to: project.url("other.sqlite"))
        let workflow = ReleaseWorkflow(migrations: try project.migrations(), folder: project.path("migrations"))
        let cases: [(seed: String, kind: SeedError.Kind, message: String)] = [
            ("build/with.sqlite", .refused, ""),
            ("nowhere.sqlite", .configuration, "no seed here: --to takes the seed `seedkit build` wrote"),
            ("text.sqlite", .refused, "not a SQLite database"),
            ("plain.sqlite", .refused, "not a seed seedkit built: it has no content hash in _seedkit_meta"),
            ("migrated.sqlite", .refused, "a store `migrate` wrote to (it applied 0001-add-fourth-book)"),
            ("build/without.sqlite", .refused, "built with other migrations: built without 0001-add-fourth-book"),
            ("other.sqlite", .refused, "built from another manifest: table books has key (title, price)"),
        ]
        for (seed, kind, message) in cases {
            let before = project.listing("migrations")
            do {
                let files = try changes(workflow, project, to: project.path(seed))
                #expect(message.isEmpty, "\(seed): \(files.map(\.summary))")
            } catch let error as SeedError {
                expectEqual(error.kind, kind, "\(seed): \(error)")
                #expect(
                    !message.isEmpty && error.diagnostics.first?.message.contains(message) == true,
                    "\(seed): \(error)")
                expectEqual(error.diagnostics.first?.file, project.path(seed))
            }
            expectEqual(project.listing("migrations"), before)
        }
    }

    /// Counted, not clocked: the check of NEW reads seedkit's own tables, as many statements for a
    /// seed of twice the rows.
    @Test func theCheckOfTheNewSeedReadsTheSameStatementsForTwiceTheRows() throws {
        var counts: [Int] = []
        for rows in [200, 400] {
            let project = try TemporaryProject()
            try project.write(
                "seeds/data/books.csv",
                "title,price,category_id\n" + (1...rows).map { "Book \($0),1,Fiction\n" }.joined())
            try project.buildSeed()
            let store = try project.database("build/seed.sqlite")
            let count = StatementCount()
            store.inDatabase { db in db.trace(options: .statement) { _ in count.statements += 1 } }
            let findings = try store.read { db in
                try BuiltSeed.findings(db, manifest: try project.manifest(), migrations: try project.migrations())
            }
            expectEqual(findings, [])
            counts.append(count.statements)
        }
        expectEqual(counts[1], counts[0], "statements for 200 and 400 rows")
    }

    private final class StatementCount: @unchecked Sendable { var statements = 0 }
}
