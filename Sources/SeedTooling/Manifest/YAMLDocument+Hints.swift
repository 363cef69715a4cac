import Foundation

extension YAMLDocument {
    /// A hint for the syntax errors people meet most, where libyaml's words name its parser's
    /// state rather than the mistake (docs/reference.md, "Error codes", 2100): a tab in a line's
    /// indentation, and a line indented unlike the keys around it.
    ///
    /// Nil for anything else.
    static func hint(for problem: Problem, in text: String) -> String? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard problem.line >= 1, problem.line <= lines.count else { return nil }
        let line = lines[problem.line - 1]
        let indentation = line.prefix { $0 == " " || $0 == "\t" }
        if indentation.contains("\t") {
            return "a tab indents line \(problem.line): YAML indents with spaces only, so replace the tab with spaces"
        }
        let expectsKey =
            problem.message.hasPrefix("did not find expected key")
            || problem.message.hasPrefix("mapping values are not allowed")
        guard expectsKey, problem.line >= 2 else { return nil }
        // The nearest line above with content: the key this line should line up with, or its parent.
        guard
            let above = (1..<problem.line).reversed().first(where: {
                !lines[$0 - 1].allSatisfy { $0 == " " } && !lines[$0 - 1].hasPrefix("#")
            })
        else { return nil }
        let aboveIndent = lines[above - 1].prefix { $0 == " " }.count
        guard aboveIndent != indentation.count else { return nil }
        let spaces = { (count: Int) in "\(count) space\(count == 1 ? "" : "s")" }
        return
            "check the indentation: line \(problem.line) is indented \(spaces(indentation.count)), line \(above) \(spaces(aboveIndent)); the keys of one mapping line up, and a value's mapping is indented under its key"
    }
}
