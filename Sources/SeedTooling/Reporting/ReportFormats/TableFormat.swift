import Foundation
import SeedRuntime

/// Aligned columns under a header, for people (what `--format human` prints of rows). On a terminal, text longer than 40
/// characters is cut; csv and json never cut.
public struct TableFormat: Sendable {
    public var truncate: Bool
    public var color: Bool
    public static let cellWidth = 40

    public init(truncate: Bool, color: Bool) {
        self.truncate = truncate
        self.color = color
    }

    public func render(_ tabular: Tabular) -> String {
        let cells = tabular.rows.map { row in row.map { cell($0?.display ?? "") } }
        let columns = tabular.columns.map { $0.escapingControls() }
        var widths = columns.map(\.count)
        for row in cells {
            for (index, text) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], text.count)
            }
        }
        func line(_ values: [String]) -> String {
            values.enumerated().map { index, text in text.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }
            .joined(separator: "  ").replacingTrailingSpaces()
        }
        let header = line(columns)
        var out = (color ? "\u{1B}[1m" + header + "\u{1B}[0m" : header) + "\n"
        out += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
        for row in cells { out += line(row) + "\n" }
        if tabular.omitted > 0 {
            out += "(\(tabular.omitted) more row\(tabular.omitted == 1 ? "" : "s") not shown; use --limit)\n"
        }
        return out
    }

    private func cell(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: "⏎")
        guard truncate, flat.count > Self.cellWidth else { return flat }
        return String(flat.prefix(Self.cellWidth - 1)) + "…"
    }
}

extension String {
    func replacingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
