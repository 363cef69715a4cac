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

    /// Runs the command; usage errors exit 2 (SPEC §5) rather than ArgumentParser's 64. Output
    /// that could not be written is an I/O failure (4): a report nobody received is not a success.
    static func main() {
        Output.prepareStandardStreams()
        var status: Int32
        do {
            var command = try parseAsRoot()
            try command.run()
            status = 0
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .validationFailure {
                Output.standardError(message + "\n")
                status = 2
            } else {
                if !message.isEmpty {
                    if code.isSuccess { print(message) } else { Output.standardError(message + "\n") }
                }
                status = code.rawValue
            }
        }
        if !Output.flushStandardOutput() { status = 4 }
        Foundation.exit(status)
    }
}
