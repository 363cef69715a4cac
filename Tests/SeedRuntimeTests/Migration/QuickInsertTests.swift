import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

// Issue 23: rows of a big insert migration that need nothing special go the short way
// (MigrationRun+Quick.swift), with the facts of their shape worked out once, and refs to parents
// the run has found taken from what it remembers. Each test runs the same migrations with
// multi-row INSERTs (the short way) and without (every row through `insert`, one by one), requires
// the same outcome, and checks that outcome itself: a remembered parent id that outlived a
// rename or a delete, or a key taken as the wrong parent, shows in the rows either way.

private let schema = """
    CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
    CREATE TABLE books (id INTEGER PRIMARY KEY, isbn TEXT NOT NULL UNIQUE, title TEXT NOT NULL, price REAL,
                        category_id INTEGER NOT NULL REFERENCES categories(id));
    """
private let seed = "INSERT INTO categories (id, name) VALUES (1, 'Fiction'), (2, 'Biography'), (3, 'Drama');"
private let specs = [
    TableSpec(name: "categories", key: ["name"]),
    TableSpec(name: "books", key: ["isbn"], refs: ["category_id": .init(table: "categories", column: "name")]),
]

private func books(_ numbers: ClosedRange<Int>, category: (Int) -> String) -> String {
    "{\"insert\": {\"books\": ["
        + numbers.map {
            "{\"isbn\": \"\($0)\", \"title\": \"Book \($0)\", \"price\": 2.5, \"category_id\": \"\(category($0))\"}"
        }
        .joined(separator: ", ") + "]}}"
}

/// Runs `migrations` on a store of `schema` and `seed` both ways, requires the same outcome, and returns it.
private func bothWays(
    schema: String, seed: String, specs: [TableSpec], migrations: [(String, String)],
    configure: (inout SeedMigrator.Options) -> Void = { _ in },
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> MultiRowOutcome {
    let base = try multiRowStore(schema: schema, seed: seed, coreData: false)
    defer { try? FileManager.default.removeItem(atPath: base) }
    let loaded = try migrations.map { try loadMigration(json: $0.1, fileName: $0.0) }
    let single = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: false, configure: configure)
    let multi = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: true, configure: configure)
    #expect(multi.report == single.report, sourceLocation: sourceLocation)
    #expect(multi.tables == single.tables, sourceLocation: sourceLocation)
    #expect(multi.bytes == single.bytes, "the store files are byte for byte the same", sourceLocation: sourceLocation)
    #expect(multi.multiRowStatements > 0, "the rows went in by multi-row INSERTs", sourceLocation: sourceLocation)
    return multi
}

/// Each book's isbn and its category's name, from a run's rows (`rowid|id|isbn|title|price|category_id`).
private func categoriesByISBN(_ outcome: MultiRowOutcome) -> [String: String] {
    var names: [String: String] = [:]
    for row in outcome.tables["categories"] ?? [] {
        let fields = row.components(separatedBy: "|")
        names[fields[1]] = fields[2].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }
    var result: [String: String] = [:]
    for row in outcome.tables["books"] ?? [] {
        let fields = row.components(separatedBy: "|")
        result[fields[2].trimmingCharacters(in: CharacterSet(charactersIn: "\""))] =
            names[fields[5]] ?? "id \(fields[5])"
    }
    return result
}

/// Records every row a validator is asked about, in order.
private final class RecordingValidator: RowValidator, @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [String] = []
    func validate(table: String, values: [(column: String, value: SQLValue)], file: String, line: Int) -> [Diagnostic] {
        lock.withLock {
            seen.append("\(table) \(values.map { "\($0.column)=\($0.value)" }.joined(separator: ",")) \(file):\(line)")
        }
        guard case .real(let price)? = values.first(where: { $0.column.lowercased() == "price" })?.value, price > 100
        else { return [] }
        return [
            Diagnostic(
                file: file, line: line, code: .numberTooLarge, message: "price \(price) is more than the maximum 100",
                table: table)
        ]
    }
    var calls: [String] { lock.withLock { seen } }
}

@Suite struct QuickInsertTests {
    @Test func aParentRenamedOrDeletedBetweenMigrationsIsNotTakenFromMemory() throws {
        // 0001 names Fiction and Biography in 64 rows each (their ids are remembered); 0002 renames
        // Fiction to Novels and deletes Biography; 0003 names all three again, with the same columns.
        let first = books(1...128) { $0 % 2 == 0 ? "Fiction" : "Biography" }
        let second = """
            {"update": {"categories": [{"key": "Fiction", "from": {"name": "Fiction"}, "to": {"name": "Novels"}}]},
             "delete": {"categories": [{"key": "Biography", "from": {}}]}}
            """
        let third = books(200...299) { ["Fiction", "Novels", "Biography", "Drama"][$0 % 4] }
        // Biography is still referenced by 0001's books: its delete is denied, so it stays.
        let outcome = try bothWays(
            schema: schema, seed: seed, specs: specs,
            migrations: [("0001-books.json", first), ("0002-rename.json", second), ("0003-more.json", third)])
        let categories = categoriesByISBN(outcome)
        #expect(categories["2"] == "Novels" && categories["1"] == "Biography", "\(outcome.report)")
        for n in 200...299 {
            switch n % 4 {
            case 0: expectEqual(categories["\(n)"], nil, "book \(n) names Fiction, renamed away: not inserted")
            case 1: expectEqual(categories["\(n)"], "Novels", "book \(n)")
            case 2: expectEqual(categories["\(n)"], "Biography", "book \(n)")
            default: expectEqual(categories["\(n)"], "Drama", "book \(n)")
            }
        }
        #expect(outcome.report.contains("deleteDenied categories 'Biography'"), "\(outcome.report)")
        #expect(
            outcome.report.contains("category_id 'Fiction' matches no categories.name in the store"),
            "\(outcome.report)")
        expectEqual(
            outcome.report.components(separatedBy: "matches no categories.name").count - 1, 25, "\(outcome.report)")
    }

    @Test func aParentDeletedBetweenMigrationsIsNotTakenFromMemory() throws {
        // Drama is named by 0001's rows (its id is remembered), which 0002 deletes again, so that
        // nothing refers to Drama; 0003 deletes it; 0004's rows that name it find no parent.
        let booksSeed = seed + "INSERT INTO books (isbn, title, price, category_id) VALUES ('mine', 'Mine', 1, 1);"
        let first = books(1...64) { _ in "Drama" }
        let undo =
            "{\"delete\": {\"books\": [" + (1...64).map { "{\"key\": \"\($0)\", \"from\": {}}" }.joined(separator: ", ")
            + "]}}"
        let drop = "{\"delete\": {\"categories\": [{\"key\": \"Drama\", \"from\": {}}]}}"
        let third = books(100...163) { $0 % 2 == 0 ? "Drama" : "Fiction" }
        let outcome = try bothWays(
            schema: schema, seed: booksSeed, specs: specs,
            migrations: [
                ("0001-books.json", first), ("0002-undo.json", undo), ("0003-drop.json", drop),
                ("0004-more.json", third),
            ])
        let categories = categoriesByISBN(outcome)
        #expect(!outcome.report.contains("delete-denied"), "\(outcome.report)")
        #expect(outcome.tables["categories"]?.contains { $0.contains("Drama") } == false, "\(outcome.report)")
        for n in 100...163 { expectEqual(categories["\(n)"], (n % 2 == 0 ? nil : "Fiction"), "book \(n)") }
        expectEqual(
            outcome.report.components(separatedBy: "category_id 'Drama' matches no categories.name").count - 1, 32,
            "\(outcome.report)")
    }

    @Test func aParentTheRunInsertsIsFoundByTheRowsAfterIt() throws {
        // Poetry is not in the store: the same migration inserts it before its books, which find
        // it; 0002 inserts Essays, which a few of 0001's rows wait for.
        func category(_ n: Int) -> String { n % 40 == 0 ? "Essays" : n % 2 == 0 ? "Fiction" : "Poetry" }
        let rows = (1...96).map { n in
            "{\"isbn\": \"\(n)\", \"title\": \"Book \(n)\", \"price\": 1.5, \"category_id\": \"\(category(n))\"}"
        }
        let first =
            "{\"insert\": {\"categories\": [{\"name\": \"Poetry\"}], \"books\": [" + rows.joined(separator: ", ")
            + "]}}"
        let second = "{\"insert\": {\"categories\": [{\"name\": \"Essays\"}]}}"
        let outcome = try bothWays(
            schema: schema, seed: seed, specs: specs,
            migrations: [("0001-books.json", first), ("0002-essays.json", second)])
        let categories = categoriesByISBN(outcome)
        for n in 1...96 { expectEqual(categories["\(n)"], category(n), "book \(n)") }
    }

    @Test func keysThatDifferInCaseFindTheirParentAsTheColumnComparesThem() throws {
        // The parent key ignores case in one table and not in the other: each spelling is looked
        // up (and remembered) on its own, and finds what SQLite's comparison finds.
        let schema = """
            CREATE TABLE shelves (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE COLLATE NOCASE);
            CREATE TABLE labels (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
            CREATE TABLE books (id INTEGER PRIMARY KEY, isbn TEXT NOT NULL UNIQUE, shelf_id INTEGER NOT NULL REFERENCES shelves(id),
                                label_id INTEGER REFERENCES labels(id));
            """
        let seed =
            "INSERT INTO shelves (id, name) VALUES (1, 'Fiction'), (2, 'Poetry'); INSERT INTO labels (id, name) VALUES (1, 'new'), (2, 'NEW');"
        let specs = [
            TableSpec(name: "shelves", key: ["name"]), TableSpec(name: "labels", key: ["name"]),
            TableSpec(
                name: "books", key: ["isbn"],
                refs: [
                    "shelf_id": .init(table: "shelves", column: "name"),
                    "label_id": .init(table: "labels", column: "name"),
                ]),
        ]
        let shelves = ["Fiction", "fiction", "FICTION", "poetry", "Poetry"]
        func label(_ n: Int) -> String { n % 50 == 0 ? "New" : n % 2 == 0 ? "new" : "NEW" }
        let rows = (1...150).map { n in
            "{\"isbn\": \"\(n)\", \"shelf_id\": \"\(shelves[n % 5])\", \"label_id\": \"\(label(n))\"}"
        }
        let outcome = try bothWays(
            schema: schema, seed: seed, specs: specs,
            migrations: [("0001-books.json", "{\"insert\": {\"books\": [" + rows.joined(separator: ", ") + "]}}")])
        var byISBN: [String: (shelf: String, label: String)] = [:]
        for row in outcome.tables["books"] ?? [] {
            let fields = row.components(separatedBy: "|")
            byISBN[fields[2]] = (fields[3], fields[4])
        }
        for n in 1...150 {
            if n % 50 == 0 {
                #expect(byISBN["\"\(n)\""] == nil, "book \(n): no label 'New' (the column does not ignore case)")
            } else {
                #expect(byISBN["\"\(n)\""]?.shelf == (n % 5 < 3 ? "1" : "2"), "book \(n)")
                #expect(byISBN["\"\(n)\""]?.label == (n % 2 == 0 ? "1" : "2"), "book \(n)")
            }
        }
        expectEqual(
            outcome.report.components(separatedBy: "label_id 'New' matches no labels.name").count - 1, 3,
            "\(outcome.report)")
    }

    @Test func theValidatorSeesEachRowAsTheLongWayShowsIt() throws {
        // Columns written in another case than the schema's, a spec default for a column the rows
        // leave out, a value the validator refuses: the same calls, in the same order, both ways.
        let schema = """
            CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
            CREATE TABLE books (id INTEGER PRIMARY KEY, isbn TEXT NOT NULL UNIQUE, title TEXT NOT NULL, price REAL, format TEXT,
                                category_id INTEGER NOT NULL REFERENCES categories(id));
            """
        let specs = [
            TableSpec(name: "categories", key: ["name"]),
            TableSpec(
                name: "books", key: ["isbn"], refs: ["category_id": .init(table: "categories", column: "name")],
                defaults: ["format": .text("paper")]),
        ]
        let rows = (1...80).map { n in
            "{\"ISBN\": \"\(n)\", \"Title\": \"Book \(n)\", \"price\": \(n == 50 ? 500 : n), \"category_id\": \"\(n % 2 == 0 ? "Fiction" : "Drama")\"}"
        }
        let migration = [("0001-books.json", "{\"insert\": {\"books\": [" + rows.joined(separator: ", ") + "]}}")]
        let base = try multiRowStore(schema: schema, seed: seed, coreData: false)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let loaded = try migration.map { try loadMigration(json: $0.1, fileName: $0.0) }
        let (single, multi) = (RecordingValidator(), RecordingValidator())
        let one = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: false) { $0.validator = single }
        let other = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: true) { $0.validator = multi }
        expectEqual(multi.calls, single.calls)
        expectEqual(multi.calls.count, 80)
        #expect(
            multi.calls.first?.hasPrefix("books ISBN=1,Title=Book 1,price=1.0,category_id=3 /") == true,
            "\(multi.calls.first ?? "")")
        #expect(multi.calls.first?.hasSuffix("/0001-books.json:1") == true, "\(multi.calls.first ?? "")")
        #expect(other.report == one.report && other.tables == one.tables && other.bytes == one.bytes)
        let lines = other.report.components(separatedBy: "\n")
        #expect(lines.count == 2 && lines[0] == "error invalidData", "\(other.report)")
        #expect(
            lines.last?.hasSuffix("/0001-books.json:1: error: price 500.0 is more than the maximum 100 [1610]") == true,
            "\(other.report)")
        // Without the refused row, the rows go in with the spec's default.
        let fine = try bothWays(
            schema: schema, seed: seed, specs: specs,
            migrations: [
                (
                    "0001-books.json",
                    "{\"insert\": {\"books\": ["
                        + rows.enumerated().filter { $0.offset != 49 }.map(\.element).joined(separator: ", ") + "]}}"
                )
            ])
        #expect(fine.tables["books"]?.count == 79)
        #expect(
            fine.tables["books"]?.allSatisfy { $0.contains("|\"paper\"|") } == true, "\(fine.tables["books"] ?? [])")
    }
}
