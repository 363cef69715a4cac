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
            seedkit help TOPIC: \(HelpTopic.all.map(\.name).joined(separator: ", ")).
            """,
        version: "0.1.0",
        subcommands: [
            Init.self, Build.self, Migrate.self, Status.self, Inspect.self, Diff.self, Verify.self, NewMigration.self,
            CheckUpgrade.self, ExportMigrations.self,
        ]
    )

    package init() {}

    /// Every command's name, as typed (`new-migration`), in the order help lists them.
    package static var commandNames: [String] { configuration.subcommands.map { $0._commandName } }

    /// Each command's type name, which is its file's name in `Commands/` (RepositoryLayoutTests).
    package static var commandTypeNames: [String] { configuration.subcommands.map { String(describing: $0) } }

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
    ///
    /// Usage errors exit 2 (docs/reference.md, "Exit codes") rather than ArgumentParser's 64.
    /// Output that could not be written is an I/O failure (4): a report nobody received is not a
    /// success.
    package static func run(_ arguments: [String]) -> Int32 {
        var status: Int32
        do {
            if arguments.count == 2, arguments[0] == "help", let topic = HelpTopic.named(arguments[1]) {
                Output.standardOutput(topic.text + "\n")
                return Output.flushStandardOutput() ?? 0
            }
            if let unknown = UnknownCommand(arguments) { throw unknown }
            var command = try parseAsRoot(arguments)
            if let name = dashedName(in: arguments), String(describing: type(of: command)) == "HelpCommand" {
                throw DashedName(name: name, command: arguments.first ?? "COMMAND")
            }
            try command.run()
            status = 0
        } catch let error as DashedName {
            Output.standardError(error.description + "\n")
            status = 2
        } catch let error as UnknownCommand {
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

/// A first argument that names no command (`seedkit biuld`), or a help topic that is none
/// (`seedkit help nope`): an error with the nearest command, as git and cargo say it, never the
/// root help with exit 0.
struct UnknownCommand: Error, CustomStringConvertible {
    var name: String
    var asHelp: Bool

    init?(_ arguments: [String]) {
        guard var first = arguments.first, !first.hasPrefix("-") else { return nil }
        asHelp = first == "help"
        if asHelp {
            guard let topic = arguments.dropFirst().first, !topic.hasPrefix("-") else { return nil }
            first = topic
        }
        guard !Self.commands.contains(first), !(asHelp && HelpTopic.named(first) != nil) else { return nil }
        name = first
    }

    static var commands: [String] { SeedTool.commandNames }

    var description: String {
        let names = Self.commands + (asHelp ? HelpTopic.all.map(\.name) : [])
        let nearest = names.map { ($0, Self.distance($0, name)) }.min { $0.1 < $1.1 }
        let hint = nearest.flatMap { $0.1 <= max(2, name.count / 3) ? "; did you mean '\($0.0)'?" : nil } ?? ""
        let what = asHelp ? "no help topic '\(name)'" : "'\(name)' is not a seedkit command"
        let commands = "the commands: \(Self.commands.joined(separator: ", ")); seedkit help COMMAND"
        let topics = "; the topics: \(HelpTopic.all.map(\.name).joined(separator: ", ")); seedkit help TOPIC"
        return "Error: \(what)\(hint) (\(commands)\(asHelp ? topics : ""))"
    }

    /// The edit distance between two names (insertions, deletions, substitutions, transpositions).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var rows = [Array(0...b.count)]
        for i in 1...a.count {
            var row = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                row[j] = min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    row[j] = min(row[j], rows[i - 2][j - 2] + 1)
                }
            }
            rows.append(row)
        }
        return rows[a.count][b.count]
    }
}
