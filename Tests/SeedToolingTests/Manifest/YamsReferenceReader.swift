import Foundation
import SeedRuntime
import Yams

@testable import SeedTooling

/// The YAML reader seedkit shipped before ``YAMLDocument`` read libyaml's events itself: Yams
/// composes its Node tree, then this converts it.
///
/// Kept unchanged (but for its name), only in the tests, as the reference the new reader must agree
/// with: same tree, positions, checksums, messages.
enum YamsReferenceReader {
    static let aliasBudget = YAMLDocument.aliasBudget

    /// Parses `text`; scalars keep YAML's core types (null, bool, int, float), everything
    /// else (dates included) stays a string.
    ///
    /// - throws: ``SeedError`` (configuration, code 2100) with the line and column of the problem:
    ///   bad syntax, a key used twice in a mapping, nesting deeper than
    ///   ``JSONScanner/maximumDepth``, aliases past ``aliasBudget``.
    static func parse(_ text: String, file: String) throws(SeedError) -> DocNode {
        func fail(_ line: Int, _ column: Int, _ message: String) -> SeedError {
            SeedError(.configuration, file: file, line: line, column: column, "YAML: \(message)")
        }
        // Plain scalars are resolved below, without Yams' regular expressions (measured: most of a
        // 10k-row migration's load time). The parser stays alive while the tree is converted:
        // it owns the anchors that tell an alias's use from its definition.
        try checkAliasExpansion(text, fail: fail)
        let parser: Parser
        let root: Node?
        do {
            parser = try Parser(yaml: text, resolver: .basic)
            root = try parser.singleRoot()
        } catch let error as YamlError {
            throw describe(error, text: text, fail: fail)
        } catch {
            throw fail(0, 0, "\(error)")
        }
        guard let root else { return DocNode(.null, line: 1, column: 1) }
        var converter = Converter(fail: fail)
        let document = try converter.convert(root, depth: 0)
        withExtendedLifetime(parser) {}
        return document
    }

    /// What a plain (unquoted) scalar means, as YAML 1.2's core schema reads it: null, a boolean
    /// (`true`/`false` only), an integer, a float; anything else (dates included) is text.
    ///
    /// YAML 1.1 also read `yes`/`no`/`on`/`off` as booleans, which turns Norway's country code
    /// `NO` into `false`; seed data is full of such codes, so they stay text. A BOOLEAN column
    /// still accepts the text `yes`/`no` (see ``ColumnType``).
    static func resolvePlain(_ text: String) -> DocValue {
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .real(.infinity)
        case "-.inf", "-.Inf", "-.INF": return .real(-.infinity)
        case ".nan", ".NaN", ".NAN": return .real(.nan)
        default: break
        }
        guard let first = text.utf8.first,
            first == UInt8(ascii: "-") || first == UInt8(ascii: "+") || first == UInt8(ascii: ".")
                || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9"))
        else {
            return .string(text)
        }
        var copy = text
        return copy.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            // Written without a point or exponent: an integer; past 64 bits it stays text, as JSON's
            // numbers are read, so that an INTEGER column refuses it instead of clamping a double.
            // Bytes, not Foundation's substring search (once per plain scalar of a big migration).
            if !raw.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
                switch ColumnType.integer.convert(text: raw) {
                case .success(.integer(let value)): return .integer(value)
                case .failure(let failure) where failure.expected == ColumnType.integerRange: return .string(text)
                default: break
                }
            }
            if case .success(.real(let value)) = ColumnType.real.convert(text: raw) { return .real(value) }
            return .string(text)
        }
    }

    /// Refuses a document whose aliases would repeat more than ``aliasBudget`` values, before
    /// Yams composes it: Yams hashes every mapping key, and a key that holds aliases would be
    /// hashed value by value, however many billions that makes.
    ///
    /// The sizes come from a first parse of the text with each `*` made a letter, so that every
    /// alias reads as a plain scalar at the alias's place: the structure without any expansion.
    private static func checkAliasExpansion(_ text: String, fail: (Int, Int, String) -> SeedError) throws(SeedError) {
        guard text.utf8.contains(UInt8(ascii: "*")) else { return }
        let (neutral, stars) = neutralized(text)
        // Invalid YAML here is reported by the real parse.
        guard let parser = try? Parser(yaml: neutral, resolver: .basic), let root = try? parser.singleRoot() else {
            return
        }
        var sizes: [String: Int] = [:]
        var repeated = 0
        func size(of node: Node) throws(SeedError) -> Int {
            var total = 1
            switch node {
            case .scalar(let scalar):
                if scalar.style == .plain, let mark = node.mark, stars.contains(mark.line << 24 | mark.column) {
                    let name = String(
                        scalar.string.dropFirst().prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
                    total = sizes[name] ?? 1
                    repeated += total
                    if repeated > aliasBudget {
                        throw fail(
                            mark.line, mark.column,
                            "aliases (*name) repeat more than \(aliasBudget) values in all; write the values out instead (seedkit refuses to expand more)"
                        )
                    }
                }
            case .mapping(let mapping):
                for (key, value) in mapping { total = total &+ (try size(of: key)) &+ (try size(of: value)) }
            case .sequence(let sequence):
                for item in sequence { total = total &+ (try size(of: item)) }
            case .alias:
                break
            }
            if let anchor = node.anchor?.rawValue { sizes[anchor] = total }
            return total
        }
        _ = try size(of: root)
        withExtendedLifetime(parser) {}
    }

    /// The text with each `*` made a letter, and where each `*` was (line << 24 | column).
    private static func neutralized(_ text: String) -> (text: String, stars: Set<Int>) {
        var neutral = Array(text.utf8)
        var stars = Set<Int>()
        var line = 1
        var column = 1
        for index in neutral.indices {
            let byte = neutral[index]
            if byte == UInt8(ascii: "*") {
                stars.insert(line << 24 | column)
                neutral[index] = UInt8(ascii: "A")
            }
            if byte == UInt8(ascii: "\n")
                || (byte == UInt8(ascii: "\r")
                    && (index + 1 == neutral.count || neutral[index + 1] != UInt8(ascii: "\n")))
            {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (String(decoding: neutral, as: UTF8.self), stars)
    }

    /// Whether the first parse of ``checkAliasExpansion`` fails on `text`, so that the old reader
    /// skipped its alias count: Yams refuses the neutral text when aliases used as keys of one map
    /// become the same plain scalar there (`*a : 1` twice: "duplicated keys").
    ///
    /// Yams' own count while converting then names a value inside the anchor; seedkit names the
    /// alias.
    static func skipsAliasCount(_ text: String) -> Bool {
        guard text.utf8.contains(UInt8(ascii: "*")) else { return false }
        guard let parser = try? Parser(yaml: neutralized(text).text, resolver: .basic),
            (try? parser.singleRoot()) != nil
        else { return true }
        return false
    }

    /// Turns Yams' error into one line that says what is wrong and where, without libyaml's internals.
    private static func describe(_ error: YamlError, text: String, fail: (Int, Int, String) -> SeedError) -> SeedError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            if problem.contains("nesting level") {
                return fail(
                    mark.line, mark.column,
                    "lists and maps nest more than \(JSONScanner.maximumDepth) levels deep here; seedkit reads at most \(JSONScanner.maximumDepth)"
                )
            }
            var message = problem
            if let context, !context.text.isEmpty {
                message +=
                    " (\(context.text)"
                    + (context.mark.line > 0 && context.mark.line != mark.line
                        ? " that starts at line \(context.mark.line))" : ")")
            }
            return fail(mark.line, mark.column, message)
        case .reader(let problem, let offset, let value, _):
            // `offset` counts characters.
            var line = 0
            var column = 0
            if let offset {
                line = 1
                column = 1
                for character in text.prefix(offset) {
                    if character == "\n" || character == "\r\n" {
                        line += 1
                        column = 1
                    } else {
                        column += 1
                    }
                }
            }
            let what = value >= 0 ? " (character code \(value))" : ""
            return fail(line, column, problem + what)
        case .duplicatedKeysInMapping(let duplicates, let context):
            let key = duplicates.first ?? ""
            let first = context.mark
            if let again = secondOccurrence(of: key, after: first, in: text) {
                return fail(
                    again.line, again.column,
                    "key '\(key)' appears twice in the same map (first at line \(first.line)); keep one")
            }
            return fail(first.line, first.column, "key '\(key)' appears twice in this map; keep one")
        default:
            return fail(0, 0, "\(error)")
        }
    }

    /// Where `key` is written as a key again after its first use at `first` (block or flow style).
    private static func secondOccurrence(of key: String, after first: Mark, in text: String) -> (
        line: Int, column: Int
    )? {
        guard !key.isEmpty else { return nil }
        // "\r\n" is one Character
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (index, line) in lines.enumerated() where index + 1 >= first.line {
            var characters = Array(line)
            if index + 1 == first.line {
                // Skip the first use itself.
                let skip = min(characters.count, max(0, first.column - 1 + key.count))
                characters = Array(repeating: " ", count: skip) + characters.dropFirst(skip)
            }
            let keyCharacters = Array(key)
            var start = 0
            while start + keyCharacters.count <= characters.count {
                defer { start += 1 }
                guard Array(characters[start..<(start + keyCharacters.count)]) == keyCharacters else { continue }
                let before = start == 0 ? " " : characters[start - 1]
                guard " \t{,-?\"'".contains(before) else { continue }
                var after = start + keyCharacters.count
                if after < characters.count, characters[after] == "\"" || characters[after] == "'" { after += 1 }
                while after < characters.count, characters[after] == " " { after += 1 }
                if after < characters.count, characters[after] == ":" { return (index + 1, start + 1) }
            }
        }
        return nil
    }

    /// Converts Yams' nodes, refusing nesting past ``JSONScanner/maximumDepth`` and aliases past ``aliasBudget``.
    private struct Converter {
        let fail: (Int, Int, String) -> SeedError
        /// Anchors whose definition was converted: meeting one again is an alias's use.
        var defined = Set<ObjectIdentifier>()
        var aliasValues = 0

        mutating func convert(_ node: Node, depth: Int, inAlias: Bool = false) throws(SeedError) -> DocNode {
            let line = node.mark?.line ?? 0
            let column = node.mark?.column ?? 0
            var inAlias = inAlias
            if let anchor = node.anchor, !defined.insert(ObjectIdentifier(anchor)).inserted { inAlias = true }
            if inAlias {
                aliasValues += 1
                if aliasValues > YamsReferenceReader.aliasBudget {
                    throw fail(
                        line, column,
                        "aliases (*name) repeat more than \(YamsReferenceReader.aliasBudget) values in all; write the values out instead (seedkit refuses to expand more)"
                    )
                }
            }
            switch node {
            case .scalar(let scalar):
                // Quoted scalars are text; plain ones are resolved (explicit tags such as !!str are not honoured).
                let value =
                    scalar.style == .plain ? YamsReferenceReader.resolvePlain(scalar.string) : .string(scalar.string)
                return DocNode(value, line: line, column: column)
            case .mapping(let mapping):
                guard depth < JSONScanner.maximumDepth else { throw tooDeep(line, column) }
                var entries: [DocEntry] = []
                for (key, value) in mapping {
                    entries.append(
                        DocEntry(
                            key: key.string ?? "", line: key.mark?.line ?? line, column: key.mark?.column ?? column,
                            node: try convert(value, depth: depth + 1, inAlias: inAlias)))
                }
                return DocNode(.object(entries), line: line, column: column)
            case .sequence(let sequence):
                guard depth < JSONScanner.maximumDepth else { throw tooDeep(line, column) }
                var items: [DocNode] = []
                for item in sequence { items.append(try convert(item, depth: depth + 1, inAlias: inAlias)) }
                return DocNode(.array(items), line: line, column: column)
            case .alias:
                return DocNode(.null, line: line, column: column)
            }
        }

        private func tooDeep(_ line: Int, _ column: Int) -> SeedError {
            fail(
                line, column,
                "lists and maps nest more than \(JSONScanner.maximumDepth) levels deep here; seedkit reads at most \(JSONScanner.maximumDepth)"
            )
        }
    }
}
