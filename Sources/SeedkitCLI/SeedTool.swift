import ArgumentParser
import Foundation
import SeedRuntime

package struct SeedTool: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "seedkit",
        abstract: "Build seed SQLite databases from fixtures, and migrate the stores users already have.",
        discussion: """
            Exit codes: 0 success · 1 the input data has errors · 2 usage or configuration error · \
            3 the store was refused · 4 SQLite or I/O failure.
            """,
        version: "0.1.0",
        subcommands: [
            Init.self, Build.self, Migrate.self, Status.self, Inspect.self, Diff.self, Verify.self, NewMigration.self,
            CheckUpgrade.self, ExportMigrations.self,
        ]
    )

    package init() {}

    /// The seedkit process: its setup, then ``run(_:)`` with its arguments, and the exit.
    package static func main() {
        // A reader that goes away (`seedkit migrate … | head -1`) makes writes fail with EPIPE
        // instead of killing the process silently after a migration committed: the failed write
        // is reported (what was done, all the same) and the exit is 4 (docs/reference.md).
        signal(SIGPIPE, SIG_IGN)
        FileSizeLimit.prepare()
        // Before anything opens a file: a closed stdout is refused, a closed stdin or stderr is /dev/null.
        Output.prepareStandardStreams()
        DescriptorLimit.prepare()
        // Signals are received on a thread of their own, started before any other; a process
        // that can't start it (`ulimit -v` too low) says so rather than run where libdispatch
        // would wait forever for a thread.
        do { try SignalThread.start() } catch {
            Output.standardError(
                "seedkit: error: \(error.diagnostics.map(\.message).joined(separator: "; ").replacingOccurrences(of: "; nothing was written", with: "")); nothing was done [\(DiagnosticCode.ioFailure.rawValue)]\n"
            )
            Foundation.exit(4)
        }
        Foundation.exit(run(Array(CommandLine.arguments.dropFirst())))
    }

    /// Runs the command `arguments` name and returns the exit status: everything the process does
    /// but its setup, so that the tests can run commands in theirs (inside an ``Invocation``).
    /// Usage errors exit 2 (docs/reference.md, "Exit codes") rather than ArgumentParser's 64.
    /// Output that could not be written is an I/O failure (4): a report nobody received is not a success.
    package static func run(_ arguments: [String]) -> Int32 {
        var status: Int32
        do {
            var command = try parseAsRoot(arguments)
            if let name = dashedName(in: arguments), String(describing: type(of: command)) == "HelpCommand" {
                throw DashedName(name: name, command: arguments.first ?? "COMMAND")
            }
            try command.run()
            status = 0
        } catch let error as DashedName {
            Output.standardError(error.description + "\n")
            status = 2
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error, columns: Output.columns)
            if let name = dashedName(in: arguments), error is CleanExit || code == .validationFailure {
                // `migrate -dash.sqlite` reads as the flags -d -a -s -h…, and -h asks for help: a file
                // name that starts with '-' must never turn into help and exit 0, or into a vague error.
                let hint = DashedName(name: name, command: arguments.first ?? "COMMAND").description
                Output.standardError((error is CleanExit ? "" : message + "\n") + hint + "\n")
                status = 2
            } else if code == .validationFailure {
                Output.standardError(message + "\n")
                status = 2
            } else {
                if !message.isEmpty {
                    if code.isSuccess { print(message) } else { Output.standardError(message + "\n") }
                }
                status = code.rawValue
            }
        }
        if let failed = Output.flushStandardOutput() { status = failed }
        return status
    }

    /// The first argument before `--` that starts with one '-' and is longer than a flag
    /// (seedkit has no short options but -h) and is not a number (a negative option value),
    /// unless help was asked for in so many words.
    static func dashedName(in arguments: [String]) -> String? {
        let options = arguments.prefix { $0 != "--" }
        if options.contains(where: { ["-h", "--help", "help", "--version"].contains($0) }) { return nil }
        return options.first { $0.hasPrefix("-") && !$0.hasPrefix("--") && $0.count > 2 && Double($0) == nil }
    }
}

/// A file name that starts with '-' where options are read: `migrate -dash.sqlite` reads as the
/// flags -d -a -s -h…, and -h asks for help, which must not exit 0 as if nothing were wrong.
struct DashedName: Error, CustomStringConvertible {
    var name: String
    var command: String

    var description: String {
        "Error: '\(name)' starts with '-', so it is read as options, not as a file name; "
            + "put -- before file names that start with '-' (seedkit \(command) … -- \(name)) or write ./\(name)"
    }
}
