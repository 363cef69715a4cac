import ArgumentParser
import Foundation

@main
struct SeedTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seedkit",
        abstract: "Build seed SQLite databases from fixtures, and migrate the stores users already have.",
        discussion: """
            Exit codes: 0 success · 1 the input data has errors · 2 usage or configuration error · \
            3 the store was refused · 4 SQLite or I/O failure.
            """,
        version: "0.1.0",
        subcommands: [Build.self, Migrate.self, Status.self, Inspect.self, Diff.self, Verify.self, NewMigration.self, CheckUpgrade.self, ExportMigrations.self]
    )

    /// Runs the command; usage errors exit 2 (SPEC §5) rather than ArgumentParser's 64.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
