import Foundation
public import GRDB
import GRDBSQLite
public import SeedRuntime

extension StoreDiff {
    /// How to compare in the app's terms rather than the stored values: per table, columns to
    /// read through a SQL expression (a ref read as the parent's natural key) and columns to
    /// leave out (ids SQLite assigns, which differ between stores holding the same data).
    public struct Semantics: Sendable {
        /// Per table, column → the SQL expression it is read through (a ref: its parent's key by a
        /// subquery).
        public var expressions: [String: [String: String]] = [:]
        /// Per table, the columns left out of the comparison (ids SQLite assigns).
        public var ignored: [String: Set<String>] = [:]
        /// Per table, the ref columns whose parent is found by its rowid: the readers resolve
        /// their stored ids through a cache instead of running the expression's subquery per row.
        package var lookups: [String: [String: ParentLookup]] = [:]
        /// Compares stored values: no column read through an expression, none left out.
        public init() {}

        /// A ref column's expression (`expression`, the parent's key by a subquery) answered by
        /// one lookup per distinct id: an integer id names the parent row whose rowid it is, so
        /// `SELECT key FROM parent WHERE rowid = ?` gives what the subquery gives for it.
        ///
        /// Other stored values (NULL, text, reals) are still read through the expression.
        package struct ParentLookup: Sendable {
            /// The expression this lookup stands for; used only while `expressions` still holds it.
            let expression: String
            let child: String
            let childColumn: String
            let parent: String
            /// The parent's column the ref stores, or `rowid`.
            let target: String
            let keyColumn: String
            /// SQL reading `keyColumn` as people write it (a UUID as its text); nil: as stored.
            var keyExpression: String? = nil

            /// The expression for values that are not integers; NULL for integers, which the reader resolves.
            var guarded: String {
                "CASE typeof(\(quoteIdentifier(child)).\(quoteIdentifier(childColumn))) WHEN 'integer' THEN NULL ELSE \(expression) END"
            }

            var lookupSQL: String {
                "SELECT \(keyExpression ?? quoteIdentifier(keyColumn)) FROM \(quoteIdentifier(parent)) WHERE \(target == "rowid" ? "rowid" : quoteIdentifier(target)) = ?"
            }

            /// Whether, in this store, the target is the parent's rowid (an INTEGER PRIMARY KEY, or
            /// `rowid` itself), so that an integer finds at most the one row the subquery finds.
            func holds(in db: Database) throws -> Bool {
                guard let info = try TableInfo.read(db, table: parent), !info.withoutRowID else { return false }
                if target == "rowid" { return info.column("rowid") == nil }
                let key = info.primaryKey
                guard key.count == 1, key[0].lowercasedName == target.lowercasedName, let column = info.column(key[0])
                else { return false }
                return column.declaredType.uppercasedName == "INTEGER"
            }
        }

        /// The semantics of a manifest: refs by the parent's key; INTEGER PRIMARY KEY ids that
        /// are not the natural key ignored.
        public static func of(_ specs: [TableSpec], in db: Database) throws -> Semantics {
            try of(specs, in: db, facts: nil)
        }

        /// ``of(_:in:)`` with the model's `facts`, when the caller has the model (a build in
        /// progress has not recorded them in the store yet): they tell which columns are UUID attributes.
        package static func of(_ specs: [TableSpec], in db: Database, facts: CoreDataModelFacts?) throws -> Semantics {
            var semantics = Semantics()
            let coreData = try CoreDataDialect.read(db, facts: facts)
            for spec in try storeSpecs(specs, in: db, facts: facts) {
                guard let table = try TableInfo.read(db, table: spec.name) else { continue }
                let primaryKey = table.primaryKey
                if primaryKey.count == 1, let column = table.column(primaryKey[0]), column.type == .integer,
                    !spec.key.contains(where: { $0.isSameName(as: column.name) })
                {
                    semantics.ignored[spec.name, default: []].insert(column.name)
                }
                if let coreData {
                    // Core Data's bookkeeping differs between stores holding the same objects.
                    for column in table.columns where CoreDataDialect.isBookkeeping(column.name) {
                        semantics.ignored[spec.name, default: []].insert(column.name)
                    }
                    // A UUID attribute's 16 bytes as the text a migration gives (new-migration writes it, migrate reads it).
                    for (column, expression) in coreData.uuidTextExpressions(table) {
                        semantics.expressions[spec.name, default: [:]][column] = expression
                    }
                }
                for (column, reference) in spec.refs {
                    guard let read = try TableInfo.read(db, table: reference.table) else { continue }
                    // A parent key that is a UUID attribute reads as its text (TableInfo.readableSQL).
                    let parent = coreData?.adjusted(read) ?? read
                    let name = table.column(column)?.name ?? column
                    let expression = table.parentKeySQL(
                        of: name, parent: parent, keyColumn: reference.column, row: quoteIdentifier(spec.name))
                    semantics.expressions[spec.name, default: [:]][name] = expression
                    semantics.lookups[spec.name, default: [:]][name] = ParentLookup(
                        expression: expression, child: spec.name, childColumn: name, parent: parent.name,
                        target: table.referencedColumn(of: name, in: parent) ?? "rowid", keyColumn: reference.column,
                        keyExpression: parent.readableSQL(reference.column))
                }
            }
            return semantics
        }
    }
}
