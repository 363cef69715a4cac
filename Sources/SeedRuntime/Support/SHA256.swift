// SHA-256 (FIPS 180-4), so that the runtime can checksum migrations with
// Foundation and GRDB only (CryptoKit is not on Linux; swift-crypto would be a
// heavy dependency for one hash). Whole blocks go through the CPU's SHA-256
// instructions where it has them (SeedSHA256Accelerated: x86-64 SHA extensions),
// about ten times faster than the Swift rounds, which remain for every other CPU.

import SeedSHA256Accelerated

/// An incremental SHA-256 digest.
///
/// ```swift
/// var hash = SHA256()
/// hash.update("abc".utf8)
/// hash.hexDigest  // "ba7816bf…"
/// ```
package struct SHA256: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    private var buffer: [UInt8] = []
    private var byteCount: UInt64 = 0
    /// Whether whole blocks go through the CPU's SHA-256 instructions.
    private let accelerated: Bool

    package init() { self.init(portable: false) }

    /// - parameters:
    ///   - portable: compress every block in Swift even where the CPU has SHA-256
    ///     instructions (for tests that compare the two).
    package init(portable: Bool) {
        accelerated = !portable && Self.cpuHasSHAInstructions
        buffer.reserveCapacity(64)
    }

    /// Whether this CPU's SHA-256 instructions compress the blocks (asked once).
    package static let cpuHasSHAInstructions = seed_sha256_is_accelerated() != 0

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// Feeds bytes into the digest.
    package mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        for byte in bytes {
            buffer.append(byte)
            if buffer.count == 64 {
                compress(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
            byteCount &+= 1
        }
    }

    /// Feeds a contiguous buffer into the digest, compressing whole blocks in place.
    package mutating func update(buffer input: UnsafeRawBufferPointer) {
        var index = 0
        byteCount &+= UInt64(input.count)
        if !buffer.isEmpty {
            while index < input.count && buffer.count < 64 {
                buffer.append(input[index])
                index += 1
            }
            if buffer.count == 64 {
                compress(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        let blocks = (input.count - index) / 64
        if blocks > 0 {
            compress(UnsafeRawBufferPointer(rebasing: input[index..<(index + blocks * 64)]))
            index += blocks * 64
        }
        while index < input.count {
            buffer.append(input[index])
            index += 1
        }
    }

    /// The digest of everything fed so far, as 32 bytes. Does not change the state.
    package var digest: [UInt8] {
        var copy = self
        let bitLength = byteCount &* 8
        var padding: [UInt8] = [0x80]
        let remainder = Int((byteCount + 1) % 64)
        padding += [UInt8](repeating: 0, count: remainder <= 56 ? 56 - remainder : 120 - remainder)
        for shift in stride(from: 56, through: 0, by: -8) { padding.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        for byte in padding {
            copy.buffer.append(byte)
            if copy.buffer.count == 64 {
                copy.compress(copy.buffer)
                copy.buffer.removeAll(keepingCapacity: true)
            }
        }
        let s = copy.state
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for word in [s.0, s.1, s.2, s.3, s.4, s.5, s.6, s.7] {
            out += [UInt8(word >> 24), UInt8((word >> 16) & 0xff), UInt8((word >> 8) & 0xff), UInt8(word & 0xff)]
        }
        return out
    }

    /// The digest as 64 lowercase hexadecimal digits.
    package var hexDigest: String {
        let digits = Array("0123456789abcdef".utf8)
        var chars: [UInt8] = []
        chars.reserveCapacity(64)
        for byte in digest {
            chars.append(digits[Int(byte >> 4)])
            chars.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: chars, as: UTF8.self)
    }

    /// The hex digest of `bytes`.
    package static func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        var hash = SHA256()
        hash.update(bytes)
        return hash.hexDigest
    }

    private mutating func compress(_ block: [UInt8]) {
        block.withUnsafeBytes { compress($0) }
    }

    /// Compresses whole 64-byte blocks (`blocks.count` is a multiple of 64).
    private mutating func compress(_ blocks: UnsafeRawBufferPointer) {
        guard accelerated, let base = blocks.baseAddress else {
            for start in stride(from: 0, to: blocks.count, by: 64) {
                compressInSwift(UnsafeRawBufferPointer(rebasing: blocks[start..<(start + 64)]))
            }
            return
        }
        withUnsafeMutableBytes(of: &state) { words in
            guard let words = words.baseAddress?.assumingMemoryBound(to: UInt32.self) else { return }
            seed_sha256_blocks(words, base.assumingMemoryBound(to: UInt8.self), blocks.count / 64)
        }
    }

    private mutating func compressInSwift(_ block: UnsafeRawBufferPointer) {
        // The message schedule lives on the stack: an array here cost an allocation per 64 bytes.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for i in 0..<16 {
                w[i] = UInt32(block[i * 4]) << 24 | UInt32(block[i * 4 + 1]) << 16 | UInt32(block[i * 4 + 2]) << 8 | UInt32(block[i * 4 + 3])
            }
            for i in 16..<64 {
                let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = state
            Self.k.withUnsafeBufferPointer { k in
                for i in 0..<64 {
                    let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                    let ch = (e & f) ^ (~e & g)
                    let t1 = h &+ s1 &+ ch &+ k[i] &+ w[i]
                    let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                    let maj = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ maj
                    h = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
                }
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
        }
    }

    @inline(__always) private func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
}
