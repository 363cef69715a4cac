import Foundation
import SeedRuntime

/// `inspect STORE`: the store's facts and tables for people; every fact as JSON; its tables and
/// row counts as rows.
extension StoreSummary: Report {
    /// Text, one JSON document, and a row per table: a summary is data, with nothing to annotate.
    public static let views: Set<ReportView> = [.text, .document, .rows]

    /// Each table with its rows.
    public var tabular: Tabular? {
        Tabular(columns: ["table", "rows"], rows: tables.map { [.text($0.name), .integer(Int64($0.rows))] })
    }

    /// Writes the store's facts, tables, entities and migrations for people.
    public func writeText(to output: ReportOutput) {
        let table = TableFormat(truncate: output.terminal, color: output.color)
        var out = "\(path)\n"
        var facts: [(String, String)] = [
            ("kind", kind.rawValue + (meta["format_version"].map { " (format \($0))" } ?? "")),
            ("size", "\(fileSize.byteSize) (\(pageCount) pages of \(pageSize) bytes)"),
            ("journal", journalMode),
        ]
        if let hash = meta["content_hash"] { facts.append(("content hash", hash)) }
        if let history = persistentHistory {
            facts.append(("history", history))
        }
        facts.append(
            (
                "integrity",
                integrity.ok
                    ? (integrity.method == "none"
                        ? integrity.detail
                        : "ok (\(integrity.method)\(integrity.method == "header" ? ": " + integrity.detail : ""))")
                    : "FAILED (\(integrity.method)): \(integrity.detail)"
            ))
        for (label, value) in facts {
            out += "  \(label.padding(toLength: 13, withPad: " ", startingAt: 0)) \(value.escapingControls())\n"
        }
        out = out.escapingControls(keepingNewlines: true)
        if let tables = tabular { out += "\n" + table.render(tables) }
        if !entities.isEmpty {
            out +=
                "\n"
                + table.render(
                    Tabular(
                        columns: ["entity", "rows"], rows: entities.map { [.text($0.name), .integer(Int64($0.rows))] }))
        }
        if !ledger.isEmpty {
            let migrations = Tabular(
                columns: ["migration", "origin", "applied_at", "checksum"],
                rows: ledger.map { entry in
                    [
                        .text(entry.id), .text(entry.origin.rawValue), entry.appliedAt.map { .text($0) },
                        .text(entry.checksum),
                    ]
                })
            out += "\n" + table.render(migrations)
        }
        output.write(out)
    }

    /// `{"path", "kind", "bytes", …, "integrity"}`.
    public var document: JSONOutput? {
        // Typed as it is built: one literal of this size took the type checker 0.8 s.
        let fields: [(String, JSONOutput)] = [
            ("path", .string(path)),
            ("kind", .string(kind.rawValue)),
            ("bytes", .int(fileSize)),
            ("pageSize", .int(pageSize)),
            ("pageCount", .int(pageCount)),
            ("journalMode", .string(journalMode)),
            ("formatVersion", meta["format_version"].map { .string($0) } ?? .null),
            ("contentHash", meta["content_hash"].map { .string($0) } ?? .null),
            ("tables", .array(tables.map { .object([("name", .string($0.name)), ("rows", .int($0.rows))]) })),
            ("entities", .array(entities.map { .object([("name", .string($0.name)), ("rows", .int($0.rows))]) })),
            ("persistentHistory", persistentHistory.map { .string($0) } ?? .null),
            (
                "migrations",
                .array(
                    ledger.map { entry in
                        .object([
                            ("number", .int(entry.number)), ("name", .string(entry.name)),
                            ("origin", .string(entry.origin.rawValue)),
                            ("appliedAt", entry.appliedAt.map { .string($0) } ?? .null),
                            ("checksum", .string(entry.checksum)),
                        ])
                    })
            ),
            (
                "integrity",
                .object([
                    ("method", .string(integrity.method)), ("ok", .bool(integrity.ok)),
                    ("detail", .string(integrity.detail)),
                ])
            ),
        ]
        return .object(fields)
    }
}
