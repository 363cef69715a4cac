import SeedTestSupport
import Testing

@testable import SeedTooling

/// Patterns people write run on the compiled matcher; what it can't express runs on
/// NSRegularExpression; both answer as ICU's whole-value match (NSPredicate MATCHES) does.
@Test(arguments: [
    "^978[0-9]{10}$", "[0-9]{13}", "^\\d{4}-\\d{2}-\\d{2}$", "^[A-Z]{2}\\d{3}$", "^[\\w.+-]+@[\\w-]+\\.[\\w.]+$",
    "^(?:\\+?1[-. ]?)?\\(?\\d{3}\\)?[-. ]?\\d{3}[-. ]?\\d{4}$", "^(hardcover|paperback|e-?book)$", "^\\S+( \\S+)*$",
    "^.{1,200}$", "^[^<>]*$",
    "^[a-zäöüß]+$", "^\\u00e9+$", "^\\x{1F600}?$",
])
func commonPatternsRunOnTheCompiledMatcher(source: String) throws {
    #expect(try ColumnRules.Pattern(source).isCompiled)
}

@Test(arguments: [
    "^(?=.*\\d).+$", "^(a)\\1$", "(?i)abc", "\\bword\\b", "^\\p{Lu}+$", "^[[:alpha:]]+$", "a*+", "^(?:a*)*$",
])
func patternsOutsideTheSubsetFallBackToNSRegularExpression(source: String) throws {
    #expect(try !ColumnRules.Pattern(source).isCompiled)
}

@Test func aValueMatchesWhenAnyAlternativeSpansItWhole() throws {
    // ICU's first match of "a|ab" in "ab" is "a"; MATCHES (and Core Data) accept "ab".
    let pattern = try ColumnRules.Pattern("a|ab")
    #expect(pattern.matchesWhole("ab"))
    #expect(pattern.matchesWhole("a"))
    #expect(!pattern.matchesWhole("abc"))
    #expect(pattern.regexMatchesWhole("ab"))
}

@Test func unicodeAwareClassesAndLineTerminatorsMeanWhatICUMeans() throws {
    let digits = try ColumnRules.Pattern("^\\d+$")
    #expect(digits.matchesWhole("\u{663}\u{664}"))  // Arabic-Indic digits are \d in ICU
    #expect(!digits.matchesWhole("\u{2167}"))  // a Roman numeral is a number, not a decimal digit
    #expect(!digits.matchesWhole("12\n"))  // `$` before a final newline, but the newline is left over
    let word = try ColumnRules.Pattern("^\\w+$")
    #expect(word.matchesWhole("naïve_日本語"))
    #expect(word.matchesWhole("e\u{301}"))  // a combining mark is \w
    let dot = try ColumnRules.Pattern("^a.b$")
    #expect(dot.matchesWhole("a\u{1F600}b"))  // one scalar, even outside the BMP
    for terminator in ["\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"] {
        #expect(!dot.matchesWhole("a\(terminator)b"))
    }
    let end = try ColumnRules.Pattern("a$\\n")
    #expect(end.matchesWhole("a\n"))  // `$` holds before a final line terminator
    for text in ["a\n", "\u{663}", "e\u{301}", "a\u{1F600}b", "a\u{2028}b"] {
        for pattern in [digits, word, dot, end] {
            expectEqual(pattern.matchesWhole(text), pattern.regexMatchesWhole(text))
        }
    }
}

@Test func patternsBeyondTheAutomatonLimitFallBack() throws {
    let big = try ColumnRules.Pattern("^(?:[a-z]{1,1000}){1,30}$")
    #expect(!big.isCompiled)
    #expect(big.matchesWhole("abc"))
}

@Test func malformedUTF8IsLeftToTheStringPath() throws {
    let matcher = try #require(PatternMatcher("^.+$"))
    let bytes: [UInt8] = [0x61, 0xE2, 0x28]
    expectEqual(bytes.withUnsafeBytes { matcher.matches(utf8: $0) }, nil)
}

@Test func asciiValuesTakeTheDeterministicAutomaton() throws {
    let matcher = try #require(PatternMatcher("^978[0-9]{10}$"))
    #expect(matcher.hasASCIIAutomaton)
    func run(_ text: String) -> (Bool?, Bool?) {
        var text = text
        return text.withUTF8 {
            (matcher.matches(utf8: UnsafeRawBufferPointer($0)), matcher.simulate(utf8: UnsafeRawBufferPointer($0)))
        }
    }
    #expect(run("9781234567890") == (true, true))
    #expect(run("978123456789") == (false, false))
    #expect(run("97812345678901") == (false, false))
    #expect(run("9791234567890") == (false, false))
    #expect(run("9781234567890\n") == (false, false))  // `$` holds before the newline, but the match must span it
    #expect(run("978123456789\u{663}") == (false, false))  // \u{663} is \d, not [0-9]
    let end = try #require(PatternMatcher("a$"))
    expectEqual(end.matches(utf8: UnsafeRawBufferPointer(start: nil, count: 0)), false)
    // A pattern whose deterministic form would be too large keeps walking the state sets.
    let wide = try #require(PatternMatcher("^[ab]*a[ab]{12}$"))
    #expect(!wide.hasASCIIAutomaton)
    var text = "a" + String(repeating: "b", count: 12)
    expectEqual(text.withUTF8 { wide.matches(utf8: UnsafeRawBufferPointer($0)) }, true)
}

/// The ASCII masks the automaton is built from say what `contains` says for each ASCII scalar:
/// ranges that end inside, at and past 127, classes, negation, and mixes of them.
@Test func asciiMasksAgreeWithContainsForEveryASCIIScalar() {
    let classes: [ScalarSet.UnicodeClass] = [.digit, .notDigit, .word, .notWord, .space, .notSpace, .notLineTerminator]
    var random = SystemRandomNumberGenerator()
    var sets: [ScalarSet] = [
        .dot, .single(0), .single(127), .single(128), ScalarSet(ranges: [0...0x10FFFF], classes: [], negated: true),
    ]
    for _ in 0..<300 {
        let ranges: [ClosedRange<UInt32>] = (0..<Int.random(in: 0...3, using: &random)).map { _ in
            let low = UInt32.random(in: 0...140, using: &random)
            return low...(low + UInt32.random(in: 0...(Bool.random(using: &random) ? 5 : 400), using: &random))
        }
        let chosen = classes.filter { _ in Int.random(in: 0..<5, using: &random) == 0 }
        sets.append(ScalarSet(ranges: ranges, classes: chosen, negated: Bool.random(using: &random)))
    }
    for set in sets {
        let masks = set.asciiMasks
        let fromMasks: [Bool] = (0..<128).map { (bit: Int) -> Bool in
            let word: UInt64 = bit < 64 ? masks.low : masks.high
            return word & (UInt64(1) << UInt64(bit % 64)) != 0
        }
        let fromContains: [Bool] = (UInt32(0)..<128).map { set.contains($0) == true }
        expectEqual(fromMasks, fromContains, "\(set)")
    }
}
