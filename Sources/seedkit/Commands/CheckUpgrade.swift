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
                For each old seed: migrate a copy in memory and compare it with a fresh build of the fixtures, table by \
                table and key by key (refs by natural key, assigned ids ignored). Then migrate another copy in which a \
                simulated user changed a value a migration updates or deletes, added a row with a key a migration \
                inserts, a row referring to a row a migration deletes or renames, and a row of its own to every table \
                it can, and check that the user's data is still there, once. Each check that could not run is listed \
                with its table and why ('not checked:'). Exits 1 on any divergence or lost edit. The old seeds are only read.
                """)

        @Argument(help: "Seeds earlier releases shipped (e.g. seeds/releases/*.sqlite).")
        var oldSeeds: [String]
        @OptionGroup var project: ProjectOptions
        @OptionGroup var format: DiagnosticFormatOption

        func run() throws {
            let outcomes = try reporting(format.format) {
                for seed in oldSeeds { try UpgradeChecker.requireOldSeed(seed) }
                let manifest = try project.loadManifest()
                let migrations = try project.loadMigrations()
                let fresh = try FreshBuild(manifest: manifest, migrations: migrations)
                let checker = UpgradeChecker(manifest: manifest, migrations: migrations)
                let unmatched: [Diagnostic]
                do { unmatched = try checker.unmatchedKeys(oldSeeds, fresh: fresh.url) } catch let error as SeedError {
                    throw error
                } catch { throw SeedError(databaseError: error) }
                if !unmatched.isEmpty { throw SeedError(.invalidData, unmatched) }
                do { return try checker.check(oldSeeds, fresh: fresh.url) } catch let error as SeedError {
                    throw error
                } catch { throw SeedError(databaseError: error) }
            }
            switch format.format {
            case .json:
                print(
                    JSONOutput.render(
                        .array(
                            outcomes.map { outcome in
                                .object([
                                    ("seed", .string(outcome.seed)),
                                    ("passed", .bool(outcome.passed)),
                                    ("applied", .array(outcome.applied.map { .string($0) })),
                                    (
                                        "divergences",
                                        .array(
                                            outcome.divergences.map { divergence in
                                                .object([
                                                    ("table", .string(divergence.table)),
                                                    ("key", .string(divergence.key)),
                                                    ("column", divergence.column.map { .string($0) } ?? .null),
                                                    ("got", .string(divergence.got)),
                                                    ("expected", .string(divergence.expected)),
                                                ])
                                            })
                                    ),
                                    ("keptEdits", .array(outcome.keptEdits.map { .string($0) })),
                                    ("lostEdits", .array(outcome.lostEdits.map { .string($0) })),
                                    ("notChecked", .array(outcome.notChecked.map { .string($0) })),
                                    ("schema", .array(outcome.schema.map { .string($0) })),
                                    ("failure", outcome.failure.map { .string($0) } ?? .null),
                                    ("refused", .bool(outcome.refused)),
                                ])
                            })))
            case .human, .github:
                for outcome in outcomes {
                    if let failure = outcome.failure {
                        print(
                            outcome.refused
                                ? "\(outcome.seed): refused; its upgrade cannot be checked"
                                : "\(outcome.seed): the migrations do not apply; DIVERGES from a fresh build")
                        for line in failure.split(separator: "\n") { print("  \(String(line).escapingControls())") }
                        continue
                    }
                    let applied =
                        outcome.applied.isEmpty
                        ? "no migration to apply" : "applied " + outcome.applied.joined(separator: ", ")
                    print(
                        "\(outcome.seed): \(applied); \(outcome.divergences.isEmpty && outcome.schema.isEmpty ? "converges with a fresh build" : "DIVERGES from a fresh build")"
                    )
                    for line in outcome.schema { print("  schema: \(line.escapingControls())") }
                    for divergence in outcome.divergences {
                        let place = "\(divergence.table) \(divergence.key)" + (divergence.column.map { ".\($0)" } ?? "")
                        print("  \(place.escapingControls()): got \(divergence.got), expected \(divergence.expected)")
                    }
                    // Values come from the seeds and the migrations: nothing in them may act on a terminal.
                    for edit in outcome.keptEdits { print("  ok: \(edit.escapingControls())") }
                    for edit in outcome.lostEdits { print("  LOST: \(edit.escapingControls())") }
                    for gap in outcome.notChecked { print("  not checked: \(gap.escapingControls())") }
                }
                if format.format == .github { print(Self.annotations(outcomes), terminator: "") }
                let failed = outcomes.filter { !$0.passed }.count
                print(
                    failed == 0
                        ? "\(outcomes.count) old seed\(outcomes.count == 1 ? " converges" : "s converge")"
                        : "\(failed) of \(outcomes.count) old seeds do not converge")
            }
            // A refused seed is a store refused (3), as in `migrate`; otherwise a divergence is 1.
            if outcomes.contains(where: \.refused) { throw ExitCode(3) }
            if outcomes.contains(where: { !$0.passed }) { throw ExitCode(1) }
        }

        /// `--format github`: each reason an old seed fails, as an annotation on that seed.
        static func annotations(_ outcomes: [UpgradeChecker.Outcome]) -> String {
            var text = ""
            func error(_ seed: String, _ message: String) {
                text += DiagnosticFormat.githubAnnotation(file: seed, title: "seedkit check-upgrade", message)
            }
            for outcome in outcomes {
                if let failure = outcome.failure {
                    error(
                        outcome.seed,
                        (outcome.refused ? "refused; its upgrade cannot be checked: " : "the migrations do not apply: ")
                            + failure)
                    continue
                }
                for line in outcome.schema { error(outcome.seed, "diverges from a fresh build: schema: \(line)") }
                for divergence in outcome.divergences {
                    let place = "\(divergence.table) \(divergence.key)" + (divergence.column.map { ".\($0)" } ?? "")
                    error(
                        outcome.seed,
                        "diverges from a fresh build: \(place): got \(divergence.got), expected \(divergence.expected)")
                }
                for edit in outcome.lostEdits { error(outcome.seed, "a user's edit is lost: \(edit)") }
            }
            return text
        }
    }
}
