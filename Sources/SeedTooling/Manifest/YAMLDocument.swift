import CYaml
import Foundation
import SeedRuntime

/// Reads YAML into the same position-aware tree as JSON, so that manifests and
/// migrations report errors with their line and column whichever format they use.
///
/// The text goes through libyaml's event parser (the C library Yams wraps) straight into
/// ``DocNode``: no intermediate tree, aliases counted as they are met.
public enum YAMLDocument {
    /// How many values aliases (`*name`) may add to a document, all uses together.
    ///
    /// An alias repeats what its anchor holds, so a few nested ones can stand for billions of
    /// values (an "alias bomb"); past this budget the document is refused before it is expanded
    /// further.
    package static let aliasBudget = 10_000

    /// Parses `text`; scalars keep YAML's core types (null, bool, int, float), everything
    /// else (dates included) stays a string.
    ///
    /// - throws: ``SeedError`` (configuration, code 2100) with the line and column of the problem:
    ///   bad syntax, a key used twice in a mapping, nesting deeper than
    ///   ``JSONScanner/maximumDepth``, aliases past ``aliasBudget``.
    package static func parse(_ text: String, file: String) throws(SeedError) -> DocNode {
        func fail(_ problem: Problem) -> SeedError {
            let hint = hint(for: problem, in: text).map { "; \($0)" } ?? ""
            return SeedError(
                .configuration, file: file, line: problem.line, column: problem.column,
                "YAML: \(problem.message)\(hint)")
        }
        switch EventReader.read(text, aliasScalars: nil) {
        case .document(let document, let budget, let depth):
            // A document past the alias budget is refused whatever else is wrong with it; then
            // nesting: the first problem of each kind in the order the values are written.
            if let problem = budget ?? depth { throw fail(problem) }
            return document
        case .failed(let problem):
            // Bad syntax, an undefined alias or a duplicate key. A document that would be an
            // alias bomb once its syntax is set aside is still named as one: see `budgetProblem`.
            if let budget = budgetProblem(text) { throw fail(budget) }
            throw fail(problem)
        }
    }

    /// The parser ``MigrationDirectory/load(_:displayPath:yamlParser:)`` takes.
    package static let parser: MigrationDirectory.YAMLParser = { text, file throws(SeedError) in
        try parse(text, file: file)
    }

    /// What a plain (unquoted) scalar means, as YAML 1.2's core schema reads it: null, a boolean
    /// (`true`/`false` only), an integer, a float; anything else (dates included) is text.
    ///
    /// YAML 1.1 also read `yes`/`no`/`on`/`off` as booleans, which turns Norway's country code
    /// `NO` into `false`; seed data is full of such codes, so they stay text. A BOOLEAN column
    /// still accepts the text `yes`/`no` (see ``ColumnType``).
    static func resolvePlain(_ text: String) -> DocValue {
        var copy = text
        return copy.withUTF8 { resolvePlain(UnsafeRawBufferPointer($0)) { text } }
    }

    /// ``resolvePlain(_:)`` over the scalar's bytes; `text` makes the string only when the scalar is text.
    static func resolvePlain(_ raw: UnsafeRawBufferPointer, text: () -> String) -> DocValue {
        guard let first = raw.first else { return .null }
        let isNumberStart =
            first == UInt8(ascii: "-") || first == UInt8(ascii: "+") || first == UInt8(ascii: ".")
            || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9"))
        // Only these first bytes can start a word of the core schema.
        guard
            isNumberStart || first == UInt8(ascii: "~") || first == UInt8(ascii: "n") || first == UInt8(ascii: "N")
                || first == UInt8(ascii: "t") || first == UInt8(ascii: "T") || first == UInt8(ascii: "f")
                || first == UInt8(ascii: "F")
        else {
            return .string(text())
        }
        if raw.count <= 6 {
            switch String(decoding: raw, as: UTF8.self) {
            case "~", "null", "Null", "NULL": return .null
            case "true", "True", "TRUE": return .bool(true)
            case "false", "False", "FALSE": return .bool(false)
            case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .real(.infinity)
            case "-.inf", "-.Inf", "-.INF": return .real(-.infinity)
            case ".nan", ".NaN", ".NAN": return .real(.nan)
            default: break
            }
        }
        guard isNumberStart else { return .string(text()) }
        // Written without a point or exponent: an integer; past 64 bits it stays text, as JSON's
        // numbers are read, so that an INTEGER column refuses it instead of clamping a double.
        if !raw.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            switch ColumnType.integer.convert(text: raw) {
            case .success(.integer(let value)): return .integer(value)
            case .failure(let failure) where failure.expected == ColumnType.integerRange: return .string(text())
            default: break
            }
        }
        if case .success(.real(let value)) = ColumnType.real.convert(text: raw) { return .real(value) }
        return .string(text())
    }

    enum KeyIdentity: Hashable {
        case scalar(String, tag: String?)
        case sequence([KeyIdentity], tag: String?)
        case mapping([KeyIdentity], tag: String?)
        /// Not known (never for a key that was read).
        case unexpanded(String)

        /// Bounded: an alias bomb used as a key would otherwise be hashed value by value.
        ///
        /// Equal identities share their lists (an alias repeats its anchor's), so `==` stays quick.
        func hash(into hasher: inout Hasher) {
            switch self {
            case .scalar(let text, let tag):
                hasher.combine(0)
                hasher.combine(text)
                hasher.combine(tag)
            case .sequence(let items, let tag):
                hasher.combine(1)
                hasher.combine(items.count)
                hasher.combine(tag)
            case .mapping(let items, let tag):
                hasher.combine(2)
                hasher.combine(items.count)
                hasher.combine(tag)
            case .unexpanded(let name):
                hasher.combine(3)
                hasher.combine(name)
            }
        }

        /// The order that picks which of several repeated keys a message names (scalars by text).
        static func precedes(_ lhs: KeyIdentity, _ rhs: KeyIdentity) -> Bool {
            switch (lhs, rhs) {
            case (.scalar(let left, _), .scalar(let right, _)): return left < right
            case (.sequence(let left, _), .sequence(let right, _)): return lexicographicallyPrecedes(left, right)
            case (.mapping(let left, _), .mapping(let right, _)):
                // Maps compare by their keys only.
                return lexicographicallyPrecedes(
                    left.enumerated().filter { $0.offset % 2 == 0 }.map(\.element),
                    right.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
            default: return false
            }
        }

        private static func lexicographicallyPrecedes(_ left: [KeyIdentity], _ right: [KeyIdentity]) -> Bool {
            for (left, right) in zip(left, right) {
                if precedes(left, right) { return true }
                if precedes(right, left) { return false }
            }
            return left.count < right.count
        }
    }

    /// A node as the reader hands it up: the value, and what a mapping key or an alias needs.
    struct Read {
        var node: DocNode
        /// The scalar's text (a mapping key's name), nil for lists and maps.
        var text: String?
        /// Set for keys and anchored nodes (and what they hold).
        var identity: KeyIdentity?
        /// How many values the node stands for, keys included: what an alias to it adds to the budget.
        var size: Int
        /// How deep lists and maps go inside the node: 0 for a list or map holding only scalars, -1 for a scalar.
        var deepest: Int
    }

    enum Outcome {
        /// Read; `budget` and `depth` are the first problems of those kinds, if any.
        case document(DocNode, budget: Problem?, depth: Problem?)
        case failed(Problem)
    }

    /// Drives libyaml's event parser and builds the ``DocNode`` tree as events arrive.
    struct EventReader {
        let text: String
        let parser: UnsafeMutablePointer<yaml_parser_t>
        let event: UnsafeMutablePointer<yaml_event_t>
        /// Positions (`line << 24 | column`) of plain scalars to count as aliases (the neutral reading).
        let aliasScalars: Set<Int>?
        var anchors: [String: Read] = [:]
        var repeated = 0
        var budget: Problem?
        var depth: Problem?

        static func read(_ text: String, aliasScalars: Set<Int>?) -> Outcome {
            var bytes = text
            return bytes.withUTF8 { utf8 in
                let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
                let event = UnsafeMutablePointer<yaml_event_t>.allocate(capacity: 1)
                event.initialize(to: yaml_event_t())
                guard yaml_parser_initialize(parser) == 1 else {
                    event.deallocate()
                    parser.deallocate()
                    return .failed(Problem(line: 0, column: 0, message: "Memory error"))
                }
                defer {
                    yaml_event_delete(event)
                    yaml_parser_delete(parser)
                    event.deallocate()
                    parser.deallocate()
                }
                yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
                yaml_parser_set_input_string(parser, utf8.baseAddress, utf8.count)
                var reader = EventReader(text: text, parser: parser, event: event, aliasScalars: aliasScalars)
                do throws(Failure) {
                    let document = try reader.readStream()
                    return .document(document, budget: reader.budget, depth: reader.depth)
                } catch {
                    return .failed(error.problem)
                }
            }
        }

        struct Failure: Error {
            var problem: Problem
        }

        private var type: yaml_event_type_t { event.pointee.type }

        private var mark: (line: Int, column: Int) {
            (event.pointee.start_mark.line + 1, event.pointee.start_mark.column + 1)
        }

        /// Frees the current event and parses the next one.
        private mutating func advance() throws(Failure) {
            yaml_event_delete(event)
            guard yaml_parser_parse(parser, event) == 1 else { throw Failure(problem: libyamlProblem()) }
        }

        /// One document, or none (an empty text is null).
        mutating func readStream() throws(Failure) -> DocNode {
            try advance()  // STREAM-START
            try advance()
            guard type != YAML_STREAM_END_EVENT else { return DocNode(.null, line: 1, column: 1) }
            try advance()  // past DOCUMENT-START
            let root = try readNode(depth: 0, checkDepth: true, isKey: false, wantIdentity: false)
            try advance()  // DOCUMENT-END
            try advance()
            if type != YAML_STREAM_END_EVENT {
                let (line, column) = mark
                let context =
                    line != 1
                    ? "expected a single document in the stream that starts at line 1"
                    : "expected a single document in the stream"
                throw Failure(
                    problem: Problem(line: line, column: column, message: "but found another document (\(context))"))
            }
            return root.node
        }

        private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
            guard let pointer else { return nil }
            return String(decodingCString: pointer, as: UTF8.self)
        }

        /// Reads the node whose first event is the current one; leaves its last event current.
        ///
        /// `isKey`: a mapping key (a scalar key keeps its text, not a value). Nesting is checked
        /// only in values (`checkDepth`): what a key holds is never a value of the document.
        private mutating func readNode(depth: Int, checkDepth: Bool, isKey: Bool, wantIdentity: Bool) throws(Failure)
            -> Read
        {
            let (line, column) = mark
            switch type {
            case YAML_SCALAR_EVENT:
                let scalar = event.pointee.data.scalar
                let anchor = Self.string(scalar.anchor)
                var raw = UnsafeRawBufferPointer(start: scalar.value, count: scalar.length)
                // One leading U+FEFF is dropped, as Foundation's `String(bytes:encoding:)` (which
                // the Yams reader before this one used) drops it: checksums stay the same.
                if raw.count >= 3 && raw[0] == 0xEF && raw[1] == 0xBB && raw[2] == 0xBF {
                    raw = UnsafeRawBufferPointer(rebasing: raw[3...])
                }
                let plain = scalar.style == YAML_PLAIN_SCALAR_STYLE
                var text: String?
                func makeText() -> String {
                    if let text { return text }
                    let made = String(decoding: raw, as: UTF8.self)
                    text = made
                    return made
                }
                var size = 1
                if plain, let aliasScalars, aliasScalars.contains(line << 24 | column) {
                    let name = String(
                        makeText().dropFirst().prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
                    size = anchors[name]?.size ?? 1
                    count(size, line, column)
                }
                let value: DocValue
                if isKey && anchor == nil {
                    value = .null  // a key's name is its text
                } else if plain {
                    value = YAMLDocument.resolvePlain(raw, text: makeText)
                } else {
                    value = .string(makeText())
                }
                if isKey || wantIdentity || anchor != nil { _ = makeText() }
                var identity: KeyIdentity?
                if wantIdentity || isKey || anchor != nil, let text {
                    let tag = scalar.quoted_implicit == 1 ? nil : Self.string(scalar.tag)
                    identity = .scalar(text, tag: tag == "!" || tag == "tag:yaml.org,2002:str" ? nil : tag)
                }
                let read = Read(
                    node: DocNode(value, line: line, column: column), text: text, identity: identity, size: size,
                    deepest: -1)
                if let anchor { anchors[anchor] = read }
                return read
            case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                let isMapping = type == YAML_MAPPING_START_EVENT
                let anchor: String?
                var tag: String?
                if isMapping {
                    let start = event.pointee.data.mapping_start
                    anchor = Self.string(start.anchor)
                    tag = start.implicit != 0 ? nil : Self.string(start.tag)
                } else {
                    let start = event.pointee.data.sequence_start
                    anchor = Self.string(start.anchor)
                    tag = start.implicit != 0 ? nil : Self.string(start.tag)
                }
                if tag == "!" || tag == (isMapping ? "tag:yaml.org,2002:map" : "tag:yaml.org,2002:seq") { tag = nil }
                if checkDepth && depth >= JSONScanner.maximumDepth && self.depth == nil {
                    self.depth = tooDeepProblem(line, column)
                }
                let identify = wantIdentity || anchor != nil
                var identities: [KeyIdentity] = []
                var size = 1
                var deepest = 0
                let read: Read
                if isMapping {
                    var entries: [DocEntry] = []
                    // Keys that are not plain text (a tag, a list or map): the rest are compared by text.
                    var special: [(index: Int, identity: KeyIdentity)] = []
                    try advance()
                    while type != YAML_MAPPING_END_EVENT {
                        let key = try readNode(depth: depth + 1, checkDepth: false, isKey: true, wantIdentity: true)
                        try advance()
                        let value = try readNode(
                            depth: depth + 1, checkDepth: checkDepth, isKey: false, wantIdentity: identify)
                        try advance()
                        entries.append(
                            DocEntry(
                                key: key.text ?? "", line: key.node.line, column: key.node.column, node: value.node))
                        if case .scalar(_, tag: nil)? = key.identity {
                        } else {
                            special.append((entries.count - 1, key.identity ?? .unexpanded("")))
                        }
                        size = size &+ key.size &+ value.size
                        deepest = max(deepest, value.deepest + 1)
                        if identify {
                            identities.append(key.identity ?? .unexpanded(""))
                            identities.append(value.identity ?? .unexpanded(""))
                        }
                    }
                    try checkDuplicates(entries, special: special)
                    read = Read(
                        node: DocNode(.object(entries), line: line, column: column), text: nil,
                        identity: identify ? .mapping(identities, tag: tag) : nil, size: size, deepest: deepest)
                } else {
                    var items: [DocNode] = []
                    try advance()
                    while type != YAML_SEQUENCE_END_EVENT {
                        let item = try readNode(
                            depth: depth + 1, checkDepth: checkDepth, isKey: false, wantIdentity: identify)
                        try advance()
                        items.append(item.node)
                        size = size &+ item.size
                        deepest = max(deepest, item.deepest + 1)
                        if identify { identities.append(item.identity ?? .unexpanded("")) }
                    }
                    read = Read(
                        node: DocNode(.array(items), line: line, column: column), text: nil,
                        identity: identify ? .sequence(identities, tag: tag) : nil, size: size, deepest: deepest)
                }
                if let anchor { anchors[anchor] = read }
                return read
            case YAML_ALIAS_EVENT:
                let name = Self.string(event.pointee.data.alias.anchor) ?? ""
                guard let anchored = anchors[name] else {
                    throw Failure(problem: Problem(line: line, column: column, message: "found undefined alias"))
                }
                count(anchored.size, line, column)
                if budget != nil {
                    // Refused: nothing more is expanded, but a key still names what it repeats
                    // (a repeated key found later is still reported as such).
                    return Read(
                        node: DocNode(.null, line: anchored.node.line, column: anchored.node.column),
                        text: anchored.text,
                        identity: anchored.identity, size: anchored.size, deepest: -1)
                }
                if checkDepth && self.depth == nil && depth + anchored.deepest >= JSONScanner.maximumDepth {
                    self.depth = Self.firstTooDeep(anchored.node, depth: depth)
                }
                return anchored
            default:
                throw Failure(problem: Problem(line: line, column: column, message: "unexpected event"))
            }
        }

        /// Adds an alias's values to the budget; past it, remembers where.
        private mutating func count(_ size: Int, _ line: Int, _ column: Int) {
            repeated = repeated &+ size
            if repeated > YAMLDocument.aliasBudget && budget == nil {
                budget = aliasBudgetProblem(line, column)
            }
        }

        /// The first list or map of `node` (read at `depth`) that is too deep, in document order.
        private static func firstTooDeep(_ node: DocNode, depth: Int) -> Problem? {
            switch node.value {
            case .array(let items):
                if depth >= JSONScanner.maximumDepth { return tooDeepProblem(node.line, node.column) }
                for item in items { if let found = firstTooDeep(item, depth: depth + 1) { return found } }
            case .object(let entries):
                if depth >= JSONScanner.maximumDepth { return tooDeepProblem(node.line, node.column) }
                for entry in entries { if let found = firstTooDeep(entry.node, depth: depth + 1) { return found } }
            default: break
            }
            return nil
        }

        /// Refuses a map that uses a key twice: names the key (the first in text order if several
        /// are repeated) and where it is written again.
        private func checkDuplicates(_ entries: [DocEntry], special: [(index: Int, identity: KeyIdentity)])
            throws(Failure)
        {
            guard entries.count > 1 else { return }
            if special.isEmpty {
                // Text keys only (nearly every map): done unless two are the same.
                if entries.count <= 8 {
                    var same = false
                    for index in 1..<entries.count where !same {
                        for earlier in 0..<index where entries[earlier].key == entries[index].key { same = true }
                    }
                    if !same { return }
                } else {
                    var seen = Set<String>(minimumCapacity: entries.count)
                    if entries.allSatisfy({ seen.insert($0.key).inserted }) { return }
                }
            }
            let keys = entries.enumerated().map { index, entry in
                (
                    identity: special.first { $0.index == index }?.identity ?? .scalar(entry.key, tag: nil),
                    text: entry.key, line: entry.line, column: entry.column
                )
            }
            var repeatedKeys: [Int] = []  // the first use of each key used again
            if keys.count <= 8 {
                for index in keys.indices
                where !repeatedKeys.contains(where: { keys[$0].identity == keys[index].identity }) {
                    if keys[(index + 1)...].contains(where: { $0.identity == keys[index].identity }) {
                        repeatedKeys.append(index)
                    }
                }
            } else {
                var seen: [KeyIdentity: Int] = [:]
                var counted = Set<Int>()
                for index in keys.indices {
                    if let first = seen[keys[index].identity] {
                        if counted.insert(first).inserted { repeatedKeys.append(first) }
                    } else {
                        seen[keys[index].identity] = index
                    }
                }
            }
            guard var chosen = repeatedKeys.first else { return }
            for index in repeatedKeys.dropFirst()
            where KeyIdentity.precedes(keys[index].identity, keys[chosen].identity) { chosen = index }
            let first = keys[chosen]
            let key: String
            if case .scalar = first.identity { key = first.text } else { key = "<uncovertable>" }
            if let again = YAMLDocument.secondOccurrence(of: key, afterLine: first.line, column: first.column, in: text)
            {
                throw Failure(
                    problem: Problem(
                        line: again.line, column: again.column,
                        message: "key '\(key)' appears twice in the same map (first at line \(first.line)); keep one"))
            }
            throw Failure(
                problem: Problem(
                    line: first.line, column: first.column, message: "key '\(key)' appears twice in this map; keep one")
            )
        }

        /// libyaml's error in one line that says what is wrong and where, without libyaml's internals.
        private func libyamlProblem() -> Problem {
            let state = parser.pointee
            let problem = state.problem.map { String(cString: $0) } ?? ""
            let line = state.problem_mark.line + 1
            let column = state.problem_mark.column + 1
            switch state.error {
            case YAML_READER_ERROR:
                // libyaml counts bytes; the message counts characters from the start of the line.
                var position = (line: 0, column: 0)
                if let index = text.utf8.index(
                    text.utf8.startIndex, offsetBy: state.problem_offset, limitedBy: text.utf8.endIndex)?.samePosition(
                        in: text)
                {
                    position = (1, 1)
                    for character in text[..<index] {
                        if character == "\n" || character == "\r\n" {
                            position = (position.line + 1, 1)
                        } else {
                            position.column += 1
                        }
                    }
                }
                let what = state.problem_value >= 0 ? " (character code \(state.problem_value))" : ""
                return Problem(line: position.line, column: position.column, message: problem + what)
            case YAML_SCANNER_ERROR, YAML_PARSER_ERROR, YAML_COMPOSER_ERROR:
                if problem.contains("nesting level") { return tooDeepProblem(line, column) }
                var message = problem
                if let context = state.context.map({ String(cString: $0) }), !context.isEmpty {
                    let contextLine = state.context_mark.line + 1
                    message += " (\(context)" + (contextLine != line ? " that starts at line \(contextLine))" : ")")
                }
                return Problem(line: line, column: column, message: message)
            default:
                return Problem(line: 0, column: 0, message: "Memory error")
            }
        }
    }
}
