// SHA-256 from the platform: CryptoKit on Apple platforms and BoringSSL elsewhere, both
// through swift-crypto's `Crypto` module (on Apple platforms it re-exports CryptoKit). Both use
// the CPU's SHA instructions where it has them. Measured on this project's Linux machine: 256 MB
// in 0.18 s (1.5 GB/s), as fast as the hand-written C target it replaces.

internal import Crypto

/// An incremental SHA-256 digest.
///
/// ```swift
/// var hash = SHA256()
/// hash.update("abc".utf8)
/// hash.hexDigest  // "ba7816bf…"
/// ```
package struct SHA256: Sendable {
    private var hasher = Crypto.SHA256()

    package init() {}

    /// Feeds bytes into the digest.
    package mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        if bytes.withContiguousStorageIfAvailable({ hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }) == nil {
            let copy = Array(bytes)
            copy.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        }
    }

    /// Feeds the bytes of `input` into the digest.
    package mutating func update(buffer input: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: input)
    }

    /// The digest of everything fed so far (the hash can still be fed more).
    package var digest: [UInt8] { Array(hasher.finalize()) }

    /// ``digest`` as 64 lower-case hexadecimal digits.
    package var hexDigest: String { Self.hexString(digest) }

    /// The digest of `bytes`, as 64 lower-case hexadecimal digits.
    package static func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        var hash = SHA256()
        hash.update(bytes)
        return hash.hexDigest
    }

    private static let digits = Array("0123456789abcdef".utf8)

    private static func hexString(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
