import Foundation
import SeedRuntime

extension OutputFormat {
    /// `--format csv`: a report's rows as CSV (``CSVFormat``), each written as it is read.
    public static let csv = OutputFormat(name: "csv", view: .rows, isForPeople: false) { report, output in
        guard let tabular = report.tabular else { return }
        // CSV carries every byte but NUL back to build, which reads a NUL in a file as UTF-16: say so.
        if CSVFormat().write(tabular, to: output.write) {
            output.warning(
                "a value holds a NUL, which a CSV fixture cannot carry (build refuses the file); --format json keeps it"
            )
        }
    }
}

/// RFC 4180 CSV that seedkit's own reader reads back: NULL is an empty unquoted field,
/// the empty string is `""`, blobs are base64.
public struct CSVFormat: Sendable {
    /// A CSV writer; it has no settings (RFC 4180, CRLF line ends, always).
    public init() {}

    /// Renders every row of `tabular` under its header, as seedkit reads a CSV fixture back.
    public func render(_ tabular: Tabular) -> String {
        var out = ""
        write(tabular) { out += $0 }
        return out
    }

    /// Writes the header, then each row as it is read (``Tabular/forEachRow(_:)``); returns
    /// whether a text value held a NUL.
    @discardableResult
    public func write(_ tabular: Tabular, to write: (String) -> Void) -> Bool {
        write(tabular.columns.map(Self.field).joined(separator: ",") + "\r\n")
        var nul = false
        tabular.forEachRow { row in
            write(
                row.cells.map { cell -> String in
                    let value = cell ?? .null
                    switch value {
                    case .null: return ""
                    case .text(let text):
                        if !nul && text.utf8.contains(0) { nul = true }
                        return Self.field(text)
                    case .blob(let bytes): return Data(bytes).base64EncodedString()
                    default: return value.description
                    }
                }.joined(separator: ",") + "\r\n")
        }
        return nul
    }

    /// One CSV field (RFC 4180), the one quoting rule for every CSV seedkit writes (reports and
    /// init's fixtures): NULL empty, the empty string `""`, quoted when it holds `,`, `"`, a line
    /// break or a space at an end (a reader that trims would lose it), quotes doubled.
    static func field(_ value: String?) -> String {
        guard let text = value else { return "" }
        if text.isEmpty { return "\"\"" }
        // Bytes, not Characters: "\r\n" is one Character, equal to neither "\r" nor "\n".
        let special = text.utf8.contains {
            $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D
        }
        guard special || text.utf8.first == 0x20 || text.utf8.last == 0x20 else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
