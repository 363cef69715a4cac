import Foundation
import SeedRuntime

/// Reads JSON fixtures as a stream of objects: a JSON array of objects (`.json`), or one
/// object per line (`.jsonl`, `.ndjson`). Keys are column names; nested arrays and objects
/// are kept as JSON text. Memory stays flat: only the current record is held.
struct JSONRecordSource: RecordSource {
    private let file: ChunkedFile
    private var position = 0
    private var line = 1
    private var lineStart = 0
    private var inArray = false
    private var finished = false
    private var sawFirst = false
    let columnNames: [String]
    private let names: [[UInt8]]
    private var reportedUnknown = Set<String>()
    private var key: [UInt8] = []
    var contentHash: SHA256Box { file.hash }
    var bytesRead: Int { file.totalRead }

    init(url: URL, displayPath: String, columns: [String]) throws(SeedError) {
        file = try ChunkedFile(url: url, displayPath: displayPath)
        columnNames = columns
        names = columns.map { Array($0.lowercased().utf8) }
        try file.refill(keepingFrom: 0)
        if file.end >= 3, file.buffer[0] == 0xEF, file.buffer[1] == 0xBB, file.buffer[2] == 0xBF { position = 3 }
    }

    mutating func next(_ record: inout RawRecord, diagnostics: inout [Diagnostic]) throws(SeedError) -> Bool {
        guard !finished else { return false }
        while true {
            record.reset()
            let startPosition = position
            let startLine = line
            var outcome: Result<Bool, JSONScanError> = .success(false)
            var scannerEnd = (position: 0, line: 0)
            var skippedRecord = false
            file.buffer.withUnsafeBytes { raw in
                var scanner = JSONScanner(bytes: UnsafeRawBufferPointer(rebasing: raw[0..<file.end]), position: position, line: line)
                do throws(JSONScanError) {
                    let found = try scanRecord(&scanner, into: &record, diagnostics: &diagnostics, skipped: &skippedRecord)
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
                if !found { finished = true; return false }
                if skippedRecord { continue }
                return true
            case .failure(.truncated):
                if file.isAtEOF {
                    throw SeedError(.invalidData, file: file.path, line: scannerEnd.line, code: .parseError,
                        inArray ? "unexpected end of file: the array or an object in it is not closed" : "unexpected end of file inside an object")
                }
                position = startPosition - (try file.refill(keepingFrom: startPosition))
                line = startLine
            case .failure(.syntax(let errorLine, let column, let message)):
                throw SeedError(.invalidData, file: file.path, line: errorLine, column: column, code: .parseError, "JSON: \(message)")
            }
        }
    }

    /// Scans up to and including the next object; false at the end of the stream.
    private mutating func scanRecord(_ scanner: inout JSONScanner, into record: inout RawRecord, diagnostics: inout [Diagnostic], skipped: inout Bool) throws(JSONScanError) -> Bool {
        scanner.skipWhitespace()
        if !sawFirst {
            guard let first = scanner.peek() else {
                if file.isAtEOF { return false }
                throw .truncated
            }
            if first == UInt8(ascii: "[") {
                inArray = true
                scanner.position += 1
                scanner.skipWhitespace()
            } else if first != UInt8(ascii: "{") {
                throw scanner.error("a JSON fixture is an array of objects, or one object per line")
            }
            sawFirst = true
            position = scanner.position
        }
        if inArray {
            guard let next = scanner.peek() else { throw .truncated }
            if next == UInt8(ascii: "]") {
                scanner.position += 1
                scanner.skipWhitespace()
                if let extra = scanner.peek() { throw scanner.error("unexpected \(scanner.describe(extra)) after the array") }
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
        scanner.skipWhitespace()
        if scanner.peek() == UInt8(ascii: "}") { scanner.position += 1; return true }
        while true {
            scanner.skipWhitespace()
            let keyLine = scanner.line
            key.removeAll(keepingCapacity: true)
            try scanner.scanString(into: &key)
            scanner.skipWhitespace()
            try scanner.expect(UInt8(ascii: ":"), "':' after the key")
            scanner.skipWhitespace()
            ordinal += 1
            let column = columnIndex(key)
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
                let range = try scanner.skipValue()
                record.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: scanner.bytes[range]))
                kind = .json
                _ = valueStart
            }
            if let column {
                if record.columns.contains(column) {
                    diagnostics.append(Diagnostic(file: file.path, line: keyLine, column: ordinal, code: .parseError, message: "key '\(String(decoding: key, as: UTF8.self))' appears twice in this object"))
                    skipped = true
                }
                record.append(column: column, kind: kind, start: start)
            } else {
                record.bytes.removeSubrange(start...)
                let name = String(decoding: key, as: UTF8.self)
                if reportedUnknown.insert(name).inserted {
                    diagnostics.append(Diagnostic(file: file.path, line: keyLine, column: ordinal, code: .unknownColumn,
                        message: "key '\(name)' is not a column of the table (it has \(columnNames.joined(separator: ", ")))"))
                }
                skipped = true
            }
            scanner.skipWhitespace()
            guard let next = scanner.peek() else { throw .truncated }
            scanner.position += 1
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { scanner.position -= 1; throw scanner.error("expected ',' or '}' in the object") }
        }
        if !skipped, !record.bytes.withUnsafeBytes({ UTF8Validation.isValid($0) }) {
            diagnostics.append(Diagnostic(file: file.path, line: record.line, code: .invalidEncoding, message: "a string in this object is not valid UTF-8"))
            skipped = true
        }
        return true
    }

    private func columnIndex(_ key: [UInt8]) -> Int? {
        for (index, name) in names.enumerated() where name.count == key.count {
            var equal = true
            for i in 0..<key.count {
                var byte = key[i]
                if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte += 32 }
                if byte != name[i] { equal = false; break }
            }
            if equal { return index }
        }
        return nil
    }
}
