/// A parsed JSON or YAML value that remembers its line and column, so that errors
/// in migration and manifest files can say where they are.
package struct DocNode: Sendable, Equatable {
    package var value: DocValue
    package var line: Int
    package var column: Int

    package init(_ value: DocValue, line: Int, column: Int) {
        self.value = value
        self.line = line
        self.column = column
    }

    /// The entries of an object, or nil.
    package var entries: [DocEntry]? {
        if case .object(let entries) = value { return entries }
        return nil
    }

    /// The items of an array, or nil.
    package var items: [DocNode]? {
        if case .array(let items) = value { return items }
        return nil
    }

    /// The text of a string, or nil.
    package var string: String? {
        if case .string(let text) = value { return text }
        return nil
    }

    /// The value for a fixture column: scalars as they are, arrays and objects as JSON text.
    package var inputValue: InputValue {
        value.scalar?.inputValue ?? .json(jsonText)
    }

    /// Compact JSON text for this value, keys in their written order.
    package var jsonText: String {
        var bytes: [UInt8] = []
        writeJSON(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``jsonText``'s UTF-8 to `bytes`, without building intermediate strings.
    package func writeJSON(into bytes: inout [UInt8]) {
        writeJSON(into: &bytes, flush: nil)
    }

    /// ``writeJSON(into:)`` for a big document: between items, once `bytes` holds 64 KiB, hands
    /// them to `flush` (which empties it), so that the whole text is never in memory at once.
    package func writeJSON(into bytes: inout [UInt8], flush: ((inout [UInt8]) -> Void)?) {
        // Scalars are written by one piece of code, shared with the streamed JSON migration reader:
        // a migration's checksum is the same whichever path read it.
        switch value {
        case .null, .bool, .integer, .real, .string: value.scalar?.writeJSON(into: &bytes)
        case .array(let items):
            bytes.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                item.writeJSON(into: &bytes, flush: flush)
                if let flush, bytes.count >= 1 << 16 { flush(&bytes) }
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let entries):
            bytes.append(UInt8(ascii: "{"))
            for (index, entry) in entries.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                DocNode.writeQuoted(entry.key, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                entry.node.writeJSON(into: &bytes, flush: flush)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `text` as a JSON string literal: `\"`, `\\`, `\n`, `\r`, `\t`, and `\u00xx` for the
    /// other control characters; everything else as its UTF-8 bytes.
    ///
    /// Migration checksums hash these bytes.
    package static func writeQuoted(_ text: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Runs that need no escaping (nearly all text) are copied whole.
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            for index in utf8.indices
            where utf8[index] < 0x20 || utf8[index] == UInt8(ascii: "\"") || utf8[index] == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                writeEscaped(utf8[index], into: &bytes)
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func writeEscaped(_ byte: UInt8, into bytes: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
        case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
        case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
        case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
        case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
        case 0..<0x20:
            bytes += "\\u".utf8
            bytes += String(byte, radix: 16).leftPadded(to: 4).utf8
        default: bytes.append(byte)
        }
    }

    /// A JSON string literal for `text`: ``writeQuoted(_:into:)``'s bytes, the one JSON string escaper.
    package static func quote(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        writeQuoted(text, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension DocValue {
    /// This value as a scanner scalar; nil for arrays and objects.
    var scalar: JSONScanner.Scalar? {
        switch self {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .integer(let number): .integer(number)
        case .real(let number): .real(number)
        case .string(let text): .string(text)
        case .array, .object: nil
        }
    }
}

extension JSONScanner.Scalar {
    /// What ``DocNode/inputValue`` gives for the node of this scalar.
    package var inputValue: InputValue {
        switch self {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .integer(let number): return .integer(number)
        case .real(let number): return .real(number)
        case .string(let text): return .string(text)
        }
    }

    /// The bytes ``DocNode/writeJSON(into:)`` writes for the node of this scalar.
    package func writeJSON(into bytes: inout [UInt8]) {
        switch self {
        case .null: bytes += "null".utf8
        case .bool(let flag): bytes += (flag ? "true" : "false").utf8
        case .integer(let number): bytes += String(number).utf8
        case .real(let number): bytes += String(number).utf8
        case .string(let text): DocNode.writeQuoted(text, into: &bytes)
        }
    }
}

/// The kinds of value a ``DocNode`` holds.
package indirect enum DocValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case string(String)
    case array([DocNode])
    case object([DocEntry])
}

/// One key of an object, with the position of the key.
package struct DocEntry: Sendable, Equatable {
    package var key: String
    package var line: Int
    package var column: Int
    package var node: DocNode

    package init(key: String, line: Int, column: Int, node: DocNode) {
        self.key = key
        self.line = line
        self.column = column
        self.node = node
    }
}
