import Foundation
import SeedRuntime

extension Manifest {
    static func columnRules(_ entry: DocEntry, path: String) throws(SeedError) -> ColumnRules {
        func fail(_ line: Int, _ column: Int, _ message: String) -> SeedError {
            SeedError(.configuration, file: path, line: line, column: column, message)
        }
        guard let ruleEntries = entry.node.entries else {
            throw fail(
                entry.node.line, entry.node.column,
                "rules for '\(entry.key)' must be a map like {required: true, max_length: 25}")
        }
        var rules = ColumnRules(column: entry.key)
        for rule in ruleEntries {
            let node = rule.node
            func number() throws(SeedError) -> Double {
                switch node.value {
                case .integer(let value): return Double(value)
                case .real(let value):
                    guard value.isFinite else {
                        throw fail(node.line, node.column, "\(rule.key) must be a finite number")
                    }
                    return value
                // A whole number past 64 bits arrives as the text it was written as.
                case .string(let text)
                where Double(text) != nil && text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "-" || $0 == "+") }):
                    return Double(text) ?? 0
                default: throw fail(node.line, node.column, "\(rule.key) must be a number")
                }
            }
            func count() throws(SeedError) -> Int {
                guard case .integer(let value) = node.value, value >= 0 else {
                    throw fail(node.line, node.column, "\(rule.key) must be a whole number ≥ 0")
                }
                return Int(value)
            }
            func date() throws(SeedError) -> String {
                let text: String
                switch node.value {
                case .string(let value): text = value
                default: throw fail(node.line, node.column, "\(rule.key) must be a date like 1450-01-01")
                }
                var bytes = Array(text.utf8)
                let valid = bytes.withUnsafeMutableBytes { buffer in
                    if case .success = ColumnType.datetime.convert(text: UnsafeRawBufferPointer(buffer)) { return true }
                    return false
                }
                guard valid else {
                    throw fail(
                        node.line, node.column, "\(rule.key) must be an ISO 8601 date like 1450-01-01, not '\(text)'")
                }
                return text
            }
            switch rule.key {
            case "required":
                guard case .bool(let flag) = node.value else {
                    throw fail(node.line, node.column, "required must be true or false")
                }
                rules.required = flag
            case "min": rules.min = try number()
            case "max": rules.max = try number()
            case "min_length": rules.minLength = try count()
            case "max_length": rules.maxLength = try count()
            case "pattern":
                guard let source = node.string else {
                    throw fail(node.line, node.column, "pattern must be a regular expression in quotes")
                }
                do { rules.pattern = try ColumnRules.Pattern(source) } catch {
                    throw fail(node.line, node.column, "pattern '\(source)' is not a valid regular expression")
                }
            case "one_of":
                guard let items = node.items else {
                    throw fail(node.line, node.column, "one_of must be a list like [hardcover, paperback]")
                }
                rules.oneOf = items.map { item in
                    if case .string(let text) = item.value { return text }
                    return item.inputValue.description
                }
            case "after": rules.after = try date()
            case "before": rules.before = try date()
            default:
                throw fail(
                    rule.line, rule.column,
                    "unknown rule '\(rule.key)' (expected required, min, max, min_length, max_length, pattern, one_of, after, before)"
                )
            }
        }
        return rules
    }
}
