import Foundation
import GRDB
import SeedTestSupport
import SeedTooling
import Testing

/// Random release pairs with an oracle of their own (issue 41): BuildPropertyTests' random
/// schemas and fixtures are release 1.0; a random release of them (inserts, updates, deletes,
/// ref changes, key renames, some with `--rename`) → `new-migration --from` the 1.0 seed →
/// `check-upgrade` (no LOST, no DIVERGES) → `migrate` a copy of the 1.0 seed a simulated user
/// edited (rows added, values of seed rows changed) → the store read back by SQL written here
/// and compared with what the rules of docs/releases.md make of the three, computed here from
/// the release and the user's edits, not by seedkit: every seed row the user did not edit as
/// the release has it, the user's rows and values kept, each edit the release would have
/// overwritten reported as a conflict, each delete a user's row holds back as denied, each
/// insert a user's row holds the key of as already present.
///
/// A fresh build must read back as the release's fixtures, and a second `migrate` must change no
/// byte.
///
/// Each step calls the libraries as its command configures them (``LibraryRuns``), not a command
/// line parsed per step: the commands' contract has tests of its own (issue 43).
///
/// Seeded: `SEEDKIT_PROPERTY_SEED=N SEEDKIT_PROPERTY_CASES=1` replays the case a failure names.
@Suite struct ReleasePairPropertyTests {
    typealias Table = BuildPropertyTests.Table

    @Test func aMigratedStoreIsTheReleaseWithTheUsersEdits() throws {
        let cases = ProcessInfo.processInfo.environment["SEEDKIT_PROPERTY_CASES"].flatMap { Int($0) } ?? 40
        var tally = Tally()
        for index in 0..<cases {
            try Self.check(seed: BuildPropertyTests.baseSeed &+ 2_000_000 &+ UInt64(index), maxRows: 8, tally: &tally)
        }
        // The generator must reach what the property is about, or it proves nothing.
        if cases >= 40 { tally.expectReached() }
    }

    @Test(.tags(.slow)) func aMigratedStoreIsTheReleaseWithTheUsersEditsOverHundredsOfCases() throws {
        let cases = ProcessInfo.processInfo.environment["SEEDKIT_PROPERTY_CASES"].flatMap { Int($0) } ?? 400
        var tally = Tally()
        for index in 0..<cases {
            try Self.check(
                seed: BuildPropertyTests.baseSeed &+ 3_000_000 &+ UInt64(index), maxRows: 25, tally: &tally, slow: true)
        }
        if cases >= 40 { tally.expectReached() }
    }

    /// What the cases covered, summed: a generator that stopped making conflicts would pass silently.
    struct Tally {
        var cases = 0, conflicts = 0, denied = 0, present = 0, hinted = 0, renamed = 0, deleted = 0, updated = 0
        var inserted = 0
        /// Cases whose schema has a many-to-many table.
        var manyToMany = 0
        /// Seconds each command took, summed (`SEEDKIT_PROPERTY_TIMING=1` prints them).
        var seconds: [String: Double] = [:]

        mutating func timed<T>(_ command: String, _ body: () throws -> T) rethrows -> T {
            let start = Date()
            defer { seconds[command, default: 0] += Date().timeIntervalSince(start) }
            return try body()
        }

        func expectReached() {
            if ProcessInfo.processInfo.environment["SEEDKIT_PROPERTY_TIMING"] == "1" {
                print("ReleasePairPropertyTests: \(self)")
            }
            for (name, count) in [
                ("conflicts", conflicts), ("denied deletes", denied), ("inserts already present", present),
                ("--rename hints", hinted), ("renames without a hint", renamed), ("deletes", deleted),
                ("updates", updated), ("inserts", inserted), ("schemas with a many-to-many", manyToMany * 5),
            ] {
                #expect(count >= 5, "the cases made only \(count) \(name): \(self)")
            }
        }
    }

    // MARK: - The model: rows with identities, refs to identities

    /// A row: `key` is the natural key (a composite table's `tag`; its parent is `refs["parent"]`),
    /// refs name the parent row's identity, values are the fixture's text ("" is NULL).
    struct Row: Equatable {
        var id: Int
        var key: String
        var refs: [String: Int] = [:]
        var values: [String: String] = [:]
    }

    typealias Rows = [[Row]]

    /// One case.
    ///
    /// `slow`: the case is the slow test's (its own seed offset and bigger tables), for the replay
    /// line.
    static func check(seed: UInt64, maxRows: Int, tally: inout Tally, slow: Bool = false) throws {
        var random = SeededRandom(seed: seed)
        var tables = BuildPropertyTests.generate(&random, maxRows: maxRows)
        // A trigger that changes the rows a build writes fails the build (BuildPropertyTests covers
        // it); here the user's triggers only insert into the audit table.
        for index in tables.indices { tables[index].triggerChangesRows = false }
        let old = model(tables)
        var ids = (old.flatMap { $0 }.map(\.id).max() ?? 0) + 1
        let release = makeRelease(tables, old, &random, ids: &ids)
        let user = makeUserEdits(tables, old, release, &random, ids: &ids)
        // Each test runs case seed SEEDKIT_PROPERTY_SEED + its offset first.
        let test =
            slow
            ? "aMigratedStoreIsTheReleaseWithTheUsersEditsOverHundredsOfCases"
            : "aMigratedStoreIsTheReleaseWithTheUsersEdits\\("
        let replay =
            "SEEDKIT_PROPERTY_SEED=\(seed &- (slow ? 3_000_000 : 2_000_000)) SEEDKIT_PROPERTY_CASES=1 swift test --filter '\(test)' (case seed \(seed))"

        let project = try TemporaryProject(bookStore: false)
        let seedkit = LibraryRuns(project: project)
        try project.write("seeds/schema.sql", BuildPropertyTests.schema(tables))
        try project.write("seeds/seedkit.yml", BuildPropertyTests.manifest(tables))
        try writeFixtures(tables, old, project, &random)
        _ = try tally.timed("build 1.0") {
            try required(replay) { try seedkit.build(output: "seeds/releases/1.0.sqlite") }
        }
        try writeFixtures(tables, release.rows, project, &random)
        let generated = try tally.timed("new-migration") {
            try required(replay) {
                try seedkit.newMigration("release", from: "seeds/releases/1.0.sqlite", renames: release.hints)
            }
        }
        let context = "\(replay)\n\(BuildPropertyTests.schema(tables))\(generated)\(migrationText(project))"
        tally.timed("check-upgrade") {
            do {
                let check = try seedkit.checkUpgrade("seeds/releases/1.0.sqlite")
                // check-upgrade's exit 0: no seed refused (3), none diverging or losing an edit (1).
                #expect(
                    !check.outcomes.contains(where: \.refused) && check.outcomes.allSatisfy(\.passed)
                        && !check.text.contains("LOST") && !check.text.contains("DIVERGES"),
                    "\(context)\n\(check.text)")
            } catch { Issue.record("\(context)\ncheck-upgrade: \(error)") }
        }

        // A fresh build reads back as the release's fixtures.
        _ = try tally.timed("build") { try required(context) { try seedkit.build() } }
        try expectStore(
            project.path("build/seed.sqlite"), holds: render(tables, release.rows), tables, "\(context)\nfresh build")

        // The user's store: the 1.0 seed with their edits, migrated.
        try FileManager.default.copyItem(
            atPath: project.path("seeds/releases/1.0.sqlite"), toPath: project.path("user.sqlite"))
        try applyUserEdits(user, tables, old, to: project.path("user.sqlite"))
        let migrated = try tally.timed("migrate") {
            try required(context) { try seedkit.migrate("user.sqlite", verbose: true, format: .json) }
        }
        let outcome = expectedOutcome(tables, old: old, release: release, user: user)
        try expectStore(
            project.path("user.sqlite"), holds: render(tables, outcome.rows), tables, "\(context)\nmigrated store")
        let reported = try events(migrated)
        for kind in ["conflict", "delete-denied", "already-present"] {
            #expect(
                reported[kind, default: []] == outcome.events[kind, default: []],
                "\(context)\n\(kind) events: reported \(reported[kind, default: []].sorted()), expected \(outcome.events[kind, default: []].sorted())\n\(migrated)"
            )
        }
        // A second run finds nothing to do and writes nothing.
        let before = project.sha256("user.sqlite")
        tally.timed("migrate again") {
            do { _ = try seedkit.migrate("user.sqlite") } catch { Issue.record("\(context)\nmigrate again: \(error)") }
        }
        #expect(project.sha256("user.sqlite") == before, "\(context)\na second migrate changed the store")

        tally.cases += 1
        if tables.contains(where: { $0.keyKind == .join }) { tally.manyToMany += 1 }
        tally.conflicts += outcome.events["conflict", default: []].count
        tally.denied += outcome.events["delete-denied", default: []].count
        tally.present += outcome.events["already-present", default: []].count
        tally.hinted += release.hints.count
        tally.renamed += release.unhinted
        let oldIDs = Set(old.flatMap { $0 }.map(\.id))
        let newIDs = Set(release.rows.flatMap { $0 }.map(\.id))
        tally.deleted += oldIDs.subtracting(newIDs).count
        tally.inserted += newIDs.subtracting(oldIDs).count
        let oldRows = Dictionary(uniqueKeysWithValues: old.flatMap { $0 }.map { ($0.id, $0) })
        tally.updated += release.rows.flatMap { $0 }.filter { row in oldRows[row.id].map { $0 != row } ?? false }.count
    }

    /// `body`'s result; what it throws is recorded with `context` (the case's replay line) and ends the case.
    static func required<T>(_ context: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch {
            Issue.record("\(context)\n\(error)")
            throw error
        }
    }

    static func migrationText(_ project: TemporaryProject) -> String {
        project.listing("migrations").compactMap { name in
            project.read("migrations/\(name)").map { "--- \(name)\n" + String(decoding: $0, as: UTF8.self) }
        }.joined()
    }

    /// The store at `path` read back by BuildPropertyTests' SQL, table by table, against `expected`.
    static func expectStore(
        _ path: String, holds expected: [[String: [String: String]]], _ tables: [Table], _ context: String
    )
        throws
    {
        let queue = try DatabaseQueue(path: path)
        try queue.read { db in
            for (index, table) in tables.enumerated() {
                let held = try BuildPropertyTests.readBack(table, tables: tables, db: db)
                let want = expected[index]
                for key in Set(held.keys).union(want.keys).sorted() where held[key] != want[key] {
                    Issue.record(
                        "\(context): \(table.name) \(key): holds \(held[key].map { "\($0.sorted { $0.key < $1.key })" } ?? "no row"), expected \(want[key].map { "\($0.sorted { $0.key < $1.key })" } ?? "no row")"
                    )
                }
            }
        }
    }

    /// migrate's JSON report: each event kind → its rows, `table key` (a composite key `parent|tag`).
    static func events(_ json: String) throws -> [String: Set<String>] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        var events: [String: Set<String>] = [:]
        for migration in document["migrations"] as? [[String: Any]] ?? [] {
            for event in migration["events"] as? [[String: Any]] ?? [] {
                guard let kind = event["kind"] as? String, let table = event["table"] as? String,
                    let key = event["key"] as? [String: Any]
                else { continue }
                func text(_ value: Any?) -> String {
                    if let parent = value as? [String: Any] { return text(parent["key"]) }
                    if let number = value as? NSNumber { return "\(number.int64Value)" }
                    return value as? String ?? "?"
                }
                let rendered =
                    key["tag"] != nil
                    ? "\(text(key["parent"]))|\(text(key["tag"]))"
                    : key["lhs"] != nil ? "\(text(key["lhs"]))|\(text(key["rhs"]))" : text(key.values.first)
                events[kind, default: []].insert("\(table) \(rendered)")
            }
        }
        return events
    }
}

// MARK: - Model ↔ fixtures

extension ReleasePairPropertyTests {
    /// BuildPropertyTests' generated rows as rows with identities.
    static func model(_ tables: [Table]) -> Rows {
        var next = 0
        var rows: Rows = tables.map { table in
            table.rows.enumerated().map { index, fields in
                next += 1
                var values: [String: String] = [:]
                for value in table.values { values[value.column] = fields[value.column] ?? "" }
                return Row(
                    id: next, key: table.keyKind == .composite ? fields["tag"] ?? "" : table.keys[index],
                    values: values
                )
            }
        }
        for (index, table) in tables.enumerated() {
            for row in rows[index].indices {
                for ref in table.refs {
                    let given = table.rows[row][ref.column] ?? ""
                    guard !given.isEmpty else { continue }
                    let parent = tables[ref.parent]
                    rows[index][row].refs[ref.column] =
                        rows[ref.parent].first { unique(parent, $0.key) == unique(parent, given) }?.id
                }
            }
        }
        return rows
    }

    /// A key as the table's UNIQUE compares it (NOCASE folds ASCII letters).
    static func unique(_ table: Table, _ key: String) -> String {
        table.nocase ? BuildPropertyTests.asciiUppercased(key) : key
    }

    /// `rows` as BuildPropertyTests' tables: fixture fields, refs as the parent's key.
    static func tables(_ schema: [Table], _ rows: Rows, spelling: (Table, String) -> String = { $1 }) -> [Table] {
        var byID: [Int: (table: Int, row: Row)] = [:]
        for (index, table) in rows.enumerated() { for row in table { byID[row.id] = (index, row) } }
        var tables = schema
        for index in tables.indices {
            tables[index].keys = rows[index].map(\.key)
            tables[index].rows = rows[index].map { row in
                var fields = row.values
                if tables[index].keyKind == .composite { fields["tag"] = row.key }
                for ref in tables[index].refs {
                    fields[ref.column] =
                        row.refs[ref.column].flatMap { byID[$0] }.map { spelling(schema[$0.table], $0.row.key) } ?? ""
                }
                return fields
            }
        }
        return tables
    }

    static func render(_ schema: [Table], _ rows: Rows) -> [[String: [String: String]]] {
        let tables = tables(schema, rows)
        return tables.map { BuildPropertyTests.expected($0, tables: tables) }
    }

    /// Writes `rows` as the fixtures; a ref to a NOCASE key is sometimes spelled in capitals.
    static func writeFixtures(
        _ schema: [Table], _ rows: Rows, _ project: TemporaryProject, _ random: inout SeededRandom
    )
        throws
    {
        let draws = (0..<64).map { _ in random.next() % 2 == 0 }
        var index = 0
        let tables = tables(schema, rows) { parent, key in
            index += 1
            return parent.nocase && draws[index % draws.count] ? BuildPropertyTests.asciiUppercased(key) : key
        }
        for table in tables { try project.write("seeds/data/\(table.name).csv", BuildPropertyTests.csv(table)) }
    }
}
