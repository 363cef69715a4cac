import GRDB
import SeedRuntime

/// The rows of a build that wait for a parent not inserted yet, by table (see ``ParkedRows``).
final class Deferral {
    /// Manifest table name → load position.
    let order: [String: Int]
    var parked: [String: ParkedRows] = [:]
    /// The sources `query:` tables read, loaded once per build.
    var sources: ScratchSources?
    /// Each loaded table's read-back (see SeedBuilder+ReadBack.swift).
    var readBacks: [ReadBack] = []
    /// By load position: refs set once every row is in, for the tables whose rows must go in in
    /// the fixture's order (a Core Data entity without a key, whose row number is its `Z_PK`).
    var links: [Int: LinkedRefs] = [:]

    init(plans: [TablePlan]) {
        order = Dictionary(plans.enumerated().map { ($1.config.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func isWaiting(_ table: String) -> Bool { (parked[table]?.count ?? 0) > 0 }

    var waiting: Int { parked.values.reduce(0) { $0 + $1.count } }

    /// Tables whose fixture was refused whole (a header or a file the build cannot read): none of
    /// their rows is in, so a ref to one of them is not a typo of its own and is not reported row
    /// by row; each table's refs to it are counted (``uncheckedRefs``) and said once.
    private var refused: Set<String> = []
    private var unchecked: [String: (file: String, table: String, field: String, parent: String, count: Int)] = [:]
    private var uncheckedOrder: [String] = []

    /// Records that `table`'s fixture was refused whole (a ref names it as SQLite matches names).
    func refuse(_ table: String) { refused.insert(table.lowercasedName) }

    /// Whether a miss of a ref to `parent` is left unreported, counting it.
    func leavesUnchecked(file: String, table: String, field: String, parent: String) -> Bool {
        guard refused.contains(parent.lowercasedName) else { return false }
        let id = [file, table, field, parent].joined(separator: "\u{0}")
        if unchecked[id] == nil {
            unchecked[id] = (file, table, field, parent, 0)
            uncheckedOrder.append(id)
        }
        unchecked[id]?.count += 1
        return true
    }

    /// `diagnostics` (a migration's key that matches no row) less those about a table whose
    /// fixture was refused: none of its rows is in, so each is a consequence of that error, not a
    /// typo of its own.
    ///
    /// They are counted, one line per migration file and table.
    func countingConsequences(of diagnostics: [Diagnostic]) -> [Diagnostic] {
        var kept: [Diagnostic] = []
        var counted: [(file: String?, table: String, count: Int)] = []
        for diagnostic in diagnostics {
            guard let table = diagnostic.table, refused.contains(table.lowercasedName) else {
                kept.append(diagnostic)
                continue
            }
            if let index = counted.firstIndex(where: { $0.file == diagnostic.file && $0.table == table }) {
                counted[index].count += 1
            } else {
                counted.append((diagnostic.file, table, 1))
            }
        }
        return kept
            + counted.map { entry in
                Diagnostic(
                    file: entry.file, code: .unresolvedReference,
                    message:
                        "\(entry.count) key\(entry.count == 1 ? "" : "s") of \(entry.table) not checked: the fixture of \(entry.table) was refused (its error above), so none of its rows is in",
                    table: entry.table)
            }
    }

    /// One diagnostic per table and ref whose misses were left unreported.
    var uncheckedRefs: [Diagnostic] {
        uncheckedOrder.compactMap { unchecked[$0] }.map { entry in
            Diagnostic(
                file: entry.file, code: .unresolvedReference,
                message:
                    "\(entry.field): \(entry.count) ref\(entry.count == 1 ? "" : "s") to \(entry.parent) not checked: the fixture of \(entry.parent) was refused (its error above), so none of its rows is in",
                table: entry.table)
        }
    }
}

extension SeedBuilder {
    /// Inserts the parked rows once every fixture is loaded: passes in load order while a pass
    /// inserts anything; then a last pass in which what still waits is an error (a key that no
    /// row has, or a cycle of references, named row by row).
    ///
    /// Memory stays flat: rows are read back a batch at a time.
    func insertParked(
        _ deferral: Deferral, db: Database, counts: inout [(name: String, rows: Int)], diagnostics: inout [Diagnostic]
    ) throws {
        var final = false
        var linking = false
        var links = deferral.links
        // In the last pass every table's rows stay parked until all are reported: a row of a
        // later table that waits for an earlier one's is explained by that row, not called missing.
        var reported: [(ParkedRows, Int)] = []
        while deferral.waiting > 0 {
            let before = deferral.waiting
            for (index, count) in counts.enumerated() {
                guard let parked = deferral.parked[count.name], parked.count > 0 else { continue }
                let plan = parked.plan
                let loader = try TableLoader(db: db, plan: plan, file: plan.config.displayFile)
                loader.deferral = deferral
                if final {
                    loader.insertsUnresolved = false
                    loader.explainMiss = { slot, key, line in
                        try Self.explainWait(deferral, db: db, plan: plan, slot: slot, key: key, line: line)
                    }
                } else {
                    loader.parking = parked
                    loader.parkable = plan.bound.map { bound in
                        bound.reference.map { deferral.isWaiting($0.spec.table) } ?? false
                    }
                    if plan.table.rowIDName != nil && (linking || loader.linksUnseen) {
                        if links[index] == nil { links[index] = try LinkedRefs(db: db, plan: plan, number: index) }
                        loader.links = links[index]
                    }
                }
                let generation = parked.beginPass()
                let batch = RecordBatch(width: plan.bound.count, capacity: Self.batchSize)
                var seq: Int64 = 0
                var found: [Diagnostic] = []
                // Rows of a self-referencing table are tried again as soon as their parent is in
                // (a chain listed children first takes one pass, not one per level).
                let wakes = final ? [] : parked.selfReferences
                var woken: [(slot: Int, value: SQLValue)] = []
                if !wakes.isEmpty {
                    loader.inserted = { batch, record in
                        for wake in wakes {
                            let value = batch.value(record: record, slot: wake.keySlot)
                            if value != .null { woken.append((wake.slot, value)) }
                        }
                    }
                }
                let wokenBatch = RecordBatch(width: plan.bound.count, capacity: Self.batchSize)
                while let last = try parked.fetch(generation, after: seq, into: batch) {
                    seq = last
                    try loader.load(batch, diagnostics: &found)
                    while let wake = woken.popLast() {
                        let ceiling = parked.lastSeq
                        while try parked.take(
                            slot: wake.slot, value: wake.value, generation: generation, after: seq, upTo: ceiling,
                            into: wokenBatch)
                        {
                            try loader.load(wokenBatch, diagnostics: &found)
                        }
                    }
                }
                if final { reported.append((parked, generation)) } else { try parked.endPass(generation) }
                counts[index].rows += loader.rowsInserted
                diagnostics += found
            }
            if final {
                for (parked, generation) in reported { try parked.endPass(generation) }
                break
            }
            // Stuck: first let nullable refs that wait (a table with triggers or checks) be linked
            // afterwards; then report what is left.
            if deferral.waiting == before {
                if linking { final = true } else { linking = true }
            } else {
                linking = false
            }
        }
        for parked in deferral.parked.values { try parked.drop() }
        for index in links.keys.sorted() { try links[index]?.apply(deferral: deferral, diagnostics: &diagnostics) }
    }

    /// Why a parked row's ref stays unresolved when its parent is parked too: the chain of
    /// rows it waits for, ending in a cycle (back to this row, or elsewhere) or in a row that
    /// refers to a missing key.
    ///
    /// nil when the parent is not parked (the key exists nowhere).
    static func explainWait(_ deferral: Deferral, db: Database, plan: TablePlan, slot: Int, key: SQLValue, line: Int)
        throws -> String?
    {
        guard let reference = plan.bound[slot].reference else { return nil }
        var steps: [String] = []
        var visited: Set<String> = ["\(plan.config.name)#\(line)"]
        var next: (parked: ParkedRows, spec: TableSpec.Reference, key: SQLValue)? = deferral.parked[
            reference.spec.table
        ].map { ($0, reference.spec, key) }
        let name = "\(plan.bound[slot].name) '\(key.description)'"
        while let (parked, spec, parentKey) = next, steps.count < 20 {
            guard
                let keySlot = parked.plan.bound.firstIndex(where: {
                    $0.name.isSameName(as: spec.column) || $0.info.name.isSameName(as: spec.column)
                }),
                let row = try parked.waiting(slot: keySlot, value: parentKey)
            else { break }
            let id = "\(parked.plan.config.name)#\(row.line)"
            // A row of another file is named with its file.
            let file = parked.plan.config.displayFile
            steps.append(
                "\(spec.table) '\(parentKey.description)' (\(file == plan.config.displayFile ? "line " : file + ":")\(row.line))"
            )
            if id == "\(plan.config.name)#\(line)" && steps.count == 1 {
                return
                    "\(name) names this row itself, which a NOT NULL ref cannot do (the row would have to exist before it is inserted); leave it empty for a root, with a nullable column"
            }
            if id == "\(plan.config.name)#\(line)" {
                return
                    "\(name) is part of a cycle of references that no order of inserts satisfies: this row → \(steps.dropLast().joined(separator: " → "))\(steps.count > 1 ? " → " : "")this row; break the cycle"
            }
            if visited.contains(id) {
                return "\(name) waits for rows in a cycle of references: \(steps.joined(separator: " → "))"
            }
            visited.insert(id)
            // The parent's own first ref to a row that waits too.
            next = nil
            for (refSlot, bound) in parked.plan.bound.enumerated() {
                guard let parentRef = bound.reference, row.values[refSlot] != .null,
                    let parentParked = deferral.parked[parentRef.spec.table],
                    let parentSlot = parentParked.plan.bound.firstIndex(where: {
                        $0.name.isSameName(as: parentRef.spec.column)
                            || $0.info.name.isSameName(as: parentRef.spec.column)
                    }),
                    try parentParked.waiting(slot: parentSlot, value: row.values[refSlot]) != nil
                else { continue }
                next = (parentParked, parentRef.spec, row.values[refSlot])
                break
            }
        }
        guard let first = steps.first else { return nil }
        return
            "\(name) names a row that cannot be inserted either: \(first)\(steps.count > 1 ? " → " + steps.dropFirst().joined(separator: " → ") : "") refers to a missing row"
    }

    /// Diagnostics grouped by file in load order, each file's by line and column (stable).
    func inFileOrder(_ diagnostics: [Diagnostic], plans: [TablePlan]) -> [Diagnostic] {
        var position: [String: Int] = [:]
        for (index, plan) in plans.enumerated() where position[plan.config.displayFile] == nil {
            position[plan.config.displayFile] = index
        }
        return diagnostics.enumerated().sorted { a, b in
            let fileA = a.element.file.flatMap { position[$0] } ?? plans.count
            let fileB = b.element.file.flatMap { position[$0] } ?? plans.count
            if fileA != fileB { return fileA < fileB }
            if fileA < plans.count, (a.element.line, a.element.column) != (b.element.line, b.element.column) {
                return (a.element.line, a.element.column) < (b.element.line, b.element.column)
            }
            return a.offset < b.offset
        }.map(\.element)
    }
}

extension TableLoader {
    /// Whether a nullable ref to a row not in yet may go in empty and be set once every row is
    /// in without anyone seeing it empty: no trigger of the table (an AFTER INSERT one would
    /// read it empty, an AFTER UPDATE one would fire for a row no fixture updates) and no
    /// manifest check (run on the row as it goes in).
    var linksUnseen: Bool { !hasTriggers && plan.config.checks.isEmpty }
}
