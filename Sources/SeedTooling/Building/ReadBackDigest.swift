import GRDBSQLite
import SeedRuntime

/// What one table's rows hold, as an order-independent digest: per column, the sum of a hash
/// of (the row's key, the column, its value) over every row.
///
/// The build's read-back (see SeedBuilder+ReadBack.swift, docs/reference.md "What build checks")
/// fills one from the converted fixture records on the reading thread and one from the seed, read
/// through SQLite; equal digests mean equal rows, as SQLite compares values, without holding either
/// side in memory. A value on another row, a row missing or added, and a changed value each change
/// a sum.
final class ReadBackDigest: @unchecked Sendable {
    /// How a column's text compares: its collation (a custom one compares as BINARY).
    enum Fold: Sendable { case binary, nocase, rtrim }

    let width: Int
    /// The slots that identify a row: the natural key's, or every slot for a table without one.
    let keySlots: [Int]
    /// By slot: how its text folds before hashing.
    let folds: [Fold]
    /// By slot: whether the column's affinity (INTEGER, REAL, NUMERIC) may store text as a
    /// number: then text that is a number hashes as the number.
    ///
    /// A TEXT or untyped column stores text as text on both sides, so its text is hashed as it is.
    let numeric: [Bool]
    /// Raw memory, written through pointers: a class's array properties cost an exclusivity and
    /// uniqueness check per access, on a path taken for every value of every row.
    ///
    /// The hashes of the record being added, by slot.
    private let hashes: UnsafeMutablePointer<UInt64>
    /// By slot: the sum of the rows' hashes.
    private let sumStorage: UnsafeMutablePointer<UInt64>
    /// By slot: whether some record left it out (its column's DEFAULT applies: not compared).
    private let absentStorage: UnsafeMutablePointer<Bool>
    private let keyStorage: UnsafeMutablePointer<Int>
    private let numericStorage: UnsafeMutablePointer<Bool>
    private(set) var rows = 0
    /// Whether some record left out a slot of its key: then only the row count is compared.
    private(set) var keyAbsent = false
    private var folded: [UInt8] = []

    /// By slot: the sum of the rows' hashes.
    var sums: [UInt64] { Array(UnsafeBufferPointer(start: sumStorage, count: width)) }
    /// By slot: whether some record left it out.
    var absent: [Bool] { Array(UnsafeBufferPointer(start: absentStorage, count: width)) }

    init(width: Int, keySlots: [Int], folds: [Fold], numeric: [Bool]) {
        self.width = width
        self.keySlots = keySlots
        self.folds = folds
        self.numeric = numeric
        hashes = .allocate(capacity: max(1, width))
        hashes.initialize(repeating: 0, count: max(1, width))
        sumStorage = .allocate(capacity: max(1, width))
        sumStorage.initialize(repeating: 0, count: max(1, width))
        absentStorage = .allocate(capacity: max(1, width))
        absentStorage.initialize(repeating: false, count: max(1, width))
        keyStorage = .allocate(capacity: max(1, keySlots.count))
        keyStorage.initialize(from: keySlots, count: keySlots.count)
        numericStorage = .allocate(capacity: max(1, width))
        numericStorage.initialize(from: numeric, count: min(width, numeric.count))
    }

    deinit {
        hashes.deallocate()
        sumStorage.deallocate()
        absentStorage.deallocate()
        keyStorage.deallocate()
        numericStorage.deallocate()
    }

    /// Adds record `record` of `batch`, as converted.
    func add(_ batch: RecordBatch, record: Int) {
        let base = record * width
        for slot in 0..<width { hashes[slot] = hash(batch, index: base + slot, slot: slot) }
        var key: UInt64 = 0x5EED
        for index in 0..<keySlots.count {
            let slot = keyStorage[index]
            if batch.slots[base + slot] == .absent { keyAbsent = true }
            key = Self.mix(key ^ hashes[slot])
        }
        rows += 1
        for slot in 0..<width {
            if batch.slots[base + slot] == .absent {
                absentStorage[slot] = true
                continue
            }
            sumStorage[slot] &+= Self.combine(key, slot, hashes[slot])
        }
    }

    /// Adds the current row of `statement`, whose result columns are the slots in order.
    func add(row statement: OpaquePointer) {
        for slot in 0..<width { hashes[slot] = hash(statement, slot) }
        var key: UInt64 = 0x5EED
        for index in 0..<keySlots.count { key = Self.mix(key ^ hashes[keyStorage[index]]) }
        rows += 1
        for slot in 0..<width { sumStorage[slot] &+= Self.combine(key, slot, hashes[slot]) }
    }

    /// The hash of one value of slot `slot` in the seed (a result column of `statement`).
    func hash(_ statement: OpaquePointer, _ slot: Int) -> UInt64 {
        let column = Int32(slot)
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return Self.integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return Self.real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            let start = sqlite3_column_text(statement, column)
            let count = Int(sqlite3_column_bytes(statement, column))
            return text(UnsafeRawBufferPointer(start: start, count: count), slot: slot)
        case SQLITE_BLOB:
            let start = sqlite3_column_blob(statement, column)
            let count = Int(sqlite3_column_bytes(statement, column))
            return Self.bytes(UnsafeRawBufferPointer(start: start, count: count), seed: 0xB10B)
        default: return Self.null
        }
    }

    /// The hash of a converted value of `batch` (a slot left out hashes as NULL).
    func hash(_ batch: RecordBatch, index: Int, slot: Int) -> UInt64 {
        switch batch.slots[index] {
        case .absent, .null: return Self.null
        case .integer: return Self.integer(batch.payloads[index])
        case .real: return Self.real(Double(bitPattern: UInt64(bitPattern: batch.payloads[index])))
        case .text:
            return text(
                UnsafeRawBufferPointer(
                    start: batch.bytes + Int(batch.payloads[index]), count: Int(batch.lengths[index])),
                slot: slot)
        case .blob:
            return Self.bytes(
                UnsafeRawBufferPointer(
                    start: batch.bytes + Int(batch.payloads[index]), count: Int(batch.lengths[index])),
                seed: 0xB10B)
        }
    }

    // MARK: - Values as SQLite compares them

    private static let null: UInt64 = 0x4E55_4C4C

    /// A whole number hashes as an integer, whether SQLite holds it as an INTEGER or a REAL
    /// (a REAL column stores 12 as 12.0; `1 = 1.0` in SQLite).
    static func integer(_ value: Int64) -> UInt64 { mix(UInt64(bitPattern: value) ^ 0x1A7E_6E12) }

    static func real(_ value: Double) -> UInt64 {
        if let exact = Int64(exactly: value) { return integer(exact) }
        return mix(value.bitPattern ^ 0x7EA1)
    }

    /// Text hashes folded by its column's collation; text that is a number hashes as the number,
    /// since a column's affinity converts between the two (`'12'` into an INTEGER column is 12,
    /// 12 into a TEXT column is `'12'`).
    private func text(_ bytes: UnsafeRawBufferPointer, slot: Int) -> UInt64 {
        if numericStorage[slot], let first = bytes.first,
            (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) || first == UInt8(ascii: "-")
                || first == UInt8(ascii: "+") || first == UInt8(ascii: ".")
        {
            if let value = NumberSyntax.integer(bytes) { return Self.integer(value) }
            if let value = NumberSyntax.real(bytes) { return Self.real(value) }
        }
        switch folds[slot] {
        case .binary: return Self.bytes(bytes, seed: 0x7E47)
        case .rtrim:
            var count = bytes.count
            while count > 0 && bytes[count - 1] == UInt8(ascii: " ") { count -= 1 }
            return Self.bytes(UnsafeRawBufferPointer(rebasing: bytes[0..<count]), seed: 0x7E47)
        case .nocase:
            folded.removeAll(keepingCapacity: true)
            for byte in bytes {
                folded.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte)
            }
            return folded.withUnsafeBytes { Self.bytes($0, seed: 0x7E47) }
        }
    }

    static func bytes(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        var hash = mix(seed ^ UInt64(bytes.count))
        var index = 0
        // A multiply and a shift per 8 bytes (the mix at the end spreads them).
        while index + 8 <= bytes.count {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 29
            index += 8
        }
        var tail: UInt64 = 0
        if index < bytes.count && bytes.count >= 8 {
            // The last 8 bytes, overlapping those hashed already (the length is in the seed).
            tail = bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)
        } else {
            var shift: UInt64 = 0
            while index < bytes.count {
                tail |= UInt64(bytes[index]) << shift
                shift += 8
                index += 1
            }
        }
        return mix(hash ^ tail ^ 0xFF)
    }

    /// splitmix64's finalizer.
    @inline(__always) static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    @inline(__always) private static func combine(_ key: UInt64, _ slot: Int, _ value: UInt64) -> UInt64 {
        mix(key ^ (value &* 0xA24B_AED4_963E_E407) ^ (UInt64(slot) &* 0x9FB2_1C65_1E98_DF25))
    }

    /// Whether two values of slot `slot` are equal as the digest compares them.
    func same(_ statement: OpaquePointer, _ batch: RecordBatch, index: Int, slot: Int) -> Bool {
        hash(statement, slot) == hash(batch, index: index, slot: slot)
    }
}
