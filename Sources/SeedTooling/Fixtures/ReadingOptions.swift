import Foundation
import SeedRuntime

/// How a fixture or a source file is read, decided once when the manifest is loaded: its format
/// and the reading options of docs/reference.md ("Published files as they are").
///
/// `build`, `new-migration`, `check-upgrade` and the build plugin all read fixtures through it.
///
/// ```yaml
/// zones:
///   file: data/zone1970.tab       # .tab: tab-separated, no quoting
///   comment: "#"
///   header: [codes, coordinates, tz, comments]
///   ragged: true
/// ```
public struct ReadingOptions: Sendable, Equatable {
    /// A fixture's format (FixtureFormat.swift, the registry of formats and what each can do).
    public var format: Format { didSet { quoting = format.quotes } }
    /// The byte between fields: `,` for CSV unless `delimiter:` says otherwise, a tab for TSV.
    public var delimiter: UInt8
    /// Lines that start with these bytes are skipped (`comment:`).
    public var comment: [UInt8]?
    /// The names of the fields of a file without a header row (`header:`).
    public var header: [String]?
    /// Unquoted fields read as NULL (`nulls:`); by default the empty one.
    public var nulls: [[UInt8]] = [[]] { didSet { onlyEmptyIsNull = nulls.count == 1 && nulls[0].isEmpty } }
    /// Whether a row with fewer fields than the header is read with NULL for the rest (`ragged: true`).
    public var ragged = false

    /// The default options of `format`: a header row, the empty field as NULL, no comments.
    public init(format: Format) {
        self.format = format
        delimiter = format.delimiter ?? UInt8(ascii: ",")
        quoting = format.quotes
    }

    /// Whether a `"` opens a quoted field (CSV); in TSV it is a character like any other.
    ///
    /// Stored: the CSV reader asks for each record, and a capability is a lookup in the registry.
    private(set) var quoting: Bool

    /// Whether `bytes` (an unquoted field) is read as NULL.
    @inline(__always) func isNull(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if onlyEmptyIsNull { return bytes.isEmpty }  // the default, on every field: no search
        return nulls.contains { token in token.count == bytes.count && token.elementsEqual(bytes) }
    }

    /// Whether `nulls` is the default (only the empty field).
    private var onlyEmptyIsNull = true
}

// MARK: - The manifest's spelling

extension ReadingOptions {
    /// The keys of a table or source entry that are reading options.
    static let keys: Set<String> = ["format", "delimiter", "comment", "header", "nulls", "ragged"]

    /// The options an entry gives for `file` (resolved path, as written), checked against its
    /// format: each bad value is a configuration error at its manifest line.
    static func read(
        _ fields: [DocEntry], file: String, url: URL, manifest path: String, entryLine: Int, entryColumn: Int
    ) throws(SeedError) -> ReadingOptions {
        func fail(_ line: Int, _ column: Int, _ message: String) -> SeedError {
            SeedError(.configuration, file: path, line: line, column: column, message)
        }
        var declared: (format: Format, line: Int, column: Int)?
        for field in fields where field.key == "format" {
            guard let text = field.node.string, let format = Format(rawValue: text.lowercased()) else {
                throw fail(field.node.line, field.node.column, "format must be one of \(formatNames())")
            }
            declared = (format, field.node.line, field.node.column)
        }
        let format: Format
        if let declared {
            format = declared.format
        } else if let byExtension = Format(extension: url.pathExtension) {
            format = byExtension
        } else {
            let line =
                fields.first { $0.key == "file" }.map { ($0.node.line, $0.node.column) } ?? (entryLine, entryColumn)
            let ext = url.pathExtension.isEmpty ? "no extension" : "the extension '.\(url.pathExtension)'"
            throw fail(
                line.0, line.1,
                "\(file) has \(ext), which names no fixture format: name the format with format: \(formatNames(last: "or")) (or use \(extensionNames))"
            )
        }
        var options = ReadingOptions(format: format)
        for field in fields {
            let node = field.node
            func delimitedOnly() throws(SeedError) {
                guard format.isDelimited else {
                    throw fail(
                        field.line, field.column,
                        "\(field.key): is for CSV and TSV files; \(file) is read as \(format.rawValue)")
                }
            }
            switch field.key {
            case "delimiter":
                try delimitedOnly()
                guard format.takesDelimiter else {
                    throw fail(
                        field.line, field.column,
                        "delimiter: is for CSV; a TSV file is split on tabs (use format: csv with delimiter: \"\\t\" for a quoted tab-separated file)"
                    )
                }
                guard let text = node.string, text.utf8.count == 1, let byte = text.utf8.first,
                    byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r")
                else {
                    throw fail(
                        node.line, node.column,
                        "delimiter must be one ASCII character other than a quote or a line break, like \",\", \";\" or \"\\t\""
                    )
                }
                options.delimiter = byte
            case "comment":
                try delimitedOnly()
                guard let text = node.string, !text.isEmpty, !text.contains("\n"), !text.contains("\r") else {
                    throw fail(node.line, node.column, "comment must be the text comment lines start with, like \"#\"")
                }
                options.comment = Array(text.utf8)
            case "header":
                try delimitedOnly()
                guard let items = node.items, !items.isEmpty else {
                    throw fail(
                        node.line, node.column, "header must be a list of the file's field names, like [code, name]")
                }
                var names: [String] = []
                for item in items {
                    guard let name = item.string, !name.isEmpty else {
                        throw fail(item.line, item.column, "header names each field: a name, not empty")
                    }
                    if names.contains(where: { $0 == name }) {
                        throw fail(item.line, item.column, "header names '\(name)' twice")
                    }
                    names.append(name)
                }
                options.header = names
            case "nulls":
                try delimitedOnly()
                guard let items = node.items else {
                    throw fail(
                        node.line, node.column, "nulls must be a list of the fields read as NULL, like [\"\", \"-\"]")
                }
                var tokens: [[UInt8]] = []
                for item in items {
                    switch item.value {
                    case .string(let text): tokens.append(Array(text.utf8))
                    case .integer(let number): tokens.append(Array(String(number).utf8))
                    default:
                        throw fail(
                            item.line, item.column, "nulls lists texts; quote it (\"\(item.inputValue.description)\")")
                    }
                }
                options.nulls = tokens
            case "ragged":
                try delimitedOnly()
                guard case .bool(let flag) = node.value else {
                    throw fail(node.line, node.column, "ragged must be true or false")
                }
                options.ragged = flag
            default: continue
            }
        }
        return options
    }
}
