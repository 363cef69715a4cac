import Foundation
public import SeedRuntime

/// Rows to print: column names and values, plus how many rows were left out. Every format
/// that prints rows (csv, markdown) prints a report's ``Report/tabular``.
public struct Tabular: Sendable {
    public var columns: [String]
    /// A cell is a value (`.null` is SQLite's NULL, shown as NULL where a format can) or nil:
    /// nothing to say there (the old value of an added row), empty in every format.
    public var rows: [[SQLValue?]]
    /// Rows that matched but were not included (`--limit`).
    public var omitted: Int
    /// Ref columns by index: each row's parent key and the value stored. Their cells in ``rows``
    /// show the key (or the stored value when no parent row has it); JSON gives both.
    public var references: [Int: [(key: SQLValue, id: SQLValue)]] = [:]

    public init(columns: [String], rows: [[SQLValue?]], omitted: Int = 0) {
        self.columns = columns
        self.rows = rows
        self.omitted = omitted
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
