import Foundation
import SeedRuntime

/// How a table's fixture fields map onto its columns (`columns:` and `ignore:` in the manifest).
///
/// ```yaml
/// countries:
///   file: data/iso_3166-1.json
///   columns: { code: alpha_2, name: common_name }   # column ← fixture field
///   ignore: [alpha_3, numeric, flag]                # fields the table does not store
/// ```
///
/// A field fills the column its mapping names; a field with a column's own name fills that
/// column unless the column is mapped from another field; ignored fields are read and
/// dropped; any other field is an error (2020). Names compare without regard to case, as
/// SQLite's do.
public struct FieldMapping: Sendable {
    /// Column ← field, in manifest order.
    public var columns: [(column: String, field: String)] = []
    /// Fields read and dropped.
    public var ignored: [String] = []

    /// A mapping of fields onto `columns`, with the fields `ignored`.
    public init(columns: [(column: String, field: String)] = [], ignored: [String] = []) {
        self.columns = columns
        self.ignored = ignored
    }

    /// Whether the manifest maps nothing: every field fills the column of its own name.
    public var isEmpty: Bool { columns.isEmpty && ignored.isEmpty }

    /// What a fixture field is for.
    public enum Resolution: Equatable, Sendable {
        /// It fills this column (the manifest's name: an attribute for Core Data).
        case column(String)
        case ignored
        /// The table has no such column, or the column is filled from `mappedFrom`.
        case unknown(mappedFrom: String?)
    }

    /// What `field` fills, given the names the table accepts (`isColumn`).
    public func resolve(_ field: String, isColumn: (String) -> Bool) -> Resolution {
        if ignored.contains(where: { same($0, field) }) { return .ignored }
        if let mapped = columns.first(where: { same($0.field, field) }) { return .column(mapped.column) }
        if let target = columns.first(where: { same($0.column, field) }) { return .unknown(mappedFrom: target.field) }
        return isColumn(field) ? .column(field) : .unknown(mappedFrom: nil)
    }

    /// The fixture's name for `column`: its mapped field, or the column's own name.
    public func field(for column: String) -> String {
        columns.first { same($0.column, column) }?.field ?? column
    }

    /// The names a JSON fixture's keys may have: each column's field, then the ignored fields.
    public func fields(forColumns names: [String]) -> [String] {
        names.map(field(for:))
            + ignored.filter { ignoredField in !names.contains { same(field(for: $0), ignoredField) } }
    }

    /// Why `field` is refused: the table lacks it, or its column comes from another field.
    ///
    /// `what` is how the fixture names fields ("column" for CSV, "key" for JSON).
    public func unknownFieldMessage(_ field: String, what: String, table: String, columns tableColumns: [String])
        -> String
    {
        if let target = columns.first(where: { same($0.column, field) }) {
            return
                "\(what) '\(field)' is not read: column \(target.column) is filled from '\(target.field)' (columns:); list '\(field)' under ignore: to skip it"
        }
        return
            "\(what) '\(field)' names no column of table \(table) (it has \(tableColumns.joined(separator: ", "))); map it with columns: or skip it with ignore:"
    }

    private func same(_ a: String, _ b: String) -> Bool { a.isSameName(as: b) }
}
