import SeedRuntime

/// Reads a migration file in the layout `new-migration` writes, a line per insert and per field,
/// into the tree ``YAMLDocument/parse(_:file:)`` gives for it (values, lines and columns), without
/// libyaml: the written-file check's fast path (docs/performance.md, "new-migration reads a
/// release's rows in bulk").
///
/// It reads the bytes, not the rows they were written from, and knows nothing of how they were
/// written: only a strict subset of YAML, each piece of it read as YAML reads it (a plain scalar's
/// meaning decided by ``YAMLDocument/resolvePlain(_:)``, the YAML reader's own rule). Anything
/// outside the subset, or what YAML might read otherwise (a line break other than `\n` or a
/// control character inside a string, a byte-order mark, an escape other than `\"`, `\\`, `\n`,
/// `\r`, `\t` and `\u0001`–`\u001F`, a key used twice, a key past 1,000 bytes) gives nil, and the
/// caller reads the text with the YAML reader instead. `WrittenMigrationReaderTests` holds its
/// trees to the YAML reader's.
///
/// The subset: comment lines (`#` first) before the first section; a section (`insert:`) at the
/// start of a line; under it, tables (`  books:`); under each, items (`    - `) that are a flow map
/// on one line, or a block map whose first field is on the item's line and each next field on a
/// line of its own (`      from: { … }`); values are flow maps, flow lists, double-quoted strings
/// and plain scalars of letters, digits, `_`, `.`, `+` and `-`.
enum WrittenMigrationReader {
    /// `text`'s tree, or nil when it is not in the subset.
    static func read(_ text: String) -> DocNode? {
        var copy = text
        return copy.withUTF8 { utf8 in
            var reader = Reader(bytes: UnsafeRawBufferPointer(utf8))
            return reader.document()
        }
    }

    /// The longest key read: libyaml refuses an implicit key of more than 1,024 characters.
    private static let longestKey = 1_000

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var at = 0
        var line = 1
        /// The first byte of the current line, and the column of byte `counted` on it.
        var lineStart = 0
        var counted = 0
        var countedColumn = 1

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        /// The byte at `at`, or nil at the end.
        private var byte: UInt8? { at < bytes.count ? bytes[at] : nil }

        /// The column (in characters, as libyaml counts) of byte `offset` of the current line.
        private mutating func column(_ offset: Int) -> Int {
            if offset < counted {
                counted = lineStart
                countedColumn = 1
            }
            while counted < offset {
                if bytes[counted] & 0xC0 != 0x80 { countedColumn += 1 }
                counted += 1
            }
            return countedColumn
        }

        /// Past `\n`, onto the next line; false when the byte at `at` is not one.
        private mutating func endLine() -> Bool {
            guard byte == UInt8(ascii: "\n") else { return false }
            at += 1
            line += 1
            lineStart = at
            counted = at
            countedColumn = 1
            return true
        }

        /// Past `count` spaces exactly, false when they are not there.
        private mutating func indent(_ count: Int) -> Bool {
            guard at + count <= bytes.count else { return false }
            for offset in at..<at + count where bytes[offset] != UInt8(ascii: " ") { return false }
            at += count
            return true
        }

        /// Whether the line at `at` starts with `count` spaces and then something else.
        private func indented(_ count: Int) -> Bool {
            guard at + count < bytes.count else { return false }
            for offset in at..<at + count where bytes[offset] != UInt8(ascii: " ") { return false }
            return bytes[at + count] != UInt8(ascii: " ") && bytes[at + count] != UInt8(ascii: "\n")
        }

        private mutating func skipSpaces() {
            while byte == UInt8(ascii: " ") { at += 1 }
        }

        mutating func document() -> DocNode? {
            while byte == UInt8(ascii: "#") {
                // A comment is any text but a line break of another kind (or a byte-order mark).
                while let next = byte, next != UInt8(ascii: "\n") {
                    if next >= 0x80 {
                        guard let width = characterWidth(at) else { return nil }
                        at += width
                    } else {
                        guard (next >= 0x20 && next != 0x7F) || next == 0x09 else { return nil }
                        at += 1
                    }
                }
                guard endLine() else { return nil }
            }
            // Sections at the start of a line, each a map of tables, each a list of items.
            guard let root = map(indentation: 0, value: { $0.map(indentation: 2, value: { $0.items() }) }),
                at == bytes.count
            else { return nil }
            return root
        }

        /// A block map whose keys start lines indented by `indentation`, each followed by `:` and
        /// a line break, its value read by `value` from the line below; nil when none is there.
        private mutating func map(indentation: Int, value: (inout Reader) -> DocNode?) -> DocNode? {
            var entries: [DocEntry] = []
            var start = (line: 0, column: 0)
            while indented(indentation) {
                at += indentation
                let position = (line: line, column: column(at))
                if entries.isEmpty { start = position }
                guard let key = key(), byte == UInt8(ascii: ":") else { return nil }
                at += 1
                guard endLine(), !entries.contains(where: { $0.key == key }), let node = value(&self) else {
                    return nil
                }
                entries.append(DocEntry(key: key, line: position.line, column: position.column, node: node))
            }
            return entries.isEmpty ? nil : DocNode(.object(entries), line: start.line, column: start.column)
        }

        /// A table's items, each a line starting `    - `: a block sequence.
        private mutating func items() -> DocNode? {
            var items: [DocNode] = []
            var start = (line: 0, column: 0)
            while indented(4), bytes[at + 4] == UInt8(ascii: "-"), at + 5 < bytes.count,
                bytes[at + 5] == UInt8(ascii: " ")
            {
                if items.isEmpty { start = (line, column(at + 4)) }
                at += 6
                guard let item = item() else { return nil }
                items.append(item)
            }
            return items.isEmpty ? nil : DocNode(.array(items), line: start.line, column: start.column)
        }

        /// One item after its `- `: a flow map alone on its line, or a block map whose fields
        /// each take a line, the first on the item's line, the others indented by six.
        private mutating func item() -> DocNode? {
            if byte == UInt8(ascii: "{") {
                guard let map = flow(), endLine() else { return nil }
                return map
            }
            let start = (line, column(at))
            var fields: [DocEntry] = []
            repeat {
                let position = (line, column(at))
                guard let key = key(), byte == UInt8(ascii: ":"), at + 1 < bytes.count,
                    bytes[at + 1] == UInt8(ascii: " ")
                else { return nil }
                at += 2
                guard !fields.contains(where: { $0.key == key }), let value = flow(), endLine() else { return nil }
                fields.append(DocEntry(key: key, line: position.0, column: position.1, node: value))
            } while indented(6) && indent(6)
            return DocNode(.object(fields), line: start.0, column: start.1)
        }

        /// A key: a plain name (a letter or `_`, then letters, digits, `_`) or a double-quoted string.
        private mutating func key() -> String? {
            let start = at
            if byte == UInt8(ascii: "\"") {
                guard let text = quoted(), at - start <= WrittenMigrationReader.longestKey else { return nil }
                return text
            }
            while let next = byte,
                (next | 0x20) >= UInt8(ascii: "a") && (next | 0x20) <= UInt8(ascii: "z") || next == UInt8(ascii: "_")
                    || (at > start && next >= UInt8(ascii: "0") && next <= UInt8(ascii: "9"))
            {
                at += 1
            }
            guard at > start, at - start <= WrittenMigrationReader.longestKey else { return nil }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
        }

        /// A value in flow: `{ key: value, … }`, `[value, …]`, a double-quoted string or a plain scalar.
        private mutating func flow() -> DocNode? {
            let position = (line: line, column: column(at))
            switch byte {
            case UInt8(ascii: "{"):
                at += 1
                skipSpaces()
                var entries: [DocEntry] = []
                // Entries parted by commas, none after the last.
                while byte != UInt8(ascii: "}") || !entries.isEmpty {
                    let keyPosition = (line: line, column: column(at))
                    guard let key = key(), byte == UInt8(ascii: ":"), at + 1 < bytes.count,
                        bytes[at + 1] == UInt8(ascii: " ")
                    else { return nil }
                    at += 2
                    skipSpaces()
                    guard !entries.contains(where: { $0.key == key }), let value = flow() else { return nil }
                    entries.append(DocEntry(key: key, line: keyPosition.line, column: keyPosition.column, node: value))
                    skipSpaces()
                    guard byte == UInt8(ascii: ",") else { break }
                    at += 1
                    skipSpaces()
                }
                guard byte == UInt8(ascii: "}") else { return nil }
                at += 1
                return DocNode(.object(entries), line: position.line, column: position.column)
            case UInt8(ascii: "["):
                at += 1
                skipSpaces()
                var items: [DocNode] = []
                while byte != UInt8(ascii: "]") || !items.isEmpty {
                    guard let item = flow() else { return nil }
                    items.append(item)
                    skipSpaces()
                    guard byte == UInt8(ascii: ",") else { break }
                    at += 1
                    skipSpaces()
                }
                guard byte == UInt8(ascii: "]") else { return nil }
                at += 1
                return DocNode(.array(items), line: position.line, column: position.column)
            case UInt8(ascii: "\""):
                guard let text = quoted() else { return nil }
                return DocNode(.string(text), line: position.line, column: position.column)
            default:
                guard let value = plain() else { return nil }
                return DocNode(value, line: position.line, column: position.column)
            }
        }

        /// A plain scalar of letters, digits, `_`, `.`, `+`, `-` (`-` or `+` first only before
        /// another of them), ended by a space, `,`, `}`, `]` or the line's end: read as YAML reads it.
        private mutating func plain() -> DocValue? {
            let start = at
            while let next = byte,
                (next | 0x20) >= UInt8(ascii: "a") && (next | 0x20) <= UInt8(ascii: "z")
                    || (next >= UInt8(ascii: "0") && next <= UInt8(ascii: "9")) || next == UInt8(ascii: "_")
                    || next == UInt8(ascii: ".") || next == UInt8(ascii: "+") || next == UInt8(ascii: "-")
            {
                at += 1
            }
            guard at > start else { return nil }
            if bytes[start] == UInt8(ascii: "-") || bytes[start] == UInt8(ascii: "+") {
                guard at > start + 1 else { return nil }
            }
            if at < bytes.count {
                switch bytes[at] {
                case UInt8(ascii: " "), UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: "\n"):
                    break
                default: return nil
                }
            }
            let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<at])
            return YAMLDocument.resolvePlain(raw) { String(decoding: raw, as: UTF8.self) }
        }

        /// A double-quoted string on one line, `at` on its opening quote; nil for anything YAML
        /// might read otherwise than JSON does.
        private mutating func quoted() -> String? {
            at += 1
            var start = at
            var text: [UInt8] = []
            var escaped = false
            while let next = byte {
                switch next {
                case UInt8(ascii: "\""):
                    let string: String
                    if escaped {
                        text.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<at]))
                        string = String(decoding: text, as: UTF8.self)
                    } else {
                        string = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
                    }
                    at += 1
                    return string
                case UInt8(ascii: "\\"):
                    escaped = true
                    text.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<at]))
                    guard at + 1 < bytes.count else { return nil }
                    switch bytes[at + 1] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"): text.append(bytes[at + 1])
                    case UInt8(ascii: "n"): text.append(0x0A)
                    case UInt8(ascii: "r"): text.append(0x0D)
                    case UInt8(ascii: "t"): text.append(0x09)
                    case UInt8(ascii: "u"):
                        guard at + 6 <= bytes.count, let code = UInt8(hex: bytes[at + 2..<at + 6]), code >= 0x01,
                            code < 0x20
                        else { return nil }
                        text.append(code)
                        at += 4
                    default: return nil
                    }
                    at += 2
                    start = at
                case 0..<0x20, 0x7F: return nil
                case 0x80...:
                    guard let width = characterWidth(at) else { return nil }
                    at += width
                default: at += 1
                }
            }
            return nil
        }

        /// At a non-ASCII character, its width in bytes; nil when YAML reads it otherwise than as
        /// text (U+0080–U+009F, NEL among them; U+2028, U+2029; U+FEFF; U+FFFE, U+FFFF) or it is
        /// not whole, and at an ASCII byte.
        private func characterWidth(_ offset: Int) -> Int? {
            let lead = bytes[offset]
            let width: Int
            switch lead {
            case 0xC2...0xDF: width = 2
            case 0xE0...0xEF: width = 3
            case 0xF0...0xF4: width = 4
            default: return nil
            }
            guard offset + width <= bytes.count else { return nil }
            let second = bytes[offset + 1]
            if lead == 0xC2 && second < 0xA0 { return nil }
            if lead == 0xE2 && second == 0x80 && (bytes[offset + 2] == 0xA8 || bytes[offset + 2] == 0xA9) { return nil }
            if lead == 0xEF && second == 0xBB && bytes[offset + 2] == 0xBF { return nil }
            if lead == 0xEF && second == 0xBF && bytes[offset + 2] >= 0xBE { return nil }
            return width
        }
    }
}

extension UInt8 {
    /// Four hex digits of at most `00FF`'s value, as a byte; nil otherwise.
    fileprivate init?(hex digits: Slice<UnsafeRawBufferPointer>) {
        var value = 0
        for digit in digits {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value * 16 + Int(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value * 16 + Int(digit - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = value * 16 + Int(digit - UInt8(ascii: "A")) + 10
            default: return nil
            }
        }
        guard value <= 0xFF else { return nil }
        self = UInt8(value)
    }
}
