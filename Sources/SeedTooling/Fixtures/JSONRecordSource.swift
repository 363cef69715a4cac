import Foundation
import SeedRuntime

/// Reads JSON fixtures as a stream of objects: a JSON array of objects (`.json`), or one
/// object per line (`.jsonl`, `.ndjson`).
///
/// Keys are the fixture's field names; nested arrays and objects are kept as JSON text. Memory
/// stays flat: only the current record is held.
///
/// With a ``JSONPointer`` root (`root: /3166-1`), the array is found inside the document by
/// stepping over whatever comes before it, value by value, without holding it; the rest of
/// the document after the array is stepped over the same way (its bytes are in the content hash).
struct JSONRecordSource: RecordSource {
    private let file: ChunkedFile
    private var position = 0
    private var line = 1
    private var inArray = false
    private var finished = false
    /// Whether the records were located: the root walked and the array (or first object) found.
    private var located = false
    /// `.jsonl`/`.ndjson`: objects one per line; otherwise a document holding an array.
    private let isLines: Bool
    private let root: JSONPointer?
    /// The containers the root pointer opened (`{` or `[`), to close after the array.
    private var rootContainers: [UInt8] = []
    /// The fixture's field names a record may have (the table's columns, as mapped, and ignored fields).
    let columnNames: [String]
    /// Each field's name, lower-cased, as a top-level key matches it; nil for a JSON Pointer field.
    private let names: [[UInt8]?]
    /// The fields that are JSON Pointers (`/name/common`): their index in ``columnNames`` and tokens.
    private let pointers: [(field: Int, tokens: [String])]
    /// Whether some record held each pointer's path.
    private var held: [Bool]
    private var scratch: [UInt8] = []
    private let unknownField: (String) -> String
    private var reportedUnknown = Set<String>()
    private var key: [UInt8] = []
    /// The records read, not the file's bytes: a file re-indented or re-escaped has the same
    /// hash, as it builds the same rows (the seed's content hash, docs/reference.md).
    var contentHash: SHA256Box { recordHash.flushed() }
    private let recordHash = RecordHasher()
    var bytesRead: Int { file.totalRead }

    /// Opens a JSON or JSON Lines fixture, positioned at its first record.
    ///
    /// - Parameters:
    ///   - url: the fixture.
    ///   - displayPath: the fixture's path as messages name it.
    ///   - fields: the names keys may have; any other key is reported with `unknownField(key)`'s message.
    ///   - root: where the array is in the document (`.json` only).
    ///   - lines: JSON Lines (one object per line) rather than one document holding an array.
    ///   - unknownField: the message for a key no field names.
    /// - Throws: ``SeedError`` naming the file when it cannot be read or `root` names no array.
    init(
        url: URL, displayPath: String, fields: [String], root: JSONPointer? = nil, lines: Bool,
        unknownField: @escaping (String) -> String
    ) throws(SeedError) {
        file = try ChunkedFile(url: url, displayPath: displayPath, hashing: false)
        columnNames = fields
        var pointers: [(field: Int, tokens: [String])] = []
        names = fields.enumerated().map { index, field in
            guard field.hasPrefix("/"), let pointer = JSONPointer(field), !pointer.tokens.isEmpty else {
                return Array(field.lowercasedName.utf8)
            }
            pointers.append((index, pointer.tokens))
            return nil
        }
        self.pointers = pointers
        held = Array(repeating: false, count: pointers.count)
        self.unknownField = unknownField
        self.root = root
        isLines = lines
        try file.refill(keepingFrom: 0)
        if file.end >= 3, file.buffer[0] == 0xEF, file.buffer[1] == 0xBB, file.buffer[2] == 0xBF { position = 3 }
        try file.checkNotWide()
    }

    mutating func next(_ record: inout RawRecord, diagnostics: inout [Diagnostic]) throws(SeedError) -> Bool {
        guard !finished else { return false }
        if !located {
            try locate()
            located = true
            if finished { return false }
        }
        while true {
            record.reset()
            let startPosition = position
            let startLine = line
            var outcome: Result<Bool, JSONScanError> = .success(false)
            var scannerEnd = (position: 0, line: 0)
            var skippedRecord = false
            file.buffer.withUnsafeBytes { raw in
                var scanner = JSONScanner(
                    bytes: UnsafeRawBufferPointer(rebasing: raw[0..<file.end]), position: position, line: line)
                do throws(JSONScanError) {
                    let found = try scanRecord(
                        &scanner, into: &record, diagnostics: &diagnostics, skipped: &skippedRecord)
                    outcome = .success(found)
                } catch {
                    outcome = .failure(error)
                }
                scannerEnd = (scanner.position, scanner.line)
            }
            switch outcome {
            case .success(let found):
                position = scannerEnd.position
                line = scannerEnd.line
                if !found {
                    finished = true
                    if !rootContainers.isEmpty { try finishDocument() }
                    return false
                }
                if skippedRecord { continue }
                hashRecord(record)
                return true
            case .failure(.truncated):
                if file.isAtEOF {
                    throw SeedError(
                        .invalidData, file: file.path, line: scannerEnd.line, code: .parseError,
                        inArray
                            ? "unexpected end of file: the array or an object in it is not closed"
                            : "unexpected end of file inside an object")
                }
                position = startPosition - (try file.refill(keepingFrom: startPosition))
                line = startLine
            case .failure(.syntax(let errorLine, let column, let message)):
                throw SeedError(
                    .invalidData, file: file.path, line: errorLine,
                    column: self.column(column, line: errorLine, scannerStart: startPosition, startLine: startLine),
                    code: .parseError, "JSON: \(message)")
            }
        }
    }

    /// The 1-based column of a scanner's error: a scanner started at `start` counts columns
    /// from there until it passes a newline.
    ///
    /// 0 when the line began before the bytes still held.
    fileprivate func column(_ column: Int, line: Int, scannerStart start: Int, startLine: Int) -> Int {
        guard line == startLine else { return column }
        var lineStart = start
        while lineStart > 0 && file.buffer[lineStart - 1] != UInt8(ascii: "\n") { lineStart -= 1 }
        if lineStart == 0 && file.totalRead > file.end { return 0 }
        if lineStart == 0 && start >= 3 && file.buffer[0] == 0xEF && file.buffer[1] == 0xBB && file.buffer[2] == 0xBF {
            lineStart = 3
        }
        // In characters, as the scanner counts: UTF-8 continuation bytes don't start one.
        return column + file.buffer[lineStart..<start].reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
    }

    /// Scans up to and including the next object; false at the end of the stream.
    private mutating func scanRecord(
        _ scanner: inout JSONScanner, into record: inout RawRecord, diagnostics: inout [Diagnostic], skipped: inout Bool
    ) throws(JSONScanError) -> Bool {
        scanner.skipWhitespace()
        if inArray {
            guard let next = scanner.peek() else { throw .truncated }
            if next == UInt8(ascii: "]") {
                scanner.position += 1
                if !rootContainers.isEmpty { return false }  // the rest of the document: finishDocument()
                scanner.skipWhitespace()
                if let extra = scanner.peek() {
                    throw scanner.error("unexpected \(scanner.describe(extra)) after the array")
                }
                if !file.isAtEOF { throw .truncated }
                return false
            }
            if next == UInt8(ascii: ",") {
                scanner.position += 1
                scanner.skipWhitespace()
            }
        } else if scanner.isAtEnd {
            if file.isAtEOF { return false }
            throw .truncated
        }
        guard scanner.peek() == UInt8(ascii: "{") else {
            if scanner.isAtEnd { throw .truncated }
            throw scanner.error(inArray ? "expected an object in the array" : "expected an object (one per line)")
        }
        record.line = scanner.line
        scanner.position += 1
        var ordinal = 0
        scanner.skipSpaces()
        if scanner.next == UInt8(ascii: "}") {
            scanner.position += 1
            return true
        }
        while true {
            scanner.skipSpaces()
            let keyLine = scanner.line
            // A key without escapes is matched where it lies; one with escapes is decoded into `key`.
            let plainKey = scanner.plainString()
            if plainKey == nil {
                key.removeAll(keepingCapacity: true)
                try scanner.scanString(into: &key)
            }
            scanner.skipSpaces()
            if scanner.next == UInt8(ascii: ":") {
                scanner.position += 1
            } else {
                try scanner.expect(UInt8(ascii: ":"), "':' after the key")
            }
            scanner.skipSpaces()
            ordinal += 1
            let column =
                plainKey.map { columnIndex(UnsafeRawBufferPointer(rebasing: scanner.bytes[$0])) }
                ?? key.withUnsafeBytes { columnIndex($0) }
            // A key that JSON Pointers enter (columns: { common_name: /name/common }): read as canonical
            // JSON once, and each pointer's value taken from it; the key counts as read.
            if !pointers.isEmpty {
                let name = keyName(plainKey, in: scanner.bytes)
                let entering = pointers.indices.filter { pointers[$0].tokens[0] == name }
                if !entering.isEmpty {
                    scratch.removeAll(keepingCapacity: true)
                    try scanner.writeCanonical(into: &scratch)
                    var values = entering.map {
                        (
                            field: pointers[$0].field, index: $0,
                            found: CanonicalJSON.find(pointers[$0].tokens.dropFirst(), in: scratch)
                        )
                    }
                    if let column { values.append((column, -1, CanonicalJSON.find([], in: scratch))) }
                    for value in values {
                        guard let found = value.found else { continue }
                        if value.index >= 0 { held[value.index] = true }
                        let start = record.bytes.count
                        record.bytes.append(contentsOf: found.bytes)
                        record.append(column: value.field, kind: found.kind, start: start)
                    }
                    scanner.skipSpaces()
                    guard let next = scanner.next else { throw .truncated }
                    scanner.position += 1
                    if next == UInt8(ascii: "}") { break }
                    guard next == UInt8(ascii: ",") else {
                        scanner.position -= 1
                        throw scanner.error("expected ',' or '}' in the object")
                    }
                    continue
                }
            }
            let start = record.bytes.count
            let valueStart = scanner.position
            let kind: RawRecord.Kind
            if let scalar = try scanner.scanScalar(into: &record.bytes) {
                switch scalar {
                case .null: kind = .null
                case .bool: kind = .bool
                case .integer: kind = .integer
                case .real: kind = .real
                case .string: kind = .text
                }
            } else {
                // Nested arrays and objects: canonical, so that re-indenting or re-escaping changes nothing.
                try scanner.writeCanonical(into: &record.bytes)
                kind = .json
                _ = valueStart
            }
            if let column {
                if record.columns.contains(column) {
                    diagnostics.append(
                        Diagnostic(
                            file: file.path, line: keyLine, column: ordinal, code: .parseError,
                            message: "key '\(keyName(plainKey, in: scanner.bytes))' appears twice in this object"))
                    skipped = true
                }
                record.append(column: column, kind: kind, start: start)
            } else {
                record.bytes.removeSubrange(start...)
                let name = keyName(plainKey, in: scanner.bytes)
                if reportedUnknown.insert(name).inserted {
                    diagnostics.append(
                        Diagnostic(
                            file: file.path, line: keyLine, column: ordinal, code: .unknownColumn,
                            message: unknownField(name)))
                }
                skipped = true
            }
            scanner.skipSpaces()
            guard let next = scanner.next else { throw .truncated }
            scanner.position += 1
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else {
                scanner.position -= 1
                throw scanner.error("expected ',' or '}' in the object")
            }
        }
        if !skipped, !record.bytes.withUnsafeBytes({ UTF8Validation.isValid($0) }) {
            diagnostics.append(
                Diagnostic(
                    file: file.path, line: record.line, code: .invalidEncoding,
                    message: "a string in this object is not valid UTF-8"))
            skipped = true
        }
        return true
    }

    /// The key just scanned, as text: where it lies in `bytes`, or decoded in `key`.
    private func keyName(_ plain: Range<Int>?, in bytes: UnsafeRawBufferPointer) -> String {
        plain.map { String(decoding: UnsafeRawBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
            ?? String(decoding: key, as: UTF8.self)
    }

    private func hashRecord(_ record: RawRecord) { recordHash.add(record) }

    /// The JSON Pointer fields no record held so far (all of them once the records are read).
    var unheldPointers: [String] { pointers.indices.filter { !held[$0] }.map { columnNames[pointers[$0].field] } }

    private func columnIndex(_ key: UnsafeRawBufferPointer) -> Int? {
        for (index, name) in names.enumerated() {
            guard let name, name.count == key.count else { continue }
            var equal = true
            for i in 0..<key.count {
                var byte = key[i]
                if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte += 32 }
                if byte != name[i] {
                    equal = false
                    break
                }
            }
            if equal { return index }
        }
        return nil
    }
}

// MARK: - Locating the records

extension JSONRecordSource {
    /// Walks `root` to the records and checks that an array (or, for JSON Lines, objects) starts there.
    fileprivate mutating func locate() throws(SeedError) {
        var walked = JSONPointer(tokens: [])
        for token in root?.tokens ?? [] {
            let opener = try peekValue()
            switch opener {
            case UInt8(ascii: "{"):
                let objectLine = line
                try step { scanner throws(JSONScanError) in scanner.position += 1 }
                rootContainers.append(opener)
                var keys: [String] = []
                var first = true
                while true {
                    guard let found = try nextKey(first: first) else {
                        throw SeedError(
                            .invalidData, file: file.path, line: objectLine, code: .parseError,
                            "root \(root?.description ?? ""): the object at \(walked.tokens.isEmpty ? "the top" : walked.description) has no key '\(token)' (it has \(Self.list(keys)))"
                        )
                    }
                    first = false
                    if found == token { break }
                    keys.append(found)
                    try skipValue()
                }
            case UInt8(ascii: "["):
                guard let index = JSONPointer.index(token) else {
                    throw SeedError(
                        .invalidData, file: file.path, line: line, code: .parseError,
                        "root \(root?.description ?? ""): \(walked.tokens.isEmpty ? "the document" : walked.description) is an array, so '\(token)' must be an index (0, 1, …)"
                    )
                }
                try step { scanner throws(JSONScanError) in scanner.position += 1 }
                rootContainers.append(opener)
                for skipped in 0...index {
                    let end = try step { scanner throws(JSONScanError) -> Bool in
                        scanner.skipWhitespace()
                        guard let next = scanner.peek() else { throw .truncated }
                        if next == UInt8(ascii: "]") { return true }
                        if skipped > 0 { try scanner.expect(UInt8(ascii: ","), "',' or ']'") }
                        return false
                    }
                    if end {
                        throw SeedError(
                            .invalidData, file: file.path, line: line, code: .parseError,
                            "root \(root?.description ?? ""): the array at \(walked.tokens.isEmpty ? "the top" : walked.description) has \(skipped) items, so there is no item \(index)"
                        )
                    }
                    if skipped < index { try skipValue() }
                }
            default:
                throw SeedError(
                    .invalidData, file: file.path, line: line, code: .parseError,
                    "root \(root?.description ?? ""): \(walked.tokens.isEmpty ? "the document" : walked.description) is \(Self.kind(opener)), so it has no '\(token)'"
                )
            }
            walked = walked.appending(token)
        }
        guard let first = try peekValueOrEnd(allowingEnd: root == nil) else {
            finished = true  // an empty file: no records
            return
        }
        if first == UInt8(ascii: "[") {
            try step { scanner throws(JSONScanError) in scanner.position += 1 }
            inArray = true
            return
        }
        if first == UInt8(ascii: "{") && isLines && root == nil { return }
        let startLine = line
        var what = Self.kind(first)
        var suggestion = ""
        if first == UInt8(ascii: "{") {
            // Name the keys, and the first that holds an array, so the message can say what to write.
            let keys = try objectKeys()
            what = keys.all.isEmpty ? "an empty object" : "an object with keys \(Self.list(keys.all))"
            if let arrayKey = keys.firstArray {
                suggestion =
                    "; point at the array with root: \((root ?? JSONPointer(tokens: [])).appending(arrayKey)) in the manifest"
            }
        }
        if let root {
            throw SeedError(
                .invalidData, file: file.path, line: startLine, code: .parseError,
                "root \(root) is \(what), not an array of objects\(suggestion)")
        }
        let expected = isLines ? "one object per line" : "an array of objects"
        throw SeedError(
            .invalidData, file: file.path, line: startLine, code: .parseError,
            "expected \(expected), found \(what)\(suggestion)")
    }

    /// After the records' array: steps over the rest of the document (closing what the root
    /// opened) and checks that nothing follows it.
    fileprivate mutating func finishDocument() throws(SeedError) {
        var stack = rootContainers
        try skip(&stack, toDepth: 0)
        rootContainers = []
        let extra = try step(atEnd: .some(nil)) { scanner throws(JSONScanError) -> String? in
            scanner.skipWhitespace()
            if let next = scanner.peek() { return scanner.describe(next) }
            throw .truncated  // at the end of the file: the document is complete
        }
        if let extra {
            throw SeedError(
                .invalidData, file: file.path, line: line, code: .parseError,
                "JSON: unexpected \(extra) after the document")
        }
    }

    /// The first byte of the next value, not consumed; nil at the end of the file when `allowingEnd`.
    private mutating func peekValueOrEnd(allowingEnd: Bool) throws(SeedError) -> UInt8? {
        try step(atEnd: allowingEnd ? .some(nil) : nil) { scanner throws(JSONScanError) -> UInt8? in
            scanner.skipWhitespace()
            guard let next = scanner.peek() else { throw .truncated }
            return next
        }
    }

    private mutating func peekValue() throws(SeedError) -> UInt8 {
        try step { scanner throws(JSONScanError) -> UInt8 in
            scanner.skipWhitespace()
            guard let next = scanner.peek() else { throw .truncated }
            return next
        }
    }

    /// The next key of an object whose `{` was read, positioned at its value; nil at the object's end.
    private mutating func nextKey(first: Bool) throws(SeedError) -> String? {
        try step { scanner throws(JSONScanError) -> String? in
            scanner.skipWhitespace()
            guard let next = scanner.peek() else { throw .truncated }
            if next == UInt8(ascii: "}") {
                scanner.position += 1
                return nil
            }
            if !first {
                try scanner.expect(UInt8(ascii: ","), "',' or '}'")
                scanner.skipWhitespace()
            }
            var bytes: [UInt8] = []
            try scanner.scanString(into: &bytes)
            scanner.skipWhitespace()
            try scanner.expect(UInt8(ascii: ":"), "':' after the key")
            scanner.skipWhitespace()
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Reads an object (at its `{`) to its end: its keys, and the first whose value is an array.
    private mutating func objectKeys() throws(SeedError) -> (all: [String], firstArray: String?) {
        try step { scanner throws(JSONScanError) in scanner.position += 1 }
        var keys: [String] = []
        var firstArray: String?
        while let key = try nextKey(first: keys.isEmpty) {
            keys.append(key)
            if firstArray == nil, try peekValue() == UInt8(ascii: "[") { firstArray = key }
            try skipValue()
        }
        return (keys, firstArray)
    }

    /// Steps over one value of any size, holding only the brackets still open.
    private mutating func skipValue() throws(SeedError) {
        var stack: [UInt8] = []
        try skip(&stack, toDepth: 0)
    }

    /// Steps over values until `stack` (the brackets open) is back to `depth` after a complete
    /// value: token by token, so that a refill keeps only the token being read.
    private mutating func skip(_ stack: inout [UInt8], toDepth depth: Int) throws(SeedError) {
        var done = false
        while !done {
            done = try step { scanner throws(JSONScanError) -> Bool in
                scanner.skipWhitespace()
                guard let byte = scanner.peek() else { throw .truncated }
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    scanner.position += 1
                    stack.append(byte)
                    return false
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    let opener = byte == UInt8(ascii: "}") ? UInt8(ascii: "{") : UInt8(ascii: "[")
                    guard stack.last == opener else { throw scanner.error("unexpected \(scanner.describe(byte))") }
                    scanner.position += 1
                    stack.removeLast()
                    return stack.count == depth
                case UInt8(ascii: ","), UInt8(ascii: ":"):
                    guard stack.count > depth else {
                        throw scanner.error("expected a value, found \(scanner.describe(byte))")
                    }
                    scanner.position += 1
                    return false
                default:
                    var scratch: [UInt8] = []
                    guard try scanner.scanScalar(into: &scratch) != nil else { return false }
                    return stack.count == depth
                }
            }
        }
    }

    /// Runs `body` on a scanner at the current position and keeps where it stopped.
    ///
    /// When the bytes run out it refills (keeping the unread bytes) and runs `body` again from the
    /// same place, so `body` must change nothing outside the scanner before it can run out. At the
    /// end of the file, `atEnd` is the answer when given; otherwise the file ended too early.
    private mutating func step<T>(atEnd: T? = nil, _ body: (inout JSONScanner) throws(JSONScanError) -> T)
        throws(SeedError) -> T
    {
        while true {
            var outcome: Result<T, JSONScanError> = .failure(.truncated)
            var stop = (position: position, line: line)
            file.buffer.withUnsafeBytes { raw in
                var scanner = JSONScanner(
                    bytes: UnsafeRawBufferPointer(rebasing: raw[0..<file.end]), position: position, line: line)
                do throws(JSONScanError) { outcome = .success(try body(&scanner)) } catch { outcome = .failure(error) }
                stop = (scanner.position, scanner.line)
            }
            switch outcome {
            case .success(let value):
                position = stop.position
                line = stop.line
                return value
            case .failure(.truncated):
                if file.isAtEOF {
                    if let atEnd {
                        position = stop.position
                        line = stop.line
                        return atEnd
                    }
                    throw SeedError(
                        .invalidData, file: file.path, line: stop.line, code: .parseError,
                        root.map { "unexpected end of file: the document around root \($0) is not closed" }
                            ?? "unexpected end of file: the document is not complete")
                }
                position -= try file.refill(keepingFrom: position)
            case .failure(.syntax(let errorLine, let column, let message)):
                throw SeedError(
                    .invalidData, file: file.path, line: errorLine,
                    column: self.column(column, line: errorLine, scannerStart: position, startLine: line),
                    code: .parseError, "JSON: \(message)")
            }
        }
    }

    /// "a string", "an object"… for a value starting with `byte`.
    fileprivate static func kind(_ byte: UInt8) -> String {
        switch byte {
        case UInt8(ascii: "{"): return "an object"
        case UInt8(ascii: "["): return "an array"
        case UInt8(ascii: "\""): return "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "a boolean"
        case UInt8(ascii: "n"): return "null"
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return "a number"
        default: return "not JSON (it starts with byte 0x\(String(byte, radix: 16)))"
        }
    }

    /// At most ten names, then how many more.
    fileprivate static func list(_ names: [String]) -> String {
        if names.isEmpty { return "no keys" }
        let shown = names.prefix(10).joined(separator: ", ")
        return names.count > 10 ? "\(shown) and \(names.count - 10) more" : shown
    }
}
