import Foundation
import SeedRuntime
import SeedTestSupport
import Testing

@Test func sha256MatchesTheStandardTestVectors() {
    expectEqual(SHA256.hex("".utf8), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    expectEqual(SHA256.hex("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    expectEqual(
        SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    expectEqual(
        SHA256.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)),
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
}

@Test func sha256GivesTheSameDigestFedInPiecesOrWhole() {
    let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    var pieces = SHA256()
    for chunk in stride(from: 0, to: bytes.count, by: 777) {
        bytes[chunk..<min(chunk + 777, bytes.count)].withUnsafeBytes { pieces.update(buffer: $0) }
    }
    expectEqual(pieces.hexDigest, SHA256.hex(bytes))
}

@Test func sha256AgreesWithSha256sum() throws {
    let text = "seedkit checksums migrations with its own SHA-256\n"
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)")
    try Data(text.utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sha256sum", file.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    process.waitUntilExit()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(output.hasPrefix(SHA256.hex(text.utf8)))
}

@Test func sha256GivesTheSameDigestWhateverThePieces() {
    // Lengths around the block size and past many blocks, fed whole, in uneven pieces and as a sequence.
    var generator = SystemRandomNumberGenerator()
    for length in Array(0...200) + [511, 512, 513, 4095, 4096, 65_537, 1 << 20] {
        let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var whole = SHA256()
        bytes.withUnsafeBytes { whole.update(buffer: $0) }
        var pieces = SHA256()
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + Int.random(in: 1...300, using: &generator))
            bytes[start..<end].withUnsafeBytes { pieces.update(buffer: $0) }
            start = end
        }
        var sequence = SHA256()
        sequence.update(bytes.lazy.map { $0 })  // not contiguous: copied first
        expectEqual(pieces.hexDigest, whole.hexDigest, "length \(length)")
        expectEqual(sequence.hexDigest, whole.hexDigest, "length \(length)")
    }
}

/// A digest read midway does not end the hash: it can be fed more (the content hash is read
/// per table while the build goes on).
@Test func sha256CanBeFedAfterItsDigestIsRead() {
    var hash = SHA256()
    hash.update("ab".utf8)
    expectEqual(hash.hexDigest, SHA256.hex("ab".utf8))
    hash.update("c".utf8)
    expectEqual(hash.hexDigest, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
}

/// A copy is a hash of its own: feeding one does not feed the other (on Linux the state is an
/// OpenSSL context behind a reference, copied before a write when it is shared).
@Test func sha256CopiesAreIndependent() {
    var original = SHA256()
    original.update("ab".utf8)
    var copy = original
    copy.update("c".utf8)
    expectEqual(original.hexDigest, SHA256.hex("ab".utf8))
    expectEqual(copy.hexDigest, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    original.update("x".utf8)
    expectEqual(original.hexDigest, SHA256.hex("abx".utf8))
    expectEqual(copy.hexDigest, SHA256.hex("abc".utf8))
}
