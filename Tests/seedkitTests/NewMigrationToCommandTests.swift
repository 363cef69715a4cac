import Foundation
import SeedTestSupport
import Testing

/// `seedkit new-migration NAME --from OLD --to NEW`'s contract as a process shows it: its exit
/// codes and streams (the logic: SeedToolingTests' NewMigrationToSeedTests).
@Suite struct NewMigrationToCommandTests {
    @Test func exitCodesAndStreams() throws {
        let project = try TemporaryProject.withRelease()
        try project.write("seeds/data/books.csv", BookStore.books + "The fifth book,14,Fiction\n")
        let build = try project.seedkitProcess("build")
        expectEqual(build.status, 0, "\(build)")

        let written = try project.seedkitProcess(
            "new-migration", "release 1.1", "--from", "seeds/releases/1.0.sqlite", "--to", "build/seed.sqlite")
        expectEqual(written.status, 0, "\(written)")
        expectEqual(written.stdout, "wrote migrations/0001-release-1-1.yml: 1 insert, 0 updates, 0 deletes\n")
        expectEqual(written.stderr, "")

        // Not a seed seedkit built: exit 3, the reason on stderr naming the file, nothing written.
        try project.write("notes.sqlite", "not a database\n")
        let refused = try project.seedkitProcess(
            "new-migration", "release 1.2", "--from", "seeds/releases/1.0.sqlite", "--to", "notes.sqlite")
        expectEqual(refused.status, 3, "\(refused)")
        expectEqual(refused.stdout, "")
        #expect(refused.stderr.hasPrefix("notes.sqlite: error: not a SQLite database"), "\(refused.stderr)")
        expectEqual(project.listing("migrations"), ["0001-release-1-1.yml"])

        // --to without --from: a usage error, exit 2.
        let usage = try project.seedkitProcess("new-migration", "release 1.2", "--to", "build/seed.sqlite")
        expectEqual(usage.status, 2, "\(usage)")
        #expect(usage.stderr.contains("--to names the new seed to compare an old seed with"), "\(usage.stderr)")
        expectEqual(usage.stdout, "")
    }
}
