import SeedRuntime

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

/// A SHA-256 shared between the reader and whoever wants the digest at the end.
final class SHA256Box: @unchecked Sendable {
    var hash = SHA256()
}

/// The content hash of records rather than bytes, a JSON fixture's (docs/reference.md, "Published files as they are"):
/// per record its field count, per field its column, kind and length, then the record's bytes
/// (its fields' bytes, in order), gathered in one buffer hashed 64 KiB at a time.
final class RecordHasher: @unchecked Sendable {
    private let box = SHA256Box()
    private static let capacity = 1 << 16
    private let buffer = UnsafeMutableRawPointer.allocate(byteCount: RecordHasher.capacity, alignment: 8)
    private var used = 0

    deinit { buffer.deallocate() }

    func add(_ record: RawRecord) {
        let layout = 4 + record.count * 9
        if used + layout > Self.capacity { flush() }
        if layout > Self.capacity {
            // A record of more than 7,000 fields: its layout hashed as it goes.
            for field in 0..<record.count {
                box.hash.update([UInt8(truncatingIfNeeded: record.columns[field]), record.kinds[field].rawValue])
            }
        } else {
            buffer.storeBytes(
                of: UInt32(truncatingIfNeeded: record.count).littleEndian, toByteOffset: used, as: UInt32.self)
            used += 4
            for field in 0..<record.count {
                buffer.storeBytes(
                    of: UInt32(truncatingIfNeeded: record.columns[field]).littleEndian, toByteOffset: used,
                    as: UInt32.self)
                buffer.storeBytes(of: record.kinds[field].rawValue, toByteOffset: used + 4, as: UInt8.self)
                buffer.storeBytes(
                    of: UInt32(truncatingIfNeeded: record.ends[field] - record.starts[field]).littleEndian,
                    toByteOffset: used + 5, as: UInt32.self)
                used += 9
            }
        }
        record.bytes.withUnsafeBytes { bytes in
            if used + bytes.count > Self.capacity { flush() }
            if bytes.count > Self.capacity {
                box.hash.update(buffer: bytes)
            } else if let base = bytes.baseAddress {
                (buffer + used).copyMemory(from: base, byteCount: bytes.count)
                used += bytes.count
            }
        }
    }

    /// The hash with every record added so far.
    func flushed() -> SHA256Box {
        flush()
        return box
    }

    private func flush() {
        guard used > 0 else { return }
        box.hash.update(buffer: UnsafeRawBufferPointer(start: buffer, count: used))
        used = 0
    }
}
