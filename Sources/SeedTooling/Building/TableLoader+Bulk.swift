import GRDB
import GRDBSQLite
import SeedRuntime

/// Multi-row INSERTs: the refs of ``TableLoader/rowsPerStatement`` records resolved first, then
/// one statement for them all.
extension TableLoader {
    /// Resolves the refs of ``rowsPerStatement`` records from `record` into ``bulkParentIDs``;
    /// returns the first record with a ref whose parent is not found (or not an integer id), nil when all are.
    ///
    /// A miss that the row's link would set once every row is in (see ``LinkedRefs``) does not
    /// take its record out of the statement: the ref goes in as NULL and waits in ``bulkLinks``.
    func firstUnresolved(_ batch: RecordBatch, from record: Int, base: UnsafeRawPointer?) throws -> Int? {
        let width = batch.width
        if bulkParentIDs.count != rowsPerStatement * width {
            bulkParentIDs = Array(repeating: nil, count: rowsPerStatement * width)
        }
        bulkLinks.removeAll(keepingCapacity: true)
        var numbered: Bool?  // whether the statement's rowids follow one another, read at its first link
        for slot in 0..<width {
            guard let lookup = lookups[slot] else { continue }
            let linkable =
                numbersItsRows && links != nil && parking != nil && parkable[slot] && !plan.bound[slot].info.notNull
            for item in record..<(record + rowsPerStatement) {
                let index = item * width + slot
                let target = (item - record) * width + slot
                let kind = batch.slots[index]
                if kind == .null {
                    bulkParentIDs[target] = nil
                    continue
                }
                if let id = found(slot, batch, index, base) {
                    bulkParentIDs[target] = id
                    continue
                }
                let handle = lookup.sqliteStatement
                bind(handle, 1, batch, index, base)
                defer { sqlite3_reset(handle) }
                guard sqlite3_step(handle) == SQLITE_ROW else {
                    guard linkable else { return item }
                    if numbered == nil { numbered = try roomForNumberedRows() }
                    guard numbered == true else { return item }
                    bulkParentIDs[target] = nil
                    bulkLinks.append((item, slot))
                    continue
                }
                guard sqlite3_column_type(handle, 0) == SQLITE_INTEGER else { return item }
                let id = sqlite3_column_int64(handle, 0)
                remember(id, slot, batch, index, base)
                bulkParentIDs[target] = id
            }
        }
        return nil
    }

    /// Whether SQLite gives the next ``rowsPerStatement`` rows the rowids after the largest one:
    /// it does while that leaves them room, then picks unused rowids at random (a schema or
    /// template row at 9223372036854775807), and the links (read from the statement's last rowid)
    /// would land on other rows; the rows with a link then go one by one.
    private func roomForNumberedRows() throws -> Bool {
        let statement: Statement
        if let maxRowID {
            statement = maxRowID
        } else {
            let rowid = quoteIdentifier(plan.table.rowIDName ?? "_rowid_")
            statement = try db.makeStatement(sql: "SELECT max(\(rowid)) FROM \(quoteIdentifier(plan.table.name))")
            maxRowID = statement
        }
        guard let largest = try Int64.fetchOne(statement) else { return true }
        return largest <= Int64.max - Int64(rowsPerStatement)
    }

    /// Inserts ``rowsPerStatement`` plain records from `record` with one statement: true when
    /// they are in; false, with none of them in, when one broke a constraint; other failures throw.
    func insertInBulk(_ batch: RecordBatch, from record: Int, base: UnsafeRawPointer?) throws -> Bool {
        let statement: Statement
        if let bulkInsert {
            statement = bulkInsert
        } else {
            statement = try db.makeStatement(sql: bulkSQL())
            bulkInsert = statement
        }
        let handle = statement.sqliteStatement
        var parameter: Int32 = 1
        let first = record * batch.width
        for index in first..<((record + rowsPerStatement) * batch.width) {
            if lookups[(index - first) % batch.width] != nil {
                // A ref: its parent's id, resolved by firstUnresolved.
                if let id = bulkParentIDs[index - first] {
                    sqlite3_bind_int64(handle, parameter, id)
                } else {
                    sqlite3_bind_null(handle, parameter)
                }
            } else {
                bind(handle, parameter, batch, index, base)
            }
            parameter += 1
        }
        guard try MultiRowInsert.step(handle) else { return false }
        rowsInserted += rowsPerStatement
        if !bulkLinks.isEmpty, let links {
            // The statement numbered its rows one after another (numbersItsRows), ending at the
            // last rowid; read now, before a link's own insert moves it. The read-back checks it.
            let firstRowID = sqlite3_last_insert_rowid(db.sqliteConnection) - Int64(rowsPerStatement - 1)
            for (item, slot) in bulkLinks {
                try links.add(rowid: firstRowID + Int64(item - record), slot: slot, line: Int(batch.lines[item])) {
                    bind($0, $1, batch, item * batch.width + slot, base)
                }
            }
            bulkLinks.removeAll(keepingCapacity: true)
        }
        return true
    }
}
