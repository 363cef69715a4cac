import SeedRuntime
import SeedTestSupport
import Testing

@testable import SeedTooling

@Test(arguments: [
    ("~", DocValue.null), ("null", .null), ("", .null),
    ("true", .bool(true)), ("FALSE", .bool(false)),
    // YAML 1.2 core schema: Norway's code and its kin stay text (YAML 1.1 read them as booleans).
    ("NO", .string("NO")), ("yes", .string("yes")), ("Off", .string("Off")), ("on", .string("on")),
    ("12", .integer(12)), ("-7", .integer(-7)), ("+3", .integer(3)),
    ("12.0", .real(12)), ("1e3", .real(1000)), (".5", .real(0.5)),
    ("1450-01-01", .string("1450-01-01")), ("The fourth book", .string("The fourth book")),
    ("12 apples", .string("12 apples")), ("0x1F", .string("0x1F")),
])
func plainScalarsResolveAsYAMLDoes(text: String, expected: DocValue) {
    expectEqual(YAMLDocument.resolvePlain(text), expected)
}

@Test func quotedScalarsStayTextAndPositionsAreKept() throws {
    let node = try YAMLDocument.parse("a: \"12\"\nb: 12\nc: 'yes'\n", file: "x.yml")
    #expect(node.entries?.map(\.node.value) == [.string("12"), .integer(12), .string("yes")])
    #expect(node.entries?.map(\.line) == [1, 2, 3])
}

@Test func yamlAndJSONOfTheSameMigrationHaveTheSameChecksum() throws {
    let yaml = try YAMLDocument.parse(
        "insert:\n  books:\n    - { title: The fourth book, price: 12, category_id: Biography }\n", file: "m.yml")
    var json = Array(
        #"{"insert": {"books": [{"title": "The fourth book", "price": 12, "category_id": "Biography"}]}}"#.utf8)
    let parsed = try json.withUnsafeMutableBytes { try JSONScanner.parseDocument(UnsafeRawBufferPointer($0)) }
    expectEqual(Migration.checksum(of: yaml), Migration.checksum(of: parsed))
    expectEqual(
        Migration.checksum(of: yaml), "sha256:543f39762d73e52e9f5d91aeb90662c644523490760bed296ad7c8a33b413b29",
        "a shipped checksum never changes")
}

/// The two syntax errors people meet most get a hint that names the mistake (issue 44): libyaml's
/// own words name its parser's state ("found character that cannot start any token").
@Test(arguments: [
    (
        ["tables:", "\titems:", "    file: data/items.csv"], 2, 1,
        "YAML: found character that cannot start any token (while scanning for the next token); a tab indents line 2: YAML indents with spaces only, so replace the tab with spaces"
    ),
    (
        ["tables:", "  items:", "    file: data/items.csv", "   key: name"], 4, 4,
        "YAML: did not find expected key (while parsing a block mapping that starts at line 2); check the indentation: line 4 is indented 3 spaces, line 3 4 spaces; the keys of one mapping line up, and a value's mapping is indented under its key"
    ),
    (
        ["a: [1, 2"], 2, 1,
        "YAML: did not find expected ',' or ']' (while parsing a flow sequence that starts at line 1)"
    ),
])
func syntaxErrorsSayWhereAndGiveAHintForTabsAndIndentation(lines: [String], line: Int, column: Int, message: String) {
    // Lines, not one text: a test log shows each argument on one line.
    let text = lines.map { $0 + "\n" }.joined()
    #expect(throws: SeedError.self) { try YAMLDocument.parse(text, file: "seedkit.yml") }
    do {
        _ = try YAMLDocument.parse(text, file: "seedkit.yml")
    } catch {
        let diagnostic = error.diagnostics.first
        expectEqual(diagnostic?.line, line)
        expectEqual(diagnostic?.column, column)
        expectEqual(diagnostic?.message, message)
    }
}
