import Foundation
public import SeedRuntime
import Yams

/// Reads YAML into the same position-aware tree as JSON, so that manifests and
/// migrations report errors with their line and column whichever format they use.
public enum YAMLDocument {
    /// Parses `text`; scalars keep YAML's core types (null, bool, int, float), everything
    /// else (dates included) stays a string.
    ///
    /// - throws: ``SeedError`` (configuration) with the line and column of the syntax error.
    public static func parse(_ text: String, file: String) throws(SeedError) -> DocNode {
        let node: Node?
        do { node = try Yams.compose(yaml: text) }
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
    public static let parser: MigrationDirectory.YAMLParser = { text, file throws(SeedError) in try parse(text, file: file) }

    private static func convert(_ node: Node) -> DocNode {
        let line = node.mark?.line ?? 0
        let column = node.mark?.column ?? 0
        switch node {
        case .scalar(let scalar):
            let value: DocValue
            if scalar.style != .plain {
                value = .string(scalar.string)
            } else {
                switch Tag.Name(rawValue: node.tag.rawValue) {
                case .null: value = .null
                case .bool: value = node.bool.map { .bool($0) } ?? .string(scalar.string)
                case .int: value = Int64(scalar.string).map { .integer($0) } ?? node.int.map { .integer(Int64($0)) } ?? .string(scalar.string)
                case .float: value = node.float.map { .real($0) } ?? .string(scalar.string)
                default: value = .string(scalar.string)
                }
            }
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
