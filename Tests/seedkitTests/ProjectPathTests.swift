import Foundation
import SeedTestSupport
import Testing

/// Paths a project names go where the user means them (issue 14).
@Suite struct ProjectPathTests {
    @Test func anAbsoluteOutputInTheManifestIsTakenAsItIs() throws {
        let project = try TemporaryProject()
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent(
            "seedkit-abs-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        try project.write(
            "seeds/seedkit.yml",
            BookStore.manifest.replacingOccurrences(
                of: "output: ../build/seed.sqlite", with: "output: \(elsewhere.path)"))
        let result = try project.seedkit("build")
        expectEqual(result.status, 0, "\(result)")
        #expect(
            FileManager.default.contents(atPath: elsewhere.path)?.prefix(15) == Data("SQLite format 3".utf8),
            "\(result)")
        #expect(!project.exists("seeds" + elsewhere.path), "not re-rooted under the manifest's folder")
    }

    @Test(arguments: ["migrations", "./migrations/", "migrations/../migrations"])
    func exportingIntoTheMigrationsFolderIsRefusedAndWritesNothing(target: String) throws {
        let project = try TemporaryProject()
        let before = project.listing("migrations")
        let result = try project.seedkit("export-migrations", target)
        expectEqual(result.status, 2, "\(result)")
        expectEqual(
            result.stderr,
            "\(target): error: this is the migrations folder: a .json written beside each .yml would be a second migration with the same number; export into the app's resources folder instead [2100]\n",
            "\(result)")
        expectEqual(project.listing("migrations"), before)
        try expectEqual(
            project.seedkit("status", "--migrations", "migrations", "nothing.sqlite").stderr.contains("used twice"),
            false)
    }
}
