import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// The repository's tzdb example (Examples/TimeZones): IANA's zone1970.tab read as published, and
/// a release between two real versions of it (tzdata 2022a → 2025b), with no converter (issue 33).
@Suite struct TimeZonesExampleTests {
    private static let example: URL = {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return root.appendingPathComponent("Examples/TimeZones")
    }()

    private func read(_ path: String) throws -> Data {
        try Data(contentsOf: Self.example.appendingPathComponent(path))
    }

    @Test func theFilesAreThePublishedBytes() throws {
        expectEqual(
            SHA256.hex(try read("published/tzdata-2022a/zone1970.tab")),
            "525991e907e3b2a7740e44f3404c425864de39f6ed3f4aee0417c8e3f30a2902")
        expectEqual(
            SHA256.hex(try read("seeds/data/zone1970.tab")),
            "57194e43b001b8f832987b21b82953d997aeeaebeb53a8520140bc12d7d8cfcc")
    }

    @Test func theExampleBuildsFromTheFileAsPublished() throws {
        let project = try TemporaryProject(bookStore: false)
        let result = try project.seedkit(
            "build", "--manifest", Self.example.appendingPathComponent("seeds/seedkit.yml").path,
            "--migrations", Self.example.appendingPathComponent("migrations").path, "--output", "seed.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(
            result.stdout.contains("  zones            312 rows\n  contains migrations 0001-tzdata-2025b\n"),
            "\(result)")
        let rows = try project.rows(
            "seed.sqlite",
            "SELECT tz, codes, coordinates, comments FROM zones WHERE tz IN ('Europe/Kyiv', 'Asia/Dubai', 'Europe/Andorra') ORDER BY tz"
        )
        expectEqual(
            rows,
            [
                "'Asia/Dubai'|'AE,OM,RE,SC,TF'|'+2518+05518'|'Crozet'", "'Europe/Andorra'|'AD'|'+4230+00131'|NULL",
                "'Europe/Kyiv'|'UA'|'+5026+03031'|'most of Ukraine'",
            ])
    }

    /// What the example's README shows: the release seed is what seedkit builds from the 2022a
    /// file, the migration what `new-migration` writes from the 2025b one, and the upgraded
    /// 2022a seed converges with a fresh build.
    @Test func theReleaseBetweenTwoRealVersionsIsWhatSeedkitWrites() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write("seeds/seedkit.yml", try read("seeds/seedkit.yml"))
        try project.write("seeds/schema.sql", try read("seeds/schema.sql"))
        try project.write("seeds/data/zone1970.tab", try read("published/tzdata-2022a/zone1970.tab"))
        let release = try project.seedkit("build", "--output", "seeds/releases/2022a.sqlite")
        expectEqual(release.status, 0, "\(release)")
        #expect(release.stdout.contains("  zones            338 rows\n"), "\(release)")
        try project.write("shipped.sqlite", try read("seeds/releases/2022a.sqlite"))
        let same = try project.seedkit("diff", "shipped.sqlite", "seeds/releases/2022a.sqlite", "--exit-code")
        expectEqual(same.status, 0, "the example's release seed is the 2022a file's: \(same)")

        try project.write("seeds/data/zone1970.tab", try read("seeds/data/zone1970.tab"))
        let generated = try project.seedkit(
            "new-migration", "tzdata 2025b", "--from", "seeds/releases/2022a.sqlite", "--rename",
            "zones:Europe/Kiev=Europe/Kyiv")
        expectEqual(generated.status, 0, "\(generated)")
        #expect(
            generated.stdout.hasPrefix(
                "wrote migrations/0001-tzdata-2025b.yml: 2 inserts, 57 updates (1 rename), 28 deletes\n  rename zones 'Europe/Kiev' → 'Europe/Kyiv' (--rename)\n"
            ), "\(generated)")
        expectEqual(project.read("migrations/0001-tzdata-2025b.yml"), (try read("migrations/0001-tzdata-2025b.yml")))

        let check = try project.seedkit("check-upgrade", "shipped.sqlite")
        expectEqual(check.status, 0, "\(check)")
        #expect(
            check.stdout.hasPrefix("shipped.sqlite: applied 0001-tzdata-2025b; converges with a fresh build\n"),
            "\(check)")
        #expect(check.stdout.contains("ok: user edit zones 'America/Dawson_Creek'.coordinates"), "\(check)")
    }
}
