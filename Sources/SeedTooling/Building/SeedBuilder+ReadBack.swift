import Foundation
import GRDB
import GRDBSQLite
import SeedRuntime

/// One loaded table's read-back: its plan as loaded and the digest of its converted records.
struct ReadBack {
    var plan: TablePlan
    /// The fixture's names of the fields the reader asked for (to read the records again).
    var fields: [String]
    var expected: ReadBackDigest
}

extension SeedBuilder {
    /// The most differences a failed read-back names.
    static let readBackLimit = 20

    /// The digest a load fills for `plan` (completed), or nil when the build does not read back.
    func readBackDigest(_ plan: TablePlan, db: Database) -> ReadBackDigest? {
        guard readsBack else { return nil }
        let key = plan.config.key.compactMap { name in
            plan.bound.firstIndex { $0.info.name.isSameName(as: plan.storeColumn(name)) }
        }
        let folds = plan.bound.map { bound in
            let (table, column) =
                bound.reference.map { ($0.parentTable, $0.parentKey) } ?? (plan.table.name, bound.info.name)
            return Self.fold(db, table: table, column: column)
        }
        // SQLite's affinity of the column (a ref: of its parent's key), by its declared type.
        let numeric = plan.bound.map { bound -> Bool in
            let declared =
                bound.reference.flatMap { reference in
                    try? String.fetchOne(
                        db, sql: "SELECT type FROM pragma_table_info(?) WHERE name = ? COLLATE NOCASE",
                        arguments: [reference.parentTable, reference.parentKey])
                } ?? bound.info.declaredType
            let type = declared.uppercased()
            if type.contains("INT") { return true }
            if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { return false }
            if type.isEmpty || type.contains("BLOB") { return false }
            return true  // REAL, NUMERIC
        }
        return ReadBackDigest(
            width: plan.bound.count,
            keySlots: key.isEmpty || key.count != plan.config.key.count ? Array(plan.bound.indices) : key,
            folds: folds, numeric: numeric)
    }

    /// The collation of `table.column`, as the read-back folds its text.
    private static func fold(_ db: Database, table: String, column: String) -> ReadBackDigest.Fold {
        switch TableInfo.collation(db, table: table, column: column) {
        case "NOCASE": return .nocase
        case "RTRIM": return .rtrim
        default: return .binary
        }
    }

    /// The SELECT that reads a plan's rows back: each bound column in slot order, a ref as its
    /// parent's key (a LEFT JOIN on the id the ref stores), only the plan's own rows, none the
    /// template held before the build; `where` adds conditions.
    private static func readBackSQL(_ plan: TablePlan, hadRows: Bool, where conditions: [String] = []) -> String {
        var joins: [String] = []
        let columns = plan.bound.enumerated().map { slot, bound -> String in
            guard let reference = bound.reference else { return "t.\(quoteIdentifier(bound.info.name))" }
            let alias = "r\(slot)"
            let target = reference.target == "rowid" ? "rowid" : reference.target
            joins.append(
                "LEFT JOIN \(quoteIdentifier(reference.parentTable)) AS \(alias) ON \(alias).\(target) = t.\(quoteIdentifier(bound.info.name))"
            )
            return "\(alias).\(quoteIdentifier(reference.parentKey))"
        }
        var filters = conditions
        if let coreData = plan.dialect as? CoreDataDialect,
            let own = coreData.ownRowFilter(plan.config.name, alias: "t")
        {
            filters.append(own)
        }
        if hadRows && !plan.table.withoutRowID {
            filters.append(
                "t.rowid NOT IN (SELECT id FROM temp.\(readBackBefore) WHERE name = '\(plan.table.name.replacingOccurrences(of: "'", with: "''"))')"
            )
        }
        return
            "SELECT \(columns.isEmpty ? "NULL" : columns.joined(separator: ", ")) FROM \(quoteIdentifier(plan.table.name)) AS t "
            + joins.joined(separator: " ") + (filters.isEmpty ? "" : " WHERE " + filters.joined(separator: " AND "))
    }

    /// The TEMP table of the rowids each table held before the build (a template's own rows).
    static let readBackBefore = "_seedkit_read_back_before"

    /// Records the rows a template holds, which the read-back leaves out.
    func noteRowsBefore(_ db: Database, plans: [TablePlan], counts: [String: Int]) throws {
        guard readsBack else { return }
        try db.execute(
            sql:
                "CREATE TEMP TABLE \(Self.readBackBefore) (name TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (name, id)) WITHOUT ROWID"
        )
        for name in Set(plans.map(\.table.name)).sorted() where (counts[name] ?? 0) > 0 {
            guard plans.first(where: { $0.table.name == name })?.table.withoutRowID == false else { continue }
            try db.execute(
                sql: "INSERT INTO temp.\(Self.readBackBefore) SELECT ?, rowid FROM \(quoteIdentifier(name))",
                arguments: [name])
        }
    }

    /// Reads every loaded table back through SQLite and compares it with the converted fixture
    /// records (docs/reference.md, "What build checks"); each difference is a diagnostic.
    func readBack(
        _ readBacks: [ReadBack], db: Database, counts before: [String: Int], deferral: Deferral
    ) throws -> [Diagnostic] {
        guard readsBack else { return [] }
        var diagnostics: [Diagnostic] = []
        for entry in readBacks {
            let plan = entry.plan
            let expected = entry.expected
            // A WITHOUT ROWID table the template filled: its rows can't be told from the build's.
            if plan.table.withoutRowID && (before[plan.table.name] ?? 0) > 0 { continue }
            var skipped = expected.absent
            if let coreData = plan.dialect as? CoreDataDialect, let entity = coreData.entity(named: plan.config.name) {
                // Generated UUIDs a row leaves out are filled in from its key: not the fixture's.
                let generated = Set(
                    (coreData.facts.generated[coreData.modelName(of: entity)] ?? []).map {
                        plan.storeColumn($0).lowercasedName
                    })
                for slot in plan.bound.indices where generated.contains(plan.bound[slot].info.name.lowercasedName) {
                    skipped[slot] = true
                }
            }
            let actual = ReadBackDigest(
                width: expected.width, keySlots: expected.keySlots, folds: expected.folds, numeric: expected.numeric)
            let statement = try db.makeStatement(
                sql: Self.readBackSQL(plan, hadRows: (before[plan.table.name] ?? 0) > 0))
            let handle = statement.sqliteStatement
            defer { sqlite3_reset(handle) }
            while true {
                let step = sqlite3_step(handle)
                if step == SQLITE_DONE { break }
                guard step == SQLITE_ROW else {
                    throw DatabaseError(
                        resultCode: ResultCode(rawValue: step),
                        message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
                }
                actual.add(row: handle)
            }
            let columnsDiffer =
                !expected.keyAbsent
                && plan.bound.indices.contains { !skipped[$0] && expected.sums[$0] != actual.sums[$0] }
            guard columnsDiffer || expected.rows != actual.rows else { continue }
            diagnostics += try differences(
                entry, skipped: skipped, seedRows: actual.rows, hadRows: (before[plan.table.name] ?? 0) > 0, db: db,
                deferral: deferral,
                limit: Self.readBackLimit - diagnostics.count)
            if diagnostics.count >= Self.readBackLimit { break }
        }
        return diagnostics
    }

    /// What differs between a table's fixture and the seed: the fixture's records read again and
    /// each looked up in the seed by its key; then rows the seed holds that the fixture does not give.
    private func differences(
        _ entry: ReadBack, skipped: [Bool], seedRows: Int, hadRows: Bool, db: Database, deferral: Deferral, limit: Int
    ) throws -> [Diagnostic] {
        let plan = entry.plan
        let config = plan.config
        let file = config.displayFile
        let digest = entry.expected
        let triggers = try String.fetchAll(
            db,
            sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE ORDER BY name",
            arguments: [plan.table.name])
        let blame =
            triggers.isEmpty
            ? " (seedkit wrote a row other than the fixture's: please report it)"
            : " (the schema's triggers on \(plan.table.name) may change the rows a build inserts: \(triggers.joined(separator: ", ")); a seed holds the fixture's rows or the build fails)"
        func diagnostic(_ line: Int, _ message: String) -> Diagnostic {
            Diagnostic(
                file: file, line: line, code: .ioFailure,
                message: "read back from the seed, \(plan.table.name) differs from the fixture: \(message)\(blame)",
                table: plan.table.name)
        }
        var found: [Diagnostic] = []
        if !digest.keyAbsent {
            // By the key (indexed while building); a ref of the key through its parent's key.
            let conditions = digest.keySlots.map { slot -> String in
                let bound = plan.bound[slot]
                let column = "t.\(quoteIdentifier(bound.info.name))"
                guard let reference = bound.reference else { return "\(column) IS ?" }
                let target = reference.target == "rowid" ? "rowid" : reference.target
                return
                    "\(column) IN (SELECT p.\(target) FROM \(quoteIdentifier(reference.parentTable)) AS p WHERE p.\(quoteIdentifier(reference.parentKey)) = ?)"
            }
            let lookup = try db.makeStatement(
                sql: Self.readBackSQL(plan, hadRows: hadRows, where: conditions) + " LIMIT 1")
            let handle = lookup.sqliteStatement
            var source: any RecordSource
            if let query = config.query, let sources = deferral.sources {
                source = try QueryRecordSource(query, in: sources, file: file)
            } else {
                source = try config.openFixture(fields: entry.fields) { _ in "" }
            }
            let shapes =
                config.query == nil && config.reading.format.valuesNest
                ? SwiftShapeFields(
                    dialect: plan.dialect, entity: config.name, file: file, table: plan.table.name,
                    names: source.columnNames) : nil
            let converter = RecordConverter(plan: plan, file: file)
            let batch = RecordBatch(width: plan.bound.count, capacity: 1)
            var record = RawRecord()
            var ignored: [Diagnostic] = []
            while found.count < limit, try source.next(&record, diagnostics: &ignored) {
                ignored.removeAll(keepingCapacity: true)
                if let shapes, !shapes.expand(&record, diagnostics: &ignored) { continue }
                batch.reset()
                converter.convert(record, into: batch, diagnostics: &ignored)
                sqlite3_reset(handle)
                for (parameter, slot) in digest.keySlots.enumerated() {
                    batch.value(record: 0, slot: slot).bindWhole(to: handle, at: Int32(parameter + 1))
                }
                let key = digest.keySlots.map {
                    "\(plan.bound[$0].name) \(Self.shown(batch.value(record: 0, slot: $0)))"
                }
                .joined(separator: ", ")
                guard sqlite3_step(handle) == SQLITE_ROW else {
                    found.append(diagnostic(record.line, "the row \(key) is not in the seed"))
                    continue
                }
                for slot in plan.bound.indices where !skipped[slot] && batch.slots[slot] != .absent {
                    guard !digest.same(handle, batch, index: slot, slot: slot) else { continue }
                    found.append(
                        diagnostic(
                            record.line,
                            "row \(key), column \(plan.bound[slot].name): the fixture gives \(Self.shown(batch.value(record: 0, slot: slot))), the seed holds \(Self.shown(SQLValue(column: Int32(slot), of: handle)))"
                        ))
                    if found.count >= limit { break }
                }
            }
            sqlite3_reset(handle)
        }
        if found.count < limit && seedRows != digest.rows {
            found.append(
                diagnostic(
                    0, "the seed holds \(seedRows) rows of \(plan.config.name), the fixture gives \(digest.rows)"))
        }
        if found.isEmpty {
            // Without a key to find rows by: which columns differ.
            found.append(diagnostic(0, "the values of a column differ (the table has no key to name the row by)"))
        }
        return found
    }

    /// A value in a message: text quoted, NULL and numbers as they are.
    private static func shown(_ value: SQLValue) -> String {
        if case .text(let text) = value { return "'\(text)'" }
        return value.description
    }
}
