import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

// The migrator's per-row shortcuts (issue 13: a 100,000-row migration) must give exactly what the
// general code gave: the same names matched, the same bytes stored and read, the same checksums.

/// Names drawn from ASCII (both cases), non-ASCII letters whose lower case differs, and a combining mark.
private func randomName(_ random: inout SeededRandom) -> String {
    let pieces = ["a", "B", "z", "Z", "_", "1", "é", "É", "\u{301}", "İ", "ß", "Σ", "σ", "ς", " ", "K", "\u{212A}"]
    return (0..<Int.random(in: 0...4, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined()
}

/// SQLite's rule for names (sqlite3StrICmp): ASCII letters fold, every other byte is itself.
private func foldedASCII(_ name: String) -> [UInt8] { name.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 } }

@Test func aNameMatchesALoweredNameExactlyWhenItsASCIIFoldedBytesAreThatName() {
    var random = SeededRandom(defaultSeed: 13)
    for _ in 0..<20_000 {
        let name = randomName(&random)
        let lowered = String(
            decoding: foldedASCII(Bool.random(using: &random) ? name : randomName(&random)), as: UTF8.self)
        expectEqual(
            sameName(name, lowered), (foldedASCII(name) == Array(lowered.utf8)),
            "seed \(random.seed): \(name.debugDescription) vs \(lowered.debugDescription)")
        expectEqual(Array(name.lowercasedName.utf8), foldedASCII(name), "seed \(random.seed): \(name.debugDescription)")
        let other = randomName(&random)
        expectEqual(
            name.isSameName(as: other), (foldedASCII(name) == foldedASCII(other)),
            "seed \(random.seed): \(name.debugDescription) vs \(other.debugDescription)")
        expectEqual((SQLName(name) == SQLName(other)), (foldedASCII(name) == foldedASCII(other)))
    }
    #expect(
        sameName("Title", "title") && sameName("TITLE", "title") && !sameName("titles", "title")
            && !sameName("titl", "title"))
    // As SQLite: `É` and `é` are two names, and so are the composed and decomposed `é`.
    #expect(
        !sameName("\u{C9}cole", "\u{E9}cole") && !sameName("E\u{301}cole", "\u{E9}cole")
            && !"\u{212A}".isSameName(as: "k"))
    #expect("\u{C9}COLE".lowercasedName == "\u{C9}cole" && "\u{E9}cole".uppercasedName == "\u{E9}COLE")
}

/// The one JSON string escaper (DocNode.writeQuoted; quote and jsonText are its bytes), against
/// each piece's literal as JSON writes it and Foundation's decoder: canonical checksums hash these bytes.
@Test func quotedTextInACanonicalChecksumIsTheQuotedLiteral() throws {
    var random = SeededRandom(defaultSeed: 14)
    let pieces: [(text: String, literal: String)] = [
        ("plain", "plain"), ("\"", "\\\""), ("\\", "\\\\"), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"),
        ("\u{0}", "\\u0000"), ("\u{1F}", "\\u001f"), ("\u{7F}", "\u{7F}"), ("é", "é"), ("日本", "日本"),
        ("😀", "😀"), ("/", "/"), (" ", " "),
    ]
    for _ in 0..<2_000 {
        let chosen = (0..<Int.random(in: 0...8, using: &random)).compactMap { _ in pieces.randomElement(using: &random)
        }
        let text = chosen.map(\.text).joined()
        let quoted = DocNode.quote(text)
        expectEqual(
            quoted, "\"" + chosen.map(\.literal).joined() + "\"", "seed \(random.seed): \(text.debugDescription)")
        expectEqual(DocNode(.string(text), line: 1, column: 1).jsonText, quoted)
        expectEqual(try JSONDecoder().decode(String.self, from: Data(quoted.utf8)), text)
    }
}

@Test func textWithoutANULIsToldInOnePassAsTheTwoFullPassesTellIt() {
    // Lengths around the 8-byte words; ASCII with, at random places, a NUL, bytes next to the
    // limits (0x01, 0x7F), stray and truncated continuation bytes, byte order marks, and whole
    // sequences both valid and not (overlong, surrogate, past U+10FFFF).
    var random = SeededRandom(defaultSeed: 15)
    let odd: [[UInt8]] = [
        [0x00], [0x01], [0x7F], [0x80], [0xBF], [0xC3], [0xFF], [0xFE], [0xFF, 0xFE], [0xFE, 0xFF], [0x0A],
        [0xC3, 0xA9], [0xE6, 0x97, 0xA5], [0xF0, 0x9F, 0x98, 0x80], [0xC0, 0xAF], [0xE0, 0x80, 0xAF],
        [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE6, 0x97], [0xC3, 0x00],
    ]
    var valid = 0
    for _ in 0..<40_000 {
        var bytes = (0..<Int.random(in: 0...40, using: &random)).map { _ in
            UInt8.random(in: 0x20...0x7E, using: &random)
        }
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            let piece = odd.randomElement(using: &random) ?? []
            bytes.insert(contentsOf: piece, at: Int.random(in: 0...bytes.count, using: &random))
        }
        bytes.withUnsafeBytes { buffer in
            let twoPasses = UTF8Validation.wideEncodingProblem(buffer) == nil && UTF8Validation.isValid(buffer)
            expectEqual(UTF8Validation.isUTF8WithoutNUL(buffer), twoPasses, "seed \(random.seed): \(bytes)")
            if twoPasses { valid += 1 }
            let problem = UTF8Validation.textProblem(buffer)
            expectEqual((problem == nil), twoPasses, "seed \(random.seed): \(bytes)")
            if let wide = UTF8Validation.wideEncodingProblem(buffer) {
                expectEqual(problem.map { "\($0)" }, "\(wide)", "seed \(random.seed)")
            }
        }
    }
    #expect(valid > 10_000 && valid < 30_000, "both kinds drawn: \(valid) valid")
}

@Test func aBigMigrationsChecksumIsTheDigestOfItsWholeCanonicalText() throws {
    // Enough rows that the checksum is hashed in several 64 KiB pieces, with text that needs escaping.
    let rows = (0..<5_000).map { index in
        #"{"title": "Book \"\#(index)\"\\ \n\u0001 é", "price": \#(Double(index) / 4), "pages": \#(index), "tags": [1, {"a": null}], "ok": true}"#
    }
    var json = Array(#"{"insert": {"books": ["#.utf8) + Array(rows.joined(separator: ", ").utf8) + Array("]}}".utf8)
    let document = try json.withUnsafeMutableBytes { try JSONScanner.parseDocument(UnsafeRawBufferPointer($0)) }
    let text = document.jsonText
    #expect(text.utf8.count > 3 << 16)
    expectEqual(Migration.checksum(of: document), "sha256:" + SHA256.hex(text.utf8))
}

@Suite struct DirectStatementTests {
    /// Values whose storage GRDB decides in ways worth pinning: text up to a NUL, empty text, empty and non-empty blobs.
    private let values: [SQLValue] = [
        .null, .integer(-7), .integer(.max), .real(2.5), .text(""), .text("a\u{0}b"), .text("日本"), .blob([]),
        .blob([0, 1, 255]),
    ]

    @Test func valuesBoundDirectlyAreStoredAsGRDBStoresThem() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (kind TEXT, v)")
            for value in values {
                try db.execute(sql: "INSERT INTO t VALUES ('grdb', ?)", arguments: [value])
                try db.makeStatement(sql: "INSERT INTO t VALUES ('direct', ?)").execute(binding: [value])
            }
            let stored = try Row.fetchAll(db, sql: "SELECT kind, typeof(v), quote(v) FROM t ORDER BY rowid").map {
                [$0[0] as String, $0[1] as String, $0[2] as String]
            }
            expectEqual(stored.count, values.count * 2)
            for pair in stride(from: 0, to: stored.count, by: 2) {
                expectEqual(stored[pair][1...], stored[pair + 1][1...], "\(values[pair / 2])")
            }
        }
    }

    @Test func valuesWrittenDirectlyAreStoredAsGRDBStoresThem() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (kind TEXT, v, w)")
            let direct = try db.makeStatement(sql: "INSERT INTO t VALUES ('direct', ?, ?)")
            for value in values {
                try db.execute(sql: "INSERT INTO t VALUES ('grdb', ?, ?)", arguments: [value, value])
                try expectEqual(direct.executeDirectly(binding: [("v", value), ("w", value)]), 1)
            }
            let stored = try Row.fetchAll(
                db, sql: "SELECT kind, typeof(v), quote(v), typeof(w), quote(w) FROM t ORDER BY rowid"
            ).map { row in
                (0..<5).map { row[$0] as String }
            }
            expectEqual(stored.count, values.count * 2)
            for pair in stride(from: 0, to: stored.count, by: 2) {
                expectEqual(stored[pair][1...], stored[pair + 1][1...], "\(values[pair / 2])")
            }
        }
    }

    @Test func aDirectWriteFailsAsGRDBsDoesAndItsStatementRunsAgain() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (k TEXT PRIMARY KEY, v NOT NULL)")
            let insert = try db.makeStatement(sql: "INSERT INTO t VALUES (?, ?)")
            try expectEqual(insert.executeDirectly(binding: [("k", .text("a")), ("v", .integer(1))]), 1)
            for values: [(column: String, value: SQLValue)] in [
                [("k", .text("a")), ("v", .integer(2))], [("k", .text("b")), ("v", .null)],
            ] {
                var grdb: DatabaseError?
                do {
                    try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: StatementArguments(values: values))
                } catch let error as DatabaseError { grdb = error }
                var direct: DatabaseError?
                do { try insert.executeDirectly(binding: values) } catch let error as DatabaseError { direct = error }
                #expect(
                    grdb != nil && direct?.resultCode == grdb?.resultCode
                        && direct?.extendedResultCode == grdb?.extendedResultCode && direct?.message == grdb?.message)
            }
            try expectEqual(insert.executeDirectly(binding: [("k", .text("c")), ("v", .text("x"))]), 1)
            let skip = try db.makeStatement(sql: "INSERT INTO t VALUES (?, ?) ON CONFLICT (k) DO NOTHING")
            try expectEqual(
                skip.executeDirectly(binding: [("k", .text("c")), ("v", .text("y"))]), 0,
                "a row skipped changes nothing")
            try expectEqual(String.fetchAll(db, sql: "SELECT k || '=' || v FROM t ORDER BY k"), ["a=1", "c=x"])
        }
    }

    @Test func aReadGivesTheFirstColumnAsGRDBReadsItOrNilWithoutARow() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (k INTEGER PRIMARY KEY, v)")
            for (index, value) in values.enumerated() {
                try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [index, value])
            }
            let read = try db.makeStatement(sql: "SELECT v FROM t WHERE k = ?")
            for index in values.indices {
                let grdb = try Row.fetchOne(db, sql: "SELECT v FROM t WHERE k = ?", arguments: [index]).map {
                    SQLValue.fromDatabaseValue($0[0] as DatabaseValue)
                }
                try expectEqual(read.firstValue(binding: [.integer(Int64(index))]), grdb)
            }
            try expectEqual(read.firstValue(binding: [.integer(99)]), nil)
            // A statement that failed (a constraint) runs again cleanly.
            let insert = try db.makeStatement(sql: "INSERT INTO t VALUES (?, ?)")
            #expect(throws: DatabaseError.self) { try insert.execute(binding: [.integer(0), .text("taken")]) }
            try insert.execute(binding: [.integer(100), .text("free")])
            try expectEqual(read.firstValue(binding: [.integer(100)]), .text("free"))
        }
    }
}

/// A random JSON migration: sections (known, unknown, null), tables, rows and changes whose values
/// are scalars, escaped text and nested lists and maps, laid out with random whitespace.
private func randomMigrationJSON(_ random: inout SeededRandom) -> String {
    func space() -> String { ["", " ", "\n", "\n  ", "\t", "\r\n"].randomElement(using: &random) ?? "" }
    func scalar() -> String {
        [
            "null", "true", "false", "0", "-7", "12.5", "1e3", "123456789012345678901234", "\"\"", "\"plain\"",
            "\"q\\\"uote\\\\ \\n\\u00e9\\ud83d\\ude00\"", "\"日本\"",
        ]
        .randomElement(using: &random) ?? "null"
    }
    func value(_ depth: Int) -> String {
        switch Int.random(in: 0..<10, using: &random) {
        case 0 where depth < 3:
            return "["
                + (0..<Int.random(in: 0...2, using: &random)).map { _ in space() + value(depth + 1) }.joined(
                    separator: ",") + "]"
        case 1 where depth < 3: return map(depth + 1)
        default: return scalar()
        }
    }
    func map(_ depth: Int, keys: [String] = ["title", "price", "a", "é"]) -> String {
        "{"
            + (0..<Int.random(in: 0...3, using: &random)).map { _ in
                space() + "\"\(keys.randomElement(using: &random) ?? "a")\"" + space() + ":" + space() + value(depth)
            }.joined(separator: ",") + space() + "}"
    }
    func item(_ section: String) -> String {
        switch (section, Int.random(in: 0..<8, using: &random)) {
        case (_, 0): return value(3)  // not a map: refused
        case ("insert", _): return map(3)
        default:
            var fields = ["\"key\": " + (Bool.random(using: &random) ? scalar() : map(4, keys: ["title", "number"]))]
            if Bool.random(using: &random) { fields.append("\"from\": " + map(4)) }
            if section == "update" && Int.random(in: 0..<5, using: &random) > 0 { fields.append("\"to\": " + map(4)) }
            if Int.random(in: 0..<10, using: &random) == 0 { fields.append("\"extra\": 1") }
            return "{" + fields.shuffled(using: &random).joined(separator: "," + space()) + "}"
        }
    }
    let sections = (0..<Int.random(in: 0...3, using: &random)).map { _ -> String in
        let section = ["insert", "insert", "update", "delete", "upsert"].randomElement(using: &random) ?? "insert"
        if Int.random(in: 0..<8, using: &random) == 0 { return "\"\(section)\":" + space() + "null" }
        let tables = (0..<Int.random(in: 0...2, using: &random)).map { _ -> String in
            let table = ["books", "categories"].randomElement(using: &random) ?? "books"
            let items = (0..<Int.random(in: 0...4, using: &random)).map { _ in space() + item(section) }
            return space() + "\"\(table)\"" + space() + ":" + space() + "[" + items.joined(separator: ",") + space()
                + "]"
        }
        return space() + "\"\(section)\"" + space() + ":" + space() + "{" + tables.joined(separator: ",") + space()
            + "}"
    }
    return (Bool.random(using: &random) ? "\u{FEFF}" : "") + space() + "{" + sections.joined(separator: ",") + space()
        + "}" + space()
}

@Test func aJSONMigrationReadRowByRowIsTheMigrationItsWholeDocumentGives() throws {
    var random = SeededRandom(defaultSeed: 15)
    var streamed = 0
    for round in 0..<3_000 {
        var text = Array(randomMigrationJSON(&random).utf8)
        if round % 3 == 0, !text.isEmpty {
            // A broken copy: a byte dropped, doubled or replaced.
            let index = Int.random(in: 0..<text.count, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: text.remove(at: index)
            case 1: text.insert(text[index], at: index)
            default:
                text[index] =
                    [UInt8(ascii: "{"), UInt8(ascii: "]"), UInt8(ascii: ","), UInt8(ascii: "\""), UInt8(ascii: "x")]
                    .randomElement(using: &random) ?? 0
            }
        }
        let whole: Migration? = text.withUnsafeBytes { bytes in
            (try? JSONScanner.parseDocument(bytes)).flatMap {
                try? Migration.make(fileName: "0007-rows.json", file: "m/0007-rows.json", document: $0)
            }
        }
        let fast = text.withUnsafeBytes {
            Migration.streamed(fileName: "0007-rows.json", file: "m/0007-rows.json", json: $0)
        }
        if let whole {
            expectEqual(fast, whole, "seed \(random.seed), round \(round): \(String(decoding: text, as: UTF8.self))")
            streamed += 1
        } else {
            expectEqual(
                fast, nil,
                "seed \(random.seed), round \(round): refused whole, read row by row: \(String(decoding: text, as: UTF8.self))"
            )
        }
    }
    #expect(streamed > 500, "enough valid migrations were generated")
}

/// SQLValue compares text as SQLite's BINARY collation does: by bytes, not Unicode canonical
/// equivalence (which Swift's `String ==` is).
///
/// Hashing agrees, so sets and dictionary keys do too.
@Test func textValuesCompareAndHashByTheirBytes() {
    var random = SeededRandom(defaultSeed: 34)
    let pieces = ["a", "e", "\u{301}", "\u{E9}", "\u{0}", "", "Å", "A\u{30A}", "\u{212B}", "ﬁ", "fi", " "]
    for _ in 0..<5_000 {
        let a = (0..<Int.random(in: 0...4, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }
            .joined()
        let b = (0..<Int.random(in: 0...4, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }
            .joined()
        let same = Array(a.utf8) == Array(b.utf8)
        expectEqual(sameBytes(a, b), same, "seed \(random.seed): \(a.debugDescription) vs \(b.debugDescription)")
        expectEqual(
            (SQLValue.text(a) == SQLValue.text(b)), same,
            "seed \(random.seed): \(a.debugDescription) vs \(b.debugDescription)")
        if same { expectEqual(SQLValue.text(a).hashValue, SQLValue.text(b).hashValue) }
        expectEqual(
            (a.exactKey == b.exactKey), same, "seed \(random.seed): \(a.debugDescription) vs \(b.debugDescription)")
    }
    expectEqual(Set([SQLValue.text("Caf\u{E9}"), .text("Cafe\u{301}"), .text("Caf\u{E9}")]).count, 2)
    #expect(
        SQLValue.integer(1) != .real(1) && SQLValue.integer(1).isSame(as: .real(1))
            && SQLValue.blob([1]) != .text("\u{1}"))
}
