import Foundation
import GRDB
import GRDBSQLite

/// What a Core Data store may carry that seedkit must not write past: derived-attribute
/// triggers that need Core Data's own SQL functions, and persistent history.
extension CoreDataDialect {
    /// The functions Core Data registers on its connection for its derived-attribute triggers
    /// to report a changed row to Core Data's in-memory context (table, `Z_ENT`, `Z_PK`,
    /// attribute, value).
    ///
    /// The trigger's own SQL computes and stores the derived value; these only notify, and their
    /// result is thrown away (`SELECT f(…) FROM …`). With no Core Data context open there is nobody
    /// to notify, so seedkit registers them as doing nothing.
    package static let notificationFunctions = [
        "NSCoreDataTriggerUpdateAffectedObjectValue",
        "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue",
        "NSCoreDataDATriggerUpdatedAffectedObjectValue",
    ]

    /// Registered as SQLite's innocuous functions (they do nothing): a store's triggers may call
    /// them with `trusted_schema` off, as seedkit reads and writes every store it did not make.
    static func registerTriggerFunctions(_ db: Database) {
        for name in notificationFunctions {
            sqlite3_create_function_v2(
                db.sqliteConnection, name, 5, SQLITE_UTF8 | SQLITE_INNOCUOUS, nil,
                { context, _, _ in sqlite3_result_null(context) }, nil, nil, nil)
        }
    }

    /// Triggers that call a Core Data function seedkit does not provide (`NSCoreDataNow`,
    /// `NSCoreDataToLower`, …: a derived attribute computed by Core Data's own code), by the
    /// table whose writes fire them, with the derived attribute they compute.
    static func derivedAttributeBlocks(_ db: Database) throws -> [String: String] {
        var blocked: [String: String] = [:]
        let known = Set(try String.fetchAll(db, sql: "SELECT DISTINCT lower(name) FROM pragma_function_list")).union(
            notificationFunctions.map { $0.lowercasedName })
        for row in try Row.fetchAll(
            db,
            sql:
                "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger' AND sql IS NOT NULL ORDER BY name"
        ) {
            let name: String = row[0]
            let table: String = row[1]
            let sql: String = row[2]
            guard
                let missing = calledFunctions(sql).first(where: {
                    $0.hasPrefix("NS") && !known.contains($0.lowercasedName)
                })
            else { continue }
            guard blocked[table.uppercased()] == nil else { continue }
            blocked[table.uppercased()] =
                "\(derivedAttribute(trigger: name)) is a derived attribute computed by Core Data's own function \(missing) (trigger \(name)), which only Core Data provides"
        }
        return blocked
    }

    /// `Item.updated` for Core Data's trigger `Z_DA_ZITEM_Item_updated_UPDATE`; the trigger's name otherwise.
    static func derivedAttribute(trigger name: String) -> String {
        guard name.hasPrefix("Z_DA_") else { return "trigger \(name)" }
        let parts = name.dropFirst(5).split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count >= 4 else { return "trigger \(name)" }
        return "\(parts[1]).\(parts[2..<(parts.count - 1)].joined(separator: "_"))"
    }

    /// The names a piece of SQL calls as functions (`name(`).
    static func calledFunctions(_ sql: String) -> [String] {
        var names: [String] = []
        var current = ""
        var pendingName: String?
        for character in sql {
            if character.isLetter || character.isNumber || character == "_" {
                current.append(character)
                pendingName = nil
                continue
            }
            if !current.isEmpty {
                pendingName = current
                current = ""
            }
            if character == "(", let name = pendingName { names.append(name) }
            if !character.isWhitespace { pendingName = nil }
        }
        return names
    }

    /// Refuses a write to `table` when a trigger on it needs a function only Core Data has.
    func refuseBlocked(_ table: String) throws {
        if let reason = blockedTables[table.uppercased()] {
            throw SeedError(
                .refused,
                "\(reason); seedkit cannot compute its value as Core Data would, so it does not write to \(table); nothing was written. Apply this change through Core Data in the app"
            )
        }
    }

    /// Refuses (before anything is written) when a write to `table` would fire such a trigger.
    package func refuseDerivedAttributes(in tables: [String]) throws {
        for table in tables { try refuseBlocked(table) }
    }

    /// The persistent-history tables of a store that tracks history (`ATRANSACTION`, `ACHANGE`;
    /// `Z_ENT` 16001–16003 in `Z_PRIMARYKEY`), or nil.
    package static func historyTables(_ db: Database) throws -> String? {
        let tables = try String.fetchAll(
            db,
            sql:
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('ATRANSACTION', 'ACHANGE', 'ATRANSACTIONSTRING') ORDER BY name DESC"
        )
        let entities =
            try db.tableExists("Z_PRIMARYKEY")
            ? try Int.fetchOne(db, sql: "SELECT count(*) FROM Z_PRIMARYKEY WHERE Z_ENT BETWEEN 16001 AND 16003") ?? 0
            : 0
        guard !tables.isEmpty || entities > 0 else { return nil }
        return (tables.isEmpty ? [] : [tables.joined(separator: ", ")]).joined()
            + (entities > 0 ? "\(tables.isEmpty ? "" : "; ")Z_ENT 16001–16003 in Z_PRIMARYKEY" : "")
    }
}
