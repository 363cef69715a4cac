/// A set of Unicode scalars as one position of a pattern matches them: ranges and the
/// Unicode-aware classes ICU gives `\d`, `\w`, `\s` and `.`, optionally negated.
struct ScalarSet: Equatable, Sendable {
    /// ICU's classes, by the Unicode properties its regex engine defines them with.
    enum UnicodeClass: Equatable, Sendable {
        /// `\d`: General_Category Nd (any script's decimal digits, not only 0-9).
        case digit, notDigit
        /// `\w`: Alphabetic, Mark, Nd, Pc, U+200C and U+200D.
        case word, notWord
        /// `\s`: White_Space.
        case space, notSpace
        /// `.`: anything but a line terminator (LF, VT, FF, CR, NEL, U+2028, U+2029).
        case notLineTerminator

        func contains(_ value: UInt32) -> Bool {
            switch self {
            case .digit: ScalarSet.isDigit(value)
            case .notDigit: !ScalarSet.isDigit(value)
            case .word: ScalarSet.isWord(value)
            case .notWord: !ScalarSet.isWord(value)
            case .space: ScalarSet.isSpace(value)
            case .notSpace: !ScalarSet.isSpace(value)
            case .notLineTerminator: !ScalarSet.isLineTerminator(value)
            }
        }
    }

    var ranges: [ClosedRange<UInt32>]
    var classes: [UnicodeClass]
    var negated: Bool

    static func single(_ value: UInt32) -> ScalarSet { ScalarSet(ranges: [value...value], classes: [], negated: false) }
    static let dot = ScalarSet(ranges: [], classes: [.notLineTerminator], negated: false)

    /// Whether the set holds `value`; nil when that rests on a Unicode property of a scalar
    /// newer than ICU may know (see ``isSettled(_:)``), so only ICU can tell.
    func contains(_ value: UInt32) -> Bool? {
        var found = false
        for range in ranges where range.contains(value) {
            found = true
            break
        }
        if !found, !classes.isEmpty {
            if value >= 0x80, classes.contains(where: { $0 != .notLineTerminator }), !Self.isSettled(value) {
                return nil
            }
            for item in classes where item.contains(value) {
                found = true
                break
            }
        }
        return found != negated
    }

    /// Membership of the 128 ASCII scalars, as two 64-bit masks (bit n of `low`: scalar n).
    ///
    /// The same answer as ``contains(_:)`` for each of them (never nil: ASCII scalars are settled),
    /// from the ranges' ASCII parts and one pass for the classes.
    var asciiMasks: (low: UInt64, high: UInt64) {
        var low: UInt64 = 0
        var high: UInt64 = 0
        func insert(_ value: UInt32) {
            if value < 64 { low |= 1 << UInt64(value) } else { high |= 1 << UInt64(value - 64) }
        }
        for range in ranges where range.lowerBound < 128 {
            for value in range.lowerBound...min(range.upperBound, 127) { insert(value) }
        }
        if !classes.isEmpty {
            for value in UInt32(0)..<128 where classes.contains(where: { $0.contains(value) }) { insert(value) }
        }
        return negated ? (~low, ~high) : (low, high)
    }

    // MARK: - ICU's class definitions

    /// Scalars assigned before Unicode 16, whose properties Swift's tables and ICU's agree on.
    ///
    /// Swift's standard library may know a newer Unicode than the platform's ICU (here: Swift has
    /// Unicode 17, ICU 16, and every disagreement is a scalar new in 17), so newer and unassigned
    /// scalars are left to ICU. `unicodeClassesAgreeWithICUOnEveryScalar` checks the rest.
    static func isSettled(_ value: UInt32) -> Bool {
        guard let scalar = Unicode.Scalar(value), let age = scalar.properties.age else { return false }
        return age.major < 16
    }

    static func isLineTerminator(_ value: UInt32) -> Bool {
        (0x0A...0x0D).contains(value) || value == 0x85 || value == 0x2028 || value == 0x2029
    }

    static func isDigit(_ value: UInt32) -> Bool {
        if value < 0x80 { return value >= 0x30 && value <= 0x39 }
        guard let scalar = Unicode.Scalar(value) else { return false }
        return scalar.properties.generalCategory == .decimalNumber
    }

    static func isWord(_ value: UInt32) -> Bool {
        if value < 0x80 {
            return (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
                || value == 0x5F
        }
        if value == 0x200C || value == 0x200D { return true }
        guard let scalar = Unicode.Scalar(value) else { return false }
        let properties = scalar.properties
        if properties.isAlphabetic { return true }
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .connectorPunctuation: return true
        default: return false
        }
    }

    static func isSpace(_ value: UInt32) -> Bool {
        if value < 0x80 { return (0x09...0x0D).contains(value) || value == 0x20 }
        guard let scalar = Unicode.Scalar(value) else { return false }
        return scalar.properties.isWhitespace
    }
}
