import SeedRuntime

/// How one fixture maps onto one table: which columns are bound, how each is converted
/// and checked, and which hold references to resolve.
struct TablePlan: Sendable {
    struct Bound: Sendable {
        var info: ColumnInfo
        /// The column's name as the fixture writes it (an attribute name for Core Data), for messages.
        var name: String
        var rules: ColumnRules?
        /// For a ref column: the parent's key column (its type converts the fixture value)
        /// and the SQL that looks the parent's id up.
        var reference: Reference?
        /// The field's 1-based position in the CSV header (0 for JSON, where it varies).
        var fieldNumber: Int
        /// What a record without this field gets, as SQL (a Core Data attribute's default).
        var defaultSQL: String?
        /// For a Core Data to-one relationship without a ref: how to name its rows by a key
        /// instead of their `Z_PK`, for the message when a value is not one.
        var relationshipHint: String?
    }

    struct Reference: Sendable {
        var spec: TableSpec.Reference
        var keyType: ColumnType
        /// The parent's table and key column (SQL names), and the column a ref stores (quoted,
        /// or `rowid`): what the read-back joins on to render a ref as the parent's key.
        var parentTable: String
        var parentKey: String
        var target: String
        /// Which of the parent table's rows are the parent's (a Core Data entity's `Z_ENT`), as SQL.
        var rowFilter: String?

        /// The parent's id for the key `key` (an SQL expression: `?`, or a column of an outer query).
        func lookup(of key: String) -> String {
            "SELECT \(target) FROM \(quoteIdentifier(parentTable)) WHERE \(quoteIdentifier(parentKey)) = \(key)\(rowFilter.map { " AND \($0)" } ?? "") LIMIT 1"
        }

        /// The parent's id for the key bound to the statement's one parameter.
        var lookupSQL: String { lookup(of: "?") }
    }

    var config: Manifest.TableConfig
    var table: TableInfo
    /// The columns the fixture can fill, in slot order.
    var bound: [Bound]
    /// Fixture column index → slot.
    var slotOfSourceColumn: [Int]
    /// Whether the fixture's records name their fields (ReadingOptions.Capabilities): a field may be
    /// absent from a record, and has no column number.
    var recordsNameTheirFields: Bool
    /// Resolved refs by lower-cased SQL column name.
    var referencesByColumn: [String: Reference] = [:]
    /// Columns every row gets as written SQL, before the fixture's: Core Data's `Z_ENT` and `Z_OPT`.
    var constants: [(column: String, sql: String)] = []
    /// How the fixture's (attribute) names map to columns, and how values convert.
    var dialect: any StoreDialect = PlainSQLiteDialect()
    /// Fixture column (attribute) → conversion the Core Data model gives, overriding the declared type.
    var modelTypes: [String: ColumnType] = [:]
    /// Lower-cased fixture column (attribute) → the value a new row gets without one (Core Data's defaults).
    var defaults: [String: SQLValue] = [:]

    /// The column fixture column (attribute) `name` fills in this table's entity.
    func storeColumn(_ name: String) -> String { dialect.columnName(name, in: config.name) }
}
