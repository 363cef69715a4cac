import Foundation
import SeedRuntime

/// `build`: the seed written, its tables and row counts, the migrations it contains and its
/// content hash; or, with `--check`, whether the output is up to date.
public struct BuildReport: Report {
    /// What the build did: wrote the seed, or (`--check`) compared it with what it would write.
    public enum Result: Sendable {
        /// The seed was written.
        case built(SeedBuilder.Summary, migrations: [String])
        /// `--check`: whether the output holds what a build would write.
        case checked(upToDate: Bool)
    }

    /// The output, as shown (as given with `--output`, else relative to the current folder).
    public var output: String
    /// What the build did.
    public var result: Result

    /// Reports `result` for the seed at `output`.
    public init(output: String, _ result: Result) {
        self.output = output
        self.result = result
    }

    /// Text, one JSON document, and errors as annotations: a build's result is no table of rows.
    public static let views: Set<ReportView> = [.text, .document, .annotated]

    /// Writes the seed's tables and row counts, its migrations and content hash; or whether it is
    /// up to date.
    public func writeText(to out: ReportOutput) {
        let line = out.line
        switch result {
        case .checked(let fresh):
            line(fresh ? "\(output) is up to date" : "\(output) is stale: run seedkit build")
        case .built(let summary, let migrations):
            let rows = summary.tables.reduce(0) { $0 + $1.rows }
            line(
                "built \(output): \(summary.tables.count) table\(summary.tables.count == 1 ? "" : "s"), \(rows.grouped) row\(rows == 1 ? "" : "s"), \(summary.bytes.byteSize), \(String(format: "%.2f", summary.seconds)) s"
            )
            let width = max(summary.tables.map(\.name.count).max() ?? 0, 10)
            for table in summary.tables {
                line(
                    "  \(table.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(table.rows.grouped.leftPadded(8)) row\(table.rows == 1 ? "" : "s")"
                )
            }
            if !migrations.isEmpty {
                line("  contains migrations \(migrations.joined(separator: ", "))")
            }
            line("  content hash \(summary.contentHash)")
        }
    }

    /// `{"output", "bytes", "seconds", "contentHash", "tables", "migrations"}`; `--check`:
    /// `{"output", "upToDate"}`.
    public var document: JSONOutput? {
        switch result {
        case .checked(let fresh):
            return .object([("output", .string(output)), ("upToDate", .bool(fresh))])
        case .built(let summary, let migrations):
            return .object([
                ("output", .string(output)),
                ("bytes", .int(summary.bytes)),
                ("seconds", .double((summary.seconds * 1000).rounded() / 1000)),
                ("contentHash", .string(summary.contentHash)),
                (
                    "tables",
                    .array(summary.tables.map { .object([("name", .string($0.name)), ("rows", .int($0.rows))]) })
                ),
                ("migrations", .array(migrations.map { .string($0) })),
            ])
        }
    }
}
