import Foundation
import GRDB
import GRDBSQLite

/// Multi-row INSERTs (`INSERT OR ABORT INTO t (…) VALUES (…), (…), …`), shared by the build
/// (``SeedTooling``'s table loader) and `migrate`: SQLite's work per statement (opening cursors,
/// checking the transaction, halting) is as much as a one-row insert itself, so a big load or
/// data update inserts whole batches of rows with one statement.
///
/// The protocol both follow: rows go in by a multi-row statement only where the outcome is the
/// same as inserting them one by one; when the statement fails on a constraint, SQLite has
/// rolled that statement back (none of its rows is in, the transaction goes on: `OR ABORT`), and
/// each of its rows goes again on its own, through the one-row path, which reports or handles
/// its problem exactly as ever.
package enum MultiRowInsert {
    /// SQLite's historic limit of parameters per statement, which the statements stay within.
    package static let parameterLimit = 999
    /// Most rows one statement takes: past 32 the gain is gone and a failure costs more.
    package static let rowLimit = 32

    /// What in a table's schema a multi-row INSERT would tell from rows inserted one by one.
    package struct Hazards: Sendable, Equatable {
        /// A trigger on the table: a `RAISE(FAIL)` keeps the rows its statement inserted before
        /// it (which would then go in again one by one), a `RAISE(IGNORE)` drops a row without
        /// saying which, and a trigger sees the rows of a statement before the statement ends.
        package var hasTriggers: Bool
        /// A FOREIGN KEY to the table itself: an immediate one is checked at the end of each
        /// statement, so a row naming a later row of the same statement would pass where one by
        /// one it would not.
        package var refersToItself: Bool
        /// The schema's `ON CONFLICT` clauses.
        ///
        /// The statements' `OR ABORT` overrides them, so a build's multi-row INSERTs ignore them (a
        /// row they would concern fails its statement and goes alone); a migration keeps the rows
        /// of a table with one other than ABORT on its one-row path, whose handling of each clause
        /// is pinned row by row.
        package var clauses: ConflictClauses
        /// A clause other than ABORT among ``clauses``.
        package var conflictClauses: Bool { clauses.clauses.contains { $0.algorithm != "ABORT" } }

        /// Whether rows may go in by multi-row INSERTs (a migration also asks ``conflictClauses``).
        package var allowsMultipleRows: Bool { !hasTriggers && !refersToItself }
    }

    /// The hazards of `table` in `db`'s schema (temporary triggers included).
    package static func hazards(_ db: Database, table: String) throws -> Hazards {
        let lowered = table.lowercasedName
        let hasTriggers =
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND lower(tbl_name) = ?1
                                   UNION ALL SELECT 1 FROM sqlite_temp_master WHERE type = 'trigger' AND lower(tbl_name) = ?1)
                    """, arguments: [lowered]) ?? true
        let refersToItself = try Row.fetchAll(
            db, sql: "SELECT \"table\" FROM pragma_foreign_key_list(?)", arguments: [table]
        )
        .contains { ($0[0] as String?)?.lowercasedName == lowered }
        return Hazards(
            hasTriggers: hasTriggers, refersToItself: refersToItself,
            clauses: try ConflictClauses.read(db, table: table))
    }

    /// How many rows of `parameters` bound values each one statement takes (at most
    /// ``rowLimit``, within ``parameterLimit``); 1 (one by one) for none or very wide rows.
    package static func rowsPerStatement(parameters: Int) -> Int {
        parameters == 0 || parameters >= 64 ? 1 : min(rowLimit, parameterLimit / parameters)
    }

    /// `INSERT OR ABORT INTO t (constants…, columns…) VALUES (…), (…), …`: `rows` rows, each the
    /// constants' SQL and one parameter per column.
    ///
    /// OR ABORT overrides the schema's ON CONFLICT clauses: a FAIL would keep the rows before the
    /// broken one (then inserted again one by one), an IGNORE or REPLACE is left to the rows
    /// going one by one.
    package static func sql(
        into table: String, columns: [String], constants: [(column: String, sql: String)] = [], rows: Int
    ) -> String {
        let names = (constants.map(\.column) + columns).map(quoteIdentifier).joined(separator: ", ")
        let row =
            "(" + (constants.map(\.sql) + Array(repeating: "?", count: columns.count)).joined(separator: ", ") + ")"
        return "INSERT OR ABORT INTO \(quoteIdentifier(table)) (\(names)) VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// Steps a bound multi-row INSERT to its end and resets it: true when its rows are in; false,
    /// with none of them in and the transaction going on, when one broke a constraint or did not
    /// fit its column (SQLITE_MISMATCH), so that each goes again on its own.
    ///
    /// Other failures throw (a full disk, a damaged page: the one-row path would fail on them too).
    package static func step(_ handle: OpaquePointer) throws -> Bool {
        let result = sqlite3_step(handle)
        let message = result == SQLITE_DONE ? "" : String(cString: sqlite3_errmsg(sqlite3_db_handle(handle)))
        sqlite3_reset(handle)
        if result == SQLITE_DONE { return true }
        guard result & 0xff == SQLITE_CONSTRAINT || result == SQLITE_MISMATCH else {
            throw DatabaseError(resultCode: ResultCode(rawValue: result), message: message)
        }
        return false
    }
}
