import Foundation
public import SeedRuntime

/// A JSON value for output, with keys in a stable, written order.
public indirect enum JSONOutput: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONOutput])
    case object([(String, JSONOutput)])

    /// Pretty-printed JSON with two-space indents.
    public static func render(_ value: JSONOutput, indent: String = "") -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1 << 12)
        write(value, indent: Array(indent.utf8), depth: 0, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value` as ``render(_:indent:)`` gives it, at `depth` levels of two spaces past
    /// `indent`: into one buffer, rather than a string per value joined into its parent's.
    private static func write(_ value: JSONOutput, indent: [UInt8], depth: Int, into bytes: inout [UInt8]) {
        func newline(_ depth: Int) {
            bytes.append(UInt8(ascii: "\n"))
            bytes += indent
            bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
        }
        switch value {
        case .null: bytes += "null".utf8
        case .bool(let flag): bytes += (flag ? "true" : "false").utf8
        case .int(let number): bytes += String(number).utf8
        // ±Infinity as `1e999` (valid JSON, read back as Infinity); SQLite never stores NaN.
        case .double(let number): bytes += (number.isNaN ? "null" : SQLValue.format(number)).utf8
        case .string(let text): DocNode.writeQuoted(text, into: &bytes)
        case .array(let items):
            if items.isEmpty {
                bytes += "[]".utf8
                return
            }
            bytes.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                write(item, indent: indent, depth: depth + 1, into: &bytes)
            }
            newline(depth)
            bytes.append(UInt8(ascii: "]"))
        case .object(let entries):
            if entries.isEmpty {
                bytes += "{}".utf8
                return
            }
            bytes.append(UInt8(ascii: "{"))
            for (index, entry) in entries.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                DocNode.writeQuoted(entry.0, into: &bytes)
                bytes += ": ".utf8
                write(entry.1, indent: indent, depth: depth + 1, into: &bytes)
            }
            newline(depth)
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// The value of a SQL value.
    public static func sql(_ value: SQLValue) -> JSONOutput {
        switch value {
        case .null: return .null
        case .integer(let number): return .int(Int(number))
        case .real(let number): return .double(number)
        case .text(let text): return .string(text)
        case .blob(let bytes): return .string(Data(bytes).base64EncodedString())
        }
    }
}
