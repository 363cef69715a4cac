import SeedRuntime

/// Nested JSON as seedkit stores it (docs/reference.md, "Published files as they are"): minified, members in
/// document order, numbers as written, strings with the fewest escapes (`\"`, `\\`, control
/// characters), which SQLite's `json()` leaves as they are.
///
/// A publisher re-indenting or re-escaping a file changes none of it, so the seed is byte-identical
/// and no update is made.
enum CanonicalJSON {
    /// A value found in canonical JSON: its kind as a fixture field, and its bytes (a string decoded).
    struct Found {
        var kind: RawRecord.Kind
        var bytes: [UInt8]
    }

    /// The value `tokens` (a JSON Pointer's, RFC 6901) lead to inside `bytes` (canonical JSON),
    /// or nil when the path is not there.
    static func find(_ tokens: ArraySlice<String>, in bytes: [UInt8]) -> Found? {
        bytes.withUnsafeBytes { raw in
            var scanner = JSONScanner(bytes: raw)
            do throws(JSONScanError) {
                for token in tokens {
                    guard let opener = scanner.peek() else { return nil }
                    scanner.position += 1
                    if opener == UInt8(ascii: "{") {
                        var found = false
                        var first = true
                        while scanner.peek() != UInt8(ascii: "}") {
                            if !first { try scanner.expect(UInt8(ascii: ","), "','") }
                            first = false
                            var key: [UInt8] = []
                            try scanner.scanString(into: &key)
                            try scanner.expect(UInt8(ascii: ":"), "':'")
                            if key.elementsEqual(token.utf8) {
                                found = true
                                break
                            }
                            _ = try scanner.skipValue()
                        }
                        if !found { return nil }
                    } else if opener == UInt8(ascii: "[") {
                        guard let index = JSONPointer.index(token) else { return nil }
                        var item = 0
                        while true {
                            if scanner.peek() == UInt8(ascii: "]") { return nil }
                            if item > 0 { try scanner.expect(UInt8(ascii: ","), "','") }
                            if item == index { break }
                            _ = try scanner.skipValue()
                            item += 1
                        }
                    } else {
                        return nil  // a scalar has no members
                    }
                }
                var value: [UInt8] = []
                let start = scanner.position
                if let kind = try scanner.scanScalar(into: &value) {
                    switch kind {
                    case .null: return Found(kind: .null, bytes: [])
                    case .bool: return Found(kind: .bool, bytes: value)
                    case .integer: return Found(kind: .integer, bytes: value)
                    case .real: return Found(kind: .real, bytes: value)
                    case .string: return Found(kind: .text, bytes: value)
                    }
                }
                let range = try scanner.skipValue()
                _ = start
                return Found(kind: .json, bytes: Array(UnsafeRawBufferPointer(rebasing: raw[range])))
            } catch {
                return nil
            }
        }
    }
}

extension JSONScanner {
    /// Reads one value (at its first byte, whitespace before it skipped) and appends it to `output`
    /// as ``CanonicalJSON`` writes it.
    ///
    /// - throws: ``JSONScanError`` as the scanner does; `.truncated` when the bytes run out.
    mutating func writeCanonical(into output: inout [UInt8], depth: Int = 0) throws(JSONScanError) {
        skipWhitespace()
        guard let first = peek() else { throw .truncated }
        guard depth < Self.maximumDepth else {
            throw error(
                "arrays and objects nest more than \(Self.maximumDepth) levels deep here; seedkit reads at most \(Self.maximumDepth)"
            )
        }
        var scratch: [UInt8] = []
        switch first {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let close = first == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
            position += 1
            output.append(first)
            skipWhitespace()
            if peek() == close {
                position += 1
                output.append(close)
                return
            }
            while true {
                if first == UInt8(ascii: "{") {
                    skipWhitespace()
                    scratch.removeAll(keepingCapacity: true)
                    try scanString(into: &scratch)
                    Self.writeString(scratch, into: &output)
                    skipWhitespace()
                    try expect(UInt8(ascii: ":"), "':'")
                    output.append(UInt8(ascii: ":"))
                }
                try writeCanonical(into: &output, depth: depth + 1)
                skipWhitespace()
                guard let next = peek() else { throw .truncated }
                position += 1
                if next == close {
                    output.append(close)
                    return
                }
                guard next == UInt8(ascii: ",") else {
                    position -= 1
                    throw error("expected ',' or '\(Character(Unicode.Scalar(close)))', found \(describe(next))")
                }
                output.append(UInt8(ascii: ","))
            }
        default:
            guard let kind = try scanScalar(into: &scratch) else { throw error("expected a value") }
            switch kind {
            case .null: output.append(contentsOf: "null".utf8)
            case .string: Self.writeString(scratch, into: &output)
            case .bool, .integer, .real: output.append(contentsOf: scratch)
            }
        }
    }

    /// A decoded string as a JSON literal with the fewest escapes.
    private static func writeString(_ bytes: [UInt8], into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): output += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: output += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: output += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: output += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output += [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)],
                    hex[Int(byte & 0xF)],
                ]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
