import Foundation
public import GRDB
import GRDBSQLite
public import SeedRuntime

/// The differences between two stores, table by table and row by row (`seedkit diff`, docs/reference.md).
public struct StoreDiff: Sendable {
    /// One table's differences.
    ///
    /// Rows are named by their key.
    public struct TableDiff: Sendable {
        /// A row only one side has: its key, and its other values in ``columns``' order (a ref as
        /// its parent's key, as ``changed`` shows it).
        public struct Row: Sendable, Equatable {
            /// The row's key, a value per key column.
            public var key: [SQLValue]
            /// The row's other values, in ``TableDiff/columns``' order.
            public var values: [SQLValue]
        }

        /// The table, as the stores name it (the rows of a table only one store has are not compared).
        public var table: String
        /// The key columns rows are matched by.
        public var key: [String]
        /// The columns compared besides the key, in the order of each ``Row``'s values.
        public var columns: [String] = []
        /// The rows only store B has, in key order.
        public var added: [Row] = []
        /// The rows only store A has, in key order.
        public var removed: [Row] = []
        /// For a column read through an expression (a ref, by its parent's key), `oldStored` and
        /// `newStored` are the values the stores hold (the parents' ids); nil for other columns.
        public var changed:
            [(
                key: [SQLValue],
                columns: [(column: String, old: SQLValue, new: SQLValue, oldStored: SQLValue?, newStored: SQLValue?)]
            )] = []

        /// Whether the table holds the same rows on both sides.
        public var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty }
    }

    /// Each table both stores have, with its differences (an identical table is there, empty).
    public var tables: [TableDiff]
    /// The tables only store A has.
    public var tablesOnlyInA: [String]
    /// The tables only store B has.
    public var tablesOnlyInB: [String]
    /// Table → columns that only one side has (rows are compared on the columns both have).
    public var columnsOnlyInA: [String: [String]]
    /// Table → columns that only store B has.
    public var columnsOnlyInB: [String: [String]]
    /// Schema differences besides tables and columns only one side has (types, constraints,
    /// indexes, triggers, views), one line each; filled by callers from ``SchemaSnapshot``,
    /// kept apart from the row comparison.
    public var schema: [String] = []

    /// Whether the stores hold the same tables, columns and rows (``schema`` aside).
    public var isEmpty: Bool {
        tables.allSatisfy(\.isEmpty) && tablesOnlyInA.isEmpty && tablesOnlyInB.isEmpty && columnsOnlyInA.isEmpty
            && columnsOnlyInB.isEmpty
    }

    /// Specs in the store's own names: for a Core Data store, entity and attribute names become
    /// its `Z` tables and columns; other stores' specs are returned as they are.
    public static func storeSpecs(_ specs: [TableSpec], in db: Database) throws -> [TableSpec] {
        try CoreDataDialect.storeSpecs(specs, in: db)
    }

    /// ``storeSpecs(_:in:)`` with the model's `facts` (another entity's inverse-less to-many,
    /// `Shelf.books`, is a column only the model names).
    package static func storeSpecs(_ specs: [TableSpec], in db: Database, facts: CoreDataModelFacts?) throws
        -> [TableSpec]
    {
        try CoreDataDialect.storeSpecs(specs, in: db, facts: facts)
    }

    /// A read of one of the two stores failed: which one, and SQLite's error, so that the
    /// caller names the store that failed (a damaged page in B is not A's fault).
    public struct ReadFailure: WrappedDatabaseError {
        /// Which of the two stores: `a`, the first named, or `b`.
        public enum Side: Sendable { case a, b }
        /// The store whose read failed.
        public var side: Side
        /// SQLite's error.
        public var error: any Error
        package var databaseError: any Error { error }

        /// Runs `body`, a read of store `side`, saying which store failed when it throws.
        public static func on<T>(_ side: Side, _ body: () throws -> T) throws -> T {
            do { return try body() } catch let failure as ReadFailure { throw failure } catch {
                throw ReadFailure(side: side, error: error)
            }
        }
    }

    /// Compares store `a` with store `b`, both opened read-only.
    ///
    /// Rows are matched by natural key: `keys[table]` when given (the manifest's), else the
    /// keys either store recorded (`_seedkit_tables`), else the primary key, else rowid.
    /// Each store is read in key order on its own thread into batches that a merge on this
    /// thread compares from memory, so memory grows with the differences, not the rows.
    /// Values compare as SQLite's `IS` compares them (``SQLValue/isSame(as:)``, the rule `migrate`
    /// and new-migration use): `10` and `10.0` are equal, as sqldiff finds them; text, blobs and
    /// NULL differ from each other and from numbers, text and blobs by their bytes.
    ///
    /// - throws: ``ReadFailure`` naming the store whose read failed.
    public static func compare(
        _ a: DatabaseQueue, _ b: DatabaseQueue, keys: [String: [String]] = [:], only: String? = nil,
        tables: [String]? = nil, semantics: Semantics = Semantics()
    ) throws -> StoreDiff {
        let (namesA, specsA) = try ReadFailure.on(.a) {
            try a.read { db in (try TableInfo.userTables(db), try SeedCatalog.tableSpecs(db) ?? []) }
        }
        let (namesB, specsB) = try ReadFailure.on(.b) {
            try b.read { db in (try TableInfo.userTables(db), try SeedCatalog.tableSpecs(db) ?? []) }
        }
        var recorded: [String: [String]] = [:]
        for spec in specsB + specsA where !spec.key.isEmpty { recorded[spec.name] = spec.key }

        var result = StoreDiff(
            tables: [], tablesOnlyInA: namesA.filter { !namesB.contains($0) },
            tablesOnlyInB: namesB.filter { !namesA.contains($0) },
            columnsOnlyInA: [:], columnsOnlyInB: [:])
        for name in tables ?? namesA
        where namesA.contains(name) && namesB.contains(name) && (only == nil || only == name) {
            guard let infoA = try ReadFailure.on(.a, { try a.read { db in try TableInfo.read(db, table: name) } }),
                let infoB = try ReadFailure.on(.b, { try b.read { db in try TableInfo.read(db, table: name) } })
            else { continue }
            let columnsA = infoA.columns.map(\.name)
            let columnsB = infoB.columns.map(\.name)
            let ignored = semantics.ignored[name] ?? []
            let common = columnsA.filter { columnsB.contains($0) && !ignored.contains($0) }
            if case let onlyA = columnsA.filter({ !columnsB.contains($0) }), !onlyA.isEmpty {
                result.columnsOnlyInA[name] = onlyA
            }
            if case let onlyB = columnsB.filter({ !columnsA.contains($0) }), !onlyB.isEmpty {
                result.columnsOnlyInB[name] = onlyB
            }
            var key = keys[name] ?? recorded[name] ?? infoA.primaryKey
            if key.isEmpty || !key.allSatisfy(common.contains) { key = infoA.withoutRowID ? common : ["rowid"] }
            let columns = common.filter { !key.contains($0) }
            let expressions = semantics.expressions[name] ?? [:]
            // Ref columns whose parent each store finds by rowid are resolved by the readers, per distinct id.
            let lookups = (semantics.lookups[name] ?? [:]).filter { expressions[$0.key] == $0.value.expression }
            let lookupsA = try ReadFailure.on(.a) {
                try a.read { db in try lookups.filter { try $0.value.holds(in: db) } }
            }
            let lookupsB = try ReadFailure.on(.b) {
                try b.read { db in try lookups.filter { try $0.value.holds(in: db) } }
            }
            let queries = (
                a: RowQuery(name: name, key: key, columns: columns, expressions: expressions, lookups: lookupsA),
                b: RowQuery(name: name, key: key, columns: columns, expressions: expressions, lookups: lookupsB)
            )
            // A natural key on tables with rowids: both sides in rowid order first (near-copies
            // keep their rows aligned); the walk in key order when too many rows are misaligned.
            if key != ["rowid"], !infoA.withoutRowID, !infoB.withoutRowID,
                let aligned = try compareAligned(a, b, name: name, key: key, columns: columns, queries: queries)
            {
                result.tables.append(aligned)
            } else {
                result.tables.append(try compareTable(a, b, name: name, key: key, columns: columns, queries: queries))
            }
        }
        return result
    }

    private static func compareTable(
        _ a: DatabaseQueue, _ b: DatabaseQueue, name: String, key: [String], columns: [String],
        queries: (a: RowQuery, b: RowQuery)
    ) throws -> TableDiff {
        let query = queries.a
        let (width, stride, stored) = (query.width, query.stride, query.stored)
        func sql(_ query: RowQuery) -> String {
            query.select() + " ORDER BY " + query.keyList.map { "\($0) COLLATE BINARY" }.joined(separator: ", ")
        }
        let sideA = try RowStream(queue: a, sql: sql(queries.a), width: stride, resolvers: queries.a.resolvers)
        let sideB = try RowStream(queue: b, sql: sql(queries.b), width: stride, resolvers: queries.b.resolvers)
        defer {
            sideA.finish()
            sideB.finish()
        }
        var diff = TableDiff(table: name, key: key, columns: columns)
        var rowA = sideA.next()
        var rowB = sideB.next()
        while rowA != nil || rowB != nil {
            var order = 0
            if let (batchA, indexA) = rowA, let (batchB, indexB) = rowB {
                for slot in 0..<key.count {
                    order = compare(batchA, indexA, batchB, indexB, slot)
                    if order != 0 { break }
                }
            } else {
                order = rowA != nil ? -1 : 1
            }
            if order < 0, let (batch, index) = rowA {
                diff.removed.append(Self.row(batch, index, key: key.count, width: width))
                rowA = sideA.next()
            } else if order > 0, let (batch, index) = rowB {
                diff.added.append(Self.row(batch, index, key: key.count, width: width))
                rowB = sideB.next()
            } else if let (batchA, indexA) = rowA, let (batchB, indexB) = rowB {
                var changes:
                    [(column: String, old: SQLValue, new: SQLValue, oldStored: SQLValue?, newStored: SQLValue?)] = []
                for slot in key.count..<width {
                    if differs(batchA, indexA, batchB, indexB, slot) {
                        let storedSlot = stored.firstIndex(of: slot - key.count).map { width + $0 }
                        changes.append(
                            (
                                columns[slot - key.count], batchA.value(record: indexA, slot: slot),
                                batchB.value(record: indexB, slot: slot),
                                storedSlot.map { batchA.value(record: indexA, slot: $0) },
                                storedSlot.map { batchB.value(record: indexB, slot: $0) }
                            ))
                    }
                }
                if !changes.isEmpty {
                    diff.changed.append(((0..<key.count).map { batchA.value(record: indexA, slot: $0) }, changes))
                }
                rowA = sideA.next()
                rowB = sideB.next()
            }
        }
        try RowStream.rethrow(sideA, sideB)
        return diff
    }

    /// A row only one side has, from its batch: the key's slots, then the compared columns'.
    private static func row(_ batch: RecordBatch, _ index: Int, key: Int, width: Int) -> TableDiff.Row {
        TableDiff.Row(
            key: (0..<key).map { batch.value(record: index, slot: $0) },
            values: (key..<width).map { batch.value(record: index, slot: $0) })
    }

    /// Rows kept while they wait for their match, beyond which the aligned comparison gives
    /// up for the walk in key order (stores that are not near-copies).
    static let misalignedLimit = 200_000

    /// Matches rows by `key` reading both stores in rowid order: rows whose keys agree at the
    /// same step are compared at once; the others wait in a map by key for their match, so
    /// memory grows with the misaligned rows only.
    ///
    /// Reports in key order, as the walk does; nil when more than ``misalignedLimit`` rows wait.
    private static func compareAligned(
        _ a: DatabaseQueue, _ b: DatabaseQueue, name: String, key: [String], columns: [String],
        queries: (a: RowQuery, b: RowQuery)
    ) throws -> TableDiff? {
        let query = queries.a
        let (width, stored) = (query.width, query.stored)
        let stride = query.stride + 1
        /// A row's rowid (its last slot).
        func rowid(_ batch: RecordBatch, _ record: Int) -> Int64 { batch.payloads[record * batch.width + stride - 1] }
        let sideA = try RowStream(
            queue: a, sql: queries.a.select(rowid: true) + " ORDER BY rowid", width: stride,
            resolvers: queries.a.resolvers)
        let sideB = try RowStream(
            queue: b, sql: queries.b.select(rowid: true) + " ORDER BY rowid", width: stride,
            resolvers: queries.b.resolvers)
        defer {
            sideA.finish()
            sideB.finish()
        }
        var diff = TableDiff(table: name, key: key, columns: columns)
        var waitingA = Waiting()
        var waitingB = Waiting()
        var waiting = 0
        func storedSlot(_ slot: Int) -> Int? { stored.firstIndex(of: slot - key.count).map { width + $0 } }
        func record(_ old: [Cell], _ new: [Cell]) {
            var changes: [(column: String, old: SQLValue, new: SQLValue, oldStored: SQLValue?, newStored: SQLValue?)] =
                []
            for slot in key.count..<width where !old[slot].value.isSame(as: new[slot].value) {
                let extra = storedSlot(slot)
                changes.append(
                    (
                        columns[slot - key.count], old[slot].value, new[slot].value, extra.map { old[$0].value },
                        extra.map { new[$0].value }
                    ))
            }
            if !changes.isEmpty { diff.changed.append((old[0..<key.count].map(\.value), changes)) }
        }
        /// Matches a row with one waiting from the other side, or makes it wait.
        func place(_ row: [Cell], waitingHere: inout Waiting, waitingThere: inout Waiting, isA: Bool) {
            let rowKey = row[0..<key.count].map(\.asKey)
            if let other = waitingThere.take(rowKey) {
                waiting -= 1
                if isA { record(row, other) } else { record(other, row) }
            } else {
                waitingHere.add(row, key: rowKey)
                waiting += 1
            }
        }
        /// The key of a row at the head of a side, as the waiting maps hold it.
        func headKey(_ batch: RecordBatch, _ index: Int) -> [Cell] {
            (0..<key.count).map { Cell(batch, index, $0).asKey }
        }
        var rowA = sideA.next()
        var rowB = sideB.next()
        while rowA != nil || rowB != nil {
            if let (batchA, indexA) = rowA, let (batchB, indexB) = rowB {
                // Aligned: the same key at both heads, compared at once, whatever their rowids
                // (a fresh build's rowids shift by one after each row a release deleted).
                if (0..<key.count).allSatisfy({ compare(batchA, indexA, batchB, indexB, $0) == 0 }) {
                    var changes:
                        [(column: String, old: SQLValue, new: SQLValue, oldStored: SQLValue?, newStored: SQLValue?)] =
                            []
                    for slot in key.count..<width {
                        if differs(batchA, indexA, batchB, indexB, slot) {
                            let extra = storedSlot(slot)
                            changes.append(
                                (
                                    columns[slot - key.count], batchA.value(record: indexA, slot: slot),
                                    batchB.value(record: indexB, slot: slot),
                                    extra.map { batchA.value(record: indexA, slot: $0) },
                                    extra.map { batchB.value(record: indexB, slot: $0) }
                                ))
                        }
                    }
                    if !changes.isEmpty {
                        diff.changed.append(((0..<key.count).map { batchA.value(record: indexA, slot: $0) }, changes))
                    }
                    rowA = sideA.next()
                    rowB = sideB.next()
                    continue
                }
                // One side is behind: its head matches a row the other side passed. It alone
                // moves on, and the heads are aligned again after a removed or an added row.
                let behindA = !waitingB.isEmpty && waitingB.holds(headKey(batchA, indexA))
                let behindB = !behindA && !waitingA.isEmpty && waitingA.holds(headKey(batchB, indexB))
                if behindA || behindB {
                    if behindA {
                        place(
                            (0..<stride).map { Cell(batchA, indexA, $0) }, waitingHere: &waitingA,
                            waitingThere: &waitingB, isA: true)
                        rowA = sideA.next()
                    } else {
                        place(
                            (0..<stride).map { Cell(batchB, indexB, $0) }, waitingHere: &waitingB,
                            waitingThere: &waitingA, isA: false)
                        rowB = sideB.next()
                    }
                    continue
                }
                // A merge by rowid, when the stores share them (a store and its migrated copy):
                // a row one side removed, or added (a new rowid), waits alone.
                let rowidA = rowid(batchA, indexA)
                let rowidB = rowid(batchB, indexB)
                if rowidA < rowidB && waitingA.isEmpty && waitingB.isEmpty {
                    place(
                        (0..<stride).map { Cell(batchA, indexA, $0) }, waitingHere: &waitingA, waitingThere: &waitingB,
                        isA: true)
                    rowA = sideA.next()
                    continue
                }
                if rowidB < rowidA && waitingA.isEmpty && waitingB.isEmpty {
                    place(
                        (0..<stride).map { Cell(batchB, indexB, $0) }, waitingHere: &waitingB, waitingThere: &waitingA,
                        isA: false)
                    rowB = sideB.next()
                    continue
                }
            }
            // Otherwise both heads wait for their match (the one that comes next matches at once).
            if let (batch, index) = rowA {
                place(
                    (0..<stride).map { Cell(batch, index, $0) }, waitingHere: &waitingA, waitingThere: &waitingB,
                    isA: true)
                rowA = sideA.next()
            }
            if let (batch, index) = rowB {
                place(
                    (0..<stride).map { Cell(batch, index, $0) }, waitingHere: &waitingB, waitingThere: &waitingA,
                    isA: false)
                rowB = sideB.next()
            }
            if waiting > misalignedLimit { return nil }
        }
        try RowStream.rethrow(sideA, sideB)
        func rows(_ waiting: Waiting) -> [TableDiff.Row] {
            // Sorted by the cells' bytes, before any is made a String; they come in rowid order,
            // which is key order for a seed built from fixtures in key order: the sort, which
            // finds runs already in order, then only checks it.
            waiting.remaining.sorted { Cell.precedes($0[0..<key.count], $1[0..<key.count]) }.map {
                TableDiff.Row(key: $0[0..<key.count].map(\.value), values: $0[key.count..<width].map(\.value))
            }
        }
        diff.removed = rows(waitingA)
        diff.added = rows(waitingB)
        diff.changed.sort { precedes($0.key, $1.key) }
        return diff
    }

    /// Rows kept off the batches while they wait for their match: by key, to find a match, and
    /// in the order they came, which the rows left at the end keep.
    private struct Waiting {
        /// In arrival order; nil once matched.
        private var rows: [[Cell]?] = []
        /// Key → the indices in ``rows`` of the rows waiting with it, first come first.
        private var byKey: [[Cell]: [Int]] = [:]
        private var matched = 0

        var isEmpty: Bool { byKey.isEmpty }

        func holds(_ key: [Cell]) -> Bool { byKey[key] != nil }

        mutating func add(_ row: [Cell], key: [Cell]) {
            byKey[key, default: []].append(rows.count)
            rows.append(row)
        }

        /// The first row waiting with `key`, no longer waiting; nil when none is.
        mutating func take(_ key: [Cell]) -> [Cell]? {
            guard var indices = byKey[key], !indices.isEmpty else { return nil }
            let index = indices.removeFirst()
            byKey[key] = indices.isEmpty ? nil : indices
            let row = rows[index]
            rows[index] = nil
            matched += 1
            // Matched rows' places given back once they are most of the list.
            if matched > 4_096 && matched * 2 > rows.count { compact() }
            return row
        }

        /// The rows still waiting, in the order they came.
        var remaining: [[Cell]] { rows.compactMap { $0 } }

        private mutating func compact() {
            var kept: [[Cell]?] = []
            var moved: [Int: Int] = [:]
            for (index, row) in rows.enumerated() where row != nil {
                moved[index] = kept.count
                kept.append(row)
            }
            for (key, indices) in byKey { byKey[key] = indices.compactMap { moved[$0] } }
            rows = kept
            matched = 0
        }
    }

    /// One cell of a row kept off the batches, compared as the batch comparison does
    /// (storage class, then value; text and blobs by bytes).
    private enum Cell: Hashable {
        case null
        case integer(Int64)
        case real(Double)
        case text([UInt8])
        case blob([UInt8])

        init(_ batch: RecordBatch, _ record: Int, _ slot: Int) {
            let index = record * batch.width + slot
            switch batch.slots[index] {
            case .absent, .null: self = .null
            case .integer: self = .integer(batch.payloads[index])
            case .real: self = .real(Double(bitPattern: UInt64(bitPattern: batch.payloads[index])))
            case .text:
                self = .text(
                    Array(
                        UnsafeBufferPointer(
                            start: batch.bytes + Int(batch.payloads[index]), count: Int(batch.lengths[index]))))
            case .blob:
                self = .blob(
                    Array(
                        UnsafeBufferPointer(
                            start: batch.bytes + Int(batch.payloads[index]), count: Int(batch.lengths[index]))))
            }
        }

        /// As a key: numbers that are equal match (10 and 10.0), as in the walk in key order.
        var asKey: Cell {
            if case .real(let real) = self, real == real.rounded(), abs(real) < 9.2e18 { return .integer(Int64(real)) }
            return self
        }

        /// Whether key `x` sorts before `y` in SQLite's BINARY order, as ``StoreDiff/precedes(_:_:)``
        /// orders their values: text and blobs by their bytes.
        static func precedes(_ x: ArraySlice<Cell>, _ y: ArraySlice<Cell>) -> Bool {
            func rank(_ cell: Cell) -> Int {
                switch cell {
                case .null: 0
                case .integer, .real: 1
                case .text: 2
                case .blob: 3
                }
            }
            for (p, q) in zip(x, y) {
                let rankP = rank(p)
                let rankQ = rank(q)
                if rankP != rankQ { return rankP < rankQ }
                switch (p, q) {
                case (.integer(let m), .integer(let n)) where m != n: return m < n
                case (.integer(let m), .real(let n)) where Double(m) != n: return Double(m) < n
                case (.real(let m), .integer(let n)) where m != Double(n): return m < Double(n)
                case (.real(let m), .real(let n)) where m != n: return m < n
                case (.text(let m), .text(let n)) where m != n: return m.lexicographicallyPrecedes(n)
                case (.blob(let m), .blob(let n)) where m != n: return m.lexicographicallyPrecedes(n)
                default: break
                }
            }
            return false
        }

        var value: SQLValue {
            switch self {
            case .null: .null
            case .integer(let int): .integer(int)
            case .real(let real): .real(real)
            case .text(let bytes): .text(bytes.withUnsafeBytes { String(storedText: $0) })
            case .blob(let bytes): .blob(bytes)
            }
        }
    }

    /// Whether key `x` sorts before `y` in SQLite's BINARY order (NULL, numbers, text by bytes, blobs).
    private static func precedes(_ x: [SQLValue], _ y: [SQLValue]) -> Bool {
        func rank(_ value: SQLValue) -> Int {
            switch value {
            case .null: 0
            case .integer, .real: 1
            case .text: 2
            case .blob: 3
            }
        }
        func number(_ value: SQLValue) -> Double {
            switch value {
            case .integer(let int): Double(int)
            case .real(let real): real
            default: 0
            }
        }
        for (p, q) in zip(x, y) {
            let rankP = rank(p)
            let rankQ = rank(q)
            if rankP != rankQ { return rankP < rankQ }
            switch (p, q) {
            case (.integer(let m), .integer(let n)) where m != n: return m < n
            case (.integer, .real), (.real, .integer), (.real, .real):
                if number(p) != number(q) { return number(p) < number(q) }
            case (.text(let m), .text(let n)):
                // By bytes, without copying them (an Array per comparison was the sort's cost).
                if !m.utf8.elementsEqual(n.utf8) { return m.utf8.lexicographicallyPrecedes(n.utf8) }
            case (.blob(let m), .blob(let n)) where m != n: return m.lexicographicallyPrecedes(n)
            default: break
            }
        }
        return false
    }

    /// Whether slot `slot` of the two rows holds different values: ``SQLValue/isSame(as:)``'s
    /// rule read from the batches (numbers by value whichever their class; NULL and a column one
    /// side lacks apart).
    private static func differs(_ a: RecordBatch, _ i: Int, _ b: RecordBatch, _ j: Int, _ slot: Int) -> Bool {
        let kindA = a.slots[i * a.width + slot]
        let kindB = b.slots[j * b.width + slot]
        if kindA != kindB, !((kindA == .integer || kindA == .real) && (kindB == .integer || kindB == .real)) {
            return true
        }
        return compare(a, i, b, j, slot) != 0
    }

    /// SQLite's ORDER BY … COLLATE BINARY order: NULL, then numbers, then text (bytes), then blobs.
    private static func compare(_ a: RecordBatch, _ i: Int, _ b: RecordBatch, _ j: Int, _ slot: Int) -> Int {
        let x = i * a.width + slot
        let y = j * b.width + slot
        let kindA = a.slots[x]
        let kindB = b.slots[y]
        func rank(_ kind: RecordBatch.Slot) -> Int {
            switch kind {
            case .absent, .null: return 0
            case .integer, .real: return 1
            case .text: return 2
            case .blob: return 3
            }
        }
        let rankA = rank(kindA)
        let rankB = rank(kindB)
        if rankA != rankB { return rankA < rankB ? -1 : 1 }
        switch rankA {
        case 0: return 0
        case 1:
            if kindA == .integer && kindB == .integer {
                let p = a.payloads[x]
                let q = b.payloads[y]
                return p == q ? 0 : (p < q ? -1 : 1)
            }
            let p = kindA == .integer ? Double(a.payloads[x]) : Double(bitPattern: UInt64(bitPattern: a.payloads[x]))
            let q = kindB == .integer ? Double(b.payloads[y]) : Double(bitPattern: UInt64(bitPattern: b.payloads[y]))
            return p == q ? 0 : (p < q ? -1 : 1)
        default:
            let countA = Int(a.lengths[x])
            let countB = Int(b.lengths[y])
            let common = min(countA, countB)
            if common > 0 {
                let result = memcmp(a.bytes + Int(a.payloads[x]), b.bytes + Int(b.payloads[y]), common)
                if result != 0 { return result < 0 ? -1 : 1 }
            }
            return countA == countB ? 0 : (countA < countB ? -1 : 1)
        }
    }
}
