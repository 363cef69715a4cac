import SeedRuntime

/// Converted records, stored flat: `width` slots per record, each slot a kind and a
/// payload (an integer, a double's bits, or a range of `bytes`). Batches travel from the
/// reading thread to the SQLite thread and back, so a build allocates a handful of them.
final class RecordBatch: @unchecked Sendable {
    enum Slot: UInt8 {
        /// Not in the record (a JSON key left out): the column's DEFAULT applies.
        case absent
        case null, integer, real, text, blob
    }

    let width: Int
    private(set) var count = 0
    var slots: [Slot] = []
    var payloads: [Int64] = []
    var lengths: [Int32] = []
    var bytes: [UInt8] = []
    var lines: [Int32] = []
    /// How far into its file the reader was when this batch was filled.
    var bytesRead = 0

    init(width: Int, capacity: Int) {
        self.width = width
        slots.reserveCapacity(width * capacity)
        payloads.reserveCapacity(width * capacity)
        lengths.reserveCapacity(width * capacity)
        lines.reserveCapacity(capacity)
        bytes.reserveCapacity(capacity * 64)
    }

    func reset() {
        count = 0
        slots.removeAll(keepingCapacity: true)
        payloads.removeAll(keepingCapacity: true)
        lengths.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
        lines.removeAll(keepingCapacity: true)
    }

    /// Starts a record whose slots are all absent.
    func beginRecord(line: Int) {
        count += 1
        lines.append(Int32(clamping: line))
        for _ in 0..<width {
            slots.append(.absent)
            payloads.append(0)
            lengths.append(0)
        }
    }

    /// Drops the record begun last.
    func discardRecord() {
        count -= 1
        lines.removeLast()
        slots.removeLast(width)
        payloads.removeLast(width)
        lengths.removeLast(width)
    }

    func set(_ slot: Int, _ value: SQLValue) {
        let index = (count - 1) * width + slot
        switch value {
        case .null: slots[index] = .null
        case .integer(let int): slots[index] = .integer; payloads[index] = int
        case .real(let real): slots[index] = .real; payloads[index] = Int64(bitPattern: real.bitPattern)
        case .text(let text): setText(slot, Array(text.utf8)[...])
        case .blob(let data):
            slots[index] = .blob
            payloads[index] = Int64(bytes.count)
            lengths[index] = Int32(data.count)
            bytes.append(contentsOf: data)
        }
    }

    func setText(_ slot: Int, _ text: ArraySlice<UInt8>) {
        let index = (count - 1) * width + slot
        slots[index] = .text
        payloads[index] = Int64(bytes.count)
        lengths[index] = Int32(text.count)
        bytes.append(contentsOf: text)
    }

    /// The value in a slot, for messages and lookups off the hot path.
    func value(record: Int, slot: Int) -> SQLValue {
        let index = record * width + slot
        switch slots[index] {
        case .absent, .null: return .null
        case .integer: return .integer(payloads[index])
        case .real: return .real(Double(bitPattern: UInt64(bitPattern: payloads[index])))
        case .text:
            let start = Int(payloads[index])
            return .text(String(decoding: bytes[start..<(start + Int(lengths[index]))], as: UTF8.self))
        case .blob:
            let start = Int(payloads[index])
            return .blob(Array(bytes[start..<(start + Int(lengths[index]))]))
        }
    }
}
