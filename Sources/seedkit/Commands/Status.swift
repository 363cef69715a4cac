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
        @OptionGroup var format: DiagnosticFormatOption

        func run() throws {
            let states = try reporting(format.format, store: store) {
                let migrator = try SeedMigrator(migrations: try project.loadMigrations(defaultMayBeMissing: false))
                let queue = try StoreAccess.openReadOnly(store, notice: Output.notice(about: store))
                do { return try queue.read { db in try migrator.states(db) } } catch {
                    throw SeedError(databaseError: error, file: store)
                }
            }
            switch format.format {
            case .json:
                print(
                    JSONOutput.render(
                        .object([
                            ("store", .string(store)),
                            (
                                "migrations",
                                .array(
                                    states.map { state in
                                        var entries: [(String, JSONOutput)] = [
                                            ("number", .int(state.number)), ("state", .string(state.label)),
                                        ]
                                        switch state {
                                        case .applied(let entry, let migration), .fromSeed(let entry, let migration),
                                            .changed(let entry, let migration):
                                            entries += [
                                                ("name", .string(migration.name)), ("file", .string(migration.file)),
                                                ("checksum", .string(migration.checksum)),
                                                ("recordedChecksum", .string(entry.checksum)),
                                                ("appliedAt", entry.appliedAt.map { .string($0) } ?? .null),
                                            ]
                                        case .pending(let migration):
                                            entries += [
                                                ("name", .string(migration.name)), ("file", .string(migration.file)),
                                                ("checksum", .string(migration.checksum)),
                                            ]
                                        case .missing(let entry):
                                            entries += [
                                                ("name", .string(entry.name)),
                                                ("recordedChecksum", .string(entry.checksum)),
                                                ("appliedAt", entry.appliedAt.map { .string($0) } ?? .null),
                                            ]
                                        }
                                        return .object(entries)
                                    })
                            ),
                        ])))
            case .human, .github:
                if states.isEmpty {
                    print("the folder \(project.migrations) has no migrations, and \(store) records none")
                }
                for state in states {
                    let name: String
                    var detail = ""
                    switch state {
                    case .applied(let entry, let migration):
                        name = migration.name
                        detail = entry.appliedAt.map { "at \($0)" } ?? ""
                    case .fromSeed(_, let migration):
                        name = migration.name
                        detail = "contained in the seed"
                    case .pending(let migration): name = migration.name
                    case .changed(_, let migration):
                        name = migration.name
                        detail = "\(migration.file) was edited after it was applied; the store will be refused"
                    case .missing(let entry):
                        name = entry.name
                        detail = "recorded in the store, no file here; the store will be refused"
                    }
                    let id = Migration.id(number: state.number, name: name)
                    if format.format == .github, state.refusesTheStore {
                        print(
                            DiagnosticFormat.githubAnnotation(
                                file: store, title: "seedkit status", "\(id) \(state.label): \(detail)"), terminator: ""
                        )
                    }
                    print(
                        "\(id.padding(toLength: max(id.count, 28), withPad: " ", startingAt: 0))  \(state.label.padding(toLength: 9, withPad: " ", startingAt: 0))  \(detail)"
                            .trimmingCharacters(in: .whitespaces).escapingControls())
                }
            }
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

extension MigrationState {
    /// A migration changed or missing since it was applied: `migrate` refuses the store.
    var refusesTheStore: Bool {
        switch self {
        case .changed, .missing: true
        default: false
        }
    }
}
