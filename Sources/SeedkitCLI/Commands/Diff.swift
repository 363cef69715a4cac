import ArgumentParser
import Foundation
import GRDB
import SeedRuntime
import SeedTooling

extension SeedTool {
    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show rows added, removed and changed between two stores, table by table.",
            discussion: """
                Rows are matched by natural key: the manifest's (when there is one), else the keys the seed recorded, \
                else the primary key. Matched by natural key, ids SQLite assigned are left out and refs compare by the \
                parent's key. Values of different types differ (10 and 10.0). Read-only. Exits 0 unless --exit-code is \
                given; then 1 means the stores differ.
                """)

        @Argument(help: "The old store.")
        var a: String
        @Argument(help: "The new store.")
        var b: String
        @Option(name: .long, help: "Compare only this table.")
        var table: String?
        @Flag(name: .long, help: "Exit 1 when the stores differ.")
        var exitCode = false
        @OptionGroup var manifest: OptionalManifestOption
        @Option(
            name: .customLong("migrations"),
            help: ArgumentHelp(
                "The migrations whose renames show as one changed row: those B has and A has not (default: migrations, when there; none for none).",
                valueName: "dir"))
        var migrations: String?
        @OptionGroup var output: FormatOption<DiffReport>

        func run() throws {
            let diff = try reporting(.human) {
                let first = try StoreAccess.openReadOnly(a, notice: Output.notice(about: a))
                let second = try StoreAccess.openReadOnly(b, notice: Output.notice(about: b))
                defer {
                    try? first.close()
                    try? second.close()
                }
                return try StoreComparison.diff(
                    first, second, pathA: a, pathB: b, manifest: try manifest.load(), table: table,
                    migrations: try StoreComparison.migrationsFolder(given: migrations))
            }
            let report = DiffReport(diff, a: a, b: b)
            Output.render(report, output.format)
            if exitCode && !report.identical { throw ExitCode(1) }
        }
    }
}
