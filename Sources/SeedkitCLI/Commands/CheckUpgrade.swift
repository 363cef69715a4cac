import ArgumentParser
import Foundation
import GRDB
import SeedRuntime
import SeedTooling

extension SeedTool {
    struct CheckUpgrade: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check-upgrade",
            abstract:
                "Prove that old seeds, migrated, hold exactly what a fresh build holds, and that user edits survive.",
            discussion: """
                For each old seed: migrate a copy in memory, as migrate does, and compare it by content with a fresh \
                build of the fixtures, as diff does (table by table and key by key, refs by natural key, assigned ids \
                ignored): each difference is a divergence, naming the migration and line when the run did not apply \
                its change; the rows the release touched are counted per table (--verbose lists them). Then migrate \
                another copy in which a simulated user changed a value a migration updates or deletes, added a row \
                with a key a migration inserts, a row referring to a row a migration deletes or renames, and a row of \
                its own to every table it can (the first rows of each change), and check that the user's data is \
                still there, once, as the user left it. Each check that could not run is listed with its table and \
                why ('not checked:'). Exits 1 on any divergence or lost edit. The old seeds are only read.
                """)

        @Argument(help: "Seeds earlier releases shipped (e.g. seeds/releases/*.sqlite).")
        var oldSeeds: [String]
        @OptionGroup var project: ProjectOptions
        @OptionGroup var format: FormatOption<UpgradeReport>
        @Flag(
            name: .long,
            help: ArgumentHelp(
                "Migrate the old seeds as migrate --without-history does (for an app that migrates its users' stores so): what seedkit cannot record in a store's persistent history is written without history entries."
            ))
        var withoutHistory = false
        @Flag(
            name: .long,
            help: "List each row the release touched that is as in a fresh build, not only their counts per table.")
        var verbose = false

        func run() throws {
            let outcomes = try reporting(format.format) {
                // One bar from the start: the fresh build fills its first part, each seed's steps the rest.
                let bar = StepProgress(enabled: Output.stderrIsTerminal && format.format == .human)
                defer { bar.finish() }
                let steps = 1 + 3 * oldSeeds.count
                var fresh: FreshBuild?
                defer { withExtendedLifetime(fresh) {} }  // the fresh build is removed once compared
                return try UpgradeChecker.check(
                    oldSeeds, manifest: { () throws(SeedError) in try project.loadManifest() },
                    migrations: { () throws(SeedError) in try project.loadMigrations() },
                    allowsMissingHistory: withoutHistory, listsEveryRow: verbose || format.format == .json,
                    progress: { stage, done, total in bar.update(stage, done: done + 1, total: total + 1) }
                ) { manifest, migrations throws(SeedError) in
                    let build = try FreshBuild(manifest: manifest, migrations: migrations) { table, rows, read, size in
                        bar.update(
                            "a fresh build: \(table) \(rows.grouped) rows", done: read, total: max(1, size) * steps,
                            throttled: true)
                    }
                    fresh = build
                    return build.url
                }
            }
            Output.render(UpgradeReport(outcomes, verbose: verbose), format.format)
            // A refused seed is a store refused (3), as in `migrate`; otherwise a divergence is 1.
            if outcomes.contains(where: \.refused) { throw ExitCode(3) }
            if outcomes.contains(where: { !$0.passed }) { throw ExitCode(1) }
        }
    }
}
