/// Refs are shown by the parent's natural key, everywhere a report shows a row: `inspect`,
/// `diff`, `verify` and migration reports (the CLI's and the app runtime's). These build the
/// one SQL rule they share.
extension TableInfo {
    /// SQL reading the natural key of the row that `column` references, for the row `row` (this
    /// table's name, or its alias in the query): `(SELECT p."name" FROM "categories" AS p WHERE
    /// p."id" = "books"."category_id")`.
    ///
    /// NULL when the column is NULL or the parent is missing. A parent key that is a Core Data UUID
    /// attribute (its column typed `.uuid`, see ``CoreDataDialect/adjusted(_:)``) reads as its
    /// text, as fixtures and migrations write it.
    package func parentKeySQL(of column: String, parent: TableInfo, keyColumn: String, row: String) -> String {
        "(SELECT \(parent.readableSQL(keyColumn, qualifier: "p")) FROM \(quoteIdentifier(parent.name)) AS p WHERE p.\(referenceTarget(of: column, in: parent)) = \(row).\(quoteIdentifier(column)))"
    }

    /// ``parentKeySQL(of:parent:keyColumn:row:)``, or the value as stored when no parent row has
    /// it (a dangling ref is shown as it is, not as NULL).
    package func shownRefSQL(of column: String, parent: TableInfo, keyColumn: String, row: String) -> String {
        "ifnull(\(parentKeySQL(of: column, parent: parent, keyColumn: keyColumn, row: row)), \(row).\(quoteIdentifier(column)))"
    }

    /// SQL reading the natural key of the parent row whose id (the stored value of `column`) is bound to `?`.
    package func parentKeyLookupSQL(of column: String, parent: TableInfo, keyColumn: String) -> String {
        "SELECT \(parent.readableSQL(keyColumn)) FROM \(quoteIdentifier(parent.name)) WHERE \(referenceTarget(of: column, in: parent)) = ? LIMIT 1"
    }

    /// SQL reading `column` (of `qualifier`, a table name or alias, when given) as people read
    /// and write it: a UUID attribute's 16 bytes as its text (``CoreDataDialect/uuidTextSQL(_:)``),
    /// anything else as stored.
    package func readableSQL(_ column: String, qualifier: String? = nil) -> String {
        let name = (qualifier.map { $0 + "." } ?? "") + quoteIdentifier(column)
        return self.column(column)?.type == .uuid ? CoreDataDialect.uuidTextSQL(name) : name
    }
}
