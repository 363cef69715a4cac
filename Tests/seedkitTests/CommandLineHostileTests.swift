import Foundation
import SeedRuntime
import SeedTestSupport
import Testing

/// Hostile command lines (issue 14): numeric options out of range, file names that start
/// with '-'.
///
/// Usage errors exit 2 and say what is allowed; nothing traps, nothing is touched.
@Suite struct CommandLineHostileTests {
    @Test(arguments: ["nan", "inf", "-inf", "1e10", "3000000", "-1", "86400.5", "abc", ""])
    func aBusyTimeoutOutOfRangeIsAUsageErrorNotATrap(value: String) throws {
        let project = try TemporaryProject.withUserStore()
        let before = sha256(of: project, "user.sqlite")
        let result = try project.seedkit("migrate", "user.sqlite", "--busy-timeout", value)
        expectEqual(result.status, 2, "\(result)")
        expectEqual(
            result.stderr.split(separator: "\n").first.map(String.init),
            "Error: --busy-timeout takes a number of seconds from 0 to 86400; '\(value)' is not one", "\(result)"
        )
        expectEqual(sha256(of: project, "user.sqlite"), before)
    }

    @Test func busyTimeoutsInRangeWork() throws {
        let project = try TemporaryProject.withUserStore()
        for value in ["0", "86400", "0.25"] {
            let result = try project.seedkit("migrate", "user.sqlite", "--busy-timeout", value)
            expectEqual(result.status, 0, "\(value): \(result)")
        }
    }

    @Test func theRuntimeRefusesABusyTimeoutItCannotUseWithATypedError() throws {
        let project = try TemporaryProject.withUserStore()
        let installer = SeedInstaller(
            store: project.url("user.sqlite"), seed: project.url("build/seed.sqlite"), migrations: [], busyTimeout: .nan
        )
        let before = sha256(of: project, "user.sqlite")
        #expect {
            _ = try installer.prepareStore()
        } throws: { error in
            guard let error = error as? SeedError else { return false }
            return error.kind == .configuration
                && error.description
                    == "error: the busy timeout must be a number of seconds from 0 to 86400, not nan [2100]"
        }
        expectEqual(sha256(of: project, "user.sqlite"), before)
    }

    @Test func aNegativeLimitSaysWhatIsAllowed() throws {
        let project = try TemporaryProject.withUserStore()
        let result = try project.seedkit("inspect", "user.sqlite", "books", "--limit", "-1")
        expectEqual(result.status, 2, "\(result)")
        expectEqual(result.stderr.split(separator: "\n").first, "Error: --limit must be 0 or more", "\(result)")
    }

    @Test(arguments: [
        ["migrate", "-dash.sqlite"], ["status", "-dash.sqlite"], ["inspect", "-dash.sqlite"],
        ["verify", "-dash.sqlite"],
        ["diff", "user.sqlite", "-dash.sqlite"], ["check-upgrade", "-dash.sqlite"],
        ["migrate", "user.sqlite", "--backup", "x", "-dash.sqlite"],
    ])
    func aFileNameStartingWithADashIsAUsageErrorWithAHint(arguments: [String]) throws {
        let project = try TemporaryProject.withUserStore()
        let before = sha256(of: project, "user.sqlite")
        let result = try runSeedkit(arguments, in: project.root)
        expectEqual(result.status, 2, "\(result)")
        #expect(result.stdout.isEmpty, "no help text: \(result)")
        #expect(
            result.stderr.contains(
                "Error: '-dash.sqlite' starts with '-', so it is read as options, not as a file name; put -- before file names that start with '-' (seedkit \(arguments[0]) … -- -dash.sqlite) or write ./-dash.sqlite"
            ), "\(result)")
        expectEqual(sha256(of: project, "user.sqlite"), before)
        #expect(!project.exists("x"))
    }

    @Test func aFileNameStartingWithADashWorksAfterTwoDashes() throws {
        let project = try TemporaryProject.withUserStore()
        try FileManager.default.copyItem(atPath: project.path("user.sqlite"), toPath: project.path("-dash.sqlite"))
        let result = try project.seedkit("migrate", "--", "-dash.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(result.stdout.contains("-dash.sqlite: 1 migration applied"), "\(result)")
        let help = try project.seedkit("migrate", "-h")
        #expect(
            help.status == 0 && help.stdout.contains("USAGE: seedkit migrate"), "asking for help still works: \(help)")
    }
}
