import SeedRuntime
import SeedTestSupport
import Testing

@testable import SeedTooling

/// A build decides most values with ``ColumnRules/Prepared``'s quick answers and asks
/// ``ColumnRules/check(_:)`` only when they are not `true`: a quick `true` must never pass a
/// value `check` rejects. (A quick `false` only sends the value to `check`, which decides: `one_of`
/// compares bytes quickly, and `check` compares strings, where "e\u{301}" is "é".)
@Test func quickAnswersAgreeWithTheFullCheck() throws {
    var rng = SeededRandom(defaultSeed: 41)
    let pieces = ["a", "Z", "7", " ", "-", "\r", "\n", "\r\n", "é", "e\u{301}", "日本", "\u{1F600}", "🇫🇷", "978"]
    func maybe(_ percent: UInt64) -> Bool { rng.next() % 100 < percent }
    var decided = 0
    var cases = 0
    var disagreements: [String] = []
    for _ in 0..<400 {
        var rules = ColumnRules(column: "c")
        if maybe(60) { rules.minLength = Int(rng.next() % 5) }
        if maybe(60) { rules.maxLength = Int(rng.next() % 6) }
        if maybe(30) {
            rules.pattern = try ColumnRules.Pattern(rng.pick(["^[a-z7 -]*$", "^978[0-9]*$", ".*", "^\\w+$"]))
        }
        if maybe(20) { rules.oneOf = ["a", "978", "e\u{301}", "\r\n"] }
        if maybe(20) {
            rules.min = 0
            rules.max = 100
        }
        let prepared = ColumnRules.Prepared(rules)
        for _ in 0..<50 {
            let text = (0..<Int(rng.next() % 5)).map { _ in rng.pick(pieces) }.joined()
            var bytes = text
            let quick = bytes.withUTF8 { prepared.quicklyPasses(text: UnsafeRawBufferPointer($0)) }
            let passes = rules.check(.text(text)).isEmpty
            cases += 1
            expectEqual(prepared.quicklyPasses(.text(text)), quick)
            if let quick {
                decided += 1
                if quick && !passes {
                    disagreements.append(
                        "\(rules.minLength as Any) \(rules.maxLength as Any) \(rules.pattern?.source ?? "-") \(rules.oneOf != nil) on \(text.debugDescription): quick true, check \(passes)"
                    )
                }
            }
            let number = Double(Int(rng.next() % 300) - 100) / (maybe(50) ? 1 : 7)
            expectEqual(prepared.quicklyPasses(.real(number)), prepared.quicklyPasses(number: number))
            if prepared.quicklyPasses(number: number) == true, !rules.check(.real(number)).isEmpty {
                disagreements.append("min/max on \(number): quick true, check fails")
            }
        }
    }
    #expect(disagreements.isEmpty, "SEEDKIT_TEST_SEED=\(rng.seed): \(disagreements.prefix(10).joined(separator: "\n"))")
    #expect(decided * 2 > cases, "\(decided) of \(cases) decided quickly")
}

@Test func aCRLFCountsAsOneCharacterForLengths() {
    var rules = ColumnRules(column: "title")
    rules.minLength = 4
    let prepared = ColumnRules.Prepared(rules)
    var text = "a\r\nb"  // 4 bytes, 3 characters: too short
    #expect(text.withUTF8 { prepared.quicklyPasses(text: UnsafeRawBufferPointer($0)) } != true)
    #expect(!rules.check(.text(text)).isEmpty)
}
