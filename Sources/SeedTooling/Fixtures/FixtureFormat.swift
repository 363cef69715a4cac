import Foundation
import SeedRuntime

extension ReadingOptions {
    /// A fixture's format: `format:`, or its extension.
    ///
    /// This file is the registry of fixture formats: a format is its case, its ``Capabilities`` and
    /// its reader in ``ReadingOptions/open(_:displayPath:root:fields:unknownField:)``. Everything
    /// else asks the format what it can do (`format.recordsNameTheirFields`), never which format it
    /// is, so a new format is a ``RecordSource`` plus its case here, and the compiler finds the
    /// switches below that must answer for it.
    @dynamicMemberLookup
    public enum Format: String, Sendable, CaseIterable {
        /// RFC 4180, with `delimiter:` between fields.
        case csv
        /// Tab-separated, IANA style: fields split on tabs, no quoting.
        case tsv
        /// An array of objects.
        case json
        /// One object per line (JSON Lines).
        case jsonl

        /// What the format can do: every format answers every capability.
        public var capabilities: Capabilities {
            switch self {
            case .csv:
                return Capabilities(
                    extensions: ["csv"], displayName: "CSV", delimiter: UInt8(ascii: ","), takesDelimiter: true,
                    quotes: true, recordsNameTheirFields: false, valuesNest: false, supportsPointers: false,
                    supportsRoot: false)
            case .tsv:
                return Capabilities(
                    extensions: ["tsv", "tab"], displayName: "TSV", delimiter: UInt8(ascii: "\t"),
                    takesDelimiter: false, quotes: false, recordsNameTheirFields: false, valuesNest: false,
                    supportsPointers: false, supportsRoot: false)
            case .json:
                return Capabilities(
                    extensions: ["json"], displayName: "JSON", delimiter: nil, takesDelimiter: false, quotes: false,
                    recordsNameTheirFields: true, valuesNest: true, supportsPointers: true, supportsRoot: true)
            case .jsonl:
                return Capabilities(
                    extensions: ["jsonl", "ndjson"], displayName: "JSON", delimiter: nil, takesDelimiter: false,
                    quotes: false, recordsNameTheirFields: true, valuesNest: true, supportsPointers: true,
                    supportsRoot: false)
            }
        }

        /// A capability of the format, asked by name: `format.supportsRoot`.
        public subscript<Value>(dynamicMember capability: KeyPath<Capabilities, Value>) -> Value {
            capabilities[keyPath: capability]
        }

        /// The format a file's extension names, or nil: `.csv`; `.tsv`, `.tab`; `.json`; `.jsonl`, `.ndjson`.
        public init?(extension ext: String) {
            let ext = ext.lowercased()
            guard let format = Self.allCases.first(where: { $0.extensions.contains(ext) }) else { return nil }
            self = format
        }
    }

    /// What a fixture format can do, named for what the code that reads fixtures decides by it.
    public struct Capabilities: Sendable, Equatable {
        /// The file extensions that name the format without `format:`, lower case, the usual one first.
        public var extensions: [String]
        /// How messages name the format's files ("a CSV fixture", "JSON fixtures").
        public var displayName: String
        /// The byte between a record's fields by default, or nil when records are not lines of
        /// separated fields; a delimited format takes the reading options `comment:`, `header:`,
        /// `nulls:` and `ragged:`.
        public var delimiter: UInt8?
        /// Whether `delimiter:` may choose another byte.
        public var takesDelimiter: Bool
        /// Whether a `"` opens a quoted field (RFC 4180); otherwise it is a character like any other.
        public var quotes: Bool
        /// Whether each record names its fields (keys), rather than a header naming them once for
        /// the file: the reader is told the names a record may use (or they are found by reading
        /// the records), a record may leave a field out (its DEFAULT applies; key and `required`
        /// are checked record by record, not against a header), and a field has no column
        /// number (messages give its place in the record).
        public var recordsNameTheirFields: Bool
        /// Whether a value can be an array or an object: a composite may be given whole, in the
        /// Swift type's shape (SwiftShapeFields.swift), and a to-many field lists its keys as an
        /// array, so a text is one key (in a delimited file it is split at commas).
        public var valuesNest: Bool
        /// Whether `columns:` may map a column to a JSON Pointer into the record.
        public var supportsPointers: Bool
        /// Whether `root:` may point at the records inside one document.
        public var supportsRoot: Bool

        /// Whether records are lines of separated fields (CSV, TSV), which the delimited-reading options are for.
        public var isDelimited: Bool { delimiter != nil }
    }

    /// Opens `file` as these options say: the one place that decides how a file of records is
    /// read, for a table's fixture and a derived table's source alike (`build`, `new-migration`,
    /// `check-upgrade`, the build plugin): each format's reader.
    ///
    /// - Parameters:
    ///   - file: the fixture.
    ///   - displayPath: the fixture's path as messages name it.
    ///   - root: where the records are in a JSON document (nil: the document is the array).
    ///   - fields: the names a record's keys may have, for a format whose records name their fields
    ///     (a delimited file's header names them).
    ///   - unknownField: the message for a key no field names.
    /// - Returns: the format's reader, positioned at the first record.
    /// - Throws: ``SeedError`` naming the file when it cannot be opened or does not start as the format says.
    func open(
        _ file: URL, displayPath: String, root: JSONPointer?, fields: [String],
        unknownField: @escaping (String) -> String
    ) throws(SeedError) -> any RecordSource {
        switch format {
        case .csv, .tsv:
            return try CSVRecordSource(url: file, displayPath: displayPath, options: self)
        case .json:
            return try JSONRecordSource(
                url: file, displayPath: displayPath, fields: fields, root: root, lines: false,
                unknownField: unknownField)
        case .jsonl:
            return try JSONRecordSource(
                url: file, displayPath: displayPath, fields: fields, root: root, lines: true,
                unknownField: unknownField)
        }
    }

    /// The formats, for messages: "csv, tsv, json, jsonl" (or "csv, tsv, json or jsonl" with `last: "or"`).
    static func formatNames(last: String? = nil) -> String {
        listed(Format.allCases.map(\.rawValue), last: last)
    }

    /// The formats `root:` is for, for messages: "format json".
    static var rootFormats: String {
        "format " + listed(Format.allCases.filter { $0.supportsRoot }.map(\.rawValue), last: "or")
    }

    /// The extensions that name a format, for messages: ".csv, .tsv, .tab, .json, .jsonl, .ndjson".
    static var extensionNames: String {
        listed(Format.allCases.flatMap { $0.extensions.map { "." + $0 } }, last: nil)
    }

    private static func listed(_ items: [String], last: String?) -> String {
        guard let last, items.count > 1 else { return items.joined(separator: ", ") }
        return items.dropLast().joined(separator: ", ") + " \(last) " + (items.last ?? "")
    }
}

extension Manifest.TableConfig {
    /// Opens the table's fixture as its ``ReadingOptions`` say (``ReadingOptions/open(_:displayPath:root:fields:unknownField:)``).
    func openFixture(fields: [String], unknownField: @escaping (String) -> String) throws(SeedError) -> any RecordSource
    {
        try reading.open(file, displayPath: displayFile, root: root, fields: fields, unknownField: unknownField)
    }
}
