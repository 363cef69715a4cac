/// A compiled `pattern` rule for the regular subset in ``PatternSyntax``: decides whether a
/// whole UTF-8 value matches, as ICU's `matches()` (NSPredicate's MATCHES, Core Data's
/// regularExpressionString) does, without building a String or touching ICU.
///
/// The pattern becomes a Thompson automaton over Unicode scalars; matching walks the value's
/// bytes once, keeping the set of live states (no backtracking, so no pattern is exponential).
/// A whole-value match only asks whether the value is in the pattern's language, so the
/// order of alternatives and laziness do not matter here.
///
/// Most values are ASCII, so the automaton is also made deterministic over ASCII bytes when it
/// compiles (subset construction, ``ASCIIAutomaton``): an ASCII value then costs one table
/// lookup per byte. Values with other bytes, and values ending in a line terminator (where
/// `$` may hold before the end), walk the state sets as above.
final class PatternMatcher: Sendable {
    private enum Kind: UInt8 {
        case scalar, split, start, end, jump, accept
    }

    private let kinds: [Kind]
    private let next: [Int32]
    private let alternative: [Int32]
    /// Per scalar state: ASCII membership masks, and the full set for other scalars.
    private let lowMask: [UInt64]
    private let highMask: [UInt64]
    private let sets: [ScalarSet?]
    private let entry: Int32
    /// The deterministic form for ASCII values; nil when it would be larger than its limit.
    private let ascii: ASCIIAutomaton?

    /// Automata larger than this are left to NSRegularExpression.
    static let stateLimit = 20_000

    /// nil when `source` is outside the subset (or too large once compiled).
    init?(_ source: String) {
        guard let node = PatternSyntax.parse(source) else { return nil }
        var builder = Builder()
        let accept = builder.add(.accept, next: -1)
        guard let entry = builder.compile(node, then: accept) else { return nil }
        kinds = builder.kinds
        next = builder.next
        alternative = builder.alternative
        sets = builder.sets
        let masks: [(low: UInt64, high: UInt64)] = builder.sets.map { $0?.asciiMasks ?? (0, 0) }
        lowMask = masks.map(\.low)
        highMask = masks.map(\.high)
        self.entry = entry
        ascii = ASCIIAutomaton(
            kinds: kinds, next: next, alternative: alternative, lowMask: lowMask, highMask: highMask, entry: entry)
    }

    private struct Builder {
        var kinds: [Kind] = []
        var next: [Int32] = []
        var alternative: [Int32] = []
        var sets: [ScalarSet?] = []

        mutating func add(_ kind: Kind, next target: Int32, alternative other: Int32 = -1, set: ScalarSet? = nil)
            -> Int32
        {
            kinds.append(kind)
            next.append(target)
            alternative.append(other)
            sets.append(set)
            return Int32(kinds.count - 1)
        }

        /// The entry state of `node`, which continues to `then` after it; nil past the size limit.
        mutating func compile(_ node: PatternSyntax.Node, then: Int32) -> Int32? {
            guard kinds.count < PatternMatcher.stateLimit else { return nil }
            switch node {
            case .empty:
                return then
            case .scalar(let set):
                return add(.scalar, next: then, set: set)
            case .sequence(let items):
                var continuation = then
                for item in items.reversed() {
                    guard let state = compile(item, then: continuation) else { return nil }
                    continuation = state
                }
                return continuation
            case .either(let branches):
                var entries: [Int32] = []
                for branch in branches {
                    guard let state = compile(branch, then: then) else { return nil }
                    entries.append(state)
                }
                guard var chain = entries.last else { return then }
                for state in entries.dropLast().reversed() { chain = add(.split, next: state, alternative: chain) }
                return chain
            case .repetition(let body, let minimum, let maximum):
                var continuation = then
                if let maximum {
                    // x{0,k} as (x(x(x)?)?)?: each optional copy may stop at `then`.
                    for _ in 0..<(maximum - minimum) {
                        guard let state = compile(body, then: continuation) else { return nil }
                        continuation = add(.split, next: state, alternative: then)
                    }
                } else {
                    let loop = add(.split, next: -1, alternative: then)
                    guard let state = compile(body, then: loop) else { return nil }
                    next[Int(loop)] = state
                    continuation = loop
                }
                for _ in 0..<minimum {
                    guard let state = compile(body, then: continuation) else { return nil }
                    continuation = state
                }
                return continuation
            case .start:
                return add(.start, next: then)
            case .end:
                return add(.end, next: then)
            }
        }
    }

    /// Whether the whole of `bytes` (UTF-8) matches; nil if they are not well-formed UTF-8.
    func matches(utf8 bytes: UnsafeRawBufferPointer) -> Bool? {
        if let ascii, let matched = ascii.matches(bytes) { return matched }
        return simulate(utf8: bytes)
    }

    /// Whether the deterministic ASCII automaton exists (tests hold it to ``simulate(utf8:)``).
    var hasASCIIAutomaton: Bool { ascii != nil }

    /// ``matches(utf8:)`` by walking the automaton's state sets, whatever the bytes.
    func simulate(utf8 bytes: UnsafeRawBufferPointer) -> Bool? {
        let count = kinds.count
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: count * 4) { buffer -> Bool? in
            guard let base = buffer.baseAddress else { return false }
            var current = base
            var following = base + count
            let stack = base + 2 * count
            let marks = base + 3 * count
            marks.initialize(repeating: 0, count: count)
            var generation: Int32 = 1
            var currentCount = 0
            let length = bytes.count

            /// Adds `state` and every state reachable from it without consuming a scalar at `position`.
            func close(
                _ state: Int32, at position: Int, into list: UnsafeMutablePointer<Int32>, count listCount: inout Int
            ) {
                var depth = 0
                if marks[Int(state)] != generation {
                    marks[Int(state)] = generation
                    stack[0] = state
                    depth = 1
                }
                while depth > 0 {
                    depth -= 1
                    let state = Int(stack[depth])
                    var target: Int32 = -1
                    switch kinds[state] {
                    case .scalar, .accept:
                        list[listCount] = Int32(state)
                        listCount += 1
                    case .split:
                        target = next[state]
                        let other = alternative[state]
                        if marks[Int(other)] != generation {
                            marks[Int(other)] = generation
                            stack[depth] = other
                            depth += 1
                        }
                    case .jump:
                        target = next[state]
                    case .start:
                        if position == 0 { target = next[state] }
                    case .end:
                        if Self.endHolds(bytes, at: position) { target = next[state] }
                    }
                    if target >= 0, marks[Int(target)] != generation {
                        marks[Int(target)] = generation
                        stack[depth] = target
                        depth += 1
                    }
                }
            }

            close(entry, at: 0, into: current, count: &currentCount)
            var position = 0
            while position < length {
                if currentCount == 0 { return false }
                // Decode one scalar (the value was validated as UTF-8 upstream; re-check the shape cheaply).
                let lead = UInt32(bytes[position])
                var value = lead
                var width = 1
                if lead >= 0x80 {
                    if lead >= 0xF0 {
                        width = 4
                        value = lead & 0x07
                    } else if lead >= 0xE0 {
                        width = 3
                        value = lead & 0x0F
                    } else if lead >= 0xC2 {
                        width = 2
                        value = lead & 0x1F
                    } else {
                        return nil
                    }
                    guard position + width <= length else { return nil }
                    for offset in 1..<width {
                        let byte = UInt32(bytes[position + offset])
                        guard byte & 0xC0 == 0x80 else { return nil }
                        value = value << 6 | (byte & 0x3F)
                    }
                }
                position += width
                generation += 1
                var followingCount = 0
                for index in 0..<currentCount {
                    let state = Int(current[index])
                    guard kinds[state] == .scalar else { continue }
                    let member: Bool
                    if value < 64 {
                        member = lowMask[state] & (1 << UInt64(value)) != 0
                    } else if value < 128 {
                        member = highMask[state] & (1 << UInt64(value - 64)) != 0
                    } else {
                        guard let set = sets[state], let contained = set.contains(value) else { return nil }
                        member = contained
                    }
                    if member { close(next[state], at: position, into: following, count: &followingCount) }
                }
                swap(&current, &following)
                currentCount = followingCount
            }
            for index in 0..<currentCount where kinds[Int(current[index])] == .accept { return true }
            return false
        }
    }

    /// ICU's `$` without the multiline flag: at the end, or before a final line terminator
    /// (LF, VT, FF, CR, NEL, U+2028, U+2029) or a final CR LF.
    private static func endHolds(_ bytes: UnsafeRawBufferPointer, at position: Int) -> Bool {
        switch bytes.count - position {
        case 0: return true
        case 1: return (0x0A...0x0D).contains(bytes[position])
        case 2:
            return (bytes[position] == 0x0D && bytes[position + 1] == 0x0A)
                || (bytes[position] == 0xC2 && bytes[position + 1] == 0x85)
        case 3:
            return bytes[position] == 0xE2 && bytes[position + 1] == 0x80
                && (bytes[position + 2] == 0xA8 || bytes[position + 2] == 0xA9)
        default: return false
        }
    }

    /// The automaton made deterministic over ASCII bytes, for values that are all ASCII and do
    /// not end in a line terminator: there `^` holds only before the first byte and `$` only
    /// after the last, so a state is the set of automaton states live after a prefix, with `$`
    /// states kept pending until the end.
    ///
    /// Bytes that every scalar state treats alike share a column of the transition table.
    private struct ASCIIAutomaton: Sendable {
        /// Transitions, `classCount` per state; -1 is the dead state (no match possible).
        let table: [Int32]
        /// Each ASCII byte's column.
        let column: [UInt8]
        let classCount: Int
        /// Whether the value matches when it ends in this state.
        let accepts: [Bool]

        /// Deterministic automata with more states than this are not built (the sets are walked instead).
        static let stateLimit = 1_024
        /// Nor those whose construction would visit more automaton states than this in all.
        static let workLimit = 1 << 21

        init?(kinds: [Kind], next: [Int32], alternative: [Int32], lowMask: [UInt64], highMask: [UInt64], entry: Int32) {
            let scalarStates = kinds.indices.filter { kinds[$0] == .scalar }
            func member(_ byte: Int, _ state: Int) -> Bool {
                byte < 64 ? lowMask[state] & (1 << UInt64(byte)) != 0 : highMask[state] & (1 << UInt64(byte - 64)) != 0
            }
            // Columns: bytes with the same membership in every scalar state.
            var columnOfSignature: [[Bool]: UInt8] = [:]
            var column = [UInt8](repeating: 0, count: 128)
            var representatives: [Int] = []
            for byte in 0..<128 {
                let signature = scalarStates.map { member(byte, $0) }
                if let known = columnOfSignature[signature] {
                    column[byte] = known
                } else {
                    let new = UInt8(representatives.count)
                    columnOfSignature[signature] = new
                    column[byte] = new
                    representatives.append(byte)
                }
            }

            /// The states reachable from `seeds` without consuming a byte, sorted: scalar and
            /// accept states, and `$` states left pending unless `atEnd`. A state is seen in this
            /// call when its mark is this call's number (no set to build and hash per call).
            var marks = [Int](repeating: 0, count: kinds.count)
            var calls = 0
            func closure(_ seeds: [Int32], atStart: Bool, atEnd: Bool) -> [Int32] {
                calls += 1
                var stack = seeds
                var leaves: [Int32] = []
                while let state = stack.popLast() {
                    let index = Int(state)
                    guard marks[index] != calls else { continue }
                    marks[index] = calls
                    switch kinds[index] {
                    case .scalar, .accept: leaves.append(state)
                    case .split:
                        stack.append(next[index])
                        stack.append(alternative[index])
                    case .jump: stack.append(next[index])
                    case .start: if atStart { stack.append(next[index]) }
                    case .end: if atEnd { stack.append(next[index]) } else { leaves.append(state) }
                    }
                }
                return leaves.sorted()
            }

            var sets: [[Int32]] = [closure([entry], atStart: true, atEnd: false)]
            var numbers: [[Int32]: Int32] = [sets[0]: 0]
            var table: [Int32] = []
            var accepts: [Bool] = []
            var current = 0
            var work = 0
            while current < sets.count {
                let set = sets[current]
                let pending = set.filter { kinds[Int($0)] == .end }.map { next[Int($0)] }
                accepts.append(
                    set.contains { kinds[Int($0)] == .accept }
                        || closure(pending, atStart: false, atEnd: true).contains { kinds[Int($0)] == .accept })
                let scalars = set.filter { kinds[Int($0)] == .scalar }
                var moved: [Int32] = []
                for byte in representatives {
                    moved.removeAll(keepingCapacity: true)
                    for state in scalars where member(byte, Int(state)) { moved.append(next[Int(state)]) }
                    let target = closure(moved, atStart: false, atEnd: false)
                    work += set.count + target.count
                    guard work < Self.workLimit else { return nil }
                    if target.isEmpty {
                        table.append(-1)
                    } else if let known = numbers[target] {
                        table.append(known)
                    } else {
                        guard sets.count < Self.stateLimit else { return nil }
                        numbers[target] = Int32(sets.count)
                        table.append(Int32(sets.count))
                        sets.append(target)
                    }
                }
                current += 1
            }
            self.table = table
            self.column = column
            self.classCount = representatives.count
            self.accepts = accepts
        }

        /// The answer for an ASCII value not ending in a line terminator; nil for any other value.
        func matches(_ bytes: UnsafeRawBufferPointer) -> Bool? {
            guard let last = bytes.last, !(0x0A...0x0D).contains(last) else { return nil }
            return table.withUnsafeBufferPointer { table in
                column.withUnsafeBufferPointer { column in
                    var state = 0
                    for byte in bytes {
                        guard byte < 0x80 else { return nil }
                        let target = table[state &* classCount &+ Int(column[Int(byte)])]
                        if target < 0 { return false }
                        state = Int(target)
                    }
                    return accepts[state]
                }
            }
        }
    }
}
