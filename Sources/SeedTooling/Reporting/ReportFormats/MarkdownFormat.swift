import Foundation
import SeedRuntime

extension OutputFormat {
    /// `--format markdown`: a report's rows as a Markdown table (``MarkdownFormat``), for a pull
    /// request or a job summary.
    public static let markdown = OutputFormat(name: "markdown", view: .rows, isForPeople: true) { report, output in
        guard let tabular = report.tabular else { return }
        output.write(MarkdownFormat().render(tabular))
    }
}

/// A GitHub-flavoured Markdown table (pipes escaped, line breaks as `<br>`).
public struct MarkdownFormat: Sendable {
    public init() {}

    public func render(_ tabular: Tabular) -> String {
        func cell(_ text: String) -> String {
            // Nearly every cell has no pipe and no line feed: nothing to replace.
            guard text.utf8.contains(where: { $0 == UInt8(ascii: "|") || $0 == 0x0A }) else { return text }
            return text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\r\n", with: "<br>")
                .replacingOccurrences(of: "\n", with: "<br>")
        }
        var out = "| " + tabular.columns.map { cell($0.escapingControls()) }.joined(separator: " | ") + " |\n"
        out += "|" + String(repeating: "---|", count: tabular.columns.count) + "\n"
        for row in tabular.rows { out += "| " + row.map { cell($0.display) }.joined(separator: " | ") + " |\n" }
        if tabular.omitted > 0 { out += "\n\(tabular.omitted) more rows not shown.\n" }
        return out
    }
}
