// SHA-256 from the platform: CryptoKit on Apple platforms, the system OpenSSL's libcrypto on
// Linux (its EVP interface). Both use the CPU's SHA instructions where it has them. Measured on
// this project's Linux machine (docs/performance.md, "Readers"): 256 MB in 0.15 s, as fast as
// swift-crypto's BoringSSL, which it replaces because compiling BoringSSL cost every fresh
// build several minutes (and make test builds the package three times).

#if canImport(CryptoKit)
    internal import CryptoKit
#elseif canImport(CLibCrypto)
    internal import CLibCrypto
#else
    #error("SeedRuntime needs CryptoKit (Apple platforms) or OpenSSL's libcrypto (Linux: apt-get install libssl-dev)")
#endif

/// An incremental SHA-256 digest.
///
/// ```swift
/// var hash = SHA256()
/// hash.update("abc".utf8)
/// hash.hexDigest  // "ba7816bf…"
/// ```
package struct SHA256: Sendable {
    #if canImport(CryptoKit)
        private var hasher = CryptoKit.SHA256()
    #else
        private var context = DigestContext()
    #endif

    package init() {}

    /// Feeds bytes into the digest.
    package mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        if bytes.withContiguousStorageIfAvailable({ update(buffer: UnsafeRawBufferPointer($0)) }) == nil {
            let copy = Array(bytes)
            copy.withUnsafeBytes { update(buffer: $0) }
        }
    }

    /// Feeds the bytes of `input` into the digest.
    package mutating func update(buffer input: UnsafeRawBufferPointer) {
        #if canImport(CryptoKit)
            hasher.update(bufferPointer: input)
        #else
            if !isKnownUniquelyReferenced(&context) { context = context.copy() }
            context.update(input)
        #endif
    }

    /// The digest of everything fed so far (the hash can still be fed more).
    package var digest: [UInt8] {
        #if canImport(CryptoKit)
            Array(hasher.finalize())
        #else
            context.copy().finish()
        #endif
    }

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

#if !canImport(CryptoKit)
    /// An `EVP_MD_CTX` for SHA-256, freed with its owner.
    ///
    /// ``SHA256`` copies it before writing when the value was copied, so each copy of a ``SHA256``
    /// keeps its own state.
    private final class DigestContext: @unchecked Sendable {
        // Only nil when OpenSSL could not allocate its context (out of memory).
        private let context: OpaquePointer?

        init() {
            context = EVP_MD_CTX_new()
            EVP_DigestInit_ex(context, EVP_sha256(), nil)
        }

        private init(copying other: DigestContext) {
            context = EVP_MD_CTX_new()
            EVP_MD_CTX_copy_ex(context, other.context)
        }

        deinit { EVP_MD_CTX_free(context) }

        func copy() -> DigestContext { DigestContext(copying: self) }

        func update(_ input: UnsafeRawBufferPointer) {
            guard let base = input.baseAddress, !input.isEmpty else { return }
            EVP_DigestUpdate(context, base, input.count)
        }

        /// The digest; the context cannot be fed after this (callers finish a copy).
        func finish() -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            EVP_DigestFinal_ex(context, &digest, &length)
            return Array(digest.prefix(Int(length)))
        }
    }
#endif
