/// What seedkit knows about a table beyond its SQL schema: its natural key and which
/// columns hold references to other tables' natural keys.
///
/// A seed records its table specs in `_seedkit_tables`, so that migrations can be
/// applied (by the CLI or by an app at launch) without the manifest.
public struct TableSpec: Sendable, Equatable {
    /// The table (an entity, for Core Data).
    public var name: String
    /// The natural key columns.
    ///
    /// Empty means the table's primary key.
    public var key: [String]
    /// Column → the parent table and the parent's key column whose value the fixture holds.
    public var refs: [String: Reference]
    /// Column → the value a new row gets when it names none: a Core Data attribute's
    /// `defaultValueString`, which Core Data sets on every object it creates.
    public var defaults: [String: SQLValue]

    /// A table's key, refs and defaults.
    public init(name: String, key: [String] = [], refs: [String: Reference] = [:], defaults: [String: SQLValue] = [:]) {
        self.name = name
        self.key = key
        self.refs = refs
        self.defaults = defaults
    }

    /// A reference from a column to a parent's natural key: `categories.name`.
    public struct Reference: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The parent table.
        public var table: String
        /// The parent's key column.
        public var column: String

        /// A reference to `table.column`.
        public init(table: String, column: String) {
            self.table = table
            self.column = column
        }

        /// Parses `table.column`.
        public init?(_ text: String) {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
            self.init(table: String(parts[0]), column: String(parts[1]))
        }

        /// `table.column`.
        public var description: String { "\(table).\(column)" }
    }
}
