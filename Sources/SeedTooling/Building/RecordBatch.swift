import SeedRuntime

/// Converted records, stored flat: `width` slots per record, each slot a kind and a
/// payload (an integer, a double's bits, or a range of `bytes`).
///
/// Batches travel from the reading thread to the SQLite thread and back, so a build allocates a
/// handful of them.
///
/// Storage is raw memory of fixed capacity, written through pointers: the hot loop pays
/// no bounds, uniqueness or exclusivity checks (measured: they cost a third of the reader's time).
final class RecordBatch: @unchecked Sendable {
    enum Slot: UInt8 {
        /// Not in the record (a JSON key left out): the column's DEFAULT applies.
        case absent
        case null, integer, real, text, blob
    }

    let width: Int
    let capacity: Int
    private(set) var count = 0
    let slots: UnsafeMutablePointer<Slot>
    let payloads: UnsafeMutablePointer<Int64>
    let lengths: UnsafeMutablePointer<Int32>
    let lines: UnsafeMutablePointer<Int32>
    /// Per record: the slots whose value failed conversion (bit `min(slot, 63)`); they hold the
    /// fixture's raw text, so that the record still takes part in key and ref checks.
    let failedSlots: UnsafeMutablePointer<UInt64>
    private(set) var bytes: UnsafeMutablePointer<UInt8>
    private(set) var byteCount = 0
    private var byteCapacity: Int
    /// How far into its file the reader was when this batch was filled.
    var bytesRead = 0

    var isFull: Bool { count == capacity }

    init(width: Int, capacity: Int) {
        self.width = width
        self.capacity = capacity
        let slotCount = max(1, width * capacity)
        slots = .allocate(capacity: slotCount)
        payloads = .allocate(capacity: slotCount)
        lengths = .allocate(capacity: slotCount)
        lines = .allocate(capacity: capacity)
        failedSlots = .allocate(capacity: capacity)
        byteCapacity = capacity * 64
        bytes = .allocate(capacity: byteCapacity)
    }

    deinit {
        slots.deallocate()
        payloads.deallocate()
        lengths.deallocate()
        lines.deallocate()
        failedSlots.deallocate()
        bytes.deallocate()
    }

    func reset() {
        count = 0
        byteCount = 0
    }

    /// Starts a record whose slots are all absent.
    func beginRecord(line: Int) {
        let base = count * width
        (slots + base).initialize(repeating: .absent, count: width)
        lines[count] = Int32(clamping: line)
        failedSlots[count] = 0
        count += 1
    }

    /// Marks a slot of the record begun last as holding a value that failed conversion.
    func markFailed(_ slot: Int) { failedSlots[count - 1] |= 1 << UInt64(min(slot, 63)) }

    @inline(__always) func setNull(_ slot: Int) { slots[(count - 1) * width + slot] = .null }

    @inline(__always) func setInteger(_ slot: Int, _ value: Int64) {
        let index = (count - 1) * width + slot
        slots[index] = .integer
        payloads[index] = value
    }

    @inline(__always) func setReal(_ slot: Int, _ value: Double) {
        let index = (count - 1) * width + slot
        slots[index] = .real
        payloads[index] = Int64(bitPattern: value.bitPattern)
    }

    /// Copies `text` into the batch as the slot's text (or blob) value.
    func setBytes(_ slot: Int, _ text: UnsafeRawBufferPointer, kind: Slot = .text) {
        let index = (count - 1) * width + slot
        if byteCount + text.count > byteCapacity {
            let grown = max(byteCapacity * 2, byteCount + text.count)
            let new = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
            new.update(from: bytes, count: byteCount)
            bytes.deallocate()
            bytes = new
            byteCapacity = grown
        }
        if let source = text.baseAddress, text.count > 0 {
            (bytes + byteCount).update(from: source.assumingMemoryBound(to: UInt8.self), count: text.count)
        }
        slots[index] = kind
        payloads[index] = Int64(byteCount)
        lengths[index] = Int32(text.count)
        byteCount += text.count
    }

    func set(_ slot: Int, _ value: SQLValue) {
        switch value {
        case .null: setNull(slot)
        case .integer(let int): setInteger(slot, int)
        case .real(let real): setReal(slot, real)
        case .text(let text):
            var text = text
            text.withUTF8 { setBytes(slot, UnsafeRawBufferPointer($0)) }
        case .blob(let data): data.withUnsafeBytes { setBytes(slot, $0, kind: .blob) }
        }
    }

    /// The value in a slot, for messages and lookups off the hot path.
    func value(record: Int, slot: Int) -> SQLValue {
        let index = record * width + slot
        switch slots[index] {
        case .absent, .null: return .null
        case .integer: return .integer(payloads[index])
        case .real: return .real(Double(bitPattern: UInt64(bitPattern: payloads[index])))
        case .text:
            return .text(
                String(
                    storedText: UnsafeRawBufferPointer(start: bytes + Int(payloads[index]), count: Int(lengths[index])))
            )
        case .blob:
            return .blob(Array(UnsafeBufferPointer(start: bytes + Int(payloads[index]), count: Int(lengths[index]))))
        }
    }
}
