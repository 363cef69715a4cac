import ArgumentParser
import Foundation
import GRDB
import SeedRuntime
import SeedTooling

extension SeedTool {
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show each migration as applied, from-seed, pending, changed or missing in a store.",
            discussion:
                "Read-only. Exits 0 unless --exit-code is given; then 1 means migrations are pending, and 3 that migrate would refuse the store (a migration changed or missing)."
        )

        @Argument(help: "The store.")
        var store: String
        @OptionGroup var project: ProjectOptions
        @Flag(name: .long, help: "Exit 1 when migrations are pending, 3 when migrate would refuse the store.")
        var exitCode = false
        @OptionGroup var format: FormatOption<StatusReport>

        func run() throws {
            let states = try reporting(format.format, store: store) {
                let migrator = try SeedMigrator(migrations: try project.loadMigrations(defaultMayBeMissing: false))
                let queue = try StoreAccess.openReadOnly(store, notice: Output.notice(about: store))
                return try StoreAccess.reading(store) { try queue.read { db in try migrator.states(db) } }
            }
            Output.render(
                StatusReport(store: store, folder: project.migrations, states: states), format.format, about: store)
            guard exitCode else { return }
            // A gate must not pass a store that `migrate` will refuse.
            if states.contains(where: \.refusesTheStore) {
                throw ExitCode(3)
            }
            if states.contains(where: { if case .pending = $0 { return true } else { return false } }) {
                throw ExitCode(1)
            }
        }
    }
}
