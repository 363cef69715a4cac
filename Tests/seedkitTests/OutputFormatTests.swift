import Foundation
import SeedTestSupport
import SeedTooling
import SeedkitCLI
import Testing

/// `--format` means one thing on every command (issue 36; docs/reference.md#output-formats):
/// each command prints each format of the one set, or refuses it before it does anything, with
/// exit 2 and the list of formats it prints; the older spellings still work.
///
/// The formats, and which a command prints, come from the registry (OutputFormat.all, the report's
/// views): a new format is tested on every command without an edit here.
@Suite struct OutputFormatTests {
    /// A command, what it is run on, and the formats it prints: those the registry renders its report in.
    struct Case: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var prints: [String]
        /// Its exit status when it prints (`check-upgrade`: 1, the fixtures lack the book the migration adds).
        var status: Int32
        /// The header a csv starts with, for commands that print rows.
        var csvHeader: String?
        var testDescription: String { arguments.prefix(2).joined(separator: " ") }

        init(arguments: [String], report: any Report.Type, status: Int32 = 0, csvHeader: String? = nil) {
            self.arguments = arguments
            prints = OutputFormat.formats(for: report).map(\.name)
            self.status = status
            self.csvHeader = csvHeader
        }
    }

    static let cases: [Case] = [
        // init writes a new project into fresh-project/, removed after each run.
        Case(arguments: ["init", "fresh-project"], report: InitReport.self),
        Case(arguments: ["build", "--output", "fresh.sqlite"], report: BuildReport.self),
        Case(
            arguments: ["migrate", "user.sqlite", "--dry-run"], report: MigrateReport.self,
            csvHeader: "migration,kind,table,key,detail"),
        Case(arguments: ["status", "user.sqlite"], report: StatusReport.self, csvHeader: "migration,state,detail"),
        Case(arguments: ["check-upgrade", "user.sqlite"], report: UpgradeReport.self, status: 1),
        Case(arguments: ["inspect", "user.sqlite"], report: StoreSummary.self, csvHeader: "table,rows"),
        Case(
            arguments: ["inspect", "user.sqlite", "books"], report: Tabular.self,
            csvHeader: "id,title,price,category_id"),
        Case(
            arguments: ["diff", "user.sqlite", "migrated.sqlite"], report: DiffReport.self,
            csvHeader: "table,change,key,column,old,new"),
        Case(
            arguments: ["verify", "user.sqlite"], report: VerifyReport.self, csvHeader: "table,key,column,code,message"
        ),
        // new-migration writes migrations/NNNN-format-check.yml and export-migrations fresh-export/, removed after each run.
        Case(arguments: ["new-migration", "format check"], report: NewMigrationReport.self),
        Case(arguments: ["export-migrations", "fresh-export"], report: ExportReport.self),
    ]

    /// Removes what a case wrote, so that the next format's run starts from the same project.
    static func removeWritten(_ project: TemporaryProject) throws {
        for written in ["fresh.sqlite", "fresh-project", "fresh-export"] where project.exists(written) {
            try project.remove(written)
        }
        for name in project.listing("migrations") where name.contains("format-check") {
            try project.remove("migrations/" + name)
        }
    }

    /// Every format's name, from the registry.
    static let formats = OutputFormat.all.map(\.name)

    /// The formats people read, or GitHub shows beside the code: no control character may reach them raw.
    static let shownFormats = OutputFormat.all.filter { $0.isForPeople || $0.view == .annotated }.map(\.name)

    static func project() throws -> TemporaryProject {
        let project = try TemporaryProject.withUserStore()
        try project.write("migrated.sqlite", project.read("user.sqlite") ?? Data())
        let migrate = try project.seedkit("migrate", "migrated.sqlite")
        expectEqual(migrate.status, 0, "\(migrate)")
        return project
    }

    @Test(arguments: cases)
    func eachCommandPrintsEachFormatOrRefusesItWithExit2(command: Case) throws {
        let project = try Self.project()
        let before = project.sha256("user.sqlite")
        for format in Self.formats {
            let result = try project.seedkit(command.arguments + ["--format", format])
            guard command.prints.contains(format) else {
                expectEqual(result.status, 2, "\(format): \(result)")
                #expect(
                    result.stderr.contains(
                        "--format \(format) is not one this command prints; it prints \(command.prints.joined(separator: ", "))"
                    ), "\(format): \(result)")
                #expect(result.stdout.isEmpty, "\(format): \(result)")
                #expect(!project.exists("fresh.sqlite"), "a refused build writes nothing")
                continue
            }
            expectEqual(result.status, command.status, "\(format): \(result)")
            #expect(!result.stdout.isEmpty, "\(format): \(result)")
            switch format {
            case "json":
                #expect((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) != nil, "\(result)")
                #expect(result.stdout.hasPrefix("{\n") || result.stdout.hasPrefix("[\n"), "\(result)")
                #expect(result.stdout.hasSuffix("}\n") || result.stdout.hasSuffix("]\n"), "\(result)")
            case "csv":
                #expect(result.stdout.hasPrefix((command.csvHeader ?? "") + "\r\n"), "\(result)")
            case "markdown":
                let header = (command.csvHeader ?? "").split(separator: ",").joined(separator: " | ")
                #expect(result.stdout.hasPrefix("| \(header) |\n|"), "\(result)")
            default:
                #expect(!result.stdout.hasPrefix("{"), "\(format): \(result)")
            }
            try Self.removeWritten(project)
        }
        expectEqual(project.sha256("user.sqlite"), before)
    }

    /// Scripts written for the two old sets keep working: `table` is `human`, on every command.
    /// (build and init write a file and refuse to write it again, new-migration writes the next
    /// number each run: their default is checked above.)
    @Test(arguments: cases.filter { !["build", "init", "new-migration"].contains($0.arguments[0]) })
    func tableIsTheOlderSpellingOfHuman(command: Case) throws {
        let project = try Self.project()
        let human = try project.seedkit(command.arguments + ["--format", "human"])
        let table = try project.seedkit(command.arguments + ["--format", "table"])
        expectEqual(human.status, command.status, "\(human)")
        #expect(
            table.stdout == human.stdout && table.stderr == human.stderr && table.status == human.status,
            "\(table)\n\(human)")
        let plain = try project.seedkit(command.arguments)
        expectEqual(plain.stdout, human.stdout, "the default is human: \(plain)")
    }

    /// Every command that takes `--format` has its case above: the commands come from seedkit's
    /// own configuration, so a new command that prints a report is tested here without an edit.
    @Test func everyCommandThatTakesFormatIsCovered() throws {
        let project = try TemporaryProject(bookStore: false)
        var taking: [String] = []
        for command in SeedTool.commandNames {
            let help = try project.seedkit(command, "--help")
            expectEqual(help.status, 0, "\(command): \(help)")
            if help.stdout.contains("--format <format>") { taking.append(command) }
        }
        #expect(taking.count >= 7, "\(taking)")
        expectEqual(Set(taking), Set(Self.cases.map { $0.arguments[0] }))
    }

    @Test func aNameThatIsNoFormatIsRefusedWithTheCommandsFormats() throws {
        let project = try Self.project()
        let result = try project.seedkit("status", "user.sqlite", "--format", "yaml")
        expectEqual(result.status, 2, "\(result)")
        let prints = OutputFormat.formats(for: StatusReport.self).map(\.name).joined(separator: ", ")
        #expect(
            result.stderr.contains("--format yaml is not a format; this command prints \(prints)"), "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
    }

    /// A refusal comes before any work: a migrate given a format name it does not print
    /// (`yaml`) writes nothing, and a build asked for rows writes no seed.
    @Test func aRefusedFormatIsRefusedBeforeAnythingIsWritten() throws {
        let project = try Self.project()
        let before = project.sha256("user.sqlite")
        let migrate = try project.seedkit("migrate", "user.sqlite", "--format", "yaml")
        expectEqual(migrate.status, 2, "\(migrate)")
        #expect(migrate.stdout.isEmpty, "\(migrate)")
        expectEqual(project.sha256("user.sqlite"), before)
        #expect(!project.exists("user.sqlite-journal") && !project.exists("user.sqlite-wal"))
        // A format build does not print (it prints no rows).
        let refused = try #require(OutputFormat.all.first { !$0.renders(BuildReport.self) })
        let prints = OutputFormat.formats(for: BuildReport.self).map(\.name).joined(separator: ", ")
        let build = try project.seedkit("build", "--output", "fresh.sqlite", "--format", refused.name)
        expectEqual(build.status, 2, "\(build)")
        #expect(
            build.stderr.contains("--format \(refused.name) is not one this command prints; it prints \(prints)"),
            "\(build)")
        #expect(!project.exists("fresh.sqlite") && project.listing("build").filter { $0.contains("fresh") }.isEmpty)
    }

    /// Text for people and GitHub annotations carry no control character from a path or a store
    /// raw, in every command (csv and json keep values exactly, by design).
    @Test func noFormatForPeoplePrintsAControlCharacterRaw() throws {
        let project = try Self.project()
        let hostile = "u\u{1B}]0;owned\u{7}\r\u{1B}[K.sqlite"
        try project.write(hostile, project.read("user.sqlite") ?? Data())
        let commands: [[String]] = [
            ["build", "--output", "o\u{1B}[2J.sqlite"], ["check-upgrade", hostile], ["migrate", hostile, "--dry-run"],
            ["status", hostile], ["verify", hostile], ["inspect", hostile], ["inspect", hostile, "books"],
            ["diff", "user.sqlite", hostile], ["init", "p\u{1B}[2J"],
        ]
        #expect(!Self.shownFormats.isEmpty)
        for command in commands {
            for format in Self.shownFormats {
                let result = try project.seedkit(command + ["--format", format])
                guard result.status != 2 else { continue }  // a format the command does not print
                let raw = (result.stdout + result.stderr).unicodeScalars.filter { $0.value < 0x20 && $0 != "\n" }
                #expect(raw.isEmpty, "\(command) --format \(format): \(result.stdout.debugDescription)")
            }
        }
    }

    /// The help of each command lists the formats it prints.
    @Test func helpListsTheFormatsEachCommandPrints() throws {
        let project = try TemporaryProject(bookStore: false)
        for command in Self.cases where command.arguments.count < 3 || command.arguments[2] != "books" {
            let help = try project.seedkit(command.arguments[0], "--help")
            let flat = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(
                flat.contains(
                    "Output format: \(command.prints.joined(separator: ", ")). (default: human)"
                ),
                "\(command.arguments[0]): \(help)")
        }
    }
}
