/// One record as a fixture file holds it, before conversion: fields as byte ranges into
/// a reused buffer, so that reading a million rows allocates nothing per row.
struct RawRecord {
    enum Kind: UInt8 {
        /// An empty unquoted CSV field, or JSON `null`.
        case null
        /// CSV text, or a JSON string.
        case text
        case integer, real, bool
        /// A nested JSON array or object, kept as JSON text.
        case json
    }

    var bytes: [UInt8] = []
    var starts: [Int] = []
    var ends: [Int] = []
    var kinds: [Kind] = []
    /// The field's column: its index in the CSV header, or in the table's columns for JSON.
    var columns: [Int] = []
    /// The record's first line in the file.
    var line = 0

    var count: Int { kinds.count }

    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        kinds.removeAll(keepingCapacity: true)
        columns.removeAll(keepingCapacity: true)
    }

    mutating func append(column: Int, kind: Kind, start: Int) {
        starts.append(start)
        ends.append(bytes.count)
        kinds.append(kind)
        columns.append(column)
    }

    func text(_ field: Int) -> String {
        String(decoding: bytes[starts[field]..<ends[field]], as: UTF8.self)
    }
}

/// A streaming reader of fixture records.
protocol RecordSource {
    /// The fixture's column names: the CSV header, or the table's columns for JSON.
    var columnNames: [String] { get }
    /// The SHA-256 of the bytes read so far (the whole file once `next` returned false).
    var contentHash: SHA256Box { get }
    /// Bytes of the file read so far.
    var bytesRead: Int { get }
    /// Reads the next record. Problems that leave the reader in step (a wrong field count,
    /// bad UTF-8) are appended to `diagnostics` and the record is skipped; problems that
    /// don't (an unterminated quote) are thrown.
    mutating func next(_ record: inout RawRecord, diagnostics: inout [Diagnostic]) throws(SeedError) -> Bool
    /// The JSON Pointer fields (`/name/common`) that no record read so far holds.
    var unheldPointers: [String] { get }
}

extension RecordSource {
    var unheldPointers: [String] { [] }
}

import SeedRuntime

/// A SHA-256 shared between the reader and whoever wants the digest at the end.
final class SHA256Box: @unchecked Sendable {
    var hash = SHA256()
}
