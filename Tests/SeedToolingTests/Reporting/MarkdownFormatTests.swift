import Foundation
import SeedRuntime
import SeedTestSupport
import SeedTooling
import Testing

/// `--format markdown` goes into pull requests and job summaries (docs/reference.md, "Output
/// formats"): it stops before GitHub's limit and says what it left out.
@Suite struct MarkdownFormatTests {
    @Test func aTableStopsBeforeItsByteLimitAndCountsTheRowsItLeftOut() {
        let rows: [[SQLValue?]] = (0..<10_000).map { [.text("row \($0)"), .integer(Int64($0)), nil] }
        let tabular = Tabular(columns: ["name", "n", "note"], rows: rows)
        let text = MarkdownFormat(byteLimit: 1_000).render(tabular)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let shown = lines.filter { $0.hasPrefix("| row ") }
        #expect(shown.count > 10, "\(text)")
        #expect(shown.count < 100, "\(text)")
        expectEqual(shown.first, "| row 0 | 0 |  |")
        let table = lines.prefix { !$0.isEmpty }.joined(separator: "\n")
        #expect(table.utf8.count <= 1_000, "\(table.utf8.count)")
        #expect(
            text.hasSuffix(
                "\n\(10_000 - shown.count) more rows not shown (a GitHub job summary holds 1 MiB); `--format csv` or `--format json` lists every one.\n"
            ), "\(text.suffix(200))")
        // The default limit is half of GitHub's 1 MiB, and a small table is whole.
        expectEqual(MarkdownFormat().byteLimit, 512 * 1024)
        let whole = MarkdownFormat().render(Tabular(columns: ["a"], rows: [[.null], [nil]]))
        expectEqual(whole, "| a |\n|---|\n| NULL |\n|  |\n")
    }
}
