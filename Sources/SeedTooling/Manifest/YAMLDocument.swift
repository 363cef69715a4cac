import Foundation
import SeedRuntime
import Yams

/// Reads YAML into the same position-aware tree as JSON, so that manifests and
/// migrations report errors with their line and column whichever format they use.
public enum YAMLDocument {
    /// Parses `text`; scalars keep YAML's core types (null, bool, int, float), everything
    /// else (dates included) stays a string.
    ///
    /// - throws: ``SeedError`` (configuration) with the line and column of the syntax error.
    package static func parse(_ text: String, file: String) throws(SeedError) -> DocNode {
        let node: Node?
        // Plain scalars are resolved below, without Yams' regular expressions (measured: most of a
        // 10k-row migration's load time).
        do { node = try Yams.compose(yaml: text, .basic) }
        catch let error as YamlError {
            switch error {
            case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _), .composer(_, let problem, let mark, _):
                throw SeedError(.configuration, file: file, line: mark.line, column: mark.column, code: .parseError, "YAML: \(problem)")
            default:
                throw SeedError(.configuration, file: file, code: .parseError, "YAML: \(error)")
            }
        } catch {
            throw SeedError(.configuration, file: file, code: .parseError, "YAML: \(error)")
        }
        guard let node else { return DocNode(.null, line: 1, column: 1) }
        return convert(node)
    }

    /// The parser ``MigrationDirectory/load(_:displayPath:yamlParser:)`` takes.
    package static let parser: MigrationDirectory.YAMLParser = { text, file throws(SeedError) in try parse(text, file: file) }

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
        guard let first = text.utf8.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") || first == UInt8(ascii: ".") || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) else {
            return .string(text)
        }
        var copy = text
        return copy.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            if case .success(.integer(let value)) = ColumnType.integer.convert(text: raw), !text.contains(".") && !text.contains("e") && !text.contains("E") { return .integer(value) }
            if case .success(.real(let value)) = ColumnType.real.convert(text: raw) { return .real(value) }
            return .string(text)
        }
    }

    private static func convert(_ node: Node) -> DocNode {
        let line = node.mark?.line ?? 0
        let column = node.mark?.column ?? 0
        switch node {
        case .scalar(let scalar):
            // Quoted scalars are text; plain ones are resolved (explicit tags such as !!str are not honoured).
            let value = scalar.style == .plain ? resolvePlain(scalar.string) : .string(scalar.string)
            return DocNode(value, line: line, column: column)
        case .mapping(let mapping):
            let entries = mapping.map { key, value in
                DocEntry(key: key.string ?? "", line: key.mark?.line ?? line, column: key.mark?.column ?? column, node: convert(value))
            }
            return DocNode(.object(entries), line: line, column: column)
        case .sequence(let sequence):
            return DocNode(.array(sequence.map(convert)), line: line, column: column)
        case .alias:
            return DocNode(.null, line: line, column: column)
        }
    }
}
