/// Which keys a release provides: its fixtures' rows and every migration's inserts.
///
/// The migrator asks it about a ref whose parent the store lacks, to tell the author's typo (a key
/// nobody provides: an error) from a row the user deleted (a conflict).
///
/// The tooling supplies one built from the manifest (`ReleaseKeyIndex` in SeedTooling); an app
/// at launch has none, so every missing parent is a conflict there.
package protocol ReleaseKeys: Sendable {
    /// For each query, whether some fixture row or some migration's insert has that value in
    /// that column. Asked once per run, with every missing parent at once.
    func provides(_ queries: [ReleaseKeyQuery]) throws -> [Bool]
}

/// One parent key a migration's ref names: `countries.alpha_2 = 'NX'`.
package struct ReleaseKeyQuery: Sendable, Equatable {
    /// The parent table and key column, as the manifest names them (an entity and attribute for Core Data).
    package var reference: TableSpec.Reference
    /// The value as the migration wrote it.
    package var value: InputValue
    /// The value converted to the parent column's type, as the store would hold it.
    package var stored: SQLValue
    /// How the parent column converts values, so that fixture text compares as the store would.
    package var type: ColumnType
    /// The parent table as the store names it (a Core Data entity's `Z` table), when known.
    package var storeTable: String?

    package init(
        reference: TableSpec.Reference, value: InputValue, stored: SQLValue, type: ColumnType, storeTable: String? = nil
    ) {
        self.reference = reference
        self.storeTable = storeTable
        self.value = value
        self.stored = stored
        self.type = type
    }
}
