import Foundation
import GRDB

/// Collations and functions a store's schema uses that only the app registers on its own
/// connection (`CREATE INDEX … (title COLLATE APPCOLL)`, a trigger calling `app_fn()`): SQLite
/// cannot write such a table, or check such an index, without them.
///
/// seedkit never registers a stand-in (keys compared otherwise than the app compares them would
/// corrupt the index), so a write is refused naming what needs them, and a read shows what it can
/// (docs/reference.md, "Reading stores someone handed you").
package enum AppExtensions {
    /// The collation or function SQLite's `error` says is missing: ("collation", "APPCOLL").
    package static func missing(_ error: DatabaseError) -> (kind: String, name: String)? {
        let message = error.message ?? ""
        for (prefix, kind) in [("no such collation sequence: ", "collation"), ("no such function: ", "function")]
        where message.hasPrefix(prefix) {
            return (kind, String(message.dropFirst(prefix.count)))
        }
        return nil
    }

    /// What in the store's schema uses the missing collation or function: `index books_app`,
    /// `trigger stamp` (read through SQLite's pragmas for indexes; the stored SQL for the rest).
    package static func users(of missing: (kind: String, name: String), in db: Database) -> [String] {
        var found: [String] = []
        let name = missing.name.lowercased()
        let schema =
            (try? Row.fetchAll(
                db, sql: "SELECT type, name, coalesce(sql, '') FROM sqlite_master WHERE type <> 'table' ORDER BY name"))
            ?? []
        for row in schema {
            let type: String = row[0] ?? ""
            let object: String = row[1] ?? ""
            let sql = (row[2] as String? ?? "").lowercased()
            if missing.kind == "collation", type == "index" {
                let collations =
                    (try? String?.fetchAll(db, sql: "SELECT coll FROM pragma_index_xinfo(?)", arguments: [object]))
                    ?? []
                if collations.contains(where: { $0?.lowercased() == name }) { found.append("index \(object)") }
            } else if missing.kind == "function", sql.contains(name + "(") || sql.contains(name + " (") {
                found.append("\(type) \(object)")
            }
        }
        if found.isEmpty, missing.kind == "collation" {
            let tables =
                (try? Row.fetchAll(db, sql: "SELECT name, coalesce(sql, '') FROM sqlite_master WHERE type = 'table'"))
                ?? []
            for row in tables where (row[1] as String? ?? "").lowercased().contains("collate \(name)") {
                found.append("table \(row[0] as String? ?? "")")
            }
        }
        return found
    }

    /// The refusal of a write that failed because the store needs what only the app registers;
    /// nil for any other failure.
    package static func refusal(_ error: DatabaseError, in db: Database) -> SeedError? {
        guard let missing = missing(error) else { return nil }
        let users = users(of: missing, in: db)
        let what = users.isEmpty ? "the store's schema" : "the store's " + users.joined(separator: ", ")
        return SeedError(
            .refused,
            "\(what) uses the \(missing.kind) \(missing.name), which only the app registers on its connection; seedkit cannot write the store without it and never stands in for it (rows would be compared otherwise than the app compares them); nothing was written. Migrate this store from the app (SeedInstaller, with the \(missing.kind) registered), or drop what uses it in a .sql step"
        )
    }

    /// What a read that needs the missing collation or function could not do, for a report line:
    /// `not checked: index books_app uses the collation APPCOLL, which only the app registers`.
    package static func notChecked(_ error: DatabaseError, in db: Database) -> String? {
        guard let missing = missing(error) else { return nil }
        let users = users(of: missing, in: db)
        let what = users.isEmpty ? "the store's schema" : users.joined(separator: ", ")
        return "not checked: \(what) uses the \(missing.kind) \(missing.name), which only the app registers"
    }
}
