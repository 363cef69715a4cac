import Foundation
import SeedRuntime

/// Reads a file in large chunks into one buffer that parsers scan in place.
///
/// `buffer[start..<end]` holds unread bytes. ``refill(keepingFrom:)`` moves the bytes a
/// parser still needs (an unfinished record) to the front and reads more after them.
final class ChunkedFile {
    static let chunkSize = 1 << 20

    private let descriptor: Int32
    private(set) var buffer: [UInt8]
    private(set) var end = 0
    private(set) var isAtEOF = false
    let hash = SHA256Box()
    /// Whether ``hash`` is kept (a JSON fixture hashes its records instead, see ``RecordHasher``).
    private let hashing: Bool
    let path: String
    /// Bytes read from the file so far, for progress.
    private(set) var totalRead = 0

    init(url: URL, displayPath: String, hashing: Bool = true) throws(SeedError) {
        path = displayPath
        self.hashing = hashing
        try FileFacts.refuseSpecial(url.path, shown: displayPath, what: "a fixture")
        descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else {
            let reason = errno == ENOENT ? "no such file" : String(cString: strerror(errno))
            throw SeedError(.configuration, file: displayPath, "cannot read the fixture: \(reason)")
        }
        buffer = [UInt8](repeating: 0, count: Self.chunkSize)
    }

    deinit { close(descriptor) }

    /// Refuses a UTF-16 or UTF-32 file by what its first bytes show (a byte order mark, NUL
    /// bytes), so that it is named as such rather than read as text with NULs in it.
    func checkNotWide() throws(SeedError) {
        let start = buffer.withUnsafeBytes {
            UTF8Validation.wideEncodingProblem(UnsafeRawBufferPointer(rebasing: $0[0..<Swift.min(end, 4096)]))
        }
        if let start {
            throw SeedError(.invalidData, file: path, line: start.line, code: .invalidEncoding, start.message)
        }
    }

    /// Keeps `buffer[from..<end]`, moved to the front, and reads more after it.
    ///
    /// - returns: how far the kept bytes moved (subtract it from positions into the buffer).
    @discardableResult
    func refill(keepingFrom from: Int) throws(SeedError) -> Int {
        let kept = end - from
        if from > 0 && kept > 0 {
            buffer.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress else { return }
                memmove(base, base + from, kept)
            }
        }
        end = kept
        if buffer.count - end < Self.chunkSize / 2 {
            buffer.append(contentsOf: [UInt8](repeating: 0, count: buffer.count))
        }
        var failure: Int32 = 0
        while !isAtEOF && end < buffer.count {
            let count = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return read(descriptor, base + end, raw.count - end)
            }
            if count < 0 {
                if errno == EINTR { continue }
                failure = errno
                break
            }
            if count == 0 {
                isAtEOF = true
                break
            }
            if hashing {
                buffer.withUnsafeBytes { raw in
                    hash.hash.update(buffer: UnsafeRawBufferPointer(rebasing: raw[end..<(end + count)]))
                }
            }
            end += count
            totalRead += count
            if end - kept >= Self.chunkSize { break }
        }
        if failure != 0 { throw SeedError(.io, file: path, "cannot read: \(String(cString: strerror(failure)))") }
        return from
    }
}
