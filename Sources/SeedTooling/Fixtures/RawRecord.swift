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

/// The content hash of records rather than bytes (a JSON fixture's, docs/reference.md "Nested
/// values"): each record's field count, then per field its column, kind and length (LEB128) and
/// bytes, gathered in one buffer and hashed 64 KiB at a time.
final class RecordHasher: @unchecked Sendable {
    private let box = SHA256Box()
    private var pending: [UInt8] = []

    func add(_ record: RawRecord) {
        func varint(_ value: Int) {
            var rest = UInt64(value)
            while rest >= 0x80 { pending.append(UInt8(truncatingIfNeeded: rest) | 0x80); rest >>= 7 }
            pending.append(UInt8(rest))
        }
        varint(record.count)
        record.bytes.withUnsafeBufferPointer { bytes in
            for field in 0..<record.count {
                varint(record.columns[field])
                pending.append(record.kinds[field].rawValue)
                varint(record.ends[field] - record.starts[field])
                pending.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[record.starts[field]..<record.ends[field]]))
            }
        }
        if pending.count >= 1 << 16 { flush() }
    }

    /// The hash with every record added so far.
    func flushed() -> SHA256Box {
        flush()
        return box
    }

    private func flush() {
        guard !pending.isEmpty else { return }
        pending.withUnsafeBytes { box.hash.update(buffer: $0) }
        pending.removeAll(keepingCapacity: true)
    }
}
