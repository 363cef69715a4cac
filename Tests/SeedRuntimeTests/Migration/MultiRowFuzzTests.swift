import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

// Issue 23, differentially: random table shapes (keys by UNIQUE, primary key, composite, partial,
// expression or NOCASE index; STRICT, WITHOUT ROWID, AUTOINCREMENT; NOT NULL, CHECK, UNIQUE,
// partial and expression unique indexes on other columns; DEFAULTs the schema or the spec fills;
// generated columns; blobs, text with NUL bytes, long text; refs; now and then a trigger, a
// self-reference or a conflict clause) and random insert migrations of 40-300 rows (keys the
// store has, keys repeated, values that break constraints or rules, refs to parents that come
// later or never), with updates, deletes and SQL in the same run; each applied to two copies of
// one store with multi-row INSERTs and without. The report (events and errors, in order), the
// rows and the file's bytes must be the same. Helpers: MultiRowMigrateTests.swift.
//
// Replay a run with `SEEDKIT_TEST_SEED=<seed> swift test --filter MultiRowFuzzTests`, or only the
// failing case with `SEEDKIT_FUZZ_CASE=<its seed>` (in the failure's message, with its inputs);
// `SEEDKIT_FUZZ_CASES=N` runs N cases (a longer hunt), `SEEDKIT_FUZZ_VERBOSE=1` prints each report.

@Suite struct MultiRowFuzzTests {
    @Test(.tags(.slow)) func randomSchemasAndInsertMigrationsGiveTheSameOutcomeWithAndWithoutMultiRowInserts() throws {
        var random = SeededRandom(defaultSeed: 0x4D52_4F57)  // fixed: a run replays; SEEDKIT_TEST_SEED tries others
        print("MultiRowFuzzTests seed: \(random.seed)")
        // One case by its own seed (as a failure names it), to debug what the fuzzer found.
        if let seed = ProcessInfo.processInfo.environment["SEEDKIT_FUZZ_CASE"].flatMap({ UInt64($0) }) {
            let fuzzCase = FuzzCase(seed: seed)
            print(fuzzCase.describe())
            _ = try fuzzCase.check()
            return
        }
        var multiRowStatements = 0
        var failures = 0
        for _ in 0..<Self.cases {
            let outcome = try FuzzCase(seed: random.next()).check()
            multiRowStatements += outcome.multiRowStatements
            if !outcome.same { failures += 1 }
            if failures >= 3 { break }  // enough to read
        }
        // The multi-row path must have run (about half the cases' tables and rows allow it).
        #expect(multiRowStatements > Self.cases / 2)
    }

    /// Cases per run: 30, about 2.3 s of CPU (each run draws new ones from the clock; 5,000 were
    /// run when it landed); `SEEDKIT_FUZZ_CASES` asks for more (a longer hunt).
    static let cases = ProcessInfo.processInfo.environment["SEEDKIT_FUZZ_CASES"].flatMap { Int($0) } ?? 30
}

/// Flags n above 900, as a manifest rule would: errors found while rows are read, between those a write finds.
private struct FuzzValidator: RowValidator {
    func validate(table: String, values: [(column: String, value: SQLValue)], file: String, line: Int) -> [Diagnostic] {
        guard table == "t", let value = values.first(where: { $0.column.lowercased() == "n" })?.value,
            case .integer(let n) = value, n > 900
        else { return [] }
        return [
            Diagnostic(
                file: file, line: line, code: .numberTooLarge, message: "n \(n) is more than the maximum 900",
                table: table)
        ]
    }
}

/// One random schema, store and run of migrations.
private struct FuzzCase {
    let seed: UInt64
    var schema = ""
    var seedSQL = ""
    var specs: [TableSpec] = []
    var migrations: [(String, String)] = []
    var onConflict = ConflictPolicy.keep
    var eventsPerKind: Int? = 20
    var dryRun = false
    var validates = false

    // The table's shape.
    private var composite = false
    private var columns: Set<String> = []
    private var notNull: Set<String> = []
    private var keyPool = 0
    /// Per mille of rows that break something (a NULL where NOT NULL, a CHECK, a type, a missing parent), and that leave a column out.
    private var faults: UInt64 = 0
    private var omissions: UInt64 = 0
    private var collisions: UInt64 = 0
    private var nextKey = 0

    init(seed: UInt64) {
        self.seed = seed
        var random = SeededRandom(seed: seed)
        build(&random)
    }

    func describe() -> String {
        "case \(seed): faults \(faults)‰, collisions \(collisions)‰, omissions \(omissions)‰, onConflict \(onConflict), eventsPerKind \(eventsPerKind.map(String.init) ?? "all"), dryRun \(dryRun), validator \(validates)\n"
            + "schema:\n\(schema)\nseed:\n\(seedSQL)\nspecs: \(specs)\n"
            + migrations.map { "\($0.0):\n\($0.1.prefix(3_000))" }.joined(separator: "\n")
    }

    /// Runs both ways and records a difference as a test issue naming the case.
    func check() throws -> (same: Bool, multiRowStatements: Int) {
        let base = try multiRowStore(schema: schema, seed: seedSQL, coreData: false)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let loaded = try migrations.map { try loadMigration(json: $0.1, fileName: $0.0) }
        let configure: (inout SeedMigrator.Options) -> Void = { options in
            options.onConflict = onConflict
            options.eventsPerKind = eventsPerKind
            if validates { options.validator = FuzzValidator() }
        }
        let single = try multiRowRun(
            base, specs: specs, migrations: loaded, multiRow: false, dryRun: dryRun, configure: configure)
        let multi = try multiRowRun(
            base, specs: specs, migrations: loaded, multiRow: true, dryRun: dryRun, configure: configure)
        if ProcessInfo.processInfo.environment["SEEDKIT_FUZZ_VERBOSE"] != nil {
            print("case \(seed) faults \(faults): \(multi.multiRowStatements) multi-row INSERTs; \(multi.report)")
        }
        var same = true
        func differs(_ what: String, _ a: String, _ b: String) {
            same = false
            let at = zip(a, b).prefix { $0 == $1 }.count
            let context = { (text: String) in String(text.dropFirst(max(0, at - 300)).prefix(800)) }
            Issue.record(
                "\(what) differ (SEEDKIT_FUZZ_CASE=\(seed))\none by one: …\(context(a))\nmulti-row:  …\(context(b))\n\(describe())"
            )
        }
        expectEqual(single.multiRowStatements, 0)
        if single.report != multi.report { differs("reports", single.report, multi.report) }
        if single.tables != multi.tables {
            let a = single.tables.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.joined(separator: "\n"))" }
                .joined(separator: "\n")
            let b = multi.tables.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.joined(separator: "\n"))" }
                .joined(separator: "\n")
            differs("rows", a, b)
        }
        if same, single.bytes != multi.bytes {
            same = false
            Issue.record("the store files differ (SEEDKIT_FUZZ_CASE=\(seed))\n\(describe())")
        }
        return (same, multi.multiRowStatements)
    }

    // MARK: - Generating

    private mutating func build(_ random: inout SeededRandom) {
        func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }
        let strict = chance(20)
        let withoutRowID = chance(15)
        composite = chance(20)
        let nocaseColumn = !composite && chance(15)
        let keyColumns = composite ? ["k", "k2"] : ["k"]
        // How the key is unique: the one-row path skips a present key in the INSERT only for an exact, whole UNIQUE index.
        enum KeyIndex { case inline, index, primaryKey, nocaseIndex, partial, expression }
        let keyIndex: KeyIndex =
            withoutRowID
            ? .primaryKey : random.pick([.inline, .inline, .index, .primaryKey, .nocaseIndex, .partial, .expression])
        var lines: [String] = []
        var after: [String] = []
        if !withoutRowID {
            switch random.next() % 3 {
            case 0: lines.append("id INTEGER PRIMARY KEY")
            case 1: lines.append("id INTEGER PRIMARY KEY AUTOINCREMENT")
            default: break  // the rowid alone
            }
        }
        let hasIntegerPK = lines.first?.hasPrefix("id INTEGER PRIMARY KEY") == true
        let keyNotNull = withoutRowID || chance(70) ? " NOT NULL" : ""
        lines.append(
            "k TEXT\(keyNotNull)\(nocaseColumn ? " COLLATE NOCASE" : "")\(keyIndex == .inline && !composite ? " UNIQUE" : "")"
        )
        if composite { lines.append("k2 INTEGER\(keyNotNull)") }
        let keyList = keyColumns.joined(separator: ", ")
        switch keyIndex {
        case .inline: if composite { lines.append("__UNIQUE (\(keyList))") }
        case .index: after.append("CREATE UNIQUE INDEX t_key ON t (\(keyList));")
        case .primaryKey:
            if hasIntegerPK {
                after.append("CREATE UNIQUE INDEX t_key ON t (\(keyList));")
            } else {
                lines.append("__PRIMARY KEY (\(keyList))")
            }
        case .nocaseIndex: after.append("CREATE UNIQUE INDEX t_key ON t (k COLLATE NOCASE\(composite ? ", k2" : ""));")
        case .partial: after.append("CREATE UNIQUE INDEX t_key ON t (\(keyList)) WHERE k <> 'k3';")
        case .expression: after.append("CREATE UNIQUE INDEX t_key ON t (lower(k)\(composite ? ", k2" : ""));")
        }
        columns = Set(keyColumns)
        func add(_ name: String, _ definition: String, notNull isNotNull: Bool = false) {
            columns.insert(name)
            if isNotNull { notNull.insert(name) }
            lines.insert("\(name) \(definition)", at: lines.firstIndex { $0.hasPrefix("__") } ?? lines.count)
        }
        let nNotNull = chance(50)
        add("n", "INTEGER" + (nNotNull ? " NOT NULL" : ""), notNull: nNotNull)
        if chance(60) { add("r", "REAL CHECK (r >= 0)") }
        if chance(40) { add("u", "TEXT UNIQUE") }
        if chance(30) {
            add("pu", "INTEGER")
            after.append("CREATE UNIQUE INDEX t_pu ON t (pu) WHERE pu > 0;")
        }
        if chance(30) {
            add("lu", "TEXT")
            after.append("CREATE UNIQUE INDEX t_lu ON t (lower(lu));")
        }
        if chance(60) {
            let dNotNull = chance(50)
            add("d", "TEXT" + (dNotNull ? " NOT NULL" : "") + (chance(70) ? " DEFAULT 'dflt'" : ""), notNull: dNotNull)
        }
        if chance(40) { add("b", "BLOB") }
        if chance(50) { add("a", strict ? "ANY" : "") }
        if !strict, chance(40) { add("num", "NUMERIC") }
        if chance(50) { add("t", "TEXT CHECK (length(t) < 5000)") }
        if chance(30) {
            lines.insert(
                "g INTEGER GENERATED ALWAYS AS (n * 2) \(chance(50) ? "STORED" : "VIRTUAL")",
                at: lines.firstIndex { $0.hasPrefix("__") } ?? lines.count)
        }
        let refs = chance(50)
        if refs { add("pid", "INTEGER REFERENCES p (id)") }
        // Now and then a file over 1 MiB, which the run reads in chunks while it applies them.
        let big = chance(4)
        if big { add("pad", "TEXT") }
        // Now and then what keeps rows one by one: a trigger, a self-reference, a conflict clause.
        var selfRef = false
        switch random.next() % 12 {
        case 0:
            after.append(
                "CREATE TABLE log (what TEXT); CREATE TRIGGER t_log AFTER INSERT ON t BEGIN INSERT INTO log VALUES ('added ' || NEW.k); END;"
            )
        case 1 where !composite && (keyIndex == .inline || keyIndex == .index || keyIndex == .primaryKey):
            add("boss", "TEXT REFERENCES t (k)")
            selfRef = true
        case 2 where columns.contains("u"):
            lines = lines.map {
                $0 == "u TEXT UNIQUE" ? "u TEXT UNIQUE ON CONFLICT \(random.pick(["IGNORE", "FAIL", "ABORT"]))" : $0
            }
        default: break
        }
        let body = lines.map { $0.hasPrefix("__") ? String($0.dropFirst(2)) : $0 }.joined(separator: ",\n    ")
        schema =
            "CREATE TABLE p (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);\n"
            + "CREATE TABLE t (\n    \(body)\n)\(withoutRowID ? " WITHOUT ROWID" : "")\(strict ? (withoutRowID ? ", STRICT" : " STRICT") : "");\n"
            + after.joined(separator: "\n")
        // A child of t, whose rows may wait for t's rows.
        let child = !composite && (keyIndex == .inline || keyIndex == .index || keyIndex == .primaryKey) && chance(30)
        if child {
            schema += "\nCREATE TABLE c (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, tk TEXT REFERENCES t (k));"
        }

        var tRefs: [String: TableSpec.Reference] = [:]
        if refs { tRefs["pid"] = .init(table: "p", column: "name") }
        if selfRef { tRefs["boss"] = .init(table: "t", column: "k") }
        var defaults: [String: SQLValue] = [:]
        if columns.contains("d"), chance(30) { defaults["d"] = .text("from the spec") }
        specs = [
            TableSpec(name: "p", key: ["name"]), TableSpec(name: "t", key: keyColumns, refs: tRefs, defaults: defaults),
        ]
        if child { specs.append(TableSpec(name: "c", key: ["name"], refs: ["tk": .init(table: "t", column: "k")])) }

        faults = random.pick([0, 0, 0, 1, 3, 10])
        omissions = random.pick([0, 0, 10, 50])
        collisions = random.pick([0, 5, 20, 100, 300])
        // The store: parents P0-P4, and some of the keys the migrations insert (the user's rows).
        let rows = big ? 1_100 + Int(random.next() % 200) : 40 + Int(random.next() % 261)
        keyPool = rows + rows / 4
        seedSQL = "INSERT INTO p (name) VALUES ('P0'), ('P1'), ('P2'), ('P3'), ('P4');\n"
        var seedRows: [String] = []
        for _ in 0..<Int(random.next() % 8) {
            let number = Int(random.next() % UInt64(keyPool))
            var names = ["k"]
            var values = ["'\(chance(20) ? "K" : "k")\(number)'"]
            if composite {
                names.append("k2")
                values.append("\(number % 3)")
            }
            names.append("n")
            values.append("\(number)")
            if columns.contains("d") {
                names.append("d")
                values.append("'user'")
            }
            seedRows.append(
                "INSERT OR IGNORE INTO t (\(names.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")));"
            )
        }
        seedSQL += seedRows.joined(separator: "\n")
        nextKey = Int(random.next() % UInt64(keyPool / 4))

        // The migrations.
        func insert(_ table: String, _ rows: [String]) -> String {
            "\"\(table)\": [\n" + rows.joined(separator: ",\n") + "\n]"
        }
        var first: [String] = []
        if child, chance(50) {
            // Children first: they wait for their t rows (which are then written one by one).
            first.append(
                insert(
                    "c", (0..<5).map { "{\"name\": \"c\($0)\", \"tk\": \"k\(Int(random.next() % UInt64(keyPool)))\"}" })
            )
        }
        if refs, chance(30) { first.append(insert("p", ["{\"name\": \"P5\"}"])) }
        // A key appears once per map (docs/releases.md): a second batch of t rows joins the first.
        var rowsOfT = (0..<rows).map { _ in row(&random) }
        if chance(30) {
            rowsOfT += (0..<Int(random.next() % 40 + 1)).map { _ in row(&random) }
        }
        first.append(insert("t", rowsOfT))
        var operations = ["\"insert\": {\n" + first.joined(separator: ",\n") + "\n}"]
        var updates: [String] = []
        if chance(30), let change = keyed(&random) {
            updates.append(
                "{\"key\": \(change), \"from\": {\"n\": \(random.next() % 10)}, \"to\": {\"n\": 7}}")
        }
        if !composite, chance(30) {
            // Renames: to a key no row has yet, then one a later row of the run brings.
            let from = Int(random.next() % UInt64(keyPool))
            updates += [(from, keyPool * 2 + from), (from + 1, nextKey + 3)].map { from, to in
                "{\"key\": \"k\(from)\", \"from\": {\"k\": \"k\(from)\"}, \"to\": {\"k\": \"k\(to)\"}}"
            }
        }
        if !updates.isEmpty { operations.append("\"update\": {\"t\": [" + updates.joined(separator: ", ") + "]}") }
        if chance(20), let change = keyed(&random) {
            operations.append("\"delete\": {\"t\": [{\"key\": \(change), \"from\": {}}]}")
        }
        // JSON objects keep their order here: the run applies insert, update, delete as written.
        migrations = [("0001-first.json", "{" + operations.joined(separator: ",\n") + "}")]
        if chance(30) {
            migrations.append(
                (
                    "0002-sql.sql",
                    random.pick([
                        "INSERT OR IGNORE INTO p (name) VALUES ('P5');",
                        "UPDATE t SET n = n + 1 WHERE n IS NOT NULL AND n < 5;",
                        "CREATE TABLE extra (x);",
                    ])
                ))
        }
        if chance(50) {
            var later: [String] = []
            if refs, chance(50) { later.append(insert("p", ["{\"name\": \"P5\"}"])) }
            let more = (0..<(40 + Int(random.next() % 80))).map { _ in row(&random) }
            later.append(insert("t", more))
            if child, chance(50) {
                later.append(
                    insert(
                        "c",
                        (5..<10).map { "{\"name\": \"c\($0)\", \"tk\": \"k\(Int(random.next() % UInt64(keyPool)))\"}" })
                )
            }
            migrations.append(("0003-later.json", "{\"insert\": {\n" + later.joined(separator: ",\n") + "\n}}"))
        }
        onConflict = chance(25) ? .fail : .keep
        eventsPerKind = random.pick([nil, 20, 3])
        dryRun = chance(15)
        validates = chance(30)
    }

    /// The key of a row some migration may insert, as an update or delete names it.
    private func keyed(_ random: inout SeededRandom) -> String? {
        let number = Int(random.next() % UInt64(keyPool))
        return composite ? "{\"k\": \"k\(number)\", \"k2\": \(number % 3)}" : "\"k\(number)\""
    }

    /// One row for t: mostly fine, now and then a key the store or an earlier row has, a NULL
    /// where NOT NULL, a CHECK or UNIQUE broken, a value of the wrong type, a missing parent.
    private mutating func row(_ random: inout SeededRandom) -> String {
        func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }
        /// A fault: `faults` per mille of rows.
        func fault() -> Bool { random.next() % 1_000 < faults }
        var fields: [String] = []
        // Mostly a new key; `collisions` per mille one the store or an earlier row may have.
        let number: Int
        if random.next() % 1_000 < collisions {
            number = Int(random.next() % UInt64(keyPool))
        } else {
            number = nextKey
            nextKey += 1
        }
        if fault() {
            if chance(50) { fields.append("\"k\": null") }  // else no key: an error either way
        } else {
            fields.append("\"k\": \"\(chance(3) ? "K" : "k")\(number)\"")  // the same key where the key ignores case
        }
        if composite { fields.append("\"k2\": \(fault() ? "null" : "\(number % 3)")") }
        let omitted = random.next() % 1_000 < omissions ? random.pick(["d", "d", "d", "n", "r", "b", "t", "a"]) : ""
        for column in ["n", "r", "u", "pu", "lu", "d", "b", "a", "num", "t", "pid", "boss", "pad"]
        where columns.contains(column) {
            // Leave a column out now and then (the rows' column lists differ; a DEFAULT fills it).
            if column == omitted { continue }
            let value: String
            switch column {
            case "n":
                switch random.next() % 100 {
                case 0...2 where fault(): value = "null"
                case 3 where fault(): value = "\"abc\""  // not an integer: an error as the row is read
                case 4...7 where fault(): value = "\(901 + random.next() % 50)"  // the validator's maximum
                case 8 where fault(): value = "\(Int64.max)"
                default: value = "\(random.next() % 900)"
                }
            case "r":
                switch random.next() % 10 {
                case 0 where fault(): value = "-1.5"  // the CHECK
                case 1: value = "3"  // an integer for a REAL column
                case 2: value = "1e300"
                default: value = "\(Double(random.next() % 10_000) / 8)"
                }
            case "u":
                value = chance(10) ? "null" : "\"u\(random.next() % UInt64((fault() ? keyPool : 1_000_000_000)))\""
            case "pu": value = "\(Int(random.next() % UInt64((fault() ? keyPool : 1_000_000_000))) - keyPool / 2)"
            case "lu":
                value = "\"\(chance(50) ? "L" : "l")\(random.next() % UInt64((fault() ? keyPool : 1_000_000_000)))\""
            case "d": value = fault() ? "null" : "\"d\(random.next() % 5)\""
            case "b":
                let bytes = (0..<Int(random.next() % (chance(10) ? 3_000 : 9))).map { _ in
                    UInt8(truncatingIfNeeded: random.next())
                }
                value = "\"\(Data(bytes).base64EncodedString())\""
            case "a":
                // (Text that is not a number is refused: seedkit reads a column declared ANY as NUMERIC.)
                value =
                    fault()
                    ? "\"text\""
                    : random.pick([
                        "1", "1.0", "2.5", "\"1\"", "null", "true", "-0.0", "\"\(random.next() % 100)\"",
                        "9007199254740993", "1e300",
                    ])
            case "num": value = random.pick(["12", "12.0", "12.5", "\"13\"", "\"13.0\"", "\"14.25\"", "null", "1e20"])
            case "t":
                switch random.next() % 10 {
                case 0: value = "\"é\\u0000after the NUL \(number)\""
                // 6,000 characters break the CHECK
                case 1: value = "\"\(String(repeating: "long text ", count: fault() ? 600 : 300))\""
                case 2: value = "\"\""
                case 3: value = "\"日本語 \\\"quoted\\\" \\n line\""
                default: value = "\"text \(random.next() % 1_000)\""
                }
            case "pid":  // P5 may come later, P6 never
                let parent: UInt64 = fault() ? 5 + random.next() % 2 : random.next() % 5
                value = "\"P\(parent)\""
            case "pad": value = "\"\(String(repeating: "padding ", count: 125))\""
            case "boss": value = chance(50) ? "null" : "\"k\(random.next() % UInt64(keyPool))\""
            default: continue
            }
            fields.append("\"\(column)\": \(value)")
        }
        return "{" + fields.joined(separator: ", ") + "}"
    }
}
