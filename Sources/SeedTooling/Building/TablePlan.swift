import SeedRuntime

/// How one fixture maps onto one table: which columns are bound, how each is converted
/// and checked, and which hold references to resolve.
struct TablePlan: Sendable {
    struct Bound: Sendable {
        var info: ColumnInfo
        var rules: ColumnRules?
        /// For a ref column: the parent's key column (its type converts the fixture value)
        /// and the SQL that looks the parent's id up.
        var reference: Reference?
        /// The field's 1-based position in the CSV header (0 for JSON, where it varies).
        var fieldNumber: Int
    }

    struct Reference: Sendable {
        var spec: TableSpec.Reference
        var keyType: ColumnType
        var lookupSQL: String
    }

    var config: Manifest.TableConfig
    var table: TableInfo
    /// The columns the fixture can fill, in slot order.
    var bound: [Bound]
    /// Fixture column index → slot.
    var slotOfSourceColumn: [Int]
    var isJSON: Bool
    /// Resolved refs by lower-cased column name.
    var referencesByColumn: [String: Reference] = [:]
}
