import Foundation
import SeedRuntime
import SeedTestSupport
import Testing

// Issue 45: one `UPDATE … FROM (VALUES …)` writes a batch's rows in rowid order, and SQLite checks
// a unique index row by row, so a batch whose order is not the rowids' could write what one row
// at a time refuses (MigrationRun+BatchUpdate.swift). Each test applies the same migration both
// ways and requires the same report and rows.

private let schema = "CREATE TABLE things (id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE, u TEXT UNIQUE, n INTEGER);"
/// 400 things, T<i> with u 'u<i>' and n 1000 + i; T299 holds 'x' and T300 'y'.
private let seed = """
    WITH RECURSIVE i(v) AS (SELECT 0 UNION ALL SELECT v + 1 FROM i WHERE v < 399)
    INSERT INTO things (k, u, n) SELECT 'T' || v, 'u' || v, 1000 + v FROM i;
    UPDATE things SET u = 'x' WHERE k = 'T299';
    UPDATE things SET u = 'y' WHERE k = 'T300';
    """

private func bothWays(_ rows: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> MultiRowOutcome {
    let base = try multiRowStore(schema: schema, seed: seed, coreData: false)
    defer { try? FileManager.default.removeItem(atPath: base) }
    let json = #"{"update": {"things": ["# + rows.joined(separator: ", ") + "]}}"
    let loaded = [try loadMigration(json: json, fileName: "0001-change.json")]
    let specs = [TableSpec(name: "things", key: ["k"])]
    let single = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: true) { $0.batchedChanges = false }
    let batched = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: true)
    let sameReport = batched.report == single.report
    #expect(
        sameReport, "batched: \(batched.report.prefix(300))\none by one: \(single.report.prefix(300))",
        sourceLocation: sourceLocation)
    let sameRows = batched.tables == single.tables
    #expect(sameRows, sourceLocation: sourceLocation)
    #expect(batched.bytes == single.bytes, sourceLocation: sourceLocation)
    return batched
}

/// T0…T297 each take a new u, past the report's sample: batched.
private let plain = (0..<298).map { #"{"key": "T\#($0)", "from": {"u": "u\#($0)"}, "to": {"u": "v\#($0)"}}"# }

@Suite struct BatchedUpdateOrderTests {
    @Test func aRowTakingAUniqueValueALaterRowGivesUpFailsAsOneByOne() throws {
        // T300 (rowid 301) takes 'x' while T299 (rowid 300) still holds it: a UNIQUE conflict one
        // row at a time, whatever the rowid order lets one UPDATE do.
        let outcome = try bothWays(
            plain + [
                #"{"key": "T300", "from": {"u": "y"}, "to": {"u": "x"}}"#,
                #"{"key": "T299", "from": {"u": "x"}, "to": {"u": "w"}}"#,
            ])
        #expect(outcome.report.contains("UNIQUE constraint failed: things.u"), "\(outcome.report.prefix(300))")
    }

    @Test func rowsInTheirRowidOrderAreStillWrittenAsOneByOne() throws {
        // T299 gives 'x' up first, then T300 takes it: fine both ways; and n, under no unique
        // index, written in any order.
        let outcome = try bothWays(
            plain + [
                #"{"key": "T299", "from": {"u": "x"}, "to": {"u": "w"}}"#,
                #"{"key": "T300", "from": {"u": "y"}, "to": {"u": "x"}}"#,
            ]
                + (0..<300).reversed().map {
                    #"{"key": "T\#($0)", "from": {"n": \#($0 + 1000)}, "to": {"n": \#($0 + 2000)}}"#
                })
        #expect(!outcome.report.hasPrefix("error"), "\(outcome.report.prefix(300))")
        let things = outcome.tables["things"] ?? []
        #expect(things.contains { $0.contains(#""T300"|"x"|1300"#) })
        #expect(things.contains { $0.contains(#""T299"|"w"|2299"#) })
    }
}

@Suite struct BatchedUpdateForeignKeyTests {
    /// A foreign key of the table to itself: SQLite checks it at the end of each statement.
    private let schema = """
        CREATE TABLE nodes (id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE, code TEXT UNIQUE,
                            parent TEXT REFERENCES nodes(code));
        """
    private let seed = """
        WITH RECURSIVE i(v) AS (SELECT 0 UNION ALL SELECT v + 1 FROM i WHERE v < 399)
        INSERT INTO nodes (k, code) SELECT 'T' || v, 'c' || v FROM i;
        """

    @Test func aRowLeftWithoutItsParentUntilALaterRowFailsAsOneByOne() throws {
        // T298 names parent 'zz' before T299 takes the code 'zz': a foreign key failure one row at
        // a time; one UPDATE, checked at its end, would pass.
        var rows = (0..<298).map {
            #"{"key": "T\#($0)", "from": {"code": "c\#($0)", "parent": null}, "to": {"code": "d\#($0)", "parent": null}}"#
        }
        rows.append(
            #"{"key": "T298", "from": {"code": "c298", "parent": null}, "to": {"code": "c298x", "parent": "zz"}}"#)
        rows.append(#"{"key": "T299", "from": {"code": "c299", "parent": null}, "to": {"code": "zz", "parent": null}}"#)
        let base = try multiRowStore(schema: schema, seed: seed, coreData: false)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let json = #"{"update": {"nodes": ["# + rows.joined(separator: ", ") + "]}}"
        let loaded = [try loadMigration(json: json, fileName: "0001-change.json")]
        let specs = [TableSpec(name: "nodes", key: ["k"])]
        let single = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: true) {
            $0.batchedChanges = false
        }
        let batched = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: true)
        let sameReport = batched.report == single.report
        #expect(sameReport, "batched: \(batched.report.prefix(300))\none by one: \(single.report.prefix(300))")
        let sameRows = batched.tables == single.tables
        #expect(sameRows)
        #expect(single.report.hasPrefix("error"), "\(single.report.prefix(300))")
    }
}
