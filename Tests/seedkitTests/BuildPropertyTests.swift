import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import SeedTooling
import Testing

/// Random schemas × random fixtures → `seedkit build` → the seed read back by SQL written here
/// (joins render refs as the parent's key, not seedkit's readers) → equal to the fixtures
/// (issue 41).
///
/// The build is SeedBuilder's, as the command configures it (``LibraryRuns``): the command's
/// contract has tests of its own (issue 43).
///
/// Seeded: `SEEDKIT_PROPERTY_SEED=N` replays one run, `SEEDKIT_PROPERTY_CASES=N` runs more or fewer
/// cases; a failure names its case's seed.
@Suite struct BuildPropertyTests {
    /// One table of a random schema.
    struct Table {
        var name: String
        /// The key: `code` (TEXT, maybe NOCASE), or `num` (INTEGER), or `[parent ref, tag]`, or a
        /// many-to-many's `[lhs ref, rhs ref]`.
        var keyKind: KeyKind
        var nocase: Bool
        /// Ref columns: (column, parent table index, nullable).
        var refs: [(column: String, parent: Int, nullable: Bool)]
        /// Value columns: (column, declared type).
        var values: [(column: String, type: String)]
        var rows: [[String: String]] = []
        /// The key value each row holds as the seed stores it (what a ref to it reads back as).
        var keys: [String] = []
        var triggerChangesRows = false
    }

    enum KeyKind { case text, integer, composite, join }

    /// The refs that are part of the key.
    static func keyRefs(_ table: Table) -> [String] {
        switch table.keyKind {
        case .composite: return ["parent"]
        case .join: return ["lhs", "rhs"]
        default: return []
        }
    }

    static var defaultCases: Int {
        ProcessInfo.processInfo.environment["SEEDKIT_PROPERTY_CASES"].flatMap { Int($0) } ?? 200
    }
    static var baseSeed: UInt64 {
        ProcessInfo.processInfo.environment["SEEDKIT_PROPERTY_SEED"].flatMap { UInt64($0) } ?? 41
    }

    @Test func aBuiltSeedReadsBackAsItsFixtures() throws {
        for index in 0..<Self.defaultCases {
            try Self.check(seed: Self.baseSeed &+ UInt64(index), maxRows: 12)
        }
    }

    @Test(.tags(.slow)) func aBuiltSeedReadsBackAsItsFixturesOverThousandsOfCases() throws {
        let cases = ProcessInfo.processInfo.environment["SEEDKIT_PROPERTY_CASES"].flatMap { Int($0) } ?? 2000
        for index in 0..<cases {
            try Self.check(seed: Self.baseSeed &+ 1_000_000 &+ UInt64(index), maxRows: 40)
        }
    }

    // MARK: - One case

    static func check(seed: UInt64, maxRows: Int) throws {
        var random = SeededRandom(seed: seed)
        let tables = generate(&random, maxRows: maxRows)
        let project = try TemporaryProject(bookStore: false)
        try project.write("seeds/schema.sql", schema(tables))
        try project.write("seeds/seedkit.yml", manifest(tables))
        for table in tables { try project.write("seeds/data/\(table.name).csv", csv(table)) }
        // Every other case without the build's own read-back: then only the SQL here judges the seed.
        let changesRows = tables.contains { $0.triggerChangesRows && !$0.rows.isEmpty }
        // `build --migrations none [--without-read-back]`, through the library (``LibraryRuns``).
        let replay = "SEEDKIT_PROPERTY_SEED=\(seed) SEEDKIT_PROPERTY_CASES=1 (case seed \(seed))"
        let built: Result<SeedBuilder.Summary, any Error> = Result {
            try LibraryRuns(project: project).build(withMigrations: false, readsBack: seed % 2 == 0 || changesRows)
        }
        if changesRows {
            // A trigger that changes the rows a build inserts: the read-back fails the build (exit 4).
            guard case .failure(let error) = built, let error = error as? SeedError else {
                Issue.record("\(replay): the build did not fail with a SeedError: \(built)")
                return
            }
            #expect(error.exitCode == 4, "\(replay)\n\(error)")
            #expect(error.description.contains("differs from the fixture"), "\(replay)\n\(error)")
            #expect(!project.exists("build/seed.sqlite"), "\(replay)")
            return
        }
        if case .failure(let error) = built {
            Issue.record("\(replay)\n\(schema(tables))\n\(error)")
            throw error
        }
        let queue = try DatabaseQueue(path: project.path("build/seed.sqlite"))
        try queue.read { db in
            for table in tables {
                let seedRows = try readBack(table, tables: tables, db: db)
                let fixtureRows = expected(table, tables: tables)
                #expect(seedRows.count == fixtureRows.count, "\(replay) \(table.name): row count")
                for (key, row) in fixtureRows {
                    guard let held = seedRows[key] else {
                        Issue.record("\(replay) \(table.name): row \(key) is not in the seed")
                        continue
                    }
                    #expect(held == row, "\(replay) \(table.name) row \(key)")
                }
            }
        }
    }

    /// The seed's rows of `table` by their key, read by SQL written here: refs through joins.
    static func readBack(_ table: Table, tables: [Table], db: Database) throws -> [String: [String: String]] {
        var columns = ["t.id AS _id"]
        var joins: [String] = []
        if table.keyKind == .composite {
            columns.append("t.tag AS tag")
        } else if table.keyKind != .join {
            columns.append("t.\(keyColumn(table))")
        }
        for (index, ref) in table.refs.enumerated() {
            let parent = tables[ref.parent]
            joins.append("LEFT JOIN \(parent.name) AS p\(index) ON p\(index).id = t.\(ref.column)")
            columns.append("p\(index).\(keyColumn(parent)) AS \(ref.column)")
        }
        columns += table.values.map { "t.\($0.column)" }
        var rows: [String: [String: String]] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT \(columns.joined(separator: ", ")) FROM \(table.name) AS t \(joins.joined(separator: " "))"
        ) {
            var values: [String: String] = [:]
            for column in row.columnNames where column != "_id" {
                values[column] = render(row[column] as DatabaseValue)
            }
            rows[key(of: values, table)] = values
        }
        return rows
    }

    /// The fixture's rows as the seed should hold them: typed by the column, refs as the parent's stored key.
    static func expected(_ table: Table, tables: [Table]) -> [String: [String: String]] {
        var rows: [String: [String: String]] = [:]
        for (index, fixture) in table.rows.enumerated() {
            var values: [String: String] = [:]
            if table.keyKind == .composite {
                values["tag"] = "text:" + (fixture["tag"] ?? "")
            } else if table.keyKind != .join {
                values[keyColumn(table)] = typed(
                    table.keys[index], type: table.keyKind == .integer ? "INTEGER" : "TEXT")
            }
            for ref in table.refs {
                let given = fixture[ref.column] ?? ""
                // A ref names the parent's key as the fixture writes it (any case for NOCASE): it reads back as stored.
                let parent = tables[ref.parent]
                let stored = parent.keys.first {
                    parent.nocase ? asciiUppercased($0) == asciiUppercased(given) : $0 == given
                }
                values[ref.column] =
                    given.isEmpty
                    ? "NULL" : typed(stored ?? "?", type: parent.keyKind == .integer ? "INTEGER" : "TEXT")
            }
            for value in table.values { values[value.column] = typed(fixture[value.column] ?? "", type: value.type) }
            rows[key(of: values, table)] = values
        }
        return rows
    }

    static func key(of values: [String: String], _ table: Table) -> String {
        switch table.keyKind {
        case .composite: return "\(values[table.refs[0].column] ?? "")|\(values["tag"] ?? "")"
        case .join: return "\(values["lhs"] ?? "")|\(values["rhs"] ?? "")"
        default: return values[keyColumn(table)] ?? ""
        }
    }

    static func keyColumn(_ table: Table) -> String { table.keyKind == .integer ? "num" : "code" }

    /// A CSV field as the seed should hold it (an empty field is NULL).
    static func typed(_ text: String, type: String) -> String {
        if text.isEmpty { return "NULL" }
        switch type {
        case "INTEGER": return Int64(text).map { "integer:\($0)" } ?? "?\(text)"
        case "REAL": return Double(text).map { "real:\($0)" } ?? "?\(text)"
        default: return "text:" + text  // TEXT, and an untyped column: a CSV field is text
        }
    }

    static func render(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "NULL"
        case .int64(let int): return "integer:\(int)"
        case .double(let double): return "real:\(double)"
        case .string(let text): return "text:" + text
        case .blob(let data): return "blob:\(data.count)"
        }
    }

    // MARK: - Generating

    static let words = [
        "alpha", "Brontë", "café", "日本語", "quote\"d", "comma, inside", "plain", "x", "Zeta", "two words",
    ]

    static func generate(_ random: inout SeededRandom, maxRows: Int) -> [Table] {
        let count = 1 + Int(random.next() % 3)
        var tables: [Table] = []
        for index in 0..<count {
            var keyKind: KeyKind = random.pick([.text, .text, .integer])
            // A composite key [parent ref, tag] needs a parent: an earlier table; a many-to-many two.
            if index > 0 && random.next() % 4 == 0 { keyKind = random.next() % 3 == 0 ? .join : .composite }
            var refs: [(String, Int, Bool)] = []
            if keyKind == .composite { refs.append(("parent", Int(random.next() % UInt64(index)), false)) }
            if keyKind == .join {
                refs.append(("lhs", Int(random.next() % UInt64(index)), false))
                refs.append(("rhs", Int(random.next() % UInt64(index)), false))
            }
            for number in 0..<(keyKind == .join ? 0 : Int(random.next() % 3)) {
                // Any table, this one and later ones included: nullable (cycles go through these).
                refs.append(("ref\(number)", Int(random.next() % UInt64(count)), true))
            }
            if index > 0 && keyKind != .join && random.next() % 2 == 0 {
                refs.append(("up", Int(random.next() % UInt64(index)), false))  // NOT NULL, to an earlier table
            }
            // A composite-keyed table is never a ref's parent: refs to it are retargeted.
            let triggerChangesRows = random.next() % 25 == 0
            // A trigger that changes rows changes v0, a TEXT column.
            let values = (0..<Int(random.next() % 4) + (triggerChangesRows ? 1 : 0)).map { number in
                (
                    "v\(number)",
                    triggerChangesRows && number == 0 ? "TEXT" : random.pick(["TEXT", "INTEGER", "REAL", ""])
                )
            }
            tables.append(
                Table(
                    name: "t\(index)", keyKind: keyKind, nocase: keyKind == .text && random.next() % 3 == 0,
                    refs: refs, values: values, triggerChangesRows: triggerChangesRows))
        }
        // Refs only to tables with a single key column.
        for index in tables.indices {
            for ref in tables[index].refs.indices
            where [.composite, .join].contains(tables[tables[index].refs[ref].parent].keyKind) {
                tables[index].refs[ref].parent = 0
            }
        }
        // Keys first (refs name them), then rows. A table with a NOT NULL ref to a table without
        // rows can have none either.
        var counts = tables.map { _ in Int(random.next() % UInt64(maxRows + 1)) }
        var changed = true
        while changed {
            changed = false
            for index in tables.indices
            where counts[index] > 0 && tables[index].refs.contains(where: { !$0.nullable && counts[$0.parent] == 0 }) {
                counts[index] = 0
                changed = true
            }
        }
        for index in tables.indices {
            let rows = counts[index]
            var seen = Set<String>()
            while tables[index].keys.count < rows {
                let key: String
                switch tables[index].keyKind {
                case .integer: key = String(Int64(random.next() % 2_000_000) - 1_000_000)
                default:
                    key = random.pick(words).replacingOccurrences(of: " ", with: "_") + String(random.next() % 1000)
                }
                let unique = tables[index].nocase ? asciiUppercased(key) : key
                if seen.insert(unique).inserted { tables[index].keys.append(key) }
            }
        }
        for index in tables.indices {
            var tags = Set<String>()
            for (row, key) in tables[index].keys.enumerated() {
                var fields: [String: String] = [:]
                if tables[index].keyKind == .composite { fields["tag"] = key }
                for ref in tables[index].refs {
                    let parent = tables[ref.parent]
                    let canRefer = !parent.keys.isEmpty && !(ref.parent == index && parent.keys.count == 0)
                    if !canRefer || (ref.nullable && random.next() % 4 == 0) {
                        fields[ref.column] = ""
                        continue
                    }
                    var given = random.pick(parent.keys)
                    if parent.nocase && random.next() % 2 == 0 { given = asciiUppercased(given) }
                    fields[ref.column] = given
                }
                if tables[index].keyKind == .composite {
                    let pair = "\(fields["parent"] ?? "")|\(key)"
                    if !tags.insert(pair).inserted { continue }
                }
                if tables[index].keyKind == .join {
                    let pair = "\(fields["lhs"] ?? "")|\(fields["rhs"] ?? "")"
                    // NOCASE parents: a pair spelled in other capitals is the same pair.
                    if !tags.insert(asciiUppercased(pair)).inserted { continue }
                }
                for value in tables[index].values {
                    if random.next() % 5 == 0 {
                        fields[value.column] = ""
                        continue
                    }
                    switch value.type {
                    case "INTEGER":
                        fields[value.column] = String(Int64(bitPattern: random.next()) >> Int(random.next() % 64))
                    case "REAL": fields[value.column] = String(format: "%.2f", Double(random.next() % 100_000) / 7)
                    default: fields[value.column] = random.pick(words) + (row % 2 == 0 ? "" : " \(row)")
                    }
                }
                tables[index].rows.append(fields)
            }
            // Rows whose composite key repeated were dropped: keys follow the rows.
            if tables[index].keyKind == .composite { tables[index].keys = tables[index].rows.map { $0["tag"] ?? "" } }
            if tables[index].keyKind == .join { tables[index].keys = tables[index].rows.map { _ in "" } }
        }
        return tables
    }

    static func schema(_ tables: [Table]) -> String {
        var sql = "CREATE TABLE audit (id INTEGER PRIMARY KEY, what TEXT);\n"
        for table in tables {
            var columns = ["id INTEGER PRIMARY KEY"]
            switch table.keyKind {
            case .text: columns.append("code TEXT NOT NULL UNIQUE\(table.nocase ? " COLLATE NOCASE" : "")")
            case .integer: columns.append("num INTEGER NOT NULL UNIQUE")
            case .composite: columns.append("tag TEXT NOT NULL")
            case .join: break
            }
            for ref in table.refs {
                columns.append(
                    "\(ref.column) INTEGER\(ref.nullable ? "" : " NOT NULL") REFERENCES \(tables[ref.parent].name)(id)")
            }
            columns += table.values.map { "\($0.column) \($0.type)" }
            if table.keyKind == .composite { columns.append("UNIQUE (\(table.refs[0].column), tag)") }
            if table.keyKind == .join { columns.append("UNIQUE (lhs, rhs)") }
            sql += "CREATE TABLE \(table.name) (\(columns.joined(separator: ", ")));\n"
            // A user's trigger: one that writes elsewhere is harmless; one that changes the row is not.
            sql +=
                "CREATE TRIGGER \(table.name)_audit AFTER INSERT ON \(table.name) BEGIN INSERT INTO audit (what) VALUES ('\(table.name)'); END;\n"
            if table.triggerChangesRows {
                sql +=
                    "CREATE TRIGGER \(table.name)_bump AFTER INSERT ON \(table.name) BEGIN UPDATE \(table.name) SET v0 = coalesce(v0, '') || '!' WHERE id = NEW.id; END;\n"
            }
        }
        return sql
    }

    static func manifest(_ tables: [Table]) -> String {
        var text = "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n"
        for table in tables {
            text += "  \(table.name):\n    file: data/\(table.name).csv\n"
            switch table.keyKind {
            case .composite: text += "    key: [\(table.refs[0].column), tag]\n"
            case .join: text += "    key: [lhs, rhs]\n"
            default: text += "    key: \(keyColumn(table))\n"
            }
            if !table.refs.isEmpty {
                let refs = table.refs.map { "\($0.column): \(tables[$0.parent].name).\(keyColumn(tables[$0.parent]))" }
                text += "    refs: { \(refs.joined(separator: ", ")) }\n"
            }
        }
        return text
    }

    static func csv(_ table: Table) -> String {
        var header: [String] = table.keyKind == .join ? [] : [table.keyKind == .composite ? "tag" : keyColumn(table)]
        header += table.refs.map(\.column)
        header += table.values.map(\.column)
        var text = header.joined(separator: ",") + "\n"
        for (index, row) in table.rows.enumerated() {
            var fields =
                table.keyKind == .join ? [] : [table.keyKind == .composite ? row["tag"] ?? "" : table.keys[index]]
            fields += table.refs.map { row[$0.column] ?? "" }
            fields += table.values.map { row[$0.column] ?? "" }
            text += fields.map(quoted).joined(separator: ",") + "\n"
        }
        return text
    }

    /// SQLite's NOCASE folds ASCII letters only.
    static func asciiUppercased(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append((97...122).contains(scalar.value) ? Unicode.Scalar(UInt8(scalar.value - 32)) : scalar)
        }
        return String(scalars)
    }

    static func quoted(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
