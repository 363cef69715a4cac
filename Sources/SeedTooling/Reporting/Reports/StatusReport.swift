import Foundation
import SeedRuntime

/// `status STORE`: each migration's state in the store, one a line; as JSON; as rows; with
/// each migration that makes `migrate` refuse the store as an annotation (github).
public struct StatusReport: Report {
    /// The store, as named on the command line.
    public var store: String
    /// The migrations folder, as given (named when it holds nothing).
    public var folder: String
    /// Each migration's state, in number order.
    public var states: [MigrationState]

    /// Reports the `states` of the migrations in `folder` against `store`.
    public init(store: String, folder: String, states: [MigrationState]) {
        self.store = store
        self.folder = folder
        self.states = states
    }

    /// Every view: text, one JSON document, a row per migration, a changed or missing one
    /// annotated.
    public static let views: Set<ReportView> = [.text, .document, .rows, .annotated]

    /// Writes a line per migration with its state.
    public func writeText(to output: ReportOutput) { write(to: output, annotated: false) }

    /// Writes the text, with a changed or missing migration as a GitHub annotation.
    public func writeAnnotated(to output: ReportOutput) { write(to: output, annotated: true) }

    private func write(to output: ReportOutput, annotated: Bool) {
        if states.isEmpty { output.line("the folder \(folder) has no migrations, and \(store) records none") }
        for state in states {
            let (id, detail) = Self.describe(state)
            if annotated, state.refusesTheStore {
                output.write(
                    GitHubAnnotation(file: store, title: "seedkit status", "\(id) \(state.label): \(detail)").text)
            }
            output.line(
                "\(id.padding(toLength: max(id.count, 28), withPad: " ", startingAt: 0))  \(state.label.padding(toLength: 9, withPad: " ", startingAt: 0))  \(detail)"
                    .trimmingCharacters(in: .whitespaces))
        }
    }

    /// A state's migration id and what to say about it.
    private static func describe(_ state: MigrationState) -> (id: String, detail: String) {
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
        return (Migration.id(number: state.number, name: name), detail)
    }

    /// `{"store", "migrations": [{"number", "state", …}]}`.
    public var document: JSONOutput? {
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
                                ("name", .string(entry.name)), ("recordedChecksum", .string(entry.checksum)),
                                ("appliedAt", entry.appliedAt.map { .string($0) } ?? .null),
                            ]
                        }
                        return .object(entries)
                    })
            ),
        ])
    }

    /// One row per migration: migration, state, detail.
    public var tabular: Tabular? {
        Tabular(
            columns: ["migration", "state", "detail"],
            rows: states.map { state in
                let (id, detail) = Self.describe(state)
                return [.text(id), .text(state.label), .text(detail)]
            })
    }
}

extension MigrationState {
    /// A migration changed or missing since it was applied: `migrate` refuses the store.
    public var refusesTheStore: Bool {
        switch self {
        case .changed, .missing: true
        default: false
        }
    }
}
