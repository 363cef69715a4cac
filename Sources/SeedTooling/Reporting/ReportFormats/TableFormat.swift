import Foundation
import SeedRuntime

/// Aligned columns under a header, for people (what `--format human` prints of rows).
///
/// On a terminal, text longer than 40 characters is cut; csv and json never cut. The columns are as
/// wide as their widest cell in the first ``widthSample`` rows; later rows are written as they are
/// read, a wider cell widening its own line only.
public struct TableFormat: Sendable {
    /// Whether long cells are cut at ``cellWidth`` characters (on a terminal).
    public var truncate: Bool
    /// Whether the header is bold (a terminal, `NO_COLOR` unset).
    public var color: Bool
    /// The characters a cut cell keeps, its ellipsis included.
    public static let cellWidth = 40
    /// How many rows are held to measure the columns before any is written.
    public static let widthSample = 1_000

    /// A table writer for people, cutting and colouring as a terminal wants.
    public init(truncate: Bool, color: Bool) {
        self.truncate = truncate
        self.color = color
    }

    /// Renders `tabular` as aligned columns, each as wide as its widest cell in the first 1,000
    /// rows.
    public func render(_ tabular: Tabular) -> String {
        var out = ""
        write(tabular) { out += $0 }
        return out
    }

    /// Writes the table: the first ``widthSample`` rows held to measure the columns, the rest
    /// written as they are read (``Tabular/forEachRow(_:)``).
    public func write(_ tabular: Tabular, to write: (String) -> Void) {
        let columns = tabular.columns.map { $0.escapingControls() }
        var widths = columns.map(\.count)
        var sample: [[String]] = []
        var started = false
        func line(_ values: [String]) -> String {
            // Each cell padded to its column's width in characters, as the widths are counted.
            var text = ""
            for (index, cell) in values.enumerated() {
                if index > 0 { text += "  " }
                text += cell
                if index < widths.count {
                    let count = cell.count
                    if count < widths[index] { text += String(repeating: " ", count: widths[index] - count) }
                }
            }
            return text.replacingTrailingSpaces() + "\n"
        }
        func start() {
            started = true
            let header = line(columns)
            write(color ? "\u{1B}[1m" + header.dropLast() + "\u{1B}[0m\n" : header)
            write(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n")
            for row in sample { write(line(row)) }
            sample = []
        }
        let omitted = tabular.forEachRow { row in
            let cells = row.cells.map { cell($0?.display ?? "") }
            if started {
                write(line(cells))
                return
            }
            for (index, text) in cells.enumerated() where index < widths.count {
                widths[index] = max(widths[index], text.count)
            }
            sample.append(cells)
            if sample.count == Self.widthSample { start() }
        }
        if !started { start() }
        if omitted > 0 {
            write("(\(omitted) more row\(omitted == 1 ? "" : "s") not shown; use --limit)\n")
        }
    }

    private func cell(_ text: String) -> String {
        // Nearly every cell has no line feed: nothing to replace (Foundation's replace is most of a big table's cost).
        let flat = text.utf8.contains(0x0A) ? text.replacingOccurrences(of: "\n", with: "⏎") : text
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
