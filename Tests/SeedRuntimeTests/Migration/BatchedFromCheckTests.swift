import Foundation
import SeedRuntime
import SeedTestSupport
import Testing

// Issue 45: a batch of deletes or updates asks SQLite which rows still hold their `from` (and
// not yet their `to`), in the batch's SELECT (MigrationRun+BatchFetch.swift), where one row at a
// time compares in Swift (``SQLValue/isSame(as:collation:)``). Each test applies the same
// migration both ways and requires the same report and rows, with `from` and `to` values where
// the two could part: a column's collation, trailing spaces, text against a number in an untyped
// column, an integer against a real, integers past 2^53, composed and decomposed text.

private let schema = """
    CREATE TABLE things (id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE, r REAL, n INTEGER,
                         t TEXT COLLATE NOCASE, s TEXT COLLATE RTRIM, u, b TEXT);
    """
/// 400 things; each has r 1.5, n 10, t 'Abc', s 'x  ', u 10, b 'é' (composed).
private let seed = """
    WITH RECURSIVE i(v) AS (SELECT 0 UNION ALL SELECT v + 1 FROM i WHERE v < 399)
    INSERT INTO things (k, r, n, t, s, u, b) SELECT 'T' || v, 1.5, 10, 'Abc', 'x  ', 10, char(233) FROM i;
    UPDATE things SET u = 9007199254740993 WHERE k IN ('T106', 'T206');
    UPDATE things SET u = '10' WHERE k IN ('T107', 'T207');
    UPDATE things SET r = 2 WHERE k IN ('T108', 'T208');
    UPDATE things SET b = 'q' WHERE k IN ('T111', 'T211');
    """
private let specs = [TableSpec(name: "things", key: ["k"])]

/// `from` (and `to`) values for row i: most hold as written, the 100s and 200s are the cases.
private let cases: [Int: String] = [
    100: #""t": "ABC""#,  // NOCASE: the same
    101: #""t": "abd""#,  // NOCASE: not the same
    102: #""s": "x""#,  // RTRIM: the same
    103: #""s": " x""#,  // RTRIM: a leading space counts
    104: #""u": "10""#,  // untyped: text is not the integer
    105: #""u": 10.0"#,  // untyped: a real is the integer
    106: #""u": 9007199254740992.0"#,  // 2^53 + 1 stored: as a double, the same
    107: #""u": 10"#,  // stored as text '10': not the integer
    108: #""r": 2"#,  // REAL 2.0 against an integer
    109: #""b": "e\u0301""#,  // decomposed against composed: two texts
    110: #""b": "\u00e9", "B": "\u00e9""#,  // one column named twice
    111: #""b": "Q""#,  // BINARY: another case is another text
    112: #""b": "\u00e9 ""#,  // BINARY: a trailing space counts
]

/// Deletes of T0…T299, each `from` as written in `cases` (T200… as T100…), or holding.
private func deletes() -> String {
    let rows = (0..<300).map { i -> String in
        let from = cases[i >= 200 ? i - 100 : i] ?? #""r": 1.5, "t": "Abc""#
        return #"{"key": "T\#(i)", "from": {\#(from)}}"#
    }
    return #"{"delete": {"things": ["# + rows.joined(separator: ", ") + "]}}"
}

@discardableResult
private func bothWays(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> MultiRowOutcome {
    let base = try multiRowStore(schema: schema, seed: seed, coreData: false)
    defer { try? FileManager.default.removeItem(atPath: base) }
    let loaded = [try loadMigration(json: json, fileName: "0001-change.json")]
    let single = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: true) { $0.batchedChanges = false }
    let batched = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: true)
    #expect(batched.report == single.report, sourceLocation: sourceLocation)
    #expect(batched.tables == single.tables, sourceLocation: sourceLocation)
    #expect(batched.bytes == single.bytes, sourceLocation: sourceLocation)
    return batched
}

@Suite struct BatchedFromCheckTests {
    @Test func aBatchedDeleteHoldsItsFromWhereOneByOneDoes() throws {
        let outcome = try bothWays(deletes())
        #expect(!outcome.report.hasPrefix("error"), "\(outcome.report)")
        // Kept as changed in the store: 101, 103, 104, 107, 109, 111, 112 and their 200s (the
        // rest of T0…T299 held their `from`, the column named twice too); T300…T399, not named.
        let left = (outcome.tables["things"] ?? []).compactMap { row in
            row.split(separator: "|").dropFirst(2).first.map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        let kept = [101, 103, 104, 107, 109, 111, 112].flatMap { [$0, $0 + 100] }.sorted() + Array(300..<400)
        expectEqual(left, kept.map { "T\($0)" }, "\(outcome.report)")
    }

    @Test func aBatchedUpdateHoldsItsFromAndNotItsToWhereOneByOneDoes() throws {
        // The `from` cases, each with a new price; then `to` values a row holds only under NOCASE
        // (written), in its bytes (up to date), or as a number (up to date, past 2^53 too).
        let rows = (0..<300).map { i -> String in
            let index = i >= 200 ? i - 100 : i
            let (from, to): (String, String)
            switch index % 100 {
            case _ where cases[index] != nil && index != 108: (from, to) = (cases[index] ?? "", #""r": 3.5"#)
            case 0, 50: (from, to) = (#""t": "Abc""#, #""t": "abc""#)
            case 1, 51: (from, to) = (#""t": "Abc""#, #""t": "Abc""#)
            case 5, 55: (from, to) = (#""r": 1.5"#, #""r": 1.5"#)
            case 6, 56: (from, to) = (#""u": 10"#, #""u": 10.0"#)
            default: (from, to) = (#""r": 1.5, "t": "Abc""#, #""r": \#(Double(i) + 0.25)"#)
            }
            let named = from.contains(#""r""#) || !to.contains(#""r""#) ? from : from + #", "r": 1.5"#
            return #"{"key": "T\#(i)", "from": {\#(named)}, "to": {\#(to)}}"#
        }
        // 2^53 + 1 stored, 2^53 as a real: the same as Swift compares them, so up to date.
        let big = [
            #"{"key": "T106", "from": {"u": 9007199254740993}, "to": {"u": 9007199254740992.0}}"#,
            #"{"key": "T206", "from": {"u": 9007199254740993}, "to": {"u": 9007199254740992.0}}"#,
        ]
        let outcome = try bothWays(#"{"update": {"things": ["# + (rows + big).joined(separator: ", ") + "]}}")
        #expect(!outcome.report.hasPrefix("error"), "\(outcome.report)")
        let things = outcome.tables["things"] ?? []
        expectEqual(things.count, 400)
        #expect(outcome.report.contains("up to date"), "\(outcome.report)")
        // T0, T50, T150, T250: written, their text's bytes differ.
        expectEqual(things.filter { $0.contains("\"abc\"") }.count, 4, "\(things.prefix(3))")
    }
}

@Suite struct BatchedFromCheckNULTests {
    /// SQLite's NOCASE compares up to a NUL (`sqlite3StrNICmp`), so to it `'a<NUL>x'` and
    /// `'a<NUL>y'` are the same text; ``SQLValue/isSame(as:collation:)`` compares every byte.
    private let nulSeed = seed + "\nUPDATE things SET t = CAST(X'610078' AS TEXT) WHERE k IN ('T205', 'T206', 'T207');"

    private func nulWays(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> MultiRowOutcome {
        let base = try multiRowStore(schema: schema, seed: nulSeed, coreData: false)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let loaded = [try loadMigration(json: json, fileName: "0001-change.json")]
        let single = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: true) {
            $0.batchedChanges = false
        }
        let batched = try multiRowRun(base, specs: specs, migrations: loaded, multiRow: true)
        // The rows and report lines that differ, not the whole of both.
        let rows = (Set(batched.tables["things"] ?? []), Set(single.tables["things"] ?? []))
        #expect(
            rows.0 == rows.1,
            "batched only \(rows.0.subtracting(rows.1)), one by one only \(rows.1.subtracting(rows.0))",
            sourceLocation: sourceLocation)
        let lines = (batched.report.split(separator: "\n"), single.report.split(separator: "\n"))
        #expect(
            lines.0 == lines.1,
            "batched \(lines.0.filter { !lines.1.contains($0) }), one by one \(lines.1.filter { !lines.0.contains($0) })",
            sourceLocation: sourceLocation)
        #expect(batched.bytes == single.bytes, sourceLocation: sourceLocation)
        return batched
    }

    /// T205 names `a<NUL>y` (another text), T206 `A<NUL>x` (the same under NOCASE), T207 `a<NUL>x`;
    /// past the report's sample, so they are batched.
    private func from(_ i: Int) -> String {
        switch i {
        case 205: return #""t": "a\u0000y""#
        case 206: return #""t": "A\u0000x""#
        case 207: return #""t": "a\u0000x""#
        default: return #""t": "Abc""#
        }
    }

    @Test func aBatchedDeleteComparesNOCASETextPastANUL() throws {
        let rows = (0..<300).map { #"{"key": "T\#($0)", "from": {\#(from($0))}}"# }
        let outcome = try nulWays(#"{"delete": {"things": ["# + rows.joined(separator: ", ") + "]}}")
        let things = outcome.tables["things"] ?? []
        // T205 is kept (its `from` is another text), and T300…T399, not named.
        expectEqual(things.count, 101)
        #expect(things.contains { $0.contains("\"T205\"") })
    }

    @Test func aBatchedUpdateComparesNOCASETextPastANUL() throws {
        let rows = (0..<300).map { #"{"key": "T\#($0)", "from": {"n": 10, \#(from($0))}, "to": {"n": 11}}"# }
        let outcome = try nulWays(#"{"update": {"things": ["# + rows.joined(separator: ", ") + "]}}")
        let things = outcome.tables["things"] ?? []
        // T205 is left as it was (its `from` is another text); T206 and T207 updated.
        let kept = things.filter { $0.contains("\"T205\"") }
        expectEqual(kept.count, 1)
        #expect(kept.first?.contains("\"T205\"|1.5|10|") == true, "\(kept)")
    }
}
