import Foundation
import SeedRuntime

extension OutputFormat {
    /// `--format markdown`: a report's rows as a Markdown table (``MarkdownFormat``), for a pull
    /// request or a job summary.
    public static let markdown = OutputFormat(name: "markdown", view: .rows, isForPeople: true) { report, output in
        guard let tabular = report.tabular else { return }
        MarkdownFormat().write(tabular, to: output.write)
    }
}

/// A GitHub-flavoured Markdown table (pipes escaped, line breaks as `<br>`), cut to ``byteLimit``.
public struct MarkdownFormat: Sendable {
    /// GitHub drops a job summary over 1 MiB: a table stops at half of that, saying how many rows
    /// it left out and where they all are (docs/reference.md, "Output formats").
    public var byteLimit: Int

    /// A Markdown writer that stops before `byteLimit` bytes (GitHub drops a job summary over
    /// 1 MiB).
    public init(byteLimit: Int = 512 * 1024) {
        self.byteLimit = byteLimit
    }

    /// Renders `tabular` as one table, saying how many rows it left out when it stopped at the
    /// limit.
    public func render(_ tabular: Tabular) -> String {
        var out = ""
        write(tabular) { out += $0 }
        return out
    }

    /// Writes the table, each row as it is read (``Tabular/forEachRow(_:)``); past ``byteLimit``
    /// the rows are counted, not written.
    public func write(_ tabular: Tabular, to write: (String) -> Void) {
        func cell(_ text: String) -> String {
            // Nearly every cell has no pipe and no line feed: nothing to replace.
            guard text.utf8.contains(where: { $0 == UInt8(ascii: "|") || $0 == 0x0A }) else { return text }
            return text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\r\n", with: "<br>")
                .replacingOccurrences(of: "\n", with: "<br>")
        }
        var header = "| " + tabular.columns.map { cell($0.escapingControls()) }.joined(separator: " | ") + " |\n"
        header += "|" + String(repeating: "---|", count: tabular.columns.count) + "\n"
        write(header)
        var size = header.utf8.count
        var cut = 0
        let omitted = tabular.forEachRow { row in
            guard cut == 0 else {
                cut += 1
                return
            }
            let line = "| " + row.cells.map { cell($0?.display ?? "") }.joined(separator: " | ") + " |\n"
            if size + line.utf8.count > byteLimit {
                cut = 1
                return
            }
            write(line)
            size += line.utf8.count
        }
        if cut > 0 {
            write(
                "\n\(cut + omitted) more row\(cut + omitted == 1 ? "" : "s") not shown (a GitHub job summary holds 1 MiB); `--format csv` or `--format json` lists every one.\n"
            )
        } else if omitted > 0 {
            write("\n\(omitted) more row\(omitted == 1 ? "" : "s") not shown.\n")
        }
    }
}
