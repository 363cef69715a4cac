import Foundation

/// The parent ids a ref column's text keys resolved to, keyed by the key's bytes: no String
/// per row (its UTF-8 check and SipHash cost the inserting thread, the build's bottleneck,
/// more than the lookup itself).
///
/// Open addressing over a table twice the entries' limit, so a probe ends at an empty place; keys
/// are copied into one arena.
final class FoundParentIDs {
    /// At most this many keys are kept (the loader stops remembering past its own limit).
    let limit: Int
    private let mask: Int
    private let hashes: UnsafeMutablePointer<UInt64>
    private let offsets: UnsafeMutablePointer<Int>
    private let lengths: UnsafeMutablePointer<Int>
    private let ids: UnsafeMutablePointer<Int64>
    private var arena: [UInt8] = []
    private(set) var count = 0

    init(limit: Int) {
        self.limit = limit
        var places = 16
        while places < 2 * limit { places *= 2 }
        mask = places - 1
        hashes = .allocate(capacity: places)
        hashes.initialize(repeating: 0, count: places)
        offsets = .allocate(capacity: places)
        offsets.initialize(repeating: -1, count: places)
        lengths = .allocate(capacity: places)
        lengths.initialize(repeating: 0, count: places)
        ids = .allocate(capacity: places)
        ids.initialize(repeating: 0, count: places)
    }

    deinit {
        hashes.deallocate()
        offsets.deallocate()
        lengths.deallocate()
        ids.deallocate()
    }

    /// FNV-1a over the key's bytes.
    @inline(__always)
    private static func hash(_ key: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// The place holding `key`, or the empty place where it would go.
    @inline(__always)
    private func place(of key: UnsafeRawBufferPointer, hash: UInt64) -> Int {
        var place = Int(truncatingIfNeeded: hash) & mask
        while offsets[place] >= 0 {
            if hashes[place] == hash, lengths[place] == key.count,
                arena.withUnsafeBytes({ stored in
                    guard key.count > 0, let storedBase = stored.baseAddress, let keyBase = key.baseAddress else {
                        return key.count == 0
                    }
                    return memcmp(storedBase + offsets[place], keyBase, key.count) == 0
                })
            {
                return place
            }
            place = (place + 1) & mask
        }
        return place
    }

    /// The id remembered for the key with these bytes.
    func id(for key: UnsafeRawBufferPointer) -> Int64? {
        let place = place(of: key, hash: Self.hash(key))
        return offsets[place] >= 0 ? ids[place] : nil
    }

    /// Remembers `id` for the key with these bytes, unless `limit` keys are kept already.
    func remember(_ id: Int64, for key: UnsafeRawBufferPointer) {
        guard count < limit else { return }
        let hash = Self.hash(key)
        let place = place(of: key, hash: hash)
        if offsets[place] < 0 {
            offsets[place] = arena.count
            arena.append(contentsOf: key)
            lengths[place] = key.count
            hashes[place] = hash
            count += 1
        }
        ids[place] = id
    }
}
