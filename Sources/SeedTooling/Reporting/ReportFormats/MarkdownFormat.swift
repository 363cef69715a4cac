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

/// A GitHub-flavoured Markdown table (pipes escaped, line breaks as `<br>`), cut to ``byteLimit``.
public struct MarkdownFormat: Sendable {
    /// GitHub drops a job summary over 1 MiB: a table stops at half of that, saying how many rows
    /// it left out and where they all are (docs/reference.md, "Output formats").
    public var byteLimit: Int

    public init(byteLimit: Int = 512 * 1024) {
        self.byteLimit = byteLimit
    }

    public func render(_ tabular: Tabular) -> String {
        func cell(_ text: String) -> String {
            // Nearly every cell has no pipe and no line feed: nothing to replace.
            guard text.utf8.contains(where: { $0 == UInt8(ascii: "|") || $0 == 0x0A }) else { return text }
            return text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\r\n", with: "<br>")
                .replacingOccurrences(of: "\n", with: "<br>")
        }
        var out = "| " + tabular.columns.map { cell($0.escapingControls()) }.joined(separator: " | ") + " |\n"
        out += "|" + String(repeating: "---|", count: tabular.columns.count) + "\n"
        var shown = 0
        for row in tabular.rows {
            let line = "| " + row.map { cell($0?.display ?? "") }.joined(separator: " | ") + " |\n"
            if out.utf8.count + line.utf8.count > byteLimit { break }
            out += line
            shown += 1
        }
        let cut = tabular.rows.count - shown
        if cut > 0 {
            out +=
                "\n\(cut + tabular.omitted) more row\(cut + tabular.omitted == 1 ? "" : "s") not shown (a GitHub job summary holds 1 MiB); `--format csv` or `--format json` lists every one.\n"
        } else if tabular.omitted > 0 {
            out += "\n\(tabular.omitted) more row\(tabular.omitted == 1 ? "" : "s") not shown.\n"
        }
        return out
    }
}
