import SeedRuntime
import SeedTestSupport
import Testing

private func parse(_ text: String) throws -> DocNode {
    var bytes = Array(text.utf8)
    return try bytes.withUnsafeMutableBytes { try JSONScanner.parseDocument(UnsafeRawBufferPointer($0)) }
}

@Test func parsesNestedDocumentsWithPositions() throws {
    let node = try parse(
        "{\n  \"insert\": {\n    \"books\": [ {\"title\": \"A\\u00e9\", \"price\": 12.5, \"n\": -3, \"ok\": true, \"x\": null} ]\n  }\n}"
    )
    let insert = try #require(node.entries?.first)
    expectEqual(insert.key, "insert")
    expectEqual(insert.line, 2)
    let row = try #require(insert.node.entries?.first?.node.items?.first)
    expectEqual(row.line, 3)
    #expect(row.entries?.map(\.node.value) == [.string("Aé"), .real(12.5), .integer(-3), .bool(true), .null])
}

@Test func reportsSyntaxErrorsWithLineAndColumn() {
    #expect(throws: JSONScanError.syntax(line: 3, column: 7, message: "expected a value, found '}'")) {
        try parse("{\n \"a\": 1,\n \"b\": }")
    }
    #expect(throws: JSONScanError.syntax(line: 1, column: 8, message: "unexpected end of file")) {
        try parse("{\"a\": 1")
    }
    #expect(throws: JSONScanError.self) { try parse("[1, 2] x") }
    #expect(throws: JSONScanError.self) { try parse("\"\\ud800\"") }
    #expect(throws: JSONScanError.self) { try parse("01x") }
}

@Test func canonicalJSONTextIsCompactAndKeepsKeyOrder() throws {
    let node = try parse("{ \"b\" : [1, 2.5, \"x\\n\"], \"a\": {} }")
    expectEqual(node.jsonText, "{\"b\":[1,2.5,\"x\\n\"],\"a\":{}}")
}
