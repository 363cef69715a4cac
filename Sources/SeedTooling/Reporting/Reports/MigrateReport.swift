import Foundation
import SeedRuntime

/// `migrate STORE`: a line per migration with its counts, then the rows the run kept (a sample
/// of each kind it applied, unless `--verbose`; every row it did not apply) and how many more it
/// only counted, then the conflicts and denied deletes as warnings (on stderr; as annotations,
/// github).
///
/// JSON lists every row (the run keeps them all); csv and markdown give one row per row listed.
public struct MigrateReport: Report {
    /// The runtime's account of the run: each migration and the rows it changed.
    public var report: MigrationReport
    /// The store migrated, as named on the command line.
    public var store: String
    /// Where the store was backed up first (`--backup`).
    public var backup: String?

    /// Reports `report`, the run on `store`, backed up first to `backup` when given.
    public init(_ report: MigrationReport, store: String, backup: String?) {
        self.report = report
        self.store = store
        self.backup = backup
    }

    /// How many rows of each kind it applied a migration keeps and lists for people without
    /// `--verbose` (a 100,000-row data update is a count and a sample, not 100,000 lines).
    public static let rowsPerKind = 20

    /// Every view: text, one JSON document, a row per row listed, conflicts as annotations.
    public static let views: Set<ReportView> = [.text, .document, .rows, .annotated]

    /// Writes a line per migration, a sample of its rows, and its warnings.
    public func writeText(to output: ReportOutput) { write(to: output, annotated: false) }

    /// Writes the text, with errors, conflicts and denied deletes as GitHub annotations.
    public func writeAnnotated(to output: ReportOutput) { write(to: output, annotated: true) }

    private func write(to output: ReportOutput, annotated: Bool) {
        let line = output.line
        if let backup { line("backed up \(store) to \(backup)") }
        guard !report.migrations.isEmpty else {
            line("\(store) is up to date: no pending migrations")
            return
        }
        let verb = report.dryRun ? "would apply" : "applied"
        for outcome in report.migrations {
            let id = outcome.id
            let counts = RowEvent.Kind.allCounted.compactMap { kind -> String? in
                let count = outcome.count(kind)
                return count > 0 ? "\(count) \(kind.rawValue)" : nil
            }
            if let changed = outcome.changedRows {
                line(
                    "\(verb) \(id): SQL \(report.dryRun ? "would change" : "changed") \(changed) row\(changed == 1 ? "" : "s")"
                )
            } else {
                line("\(verb) \(id): \(counts.isEmpty ? "no row changes" : counts.joined(separator: ", "))")
            }
            for event in outcome.events {
                if event.kind == .sql {
                    line(
                        "  \("sql".padding(toLength: 15, withPad: " ", startingAt: 0)) \(event.table): \(event.detail)"
                            .escapingControls())
                    continue
                }
                output.write(
                    "  \(event.kind.paddedLabel) \(event.table.escapingControls()) \(event.keyDescription)\(event.kind == .inserted || event.kind == .deleted ? "" : ": " + event.detail.escapingControls())\n"
                )
            }
            // The run kept a sample of what it applied (SeedMigrator.Options.eventsPerKind): the rest is counted.
            let unlisted = RowEvent.Kind.allCounted.compactMap { kind in
                outcome.unlisted[kind].map { "\($0) more \(kind.rawValue)" }
            }
            if !unlisted.isEmpty { line("  … \(unlisted.joined(separator: ", ")) (--verbose lists every row)") }
        }
        let attention = DiagnosticsReport(
            report.attention.map { event in
                Diagnostic(
                    file: event.file, line: event.line, severity: .warning,
                    code: event.kind == .deleteDenied ? .deleteDenied : .conflict,
                    message:
                        "\(event.kind == .deleteDenied ? "delete denied" : "conflict") on \(event.table) \(event.keyDescription): \(event.detail)",
                    table: event.table)
            })
        if !attention.diagnostics.isEmpty {
            if annotated { attention.writeAnnotated(to: output) } else { attention.writeText(to: output) }
        }
        line(
            report.dryRun
                ? "dry run: nothing was written to \(store)"
                : "\(store): \(report.migrations.count) migration\(report.migrations.count == 1 ? "" : "s") applied")
    }

    /// `{"store", "dryRun", "backup", "migrations": [{…, "events"}]}`, every row the run touched.
    public var document: JSONOutput? {
        .object([
            ("store", .string(store)),
            ("dryRun", .bool(report.dryRun)),
            ("backup", backup.map { .string($0) } ?? .null),
            (
                "migrations",
                .array(
                    report.migrations.map { outcome in
                        .object([
                            ("number", .int(outcome.number)),
                            ("name", .string(outcome.name)),
                            ("file", .string(outcome.file)),
                            ("id", .string(outcome.id)),
                            ("changedRows", outcome.changedRows.map { .int($0) } ?? .null),
                            ("events", .array(outcome.events.map(Self.json))),
                        ])
                    })
            ),
        ])
    }

    /// One row per row listed: migration, kind, table, key, detail (what a dry run will do, in a pull request).
    public var tabular: Tabular? {
        Tabular(
            columns: ["migration", "kind", "table", "key", "detail"],
            rows: report.migrations.flatMap { outcome in
                outcome.events.map { event in
                    [
                        .text(outcome.id), .text(event.kind.rawValue), .text(event.table),
                        event.key.isEmpty ? nil : .text(event.keyDescription),
                        event.detail.isEmpty ? nil : .text(event.detail),
                    ]
                }
            })
    }

    /// An event as JSON: its kind, table, key (column → value, refs with their parent's key), changes, detail and line.
    static func json(_ event: RowEvent) -> JSONOutput {
        func value(_ value: SQLValue?) -> JSONOutput {
            switch value {
            case nil, .null?: return .null
            case .integer(let number)?: return .int(Int(number))
            case .real(let number)?: return .double(number)
            case .text(let text)?: return .string(text)
            case .blob(let bytes)?: return .string(SQLValue.blob(bytes).sqlLiteral)
            }
        }
        // A ref carries both: {"key": the parent's natural key, "id": the value stored}.
        func value(_ stored: SQLValue?, parent: RowEvent.Reference?) -> JSONOutput {
            guard let parent, let stored else { return value(stored) }
            return .object([("key", value(parent.value)), ("id", value(stored))])
        }
        return .object([
            ("kind", .string(event.kind.rawValue)), ("table", .string(event.table)),
            ("key", .object(event.key.map { ($0.column, value($0.value, parent: $0.parent)) })),
            (
                "keyParents",
                .object(
                    event.key.compactMap { part in
                        part.parent.map {
                            (
                                part.column,
                                .object([
                                    ("table", .string($0.table)), ("column", .string($0.column)),
                                    ("value", value($0.value)),
                                ])
                            )
                        }
                    })
            ),
            (
                "changes",
                .array(
                    event.changes.map { change in
                        .object([
                            ("column", .string(change.column)), ("old", value(change.old, parent: change.oldParent)),
                            ("new", value(change.new, parent: change.newParent)),
                            ("kept", value(change.kept, parent: change.keptParent)),
                        ])
                    })
            ),
            ("detail", .string(event.detail)), ("line", event.line > 0 ? .int(event.line) : .null),
        ])
    }
}

extension RowEvent.Kind {
    /// The kinds a migration's line counts, in the order it names them.
    package static let allCounted: [RowEvent.Kind] = [
        .inserted, .updated, .deleted, .alreadyPresent, .upToDate, .missing, .conflict, .deleteDenied,
    ]

    /// The kind's name padded to the report's 15-character column (once per line of a big report: no Foundation padding).
    var paddedLabel: String {
        rawValue.count >= 15 ? rawValue : rawValue + String(repeating: " ", count: 15 - rawValue.count)
    }
}
