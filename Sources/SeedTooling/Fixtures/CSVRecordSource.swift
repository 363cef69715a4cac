import Foundation
import SeedRuntime

/// Reads RFC 4180 CSV: a header row of column names, then records.
///
/// UTF-8 (a BOM is skipped), LF or CRLF line ends, quoted fields with commas, doubled quotes and
/// line breaks. An empty unquoted field is NULL; `""` is the empty string. Blank lines are skipped.
///
/// The ``ReadingOptions`` say otherwise where the publisher does: another `delimiter`, tabs
/// and no quoting (TSV), `comment` lines skipped, a `header` the file lacks, the unquoted
/// fields read as NULL (`nulls`), and rows shorter than the header (`ragged`).
struct CSVRecordSource: RecordSource {
    private let file: ChunkedFile
    private let options: ReadingOptions
    private var position = 0
    private var line = 1
    private(set) var columnNames: [String] = []
    var contentHash: SHA256Box { file.hash }
    var bytesRead: Int { file.totalRead }

    init(url: URL, displayPath: String, options: ReadingOptions = ReadingOptions(format: .csv)) throws(SeedError) {
        file = try ChunkedFile(url: url, displayPath: displayPath)
        self.options = options
        try file.refill(keepingFrom: 0)
        if file.end >= 3, file.buffer[0] == 0xEF, file.buffer[1] == 0xBB, file.buffer[2] == 0xBF { position = 3 }
        try file.checkNotWide()
        if let header = options.header {
            columnNames = header
            return
        }
        var header = RawRecord()
        var problems: [Diagnostic] = []
        guard try next(&header, diagnostics: &problems) else {
            throw SeedError(
                .invalidData, file: displayPath, line: line, column: 1, code: .parseError,
                "the file is empty: a \(options.format.displayName) fixture starts with a header row of column names (or the manifest names them with header:)"
            )
        }
        if let problem = problems.first { throw SeedError(.invalidData, [problem]) }
        var names: [String] = []
        var fieldOf: [String: Int] = [:]  // linear in the header's width, however wide
        for field in 0..<header.count {
            let name = header.text(field)
            guard !name.isEmpty else {
                throw SeedError(
                    .invalidData, file: displayPath, line: header.line, column: field + 1, code: .parseError,
                    "header field \(field + 1) is empty: every column needs a name")
            }
            if let earlier = fieldOf.updateValue(field, forKey: name) {
                throw SeedError(
                    .invalidData, file: displayPath, line: header.line, column: field + 1, code: .parseError,
                    "column '\(name)' appears twice in the header (fields \(earlier + 1) and \(field + 1))")
            }
            names.append(name)
        }
        columnNames = names
    }

    private enum Step { case record, needMore, end, comment }

    mutating func next(_ record: inout RawRecord, diagnostics: inout [Diagnostic]) throws(SeedError) -> Bool {
        while true {
            record.reset()
            let startLine = line
            var lines = 0
            let step = try parseRecord(into: &record, newlines: &lines)
            switch step {
            case .end:
                return false
            case .needMore:
                position -= try file.refill(keepingFrom: position)
                continue
            case .comment:
                line += lines
                continue
            case .record:
                record.line = startLine
                line += lines
                if record.count == 1, record.kinds[0] == .null, record.starts[0] == record.ends[0],
                    lines > 0 || file.isAtEOF
                {
                    continue  // a blank line
                }
                if !columnNames.isEmpty && record.count < columnNames.count && options.ragged {
                    // ragged: true: the fields the row lacks are NULL.
                    for column in record.count..<columnNames.count {
                        record.append(column: column, kind: .null, start: record.bytes.count)
                    }
                }
                if !columnNames.isEmpty && record.count != columnNames.count {
                    let hint =
                        record.count < columnNames.count
                        ? "; if the publisher leaves trailing fields out, ragged: true in the manifest reads them as NULL"
                        : ""
                    diagnostics.append(
                        Diagnostic(
                            file: file.path, line: startLine, column: min(record.count, columnNames.count) + 1,
                            code: .parseError,
                            message:
                                "expected \(columnNames.count) fields (as in the \(options.header == nil ? "header" : "manifest's header:")), found \(record.count)\(hint)"
                        ))
                    continue
                }
                let valid = record.bytes.withUnsafeBytes { UTF8Validation.isValid($0) }
                if !valid {
                    let field =
                        (0..<record.count).first { index in
                            record.bytes[record.starts[index]..<record.ends[index]].withUnsafeBytes {
                                !UTF8Validation.isValid($0)
                            }
                        } ?? 0
                    diagnostics.append(
                        Diagnostic(
                            file: file.path, line: startLine, column: field + 1, code: .invalidEncoding,
                            message: "field \(field + 1) is not valid UTF-8 (save the file as UTF-8)"))
                    continue
                }
                return true
            }
        }
    }

    /// Parses one record at `position`.
    ///
    /// On `.needMore` nothing is consumed.
    private mutating func parseRecord(into record: inout RawRecord, newlines: inout Int) throws(SeedError) -> Step {
        let end = file.end
        let eof = file.isAtEOF
        if position >= end { return eof ? .end : .needMore }
        let quote = UInt8(ascii: "\"")
        let comma = options.delimiter
        let lf = UInt8(ascii: "\n")
        let cr = UInt8(ascii: "\r")
        let quoting = options.quoting
        var cursor = position
        var column = 0
        // A blank line: skipped (whatever nulls: says of an empty field).
        let first = file.buffer[position]
        if first == lf {
            position += 1
            newlines += 1
            return .comment
        }
        if first == cr {
            if position + 1 >= end && !eof { return .needMore }
            position += position + 1 < end && file.buffer[position + 1] == lf ? 2 : 1
            newlines += 1
            return .comment
        }
        // A comment line (comment:): skipped whole, wherever a record could start.
        if let comment = options.comment {
            let available = end - position
            let prefix = min(available, comment.count)
            let starts = file.buffer.withUnsafeBufferPointer { buffer in
                (0..<prefix).allSatisfy { buffer[position + $0] == comment[$0] }
            }
            if starts && prefix < comment.count && !eof { return .needMore }
            if starts && prefix == comment.count {
                let lineEnd = file.buffer.withUnsafeBufferPointer { buffer in
                    (position..<end).first { buffer[$0] == lf }
                }
                guard let lineEnd else {
                    if !eof { return .needMore }
                    position = end
                    return .comment
                }
                position = lineEnd + 1
                newlines += 1
                return .comment
            }
        }
        let result: Step? = file.buffer.withUnsafeBufferPointer { buffer -> Step? in
            while true {
                let fieldStart = record.bytes.count
                if quoting && cursor < end && buffer[cursor] == quote {
                    // Quoted field: runs to the next lone quote; "" is one quote.
                    cursor += 1
                    while true {
                        var scan = cursor
                        while scan < end && buffer[scan] != quote {
                            if buffer[scan] == lf { newlines += 1 }
                            scan += 1
                        }
                        record.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[cursor..<scan]))
                        if scan >= end {
                            cursor = end
                            return eof ? nil : .needMore
                        }
                        if scan + 1 < end && buffer[scan + 1] == quote {
                            record.bytes.append(quote)
                            cursor = scan + 2
                            continue
                        }
                        if scan + 1 >= end && !eof { return .needMore }
                        cursor = scan + 1
                        break
                    }
                    record.append(column: column, kind: .text, start: fieldStart)
                } else {
                    var scan = cursor
                    while scan < end {
                        let byte = buffer[scan]
                        if byte == comma || byte == lf || byte == cr { break }
                        if byte == quote && quoting {
                            cursor = scan
                            return nil
                        }
                        scan += 1
                    }
                    if scan >= end && !eof { return .needMore }
                    let field = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[cursor..<scan]))
                    record.bytes.append(contentsOf: field)
                    record.append(column: column, kind: options.isNull(field) ? .null : .text, start: fieldStart)
                    cursor = scan
                }
                column += 1
                // After a field: a comma, a line end, or the end of the file.
                if cursor >= end { return .record }
                let byte = buffer[cursor]
                if byte == comma {
                    cursor += 1
                    if cursor >= end && !eof { return .needMore }
                    if cursor >= end {
                        record.append(
                            column: column,
                            kind: options.isNull(UnsafeRawBufferPointer(start: nil, count: 0)) ? .null : .text,
                            start: record.bytes.count)
                        return .record
                    }
                    continue
                }
                if byte == cr {
                    if cursor + 1 >= end && !eof { return .needMore }
                    cursor += 1
                    if cursor < end && buffer[cursor] == lf { cursor += 1 }
                    newlines += 1
                    return .record
                }
                if byte == lf {
                    cursor += 1
                    newlines += 1
                    return .record
                }
                return nil  // a character right after a closing quote
            }
        }
        guard let result else {
            // Syntax errors the reader cannot step over: report where, and stop reading this file.
            let errorLine = line + newlines
            if cursor >= end {
                throw SeedError(
                    .invalidData, file: file.path, line: line, column: column + 1, code: .parseError,
                    "unterminated quoted field: the quote opened here is never closed")
            }
            let byte = file.buffer[cursor]
            if byte == quote {
                throw SeedError(
                    .invalidData, file: file.path, line: errorLine, column: column + 1, code: .parseError,
                    "a quote inside an unquoted field; quote the whole field and double the quote (\"\"), as RFC 4180 requires"
                )
            }
            throw SeedError(
                .invalidData, file: file.path, line: errorLine, column: column, code: .parseError,
                "unexpected character after a closing quote; a quoted field must end at a comma or line end")
        }
        if result == .needMore { return .needMore }
        position = cursor
        return result
    }
}
