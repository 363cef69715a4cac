/// The regular subset of ICU's pattern syntax that ``PatternMatcher`` runs itself: literals
/// (any Unicode scalar), `.`, classes with ranges and negation, `\d \w \s` and their
/// negations, `^ $`, `* + ? {n} {n,} {n,m}` (lazy forms too: a whole-value match does not
/// depend on laziness), alternation and groups (`(…)`, `(?:…)`), and the escapes
/// `\t \n \r \f \e \a \xhh \x{h…} \uhhhh` plus a backslash before any ASCII punctuation.
///
/// Anything else (flags, lookaround, backreferences, possessive quantifiers, `\b`, `\p{…}`,
/// nested or POSIX sets, …) makes ``parse(_:)`` return nil, and the caller falls back to
/// NSRegularExpression. The parser is deliberately strict: when ICU's reading of a construct
/// was not checked by the differential test, it is not accepted here.
enum PatternSyntax {
    indirect enum Node: Equatable {
        case empty
        /// One scalar from the set.
        case scalar(ScalarSet)
        case sequence([Node])
        case either([Node])
        /// `maximum` nil: unbounded.
        case repetition(Node, minimum: Int, maximum: Int?)
        /// `^`: at the start of the value (no multiline flag).
        case start
        /// `$`: at the end, or before one line terminator (or CR LF) that ends the value.
        case end

        /// Whether the node can match the empty string.
        var isNullable: Bool {
            switch self {
            case .empty, .start, .end: true
            case .scalar: false
            case .sequence(let items): items.allSatisfy(\.isNullable)
            case .either(let branches): branches.contains(where: \.isNullable)
            case .repetition(let body, let minimum, _): minimum == 0 || body.isNullable
            }
        }
    }

    /// Larger counted repetitions are left to NSRegularExpression (they would blow up the automaton).
    static let repetitionLimit = 1000

    static func parse(_ source: String) -> Node? {
        var parser = Parser(scalars: Array(source.unicodeScalars))
        guard let node = parser.alternation(depth: 0), parser.index == parser.scalars.count else { return nil }
        return node
    }

    private struct Parser {
        let scalars: [Unicode.Scalar]
        var index = 0

        var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        mutating func alternation(depth: Int) -> Node? {
            guard depth < 100 else { return nil }
            var branches: [Node] = []
            while true {
                guard let branch = sequence(depth: depth) else { return nil }
                branches.append(branch)
                if peek == "|" {
                    index += 1
                    continue
                }
                break
            }
            return branches.count == 1 ? branches[0] : .either(branches)
        }

        mutating func sequence(depth: Int) -> Node? {
            var items: [Node] = []
            while let next = peek, next != "|", next != ")" {
                let grouped = next == "("
                guard let atom = atom(depth: depth) else { return nil }
                guard let quantified = quantifiers(on: atom, grouped: grouped) else { return nil }
                items.append(quantified)
            }
            switch items.count {
            case 0: return .empty
            case 1: return items[0]
            default: return .sequence(items)
            }
        }

        mutating func atom(depth: Int) -> Node? {
            guard let scalar = peek else { return nil }
            index += 1
            switch scalar {
            case "(":
                if peek == "?" {
                    guard index + 1 < scalars.count, scalars[index + 1] == ":" else { return nil }
                    index += 2
                }
                guard let inner = alternation(depth: depth + 1), peek == ")" else { return nil }
                index += 1
                return inner
            case "[": return setExpression().map { .scalar($0) }
            case ".": return .scalar(.dot)
            case "^": return .start
            case "$": return .end
            case "\\":
                guard let escaped = escape(inSet: false) else { return nil }
                return .scalar(escaped)
            case "*", "+", "?", "{", "}", "]", ")": return nil
            default: return .scalar(.single(scalar.value))
            }
        }

        /// `*`, `+`, `?`, `{…}` after an atom, each optionally lazy (`?`); possessive (`+`) and
        /// stacked quantifiers are not accepted, nor a repeated body that can match the empty
        /// string (ICU stops such loops on an empty iteration, which can lose whole-value matches).
        mutating func quantifiers(on atom: Node, grouped: Bool) -> Node? {
            guard let next = peek else { return atom }
            var minimum = 0
            var maximum: Int?
            switch next {
            case "*": index += 1
            case "+":
                index += 1
                minimum = 1
            case "?":
                index += 1
                maximum = 1
            case "{":
                index += 1
                guard let low = number() else { return nil }
                minimum = low
                if peek == "," {
                    index += 1
                    if peek == "}" {
                        maximum = nil
                    } else {
                        guard let high = number(), high >= low else { return nil }
                        maximum = high
                    }
                } else {
                    maximum = low
                }
                guard peek == "}" else { return nil }
                index += 1
                guard (maximum ?? minimum) <= PatternSyntax.repetitionLimit else { return nil }
            default: return atom
            }
            if !grouped, atom == .start || atom == .end || atom == .empty { return nil }
            if maximum != 1, atom.isNullable { return nil }
            if peek == "?" { index += 1 }  // lazy: same set of whole-value matches
            if let after = peek, "*+?{".unicodeScalars.contains(after) { return nil }
            return .repetition(atom, minimum: minimum, maximum: maximum)
        }

        mutating func number() -> Int? {
            var value = 0
            var digits = 0
            while let scalar = peek, ("0"..."9").contains(scalar) {
                value = value * 10 + Int(scalar.value - 48)
                digits += 1
                index += 1
                guard digits <= 6 else { return nil }
            }
            return digits > 0 ? value : nil
        }

        /// After `[`: a set of single scalars, ranges and class escapes, optionally negated.
        mutating func setExpression() -> ScalarSet? {
            var set = ScalarSet(ranges: [], classes: [], negated: false)
            if peek == "^" {
                set.negated = true
                index += 1
            }
            var first = true
            while true {
                guard let scalar = peek else { return nil }
                if scalar == "]" {
                    guard !first else { return nil }  // `[]…]` and `[^]…]`: left to ICU
                    index += 1
                    break
                }
                first = false
                // A lone `-` first or last is a literal; elsewhere it must make a range.
                let low: UInt32
                switch scalar {
                case "[", "&", "{", "}", "$", "^", ":": return nil
                case "-":
                    index += 1
                    guard set.ranges.isEmpty && set.classes.isEmpty || peek == "]" else { return nil }
                    set.ranges.append(0x2D...0x2D)
                    continue
                case "\\":
                    index += 1
                    guard let escaped = escape(inSet: true) else { return nil }
                    if escaped.classes.isEmpty, escaped.ranges.count == 1, escaped.ranges[0].count == 1 {
                        low = escaped.ranges[0].lowerBound
                    } else {
                        guard peek != "-" || lookahead(1) == "]" else { return nil }
                        set.classes += escaped.classes
                        continue
                    }
                default:
                    index += 1
                    low = scalar.value
                }
                if peek == "-", let after = lookahead(1), after != "]" {
                    index += 1
                    let high: UInt32
                    switch after {
                    case "[", "&", "{", "}", "$", "^", ":", "-": return nil
                    case "\\":
                        index += 1
                        guard let escaped = escape(inSet: true), escaped.classes.isEmpty, escaped.ranges.count == 1,
                            escaped.ranges[0].count == 1
                        else { return nil }
                        high = escaped.ranges[0].lowerBound
                    default:
                        index += 1
                        high = after.value
                    }
                    guard low <= high else { return nil }
                    set.ranges.append(low...high)
                } else {
                    set.ranges.append(low...low)
                }
            }
            return set
        }

        func lookahead(_ offset: Int) -> Unicode.Scalar? {
            index + offset < scalars.count ? scalars[index + offset] : nil
        }

        /// After a backslash: the scalar or class it stands for.
        mutating func escape(inSet: Bool) -> ScalarSet? {
            guard let scalar = peek else { return nil }
            index += 1
            switch scalar {
            case "d": return ScalarSet(ranges: [], classes: [.digit], negated: false)
            case "D": return ScalarSet(ranges: [], classes: [.notDigit], negated: false)
            case "w": return ScalarSet(ranges: [], classes: [.word], negated: false)
            case "W": return ScalarSet(ranges: [], classes: [.notWord], negated: false)
            case "s": return ScalarSet(ranges: [], classes: [.space], negated: false)
            case "S": return ScalarSet(ranges: [], classes: [.notSpace], negated: false)
            case "t": return .single(0x09)
            case "n": return .single(0x0A)
            case "r": return .single(0x0D)
            case "f": return .single(0x0C)
            case "e": return .single(0x1B)
            case "a": return .single(0x07)
            case "x":
                if peek == "{" {
                    index += 1
                    guard let value = hex(maximumDigits: 6, exact: false), peek == "}" else { return nil }
                    index += 1
                    return Self.scalarSet(value)
                }
                return hex(maximumDigits: 2, exact: true).flatMap(Self.scalarSet)
            case "u": return hex(maximumDigits: 4, exact: true).flatMap(Self.scalarSet)
            default:
                // A backslash before ASCII punctuation (or a space) is that character.
                guard scalar.isASCII, !("0"..."9").contains(scalar), !("a"..."z").contains(scalar),
                    !("A"..."Z").contains(scalar), scalar.value >= 0x20, scalar.value < 0x7F
                else { return nil }
                return .single(scalar.value)
            }
        }

        static func scalarSet(_ value: UInt32) -> ScalarSet? {
            Unicode.Scalar(value) == nil ? nil : .single(value)
        }

        mutating func hex(maximumDigits: Int, exact: Bool) -> UInt32? {
            var value: UInt32 = 0
            var digits = 0
            while digits < maximumDigits, let scalar = peek, let digit = Self.hexDigit(scalar) {
                value = value << 4 | digit
                digits += 1
                index += 1
            }
            guard digits > 0, !exact || digits == maximumDigits else { return nil }
            return value
        }

        static func hexDigit(_ scalar: Unicode.Scalar) -> UInt32? {
            switch scalar {
            case "0"..."9": scalar.value - 48
            case "a"..."f": scalar.value - 87
            case "A"..."F": scalar.value - 55
            default: nil
            }
        }
    }
}
