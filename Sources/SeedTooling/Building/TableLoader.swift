import Foundation
import GRDB
import GRDBSQLite
import SeedRuntime

/// Inserts converted batches into one table: the hot path of a build.
///
/// One prepared INSERT per set of present columns (CSV: always one), raw binds through
/// GRDB's statement handle with SQLITE_STATIC (the batch outlives the step), refs resolved
/// by a prepared lookup of the parent's key, the manifest's checks evaluated on the row just
/// inserted, and constraint failures reported at the fixture's line.
final class TableLoader {
    let db: Database
    let plan: TablePlan
    private let file: String
    private var inserts: [UInt64: Statement] = [:]
    /// The INSERT of ``rowsPerStatement`` whole records at once, prepared on first use.
    var bulkInsert: Statement?
    /// The parent ids of the refs of the records a multi-row INSERT takes, by record and slot
    /// (``rowsPerStatement`` × width), resolved before it binds them; nil: NULL.
    var bulkParentIDs: [Int64?] = []
    /// How many records one multi-row INSERT takes (its parameters stay within SQLite's
    /// historic limit of 999); below 2, records go one by one.
    let rowsPerStatement: Int
    /// By slot: the statement that looks up a ref's parent id, or nil.
    let lookups: [Statement?]
    /// By slot: parent ids found, by the key's text or integer.
    ///
    /// A million books name a few categories: the lookup (most of a ref's cost, on the inserting
    /// thread) runs once per category. A build only inserts, so a parent found keeps its id; misses
    /// are not kept (the parent may come later).
    private var foundTexts: [FoundParentIDs] = []
    private static let foundLimit = 4096
    private var foundIntegers: [[Int64: Int64]] = []
    private let checks: [(statement: Statement, check: Manifest.Check)]
    var rowsInserted = 0
    /// Each duplicate key reported: the row's line, the slots of the unique columns and its values
    /// there, so that the build can name the earlier row's line too (a second read, only then).
    private(set) var duplicateKeys: [(line: Int, slots: [Int], values: [SQLValue])] = []
    /// Whether a trigger of the table may veto a row (`RAISE(IGNORE)`): then each insert checks that SQLite made the row.
    let hasTriggers: Bool
    /// The schema's ON CONFLICT clauses, to say what a duplicate's clause would have done.
    private let conflictClauses: ConflictClauses
    /// Where a record goes whose ref names a row not inserted yet; nil: such a ref is an error.
    var parking: ParkedRows?
    /// By slot: whether a miss of this ref may be a row not inserted yet (a later row of this
    /// file, a table loaded later, or a parent that is itself parked).
    var parkable: [Bool] = []
    /// Whether a row with an unresolved ref is still inserted (so that its key is checked); not
    /// in the last pass over parked rows, where it would hide the cycle from the rows after it.
    var insertsUnresolved = true
    /// When set, a parkable miss of a nullable ref is inserted as NULL and linked once every row
    /// is in (see ``LinkedRefs``); a NOT NULL one parks its row.
    var links: LinkedRefs?
    /// The refs of the records a multi-row INSERT takes that wait for a later row (record, slot):
    /// inserted as NULL with the others, linked once the INSERT has given their rowids.
    var bulkLinks: [(record: Int, slot: Int)] = []
    /// `SELECT max(rowid)` of the table, prepared on first use (``roomForNumberedRows()``).
    var maxRowID: Statement?
    /// Whether a multi-row INSERT gives its rows consecutive rowids: neither the fixture nor a
    /// constant fills the rowid, so SQLite numbers them in the order of the VALUES.
    let numbersItsRows: Bool
    /// Called with each record inserted (a pass over parked rows: its key may wake rows waiting for it).
    var inserted: ((_ batch: RecordBatch, _ record: Int) -> Void)?
    /// A better message for a ref that stays unresolved (a cycle), by slot and key.
    var explainMiss: ((_ slot: Int, _ key: SQLValue, _ line: Int) throws -> String?)?
    /// The build's deferral: a miss of a ref to a table it says was refused is counted there, not reported.
    var deferral: Deferral?
    /// A NUL byte that lives as long as the process, to bind empty strings.
    nonisolated(unsafe) private static let emptyText: UnsafePointer<CChar>? = {
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
        pointer.initialize(to: 0)
        return UnsafePointer(pointer)
    }()

    init(db: Database, plan: TablePlan, file: String) throws {
        self.db = db
        self.plan = plan
        self.file = file
        // Multi-row INSERTs where they give what one by one would (see MultiRowInsert.Hazards).
        let hazards = try MultiRowInsert.hazards(db, table: plan.table.name)
        hasTriggers = hazards.hasTriggers
        conflictClauses = hazards.clauses
        // A FOREIGN KEY to the table itself is no hazard here when every column it holds is a ref
        // or left out without a DEFAULT: each id bound was looked up before its statement, so it
        // names a row already in (a parent in the same statement is not found: the row waits or
        // is linked, as alone). A DEFAULT's id is checked at the statement's end, as a raw one.
        let fillsSelfRefs = plan.table.foreignKeys.contains { key in
            key.parent.lowercasedName == plan.table.name.lowercasedName
                && key.columns.contains { column in
                    let bound = plan.bound.first { $0.info.name.lowercasedName == column.lowercasedName }
                    let defaulted = plan.table.column(column)?.defaultSQL.map { $0.uppercased() != "NULL" } ?? false
                    return plan.constants.contains { $0.column.lowercasedName == column.lowercasedName }
                        || bound.map { $0.reference == nil } ?? defaulted
                }
        }
        rowsPerStatement =
            !hazards.hasTriggers && (!hazards.refersToItself || !fillsSelfRefs)
            ? MultiRowInsert.rowsPerStatement(parameters: plan.bound.count) : 1
        lookups = try plan.bound.map { bound in try bound.reference.map { try db.makeStatement(sql: $0.lookupSQL) } }
        foundTexts = lookups.map { _ in FoundParentIDs(limit: Self.foundLimit) }
        foundIntegers = Array(repeating: [:], count: lookups.count)
        parkable = Array(repeating: false, count: plan.bound.count)
        let primaryKey = plan.table.columns.filter { $0.primaryKeyIndex > 0 }
        let alias = primaryKey.count == 1 && primaryKey[0].declaredType.uppercased() == "INTEGER" ? primaryKey[0] : nil
        numbersItsRows =
            plan.table.rowIDName != nil
            && !(plan.bound.map(\.info.name) + plan.constants.map(\.column)).contains { name in
                alias.map { name.lowercasedName == $0.name.lowercasedName } ?? false
            }
        checks =
            plan.table.rowIDName == nil
            ? []
            : try plan.config.checks.map { check in
                (
                    try db.makeStatement(
                        sql:
                            "SELECT (\(check.sql)) FROM \(quoteIdentifier(plan.table.name)) WHERE \(plan.table.rowIDName ?? "rowid") = ?"
                    ), check
                )
            }
    }

    private func insert(for mask: UInt64) throws -> Statement {
        if let statement = inserts[mask] { return statement }
        let columns = plan.bound.indices.filter { mask & (1 << UInt64($0)) != 0 }
        // A JSON record without a field that has a default gets the default.
        let constants =
            plan.constants
            + plan.bound.indices.compactMap { slot in
                mask & (1 << UInt64(slot)) == 0
                    ? plan.bound[slot].defaultSQL.map { (column: plan.bound[slot].info.name, sql: $0) } : nil
            }
        let sql: String
        if columns.isEmpty && constants.isEmpty {
            sql = "INSERT OR ABORT INTO \(quoteIdentifier(plan.table.name)) DEFAULT VALUES"
        } else {
            let names = (constants.map(\.column) + columns.map { plan.bound[$0].info.name }).map(quoteIdentifier)
                .joined(separator: ", ")
            let values = constants.map(\.sql) + Array(repeating: "?", count: columns.count)
            // OR ABORT: a schema's ON CONFLICT REPLACE or IGNORE never deletes or drops a row unseen (see ConflictClauses).
            sql =
                "INSERT OR ABORT INTO \(quoteIdentifier(plan.table.name)) (\(names)) VALUES (\(values.joined(separator: ", ")))"
        }
        let statement = try db.makeStatement(sql: sql)
        inserts[mask] = statement
        return statement
    }

    /// Inserts every record of `batch`; problems go to `diagnostics`, failures of SQLite itself are thrown.
    func load(_ batch: RecordBatch, diagnostics: inout [Diagnostic]) throws {
        let width = batch.width
        let fullMask: UInt64 = width >= 64 ? .max : (1 << UInt64(width)) - 1
        let base = UnsafeRawPointer(batch.bytes)
        var lastMask: UInt64 = 0
        var lastStatement: Statement?
        // Plain records (every field present, none failed, no refs to resolve, no checks or
        // callbacks per row) go in by multi-row INSERTs: SQLite's per-statement work (opening
        // cursors, checking the transaction, halting) is as much as a one-row insert itself.
        // Refs go in bulk too when every parent is found: a miss goes alone, to be reported or
        // parked (see ParkedRows) as ever.
        let bulk = rowsPerStatement > 1 && checks.isEmpty && inserted == nil
        var insertedUpTo = 0  // records before this went in by a multi-row INSERT
        var singlyUpTo = 0  // records before this go one by one: a multi-row INSERT of them failed
        do {
            for record in 0..<batch.count {
                if record < insertedUpTo { continue }
                if bulk, record >= singlyUpTo, record + rowsPerStatement <= batch.count {
                    if let notPlain = try firstNotPlain(batch, from: record, count: rowsPerStatement)
                        ?? firstUnresolved(batch, from: record, base: base)
                    {
                        // Records up to that one go one by one, without looking at them again.
                        singlyUpTo = notPlain + 1
                    } else if try insertInBulk(batch, from: record, base: base) {
                        insertedUpTo = record + rowsPerStatement
                        continue
                    } else {
                        // One of them broke a constraint: the statement inserted none of them (SQLite
                        // rolls a failed statement back), so each goes alone and its problem is reported as ever.
                        singlyUpTo = record + rowsPerStatement
                    }
                }
                let first = record * width
                var mask: UInt64 = 0
                for slot in 0..<width where batch.slots[first + slot] != .absent { mask |= 1 << UInt64(min(slot, 63)) }
                if width >= 64 && mask != 0 { mask = fullMask }
                let statement: Statement
                if let lastStatement, mask == lastMask {
                    statement = lastStatement
                } else {
                    statement = try insert(for: mask)
                    lastStatement = statement
                    lastMask = mask
                }
                let handle = statement.sqliteStatement
                var parameter: Int32 = 1
                // Slots whose problems are already reported: no follow-on constraint or check error.
                var suppressed = batch.failedSlots[record]
                var unresolved: UInt64 = 0
                var linkLater: UInt64 = 0
                var park = false
                var placeholder = false
                for slot in 0..<width {
                    let index = first + slot
                    let kind = batch.slots[index]
                    if kind == .absent && mask != fullMask { continue }
                    if kind != .null && kind != .absent, let lookup = lookups[slot] {
                        // A ref: the fixture holds the parent's natural key; store the parent's id.
                        let bit: UInt64 = 1 << UInt64(min(slot, 63))
                        if suppressed & bit != 0 {
                            sqlite3_bind_null(handle, parameter)  // a key that did not convert: already reported
                        } else if let id = found(slot, batch, index, base) {
                            sqlite3_bind_int64(handle, parameter, id)
                        } else {
                            let lookupHandle = lookup.sqliteStatement
                            bind(lookupHandle, 1, batch, index, base)
                            if sqlite3_step(lookupHandle) == SQLITE_ROW {
                                sqlite3_bind_value(handle, parameter, sqlite3_column_value(lookupHandle, 0))
                                if sqlite3_column_type(lookupHandle, 0) == SQLITE_INTEGER {
                                    remember(sqlite3_column_int64(lookupHandle, 0), slot, batch, index, base)
                                }
                            } else {
                                sqlite3_bind_null(handle, parameter)
                                if parking != nil && parkable[slot] {
                                    if links != nil && !plan.bound[slot].info.notNull {
                                        linkLater |= bit
                                    } else {
                                        park = true
                                    }
                                } else {
                                    unresolved |= bit
                                    if plan.bound[slot].info.notNull {
                                        // The row still takes its key (a later duplicate is reported); the
                                        // build fails on this error, so the placeholder is never committed.
                                        bind(handle, parameter, batch, index, base)
                                        placeholder = true
                                    }
                                }
                            }
                            sqlite3_reset(lookupHandle)
                        }
                    } else {
                        bind(handle, parameter, batch, index, base)
                    }
                    parameter += 1
                }
                if park, let parking {
                    // Its parent may come later: insert it once that is in (see ParkedRows).
                    try parking.park(batch, record: record)
                    continue
                }
                if unresolved != 0 {
                    try reportUnresolved(unresolved, batch: batch, record: record, diagnostics: &diagnostics)
                    if !insertsUnresolved { continue }
                    suppressed |= unresolved
                }
                // A placeholder key is no row's id: let its FOREIGN KEY wait (for a COMMIT that never comes).
                if placeholder { try db.execute(sql: "PRAGMA defer_foreign_keys = ON") }
                var result = sqlite3_step(handle)
                var extended = sqlite3_extended_errcode(sqlite3_db_handle(handle))
                var message = result == SQLITE_DONE ? "" : String(cString: sqlite3_errmsg(sqlite3_db_handle(handle)))
                sqlite3_reset(handle)
                // A NOT NULL column the fixture leaves empty, or a UNIQUE column other than the natural
                // key that an earlier row has: reported, then the row is inserted with a stand-in value
                // so that it holds its key (a later duplicate or a ref to it is judged right). The
                // build fails on the error, so the stand-in is never committed.
                if result == SQLITE_MISMATCH && suppressed != 0 {
                    // A rowid column (INTEGER PRIMARY KEY) takes only integers: its value, kept as the
                    // fixture's text, did not convert and is already reported. The row goes in with a
                    // new rowid, so that it still holds its key and refs to it resolve (the build fails anyway).
                    for slot in 0..<min(width, 64) {
                        let bit: UInt64 = 1 << UInt64(slot)
                        let bound = mask == fullMask || mask & bit != 0
                        guard suppressed & bit != 0, bound, plan.bound[slot].info.primaryKeyIndex > 0,
                            lookups[slot] == nil
                        else { continue }
                        let parameter: Int32 =
                            mask == fullMask ? Int32(slot + 1) : Int32(1 + (mask & (bit &- 1)).nonzeroBitCount)
                        sqlite3_bind_null(handle, parameter)
                    }
                    result = sqlite3_step(handle)
                    extended = sqlite3_extended_errcode(sqlite3_db_handle(handle))
                    message = result == SQLITE_DONE ? "" : String(cString: sqlite3_errmsg(sqlite3_db_handle(handle)))
                    sqlite3_reset(handle)
                }
                var standIns: UInt64 = 0
                while result & 0xff == SQLITE_CONSTRAINT, extended == 1299 || extended == 2067 {
                    let (diagnostic, slot) = constraintDiagnostic(
                        extended, message: message, batch: batch, record: record)
                    guard let slot, slot < 64, lookups[slot] == nil, standIns & (1 << UInt64(slot)) == 0 else { break }
                    let bit: UInt64 = 1 << UInt64(slot)
                    if extended == 1299 {
                        guard batch.slots[first + slot] == .null else { break }
                        // else a rule (required) said it already
                        if suppressed & bit == 0 { diagnostics.append(diagnostic) }
                    } else {
                        // a duplicate of the key itself holds none
                        guard !message.contains(", "), !plan.config.key.isEmpty, !isKey(slot) else { break }
                        diagnostics.append(diagnostic)
                    }
                    suppressed |= bit
                    standIns |= bit
                    let parameter = mask == fullMask ? Int32(slot + 1) : Int32(1 + (mask & (bit &- 1)).nonzeroBitCount)
                    bindStandIn(handle, parameter, plan.bound[slot].info, line: batch.lines[record])
                    result = sqlite3_step(handle)
                    extended = sqlite3_extended_errcode(sqlite3_db_handle(handle))
                    message = result == SQLITE_DONE ? "" : String(cString: sqlite3_errmsg(sqlite3_db_handle(handle)))
                    sqlite3_reset(handle)
                }
                if placeholder { try db.execute(sql: "PRAGMA defer_foreign_keys = OFF") }
                if result == SQLITE_DONE, hasTriggers, sqlite3_changes(db.sqliteConnection) == 0 {
                    // A trigger's RAISE(IGNORE): SQLite made no row. Never counted as inserted.
                    let reason = try TriggerVeto.reason(db, table: plan.table.name, event: "INSERT")
                    diagnostics.append(
                        Diagnostic(
                            file: file, line: Int(batch.lines[record]), code: .otherRule,
                            message: "this row of \(plan.table.name) was not inserted: \(reason)",
                            table: plan.table.name))
                } else if result == SQLITE_DONE {
                    // Read once, now: recording a link inserts into a table of its own, which moves
                    // SQLite's last rowid, so a second ref or a check of this row would land on another row.
                    let rowid = sqlite3_last_insert_rowid(db.sqliteConnection)
                    rowsInserted += 1
                    inserted?(batch, record)
                    if linkLater != 0, let links {
                        for slot in 0..<width where linkLater & (1 << UInt64(min(slot, 63))) != 0 {
                            try links.add(rowid: rowid, slot: slot, line: Int(batch.lines[record])) {
                                bind($0, $1, batch, first + slot, base)
                            }
                        }
                    }
                    if !checks.isEmpty && suppressed == 0 {
                        try runChecks(record: record, rowid: rowid, batch: batch, diagnostics: &diagnostics)
                    }
                } else if result & 0xff == SQLITE_CONSTRAINT, linkLater != 0, extended == 275 || extended == 1811,
                    let parking
                {
                    // A CHECK or a trigger refused the row with its ref empty: it waits for its
                    // parent instead, and goes in whole (see ParkedRows).
                    try parking.park(batch, record: record)
                } else if result & 0xff == SQLITE_CONSTRAINT {
                    let (diagnostic, slot) = constraintDiagnostic(
                        extended, message: message, batch: batch, record: record)
                    // A NOT NULL, CHECK or FOREIGN KEY failure caused by a value already reported is not reported again;
                    // a duplicate key always is.
                    let followOn =
                        diagnostic.code != .duplicateKey && suppressed != 0
                        && (slot.map { suppressed & (1 << UInt64(min($0, 63))) != 0 } ?? true)
                    if !followOn { diagnostics.append(diagnostic) }
                } else if result == SQLITE_MISMATCH && suppressed != 0 {
                    // Still a mismatch after the rowid's NULL (see above): already reported; the row can't go in.
                } else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: result), message: message)
                }
            }
        }
    }

    /// The first of `count` records from `record` that lacks a field or has a failed one; nil when all are whole.
    private func firstNotPlain(_ batch: RecordBatch, from record: Int, count: Int) -> Int? {
        for item in record..<(record + count) {
            if batch.failedSlots[item] != 0 { return item }
            for index in (item * batch.width)..<((item + 1) * batch.width) where batch.slots[index] == .absent {
                return item
            }
        }
        return nil
    }

    /// ``rowsPerStatement`` whole records (see ``MultiRowInsert/sql(into:columns:constants:rows:)``).
    func bulkSQL() -> String {
        MultiRowInsert.sql(
            into: plan.table.name, columns: plan.bound.map(\.info.name), constants: plan.constants,
            rows: rowsPerStatement)
    }

    private func reportUnresolved(_ slots: UInt64, batch: RecordBatch, record: Int, diagnostics: inout [Diagnostic])
        throws
    {
        for slot in plan.bound.indices where slots & (1 << UInt64(min(slot, 63))) != 0 && lookups[slot] != nil {
            let bound = plan.bound[slot]
            if let parent = bound.reference?.spec.table,
                deferral?.leavesUnchecked(file: file, table: plan.table.name, field: bound.name, parent: parent) == true
            {
                continue
            }
            let key = batch.value(record: record, slot: slot)
            let reference = bound.reference.map { "\($0.spec)" } ?? "the parent"
            let message =
                try explainMiss?(slot, key, Int(batch.lines[record]))
                ?? "\(bound.name) '\(key.readable(as: bound.reference?.keyType).description)' matches no \(reference)"
            diagnostics.append(
                Diagnostic(
                    file: file, line: Int(batch.lines[record]), column: bound.fieldNumber, code: .unresolvedReference,
                    message: message, table: plan.table.name))
        }
    }

    /// Whether the column of `slot` is part of the table's natural key.
    private func isKey(_ slot: Int) -> Bool {
        let bound = plan.bound[slot]
        return plan.config.key.contains { $0.isSameName(as: bound.info.name) || $0.isSameName(as: bound.name) }
    }

    /// A value for a NOT NULL column the fixture left empty, of the column's type, that no
    /// fixture value is likely to equal (a UNIQUE column must not report a false duplicate).
    private func bindStandIn(_ handle: OpaquePointer, _ parameter: Int32, _ column: SeedRuntime.ColumnInfo, line: Int32)
    {
        let number = Int64.min / 2 + Int64(line)
        // SQLITE_TRANSIENT: SQLite copies the bytes, which live only for this call.
        let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
        switch column.type {
        case .integer, .boolean, .numeric: sqlite3_bind_int64(handle, parameter, number)
        case .real, .referenceDate: sqlite3_bind_double(handle, parameter, Double(number))
        case .blob, .uuid, .json: sqlite3_bind_blob(handle, parameter, [UInt8(0)], 1, transient)
        default: sqlite3_bind_text(handle, parameter, "\u{1}seedkit: no value (line \(line))", -1, transient)
        }
    }

    /// The parent id found before for the key in a ref's slot (see ``foundTexts``).
    @inline(__always)
    func found(_ slot: Int, _ batch: RecordBatch, _ index: Int, _ base: UnsafeRawPointer?) -> Int64? {
        switch batch.slots[index] {
        case .integer: return foundIntegers[slot][batch.payloads[index]]
        case .text: return foundTexts[slot].id(for: bytes(batch, index, base))
        default: return nil
        }
    }

    func remember(_ id: Int64, _ slot: Int, _ batch: RecordBatch, _ index: Int, _ base: UnsafeRawPointer?) {
        // Refs to as many parents as rows gain nothing from it: memory stays flat.
        guard foundTexts[slot].count + foundIntegers[slot].count < Self.foundLimit else { return }
        switch batch.slots[index] {
        case .integer: foundIntegers[slot][batch.payloads[index]] = id
        case .text: foundTexts[slot].remember(id, for: bytes(batch, index, base))
        default: break
        }
    }

    /// A text slot's bytes, in the batch.
    @inline(__always)
    private func bytes(_ batch: RecordBatch, _ index: Int, _ base: UnsafeRawPointer?) -> UnsafeRawBufferPointer {
        guard let base, batch.lengths[index] > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: base + Int(batch.payloads[index]), count: Int(batch.lengths[index]))
    }

    @inline(__always)
    func bind(
        _ handle: OpaquePointer, _ parameter: Int32, _ batch: RecordBatch, _ index: Int, _ base: UnsafeRawPointer?
    ) {
        switch batch.slots[index] {
        case .absent, .null: sqlite3_bind_null(handle, parameter)
        case .integer: sqlite3_bind_int64(handle, parameter, batch.payloads[index])
        case .real:
            sqlite3_bind_double(handle, parameter, Double(bitPattern: UInt64(bitPattern: batch.payloads[index])))
        case .text:
            if batch.lengths[index] == 0, let empty = Self.emptyText {
                sqlite3_bind_text(handle, parameter, empty, 0, nil)  // "" is the empty string, not NULL
            } else {
                let start = base.map { $0 + Int(batch.payloads[index]) }?.assumingMemoryBound(to: CChar.self)
                sqlite3_bind_text(handle, parameter, start, batch.lengths[index], nil)
            }
        case .blob:
            let start = base.map { $0 + Int(batch.payloads[index]) }
            if batch.lengths[index] == 0 {
                sqlite3_bind_zeroblob(handle, parameter, 0)
            } else {
                sqlite3_bind_blob(handle, parameter, start, batch.lengths[index], nil)
            }
        }
    }

    private func runChecks(record: Int, rowid: Int64, batch: RecordBatch, diagnostics: inout [Diagnostic]) throws {
        for (statement, check) in checks {
            let handle = statement.sqliteStatement
            sqlite3_bind_int64(handle, 1, rowid)
            let step = sqlite3_step(handle)
            // A CHECK fails when its value is false: not NULL, and zero.
            var failed = false
            if step == SQLITE_ROW && sqlite3_column_type(handle, 0) != SQLITE_NULL {
                failed = sqlite3_column_int64(handle, 0) == 0 && sqlite3_column_double(handle, 0) == 0
            }
            var error: String?
            if step != SQLITE_ROW && step != SQLITE_DONE {
                error = String(cString: sqlite3_errmsg(db.sqliteConnection))
            }
            sqlite3_reset(handle)
            if let error {
                throw SeedError(
                    .configuration, file: plan.config.displayFile, "check '\(check.sql)' failed to run: \(error)")
            }
            if failed {
                diagnostics.append(
                    Diagnostic(
                        file: file, line: Int(batch.lines[record]), column: 0, code: .otherRule, message: check.message,
                        table: plan.table.name))
            }
        }
    }

    /// The diagnostic of a failed constraint, and the slot of the column it names (if any).
    private func constraintDiagnostic(_ extended: Int32, message: String, batch: RecordBatch, record: Int) -> (
        Diagnostic, Int?
    ) {
        let line = Int(batch.lines[record])
        // "NOT NULL constraint failed: books.title" names the column; point at its field.
        var column = 0
        var slot: Int?
        if let dot = message.lastIndex(of: ".") {
            let name = String(message[message.index(after: dot)...])
            slot = plan.bound.firstIndex { $0.info.name.isSameName(as: name) }
            column = slot.map { plan.bound[$0].fieldNumber } ?? 0
        }
        let code: DiagnosticCode
        let text: String
        switch extended {
        case 1299:  // SQLITE_CONSTRAINT_NOTNULL
            code = .missingRequired
            text = "\(message) (the schema requires a value)"
        case 2067, 1555:  // SQLITE_CONSTRAINT_UNIQUE, _PRIMARYKEY
            code = .duplicateKey
            // "UNIQUE constraint failed: books.title, books.isbn": show this row's values of those columns.
            let names = (message.components(separatedBy: ": ").last ?? "").components(separatedBy: ", ").map {
                $0.components(separatedBy: ".").last ?? $0
            }
            let values = names.map { name -> String in
                guard let slot = plan.bound.firstIndex(where: { $0.info.name.isSameName(as: name) }) else {
                    return name
                }
                // as the fixture names it
                return "\(plan.bound[slot].name) '\(batch.value(record: record, slot: slot).description)'"
            }
            let slots = names.compactMap { name in plan.bound.firstIndex { $0.info.name.isSameName(as: name) } }
            if slots.count == names.count {
                duplicateKeys.append(
                    (Int(batch.lines[record]), slots, slots.map { batch.value(record: record, slot: $0) }))
            }
            text =
                "duplicate key \(values.joined(separator: ", ")): an earlier row has the same"
                + {
                    switch conflictClauses.uniqueClause(on: names)?.algorithm {
                    case "REPLACE":
                        return
                            " (the schema's ON CONFLICT REPLACE would have deleted that row; seedkit keeps every row or fails)"
                    case "IGNORE":
                        return
                            " (the schema's ON CONFLICT IGNORE would have dropped this row; seedkit keeps every row or fails)"
                    default: return ""
                    }
                }()
        case 787:  // SQLITE_CONSTRAINT_FOREIGNKEY
            code = .unresolvedReference
            text = "FOREIGN KEY constraint failed: a referenced row does not exist"
        case 275:  // SQLITE_CONSTRAINT_CHECK
            code = .otherRule
            text = message
        default:
            code = .otherRule
            text = message
        }
        return (
            Diagnostic(file: file, line: line, column: column, code: code, message: text, table: plan.table.name), slot
        )
    }
}
