import Foundation
import GRDB
import SeedTestSupport
import Testing

/// Files and flags are what they say (issue 34): a `--manifest` that names no file is exit 2 on
/// every command, before anything runs; `--manifest none` is no manifest, on purpose.
@Suite struct NamedManifestTests {
    static let commands: [[String]] = [
        ["build"], ["migrate", "user.sqlite"], ["migrate", "user.sqlite", "--dry-run"], ["status", "user.sqlite"],
        ["verify", "user.sqlite"], ["inspect", "user.sqlite"], ["inspect", "user.sqlite", "books"],
        ["diff", "user.sqlite", "build/seed.sqlite"], ["check-upgrade", "user.sqlite"], ["new-migration", "next"],
        ["export-migrations", "bundle"],
    ]

    @Test(arguments: commands)
    func aNamedManifestThatIsNotThereIsAConfigurationError(command: [String]) throws {
        let project = try TemporaryProject.withUserStore()
        let before = project.sha256("user.sqlite")
        let listing = project.listing(".")
        let migrations = project.listing("migrations")
        let result = try runSeedkit(command + ["--manifest", "seeds/seedkit.ym"], in: project.root)
        #expect(result.status == 2, "\(command): \(result)")
        #expect(result.stderr == "seeds/seedkit.ym: error: no such manifest: --manifest names a file that is not there (check the path; --manifest none for no manifest) [2100]\n", "\(command): \(result)")
        #expect(result.stdout.isEmpty, "\(command): \(result)")
        #expect(project.sha256("user.sqlite") == before)
        #expect(project.listing(".") == listing && project.listing("migrations") == migrations, "nothing written")
    }

    @Test func manifestNoneIsNoManifest() throws {
        let project = try TemporaryProject.withUserStore()
        for command in [["verify", "user.sqlite"], ["inspect", "user.sqlite", "books"], ["migrate", "user.sqlite", "--dry-run"]] {
            let result = try runSeedkit(command + ["--manifest", "none"], in: project.root)
            #expect(result.status == 0, "\(command): \(result)")
        }
        let build = try project.seedkit("build", "--manifest", "none")
        #expect(build.status == 2, "\(build)")
    }
}
