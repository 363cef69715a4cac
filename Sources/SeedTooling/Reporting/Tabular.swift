import Foundation
public import SeedRuntime

/// Rows to print: column names and values, plus how many rows were left out.
public struct Tabular: Sendable {
    public var columns: [String]
    public var rows: [[SQLValue]]
    /// Rows that matched but were not included (`--limit`).
    public var omitted: Int
    /// Ref columns by index: each row's parent key and the value stored. Their cells in ``rows``
    /// show the key (or the stored value when no parent row has it); JSON gives both.
    public var references: [Int: [(key: SQLValue, id: SQLValue)]] = [:]

    public init(columns: [String], rows: [[SQLValue]], omitted: Int = 0) {
        self.columns = columns
        self.rows = rows
        self.omitted = omitted
    }
}

/// How rows are printed (`--format table|json|csv|markdown`). One small type per format, in
/// `ReportFormats/`; adding a format touches one file.
public protocol ReportFormat: Sendable {
    /// Renders `tabular` as text ending in a newline.
    func render(_ tabular: Tabular) -> String
}

/// The formats by name.
public enum ReportFormatName: String, Sendable, CaseIterable {
    case table, json, csv, markdown

    /// The renderer; `terminal` lets the table format cut long text and use colour.
    public func format(terminal: Bool, color: Bool) -> any ReportFormat {
        switch self {
        case .table: return TableFormat(truncate: terminal, color: color)
        case .json: return JSONRowsFormat()
        case .csv: return CSVFormat()
        case .markdown: return MarkdownFormat()
        }
    }
}

extension SQLValue {
    /// How a value reads in a table: text as is but for what a terminal acts on (escaped: `\x1b`,
    /// `\r`, `\0`; line feeds are left to each format), NULL as `NULL`, blobs as size and hex prefix.
    public var display: String {
        switch self {
        case .null: return "NULL"
        case .text(let text): return text.escapingControls(keepingNewlines: true)
        case .blob(let bytes):
            let hex = bytes.prefix(8).map { String(format: "%02x", $0) }.joined()
            return "<\(bytes.count) bytes \(hex)\(bytes.count > 8 ? "…" : "")>"
        default: return description
        }
    }
}
