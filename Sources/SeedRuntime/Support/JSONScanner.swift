/// A byte-level JSON scanner that knows where it is (line and column).
///
/// It serves two callers: ``parseNode()`` builds a ``DocNode`` tree for migration
/// files, and the fixture reader uses the primitives (``scanString(into:)``,
/// ``scanScalar(into:)``, ``skipValue()``) to stream records without building trees.
/// Running off the end of the bytes throws ``JSONScanError/truncated`` so that a
/// streaming caller can refill its buffer and scan the record again.
package struct JSONScanner {
    /// How deeply arrays and objects may nest in a document ``parseNode()`` reads.
    ///
    /// Deeper input is refused with a syntax error, so that no input can exhaust the stack (the
    /// tree, its checksum and its release all recurse), in the tool or in an app.
    package static let maximumDepth = 256

    package let bytes: UnsafeRawBufferPointer
    package var position: Int
    /// The 1-based line of `position`.
    package private(set) var line: Int
    /// Where `line` starts in `bytes` (negative when it started before them).
    package private(set) var lineStart: Int
    /// A known column, so that columns of many values on one long line cost a single pass.
    private var columnMark: (position: Int, column: Int)

    /// A scanner over `bytes`, starting at `position`.
    ///
    /// - Parameters:
    ///   - bytes: the JSON text.
    ///   - position: where to start scanning.
    ///   - line: the 1-based line at `position`.
    ///   - lineStart: where that line starts (by default `position`, the start of a line).
    package init(bytes: UnsafeRawBufferPointer, position: Int = 0, line: Int = 1, lineStart: Int? = nil) {
        self.bytes = bytes
        self.position = position
        self.line = line
        self.lineStart = lineStart ?? position
        self.columnMark = (self.lineStart, 1)
    }

    /// The 1-based column of `position` on its line, in characters (UTF-8 continuation bytes don't count).
    package var column: Int { Self.column(of: position, in: bytes, lineStart: lineStart, mark: columnMark) }

    private static func column(
        of position: Int, in bytes: UnsafeRawBufferPointer, lineStart: Int, mark: (position: Int, column: Int)
    ) -> Int {
        var (index, column) = mark.position >= lineStart && mark.position <= position ? mark : (lineStart, 1)
        if index < 0 {
            column += -index
            index = 0
        }
        let end = Swift.min(position, bytes.count)
        while index < end {
            if bytes[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        return column
    }

    /// ``column``, remembered so that the next call on the same line starts from here.
    private mutating func markColumn() -> Int {
        let column = self.column
        columnMark = (position, column)
        return column
    }

    package var isAtEnd: Bool { position >= bytes.count }

    package mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "\n"):
                position += 1
                line += 1
                lineStart = position
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                position += 1
            default:
                return
            }
        }
    }

    package func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

    package mutating func expect(_ byte: UInt8, _ what: String) throws(JSONScanError) {
        guard let next = peek() else { throw .truncated }
        guard next == byte else { throw error("expected \(what), found \(describe(next))") }
        position += 1
    }

    package func error(_ message: String) -> JSONScanError {
        .syntax(line: line, column: column, message: message)
    }

    /// Scans a string (at its opening quote), appending its decoded UTF-8 bytes to `output`.
    package mutating func scanString(into output: inout [UInt8]) throws(JSONScanError) {
        try expect(UInt8(ascii: "\""), "a string")
        var runStart = position
        while true {
            guard position < bytes.count else { throw .truncated }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<position]))
                position += 1
                return
            }
            if byte == UInt8(ascii: "\\") {
                output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<position]))
                position += 1
                guard position < bytes.count else { throw .truncated }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): output.append(0x22)
                case UInt8(ascii: "\\"): output.append(0x5C)
                case UInt8(ascii: "/"): output.append(0x2F)
                case UInt8(ascii: "b"): output.append(0x08)
                case UInt8(ascii: "f"): output.append(0x0C)
                case UInt8(ascii: "n"): output.append(0x0A)
                case UInt8(ascii: "r"): output.append(0x0D)
                case UInt8(ascii: "t"): output.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try scanHex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard position + 1 < bytes.count else { throw .truncated }
                        guard bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                            throw error("unpaired UTF-16 surrogate in \\u escape")
                        }
                        position += 2
                        let low = try scanHex4()
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw error("unpaired UTF-16 surrogate in \\u escape")
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("unpaired UTF-16 surrogate in \\u escape")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                    output.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    position -= 1
                    throw error("invalid escape \\\(describe(escape))")
                }
                runStart = position
                continue
            }
            if byte < 0x20 { throw error("control character in string (newlines must be written \\n)") }
            position += 1
        }
    }

    private mutating func scanHex4() throws(JSONScanError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw .truncated }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// The kinds of scalar ``scanScalar(into:)`` finds.
    package enum ScalarKind: UInt8 { case null, bool, integer, real, string }

    /// Scans a string, number, `true`, `false` or `null`.
    ///
    /// Strings are decoded into `output`; numbers and booleans are copied as written. Returns nil
    /// (scanning nothing) when the value is an array or object.
    package mutating func scanScalar(into output: inout [UInt8]) throws(JSONScanError) -> ScalarKind? {
        guard let first = peek() else { throw .truncated }
        switch first {
        case UInt8(ascii: "\""):
            try scanString(into: &output)
            return .string
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            return nil
        case UInt8(ascii: "t"):
            try scanWord("true")
            output.append(contentsOf: "true".utf8)
            return .bool
        case UInt8(ascii: "f"):
            try scanWord("false")
            output.append(contentsOf: "false".utf8)
            return .bool
        case UInt8(ascii: "n"):
            try scanWord("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = position
            var isReal = false
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                    isReal = true
                } else if !(byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte &- UInt8(ascii: "0") < 10) {
                    break
                }
                position += 1
            }
            if position == bytes.count { throw .truncated }
            let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<position])
            // Each number parsed once here: an integer that fits, or else a finite real.
            let integer = isReal ? nil : NumberSyntax.integer(slice)
            guard integer != nil || NumberSyntax.isReal(slice), slice.first != UInt8(ascii: "+") else {
                position = start
                throw error("invalid number \(String(decoding: slice, as: UTF8.self))")
            }
            output.append(contentsOf: slice)
            return integer == nil ? .real : .integer
        default:
            throw error("expected a value, found \(describe(first))")
        }
    }

    private mutating func scanWord(_ word: StaticString) throws(JSONScanError) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw .truncated }
        for i in 0..<count where bytes[position + i] != word.utf8Start[i] {
            throw error("expected a value, found \(describe(bytes[position]))")
        }
        position += count
    }

    /// Skips one value of any kind and returns the byte range it took, for nested values kept as JSON text.
    package mutating func skipValue() throws(JSONScanError) -> Range<Int> {
        let start = position
        var scratch: [UInt8] = []
        if try scanScalar(into: &scratch) != nil { return start..<position }
        var depth = 0
        while true {
            skipWhitespace()
            guard let byte = peek() else { throw .truncated }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                position += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                position += 1
                if depth == 0 { return start..<position }
            case UInt8(ascii: ","), UInt8(ascii: ":"):
                position += 1
            default:
                scratch.removeAll(keepingCapacity: true)
                _ = try scanScalar(into: &scratch)
            }
        }
    }

    /// Parses one complete value into a tree that remembers where each part was.
    ///
    /// - throws: ``JSONScanError/syntax(line:column:message:)`` for bad JSON and for arrays or
    ///   objects nested deeper than ``maximumDepth``.
    package mutating func parseNode() throws(JSONScanError) -> DocNode {
        try parseNode(depth: 0)
    }

    /// ``parseNode()`` for a value nested `depth` levels deep in its document (the limit counts from the document's root).
    package mutating func parseNode(depth: Int) throws(JSONScanError) -> DocNode {
        skipWhitespace()
        let nodeLine = line
        let nodeColumn = markColumn()
        guard let first = peek() else { throw .truncated }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            guard depth < Self.maximumDepth else {
                throw error(
                    "arrays and objects nest more than \(Self.maximumDepth) levels deep here; seedkit reads at most \(Self.maximumDepth)"
                )
            }
        }
        switch first {
        case UInt8(ascii: "{"):
            position += 1
            var entries: [DocEntry] = []
            skipWhitespace()
            if peek() == UInt8(ascii: "}") {
                position += 1
                return DocNode(.object(entries), line: nodeLine, column: nodeColumn)
            }
            while true {
                skipWhitespace()
                let keyLine = line
                let keyColumn = markColumn()
                var key: [UInt8] = []
                try scanString(into: &key)
                skipWhitespace()
                try expect(UInt8(ascii: ":"), "':'")
                let value = try parseNode(depth: depth + 1)
                entries.append(
                    DocEntry(key: String(decoding: key, as: UTF8.self), line: keyLine, column: keyColumn, node: value))
                skipWhitespace()
                guard let next = peek() else { throw .truncated }
                position += 1
                if next == UInt8(ascii: "}") { break }
                guard next == UInt8(ascii: ",") else {
                    position -= 1
                    throw error("expected ',' or '}', found \(describe(next))")
                }
            }
            return DocNode(.object(entries), line: nodeLine, column: nodeColumn)
        case UInt8(ascii: "["):
            position += 1
            var items: [DocNode] = []
            skipWhitespace()
            if peek() == UInt8(ascii: "]") {
                position += 1
                return DocNode(.array(items), line: nodeLine, column: nodeColumn)
            }
            while true {
                items.append(try parseNode(depth: depth + 1))
                skipWhitespace()
                guard let next = peek() else { throw .truncated }
                position += 1
                if next == UInt8(ascii: "]") { break }
                guard next == UInt8(ascii: ",") else {
                    position -= 1
                    throw error("expected ',' or ']', found \(describe(next))")
                }
            }
            return DocNode(.array(items), line: nodeLine, column: nodeColumn)
        default:
            var scratch: [UInt8] = []
            let value: DocValue
            switch try parseScalar(scratch: &scratch) {
            case .null: value = .null
            case .bool(let flag): value = .bool(flag)
            case .integer(let number): value = .integer(number)
            case .real(let number): value = .real(number)
            case .string(let text): value = .string(text)
            }
            return DocNode(value, line: nodeLine, column: nodeColumn)
        }
    }

    /// A scalar as ``parseNode()`` reads it, without the tree's node (`scratch` is working space).
    ///
    /// - throws: as ``parseNode()``; "expected a value" at an array or object.
    package mutating func parseScalar(scratch: inout [UInt8]) throws(JSONScanError) -> Scalar {
        scratch.removeAll(keepingCapacity: true)
        guard let kind = try scanScalar(into: &scratch) else { throw error("expected a value") }
        switch kind {
        case .null: return .null
        case .bool: return .bool(scratch.count == 4)
        case .integer:
            return scratch.withUnsafeBytes { NumberSyntax.integer($0) }.map { .integer($0) }
                ?? .real(scratch.withUnsafeBytes { NumberSyntax.real($0) } ?? 0)
        case .real:
            if scratch.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
            ) {
                return .real(scratch.withUnsafeBytes { NumberSyntax.real($0) } ?? 0)
            }
            // An integer past 64 bits: kept as written, so that a column converts it exactly
            // (an INTEGER column refuses it) instead of taking a rounded double.
            return .string(String(decoding: scratch, as: UTF8.self))
        case .string:
            guard scratch.withUnsafeBytes({ UTF8Validation.isValid($0) }) else {
                throw error("invalid UTF-8 in string")
            }
            return .string(String(decoding: scratch, as: UTF8.self))
        }
    }

    /// A scalar value, as ``parseScalar(scratch:)`` gives it.
    package enum Scalar {
        case null
        case bool(Bool)
        case integer(Int64)
        case real(Double)
        case string(String)
    }

    /// Parses a whole document: one value, then nothing but whitespace.
    package static func parseDocument(_ bytes: UnsafeRawBufferPointer) throws(JSONScanError) -> DocNode {
        let hasBOM = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
        var scanner = JSONScanner(bytes: bytes, position: hasBOM ? 3 : 0)
        let node: DocNode
        do {
            node = try scanner.parseNode()
        } catch .truncated {
            throw scanner.error("unexpected end of file")
        } catch {
            throw error
        }
        scanner.skipWhitespace()
        if let extra = scanner.peek() {
            throw scanner.error("unexpected \(scanner.describe(extra)) after the document")
        }
        return node
    }

    package func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x" + String(byte, radix: 16)
    }
}

/// Why JSON could not be scanned.
package enum JSONScanError: Error, Equatable {
    /// The bytes ended inside a value; a streaming reader refills and tries again.
    case truncated
    case syntax(line: Int, column: Int, message: String)
}
