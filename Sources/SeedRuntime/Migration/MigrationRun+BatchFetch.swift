import GRDB

// How a batch of deletes or updates finds its rows (issue 45; MigrationRun+BatchDelete.swift,
// MigrationRun+BatchUpdate.swift): one SELECT joins the rows' keys, bound as a multi-row VALUES,
// with the table, and SQLite itself says for each row whether it still holds its `from` (and, for
// an update, not yet all of its `to`), comparing as ``SQLValue/isSame(as:collation:)`` does:
// - `+t.c IS ? COLLATE X`: the unary `+` takes the column's affinity away, so no value is
//   converted (text `'10'` is not the integer 10); `X` is the column's collation when it is
//   BINARY, NOCASE or RTRIM (SQLite's own, which `isSame` follows), else BINARY as `isSame` does;
//   an update's `to` always BINARY (``MigrationRun/matches(_:_:)``);
// - an integer and a real: also the same when the integer converted to a double equals the real,
//   as Swift's `Double(a) == b` (SQLite alone compares them exactly).
// The conditions are a `CASE WHEN`'s, which SQLite evaluates with jumps: the first that fails
// ends the row's check, and the rest of a column's test runs only when `IS` says no.
// A row names its own `from` columns; the batch binds the union of them, and each row a mask of
// the ones it names. A row that does not hold is not written by the batch: it goes the one-row
// way, which reads it again and reports why, so SQLite's answer only decides which path a row
// takes, never what is reported.

/// A held row as the batch's SELECT found it.
struct FoundRow {
    var rowid: SQLValue
    /// Whether the row holds its `from` (and, for an update, does not already hold its `to`).
    var holds: Bool
    /// The columns asked for by name (a delete's referrers' targets); empty when none were.
    var stored: StoredRow
}

extension MigrationRun {
    /// The rows of `table` with `keys` (each in `keyColumns`' order), by position, nil for a key
    /// no row has, or more than one; each with whether it holds `from[i]` (nil: never) and, with
    /// `to`, does not yet hold `to[i]`, and `columns` read by name.
    mutating func fetchRows(
        _ table: TableInfo, keyColumns: [String], keys: [[(column: String, value: SQLValue)]],
        from: [[(column: String, value: SQLValue)]?], to: [[(column: String, value: SQLValue)]]? = nil,
        columns: [String]
    ) throws -> [FoundRow?] {
        var wanted: [String] = []
        var seen = Set<SQLName>()
        for column in columns where seen.insert(SQLName(column)).inserted { wanted.append(column) }
        // The `from` columns any row names, each once, and each row's mask of them.
        var fromColumns: [String] = []
        var fromPosition: [SQLName: Int] = [:]
        var masks: [SQLValue] = []
        masks.reserveCapacity(keys.count)
        // Where each row's `from` values go among the columns, worked out once per row shape.
        var positions: [[Int]] = []
        positions.reserveCapacity(keys.count)
        var lastNames: [String] = []
        var lastMask: SQLValue = .integer(0)  // a row naming no column holds its (empty) `from`
        var lastPositions: [Int] = []
        for values in from {
            guard let values else {
                masks.append(.null)
                positions.append([])
                continue
            }
            if values.elementsEqual(lastNames, by: { $0.column == $1 }) {
                masks.append(lastMask)
                positions.append(lastPositions)
                continue
            }
            var mask: Int64 = 0
            var twice = false
            lastPositions = []
            for (column, _) in values {
                let name = SQLName(column)
                let position: Int
                if let known = fromPosition[name] {
                    position = known
                } else {
                    position = fromColumns.count
                    fromPosition[name] = position
                    fromColumns.append(column)
                }
                // A column named twice, or past the mask's bits: the row goes the one-row way.
                if position >= 62 || mask & (1 << position) != 0 { twice = true }
                if position < 62 { mask |= 1 << position }
                lastPositions.append(position)
            }
            lastNames = values.map(\.column)
            lastMask = twice ? .null : .integer(mask)
            masks.append(lastMask)
            positions.append(lastPositions)
        }
        if fromColumns.count > 62 { fromColumns = Array(fromColumns.prefix(62)) }
        // SQLite's NOCASE stops at a NUL (`sqlite3StrNICmp`: `'a<NUL>x'` and `'a<NUL>y'` are the same
        // to it) where `isSame` compares every byte: a row naming such a text goes the one-row way.
        let nocase = fromColumns.map { table.column($0)?.collation == "NOCASE" }
        let anyNocase = nocase.contains(true)
        let toColumns = to?.first?.map(\.column) ?? []

        let width = 2 + keyColumns.count + fromColumns.count + toColumns.count
        let tuple = "(" + Array(repeating: "?", count: width).joined(separator: ", ") + ")"
        let join = keyColumns.enumerated().map { "t.\(quoteIdentifier($1)) = v.column\($0 + 3)" }
            .joined(separator: " AND ")
        func same(_ column: String, _ parameter: Int, collation: String) -> String {
            let (a, b) = ("t.\(quoteIdentifier(column))", "v.column\(parameter)")
            return
                "(+\(a) IS \(b) COLLATE \(collation) OR (typeof(\(a)) IN ('integer', 'real') AND typeof(\(b)) IN ('integer', 'real') AND typeof(\(a)) <> typeof(\(b)) AND CAST(\(a) AS REAL) = CAST(\(b) AS REAL)))"
        }
        var holds = ["v.column2 IS NOT NULL"]
        let fromAt = 3 + keyColumns.count
        for (index, column) in fromColumns.enumerated() {
            let declared = table.column(column)?.collation ?? "BINARY"
            let collation = ["BINARY", "NOCASE", "RTRIM"].contains(declared) ? declared : "BINARY"
            holds.append(
                "(v.column2 & \(Int64(1) << index) = 0 OR \(same(column, fromAt + index, collation: collation)))")
        }
        if !toColumns.isEmpty {
            let toAt = fromAt + fromColumns.count
            holds.append(
                "NOT ("
                    + toColumns.enumerated().map { same($1, toAt + $0, collation: "BINARY") }
                    .joined(separator: " AND ") + ")")
        }
        // The rowid by a name no column hides (a column named `rowid` is not the rowid).
        let rowid = table.rowIDName ?? "rowid"
        let sql =
            "SELECT v.column1, t.\(rowid), CASE WHEN \(holds.joined(separator: " AND ")) THEN 1 ELSE 0 END"
            + wanted.map { ", t.\(quoteIdentifier($0))" }.joined() + " FROM (VALUES "
            + Array(repeating: tuple, count: keys.count).joined(separator: ", ")
            + ") AS v JOIN \(quoteIdentifier(table.name)) AS t ON \(join)"
        var values: [SQLValue] = []
        values.reserveCapacity(keys.count * width)
        for (index, key) in keys.enumerated() {
            values.append(.integer(Int64(index)))
            let maskAt = values.count
            values.append(masks[index])
            for (_, value) in key { values.append(value) }
            let start = values.count
            values.append(contentsOf: repeatElement(SQLValue.null, count: fromColumns.count))
            if case .integer = masks[index], let named = from[index] {
                for (position, (_, value)) in zip(positions[index], named) {
                    values[start + position] = value
                    if anyNocase, nocase[position], case .text(let text) = value, text.utf8.contains(0) {
                        values[maskAt] = .null
                    }
                }
            }
            if let to {
                // Every held row of an update names the same `to` columns (holdUpdate).
                for (_, value) in to[index] { values.append(value) }
            }
        }
        var result = [FoundRow?](repeating: nil, count: keys.count)
        var counts = [Int](repeating: 0, count: keys.count)
        let names = wanted.map(SQLName.init)
        // The holders size a batch to SQLite's limit of bound parameters (``HeldDeletes/width``);
        // a batch past it (never expected) fails here rather than binding short.
        guard values.count <= MultiRowInsert.parameterLimit else {
            throw SeedError(
                .io,
                "internal: a batch of \(keys.count) rows of \(table.name) binds \(values.count) values, over SQLite's limit"
            )
        }
        try db.cachedStatement(sql: sql).forEachRow(binding: values) { row in
            guard case .integer(let position)? = row.first, position >= 0, Int(position) < keys.count else { return }
            let index = Int(position)
            counts[index] += 1
            var stored = StoredRow()
            if !names.isEmpty {
                stored.reserveCapacity(names.count)
                for (name, value) in zip(names, row.dropFirst(3)) { stored[name] = value }
            }
            result[index] = FoundRow(rowid: row[1], holds: row[2] == .integer(1), stored: stored)
        }
        for (index, count) in counts.enumerated() where count != 1 { result[index] = nil }
        return result
    }
}
