import GRDB

// Dependency order is seedkit's job, not the author's (docs/releases.md, "Refs resolve in any order"): a ref may name a row that a
// later change of the same run inserts (another table, the same table, a chain). A row change
// whose parent is not in the store yet waits for it, and is retried as soon as a row with that
// key arrives. What still waits at the end of the run either waits on another waiting row (a
// cycle: broken through a nullable ref, inserted as NULL and linked once its parent is in, or
// an error naming the rows when every ref of the cycle is NOT NULL), or on a key nobody
// inserts: an error when the release provides no such key (the author's typo, see
// ``ReleaseKeys``), otherwise a conflict naming the child's key and the parent's key (the user
// deleted the parent): the child is not inserted.

/// Where a row change's event goes: its migration and its position there.
struct Slot: Hashable, Comparable {
    var migration: Int
    var index: Int

    static func < (lhs: Slot, rhs: Slot) -> Bool { (lhs.migration, lhs.index) < (rhs.migration, rhs.index) }
}

/// A parent key as the store holds it: SQL table, SQL column (lower-cased), value.
struct ParentKey: Hashable {
    var table: String
    var column: String
    var value: SQLValue

    init(table: String, column: String, value: SQLValue) {
        self.table = table.lowercasedName
        self.column = column.lowercasedName
        // 10 and 10.0 are the same key to SQLite.
        if case .real(let number) = value, number == number.rounded(), abs(number) < 9e15 {
            self.value = .integer(Int64(number))
        } else {
            self.value = value
        }
    }
}

/// A ref whose parent row the store does not have (yet).
struct MissingParent {
    var key: ParentKey
    /// The ref column (or Core Data relationship) as the migration wrote it.
    var column: String
    /// The parent table and key column as the manifest names them.
    var reference: TableSpec.Reference
    /// The key as the migration wrote it.
    var input: InputValue
    var type: ColumnType
    /// Whether the row may be inserted with NULL here and linked later.
    var nullable: Bool
}

/// What became of a row change.
enum Attempt {
    /// Decided: its slot holds its event (or stays empty after an error).
    case done
    /// Waiting for the `missing` parents; `provides` are the keys it will bring.
    case waiting(key: [RowEvent.KeyValue], missing: [MissingParent], provides: [ParentKey])
}

/// Row changes waiting for parents, indexed by the key each waits for.
struct WaitQueue {
    enum Change {
        case insert(row: DataChanges.RowValues, table: String)
        case update(change: DataChanges.RowChange, table: String, file: String)
        /// A ref column of an inserted row (a broken cycle) to set once its parent is in.
        case link(table: String, key: [(column: String, value: SQLValue)], row: DataChanges.RowValues, column: String)

        var row: (file: String, line: Int) {
            switch self {
            case .insert(let row, _), .link(_, _, let row, _): return (row.file, row.line)
            case .update(let change, _, let file): return (file, change.line)
            }
        }

        var table: String {
            switch self {
            case .insert(_, let table), .update(_, let table, _), .link(let table, _, _, _): return table
            }
        }
    }

    struct Entry {
        var change: Change
        var slot: Slot?
        /// The row's key (a ref not resolved yet shows its parent's key).
        var key: [RowEvent.KeyValue]
        var missing: [MissingParent]
        var provides: [ParentKey]
        /// Insertion order, for a stable order among entries without a slot.
        var order: Int
    }

    /// By index; nil once retried or settled.
    var entries: [Entry?] = []
    private var waiters: [ParentKey: [Int]] = [:]
    /// Table → columns some entry waits on.
    private var awaited: [SQLName: Set<SQLName>] = [:]
    /// Entries whose parent has arrived, to retry in this order.
    var ready: [Int] = []
    /// Keys of rows not written because of errors already reported: who waits for one of them
    /// is not reported again.
    var broken: Set<ParentKey> = []
    var draining = false

    mutating func add(
        _ change: Change, slot: Slot?, key: [RowEvent.KeyValue], missing: [MissingParent], provides: [ParentKey]
    ) {
        let index = entries.count
        entries.append(Entry(change: change, slot: slot, key: key, missing: missing, provides: provides, order: index))
        for parent in missing {
            waiters[parent.key, default: []].append(index)
            awaited[SQLName(parent.key.table), default: []].insert(SQLName(parent.key.column))
        }
    }

    /// A row with `values` is now in `table`: who waited for it is ready.
    mutating func appeared(_ table: String, _ values: [(column: String, value: SQLValue)]) {
        // Called for every row written: nothing waits in a run whose refs all resolve at once.
        guard !awaited.isEmpty, let columns = awaited[SQLName(table)] else { return }
        for (column, value) in values where columns.contains(SQLName(column)) {
            if let list = waiters.removeValue(forKey: ParentKey(table: table, column: column, value: value)) {
                ready += list
            }
        }
    }

    /// Every entry still open, ready to be retried (after a SQL migration, which may have inserted parents).
    mutating func readyAll() {
        ready = entries.indices.filter { entries[$0] != nil }
        waiters.removeAll()
    }

    var open: [Int] { entries.indices.filter { entries[$0] != nil } }

    /// Whether some row change has waited for a row of `table` in this run.
    func awaits(_ table: String) -> Bool { !awaited.isEmpty && awaited[SQLName(table)] != nil }
}

extension MigrationRun {
    mutating func newSlot(_ migration: Int) -> Slot {
        slots[migration].count += 1
        return Slot(migration: migration, index: slots[migration].count - 1)
    }

    mutating func fill(_ slot: Slot?, _ event: RowEvent?) {
        guard let slot, let event else { return }
        guard lists(event.kind, in: slot) else { return unlist(event.kind, in: slot) }
        // only ``lists(_:in:)`` reads it, and only then
        if options.eventsPerKind != nil { slots[slot.migration].listed[event.kind, default: 0] += 1 }
        slots[slot.migration].indexes.append(slot.index)
        slots[slot.migration].events.append(event)
    }

    /// Whether an event of `kind` for `slot` is listed in the report: false past
    /// ``SeedMigrator/Options/eventsPerKind``, never for a row the update did not apply.
    func lists(_ kind: RowEvent.Kind, in slot: Slot?) -> Bool {
        guard let slot, let limit = options.eventsPerKind, kind.isApplied else { return true }
        return slots[slot.migration].listed[kind, default: 0] < limit
    }

    /// Counts an event of `kind` that is not listed, without it having been built.
    mutating func unlist(_ kind: RowEvent.Kind, in slot: Slot?) {
        guard let slot else { return }
        slots[slot.migration].unlisted[kind, default: 0] += 1
    }

    /// Queues a change that waits, then retries whatever became ready.
    mutating func settle(_ change: WaitQueue.Change, slot: Slot?, _ attempt: Attempt) throws {
        if case .waiting(let key, let missing, let provides) = attempt {
            queue.add(change, slot: slot, key: key, missing: missing, provides: provides)
        }
        try drain()
    }

    /// Retries the changes whose parents arrived, and those theirs arrived for, in a loop (not
    /// recursion: a chain may be thousands of rows long).
    mutating func drain() throws {
        guard !queue.draining, !queue.ready.isEmpty else { return }
        try flushInserts()
        queue.draining = true
        defer { queue.draining = false }
        var next = 0
        while next < queue.ready.count {
            let index = queue.ready[next]
            next += 1
            guard let entry = queue.entries[index] else { continue }
            queue.entries[index] = nil
            try retry(entry)
        }
        queue.ready.removeAll()
    }

    mutating func retryAll() throws {
        queue.readyAll()
        try drain()
    }

    private mutating func retry(_ entry: WaitQueue.Entry, later: Set<SQLName> = []) throws {
        // The change speaks of its table by its own name (an entity, for Core Data), not the current operation's.
        let current = operationName
        operationName = entry.change.table
        defer { operationName = current }
        let attempt: Attempt
        switch entry.change {
        case .insert(let row, let table):
            attempt = try insert(row, named: table, slot: entry.slot, validate: false, later: later)
        case .update(let change, let table, let file):
            attempt = try update(change, in: tableInfo(table, file: file), file: file, slot: entry.slot)
        case .link(let table, let key, let row, let column):
            attempt = try link(table: table, key: key, row: row, column: column)
        }
        if case .waiting(let key, let missing, let provides) = attempt {
            queue.add(entry.change, slot: entry.slot, key: key, missing: missing, provides: provides)
        }
    }

    /// Decides what still waits at the end of the run (see the top of this file).
    mutating func settleWaiting() throws {
        try drain()
        while true {
            let open = queue.open.sorted { lhs, rhs in
                let (a, b) = (queue.entries[lhs], queue.entries[rhs])
                return (a?.slot ?? Slot(migration: .max, index: a?.order ?? 0))
                    < (b?.slot ?? Slot(migration: .max, index: b?.order ?? 0))
            }
            if open.isEmpty { return }
            var providers: [ParentKey: [Int]] = [:]
            for index in open {
                for key in queue.entries[index]?.provides ?? [] { providers[key, default: []].append(index) }
            }
            // Stuck for good: a parent that no waiting row can still bring. In the order found,
            // which puts each row after the rows it waits for.
            var stuck: [Int: MissingParent] = [:]
            var stuckOrder: [Int] = []
            var found = true
            while found {
                found = false
                for index in open where stuck[index] == nil {
                    guard let entry = queue.entries[index],
                        let parent = entry.missing.first(where: { parent in
                            (providers[parent.key] ?? []).allSatisfy { stuck[$0] != nil }
                        })
                    else { continue }
                    stuck[index] = parent
                    stuckOrder.append(index)
                    found = true
                }
            }
            try reportStuck(stuckOrder, stuck: stuck, providers: providers)
            let cycle = open.filter { stuck[$0] == nil }
            if cycle.isEmpty { return }
            // Rows that wait on each other: insert one whose refs to the others are nullable as
            // NULL, and link it once they are in.
            if let index = cycle.first(where: { index in
                guard let entry = queue.entries[index], case .insert = entry.change else { return false }
                return entry.missing.allSatisfy(\.nullable)
            }), let entry = queue.entries[index] {
                queue.entries[index] = nil
                try retry(entry, later: Set(entry.missing.map { SQLName($0.column) }))
                try drain()
                continue
            }
            reportCycle(cycle, providers: providers)
            return
        }
    }

    /// Reports each row whose parent never arrived: an error when the release has no such key
    /// (the author's typo), a conflict when it does (the user deleted the parent), nothing more
    /// when the parent itself failed with an error.
    private mutating func reportStuck(_ order: [Int], stuck: [Int: MissingParent], providers: [ParentKey: [Int]]) throws
    {
        guard !order.isEmpty else { return }
        // Ask the release about the parents nobody in this run provides, all at once.
        var direct: [Int] = []
        for index in order {
            guard let parent = stuck[index], !queue.broken.contains(parent.key), (providers[parent.key] ?? []).isEmpty
            else { continue }
            direct.append(index)
        }
        var unknown = Set<Int>()
        if let keys = options.releaseKeys, !direct.isEmpty {
            let queries = direct.compactMap { stuck[$0] }.map {
                ReleaseKeyQuery(
                    reference: $0.reference, value: $0.input, stored: $0.key.value, type: $0.type,
                    storeTable: $0.key.table)
            }
            for (index, provided) in zip(direct, try keys.provides(queries)) where !provided { unknown.insert(index) }
        }
        /// Rows reported as errors (or not written for errors): who waits for them stays silent.
        var failed = Set<Int>()
        for index in order {
            guard let entry = queue.entries[index], let parent = stuck[index] else { continue }
            queue.entries[index] = nil
            let upstream = providers[parent.key] ?? []
            if queue.broken.contains(parent.key) || (!upstream.isEmpty && upstream.allSatisfy(failed.contains)) {
                failed.insert(index)
                continue
            }
            operationName = entry.change.table
            let table = try tableInfo(entry.change.table, file: entry.change.row.file)
            let (file, line) = entry.change.row
            let value = describe(Self.sqlText(parent.input))
            if unknown.contains(index) {
                failed.insert(index)
                errors.append(
                    Diagnostic(
                        file: file, line: line, code: .unresolvedReference,
                        message:
                            "\(written(table)) \(RowEvent.describe(key: entry.key)): \(parent.column) \(value) matches no \(parent.reference) in the fixtures, the store or any migration; nothing was written",
                        table: table.name))
                continue
            }
            let verb: String
            switch entry.change {
            case .insert: verb = "row not inserted"
            case .update: verb = "row not updated"
            case .link: verb = "row inserted without it"
            }
            let detail =
                upstream.isEmpty
                ? "\(missingText(parent)) (the user deleted it?); \(verb)"
                : "\(parent.column) \(value) is not in the store and was not inserted either; \(verb)"
            fill(entry.slot, conflict(table, line: line, file: file, key: entry.key, detail))
        }
    }

    /// Rows that wait on each other through NOT NULL refs: none can go first.
    private mutating func reportCycle(_ rows: [Int], providers: [ParentKey: [Int]]) {
        let members = Set(rows)
        var path: [Int] = []
        var current = rows[0]
        while !path.contains(current) {
            path.append(current)
            guard let entry = queue.entries[current],
                let next = entry.missing.lazy.compactMap({ providers[$0.key]?.first(where: members.contains) }).first
            else { break }
            current = next
        }
        let loop = path.firstIndex(of: current).map { Array(path[$0...]) } ?? path
        var links: [String] = []
        var names: [String] = []
        for index in loop {
            guard let entry = queue.entries[index] else { continue }
            operationName = entry.change.table
            guard let table = try? tableInfo(entry.change.table, file: entry.change.row.file) else { continue }
            names.append("\(written(table)) \(RowEvent.describe(key: entry.key))")
            let parent =
                entry.missing.first { providers[$0.key]?.contains(where: members.contains) == true }
                ?? entry.missing.first
            if let parent {
                links.append(
                    "\(written(table)) \(RowEvent.describe(key: entry.key)).\(parent.column) → \(describe(Self.sqlText(parent.input)))"
                )
            }
        }
        let first = queue.entries[loop[0]]?.change.row ?? (file: "", line: 0)
        errors.append(
            Diagnostic(
                file: first.file, line: first.line, code: .unresolvedReference,
                message:
                    "\(names.joined(separator: " and ")) reference each other through NOT NULL refs (\(links.joined(separator: ", "))), so none of them can be inserted first; break the cycle, or make one of the refs nullable"
            ))
        for index in rows { queue.entries[index] = nil }
    }
}
