import Foundation
import SeedTestSupport
import Testing

/// `--absolute-paths` (SeedkitPlugin passes it): errors name files by absolute path, which Xcode
/// and SwiftPM attribute to the line whatever folder the build command runs in.
@Test func absolutePathsNameEveryFileAnErrorIsInByItsAbsolutePath() throws {
    let project = try TemporaryProject()
    try project.write("seeds/data/books.csv", "title,price,category_id\nThe first book,-10,Fiction\n")
    try project.write("migrations/0002-broken.yml", "insert: [\n")
    let build = try project.seedkit("build", "--absolute-paths")
    expectEqual(build.status, 2, "\(build)")
    #expect(build.stderr.hasPrefix(project.path("migrations") + "/0002-broken.yml:"), "\(build)")
    try project.remove("migrations/0002-broken.yml")
    let fixture = try project.seedkit("build", "--absolute-paths")
    expectEqual(fixture.status, 1)
    expectEqual(
        fixture.stderr,
        project.path("seeds/data/books.csv")
            + ":2:2: error: price -10 is less than the minimum 0 [1620]\n")
    // Without the flag, paths stay as short as they can be said from the current folder.
    try expectEqual(
        project.seedkit("build").stderr,
        "seeds/data/books.csv:2:2: error: price -10 is less than the minimum 0 [1620]\n")
}
