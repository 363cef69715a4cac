import Foundation
import SeedRuntime

/// Small text files the CLI writes (migrations, exports), with write(2): a failure is the
/// system's own error ("File too large", "No space left on device"), where Foundation says only
/// "The operation could not be completed.
///
/// (NSCocoaErrorDomain error 512.)", and a file that could not be written whole is removed, never
/// left cut off.
package enum FileWriting {
    /// Why a file could not be written: the system's error, and whether the file could be created at all.
    package struct Failure: Error {
        package var number: Int32
        package var created: Bool
        package var description: String {
            (created ? "cannot write: " : "cannot create: ") + String(cString: strerror(number))
        }
    }

    /// Writes `text` into a new file (O_EXCL: never replaces one).
    ///
    /// Returns nil, or why not (a file it created, removed).
    package static func create(_ path: String, _ text: String) -> Failure? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else { return Failure(number: errno, created: false) }
        let bytes = Array(text.utf8)
        var offset = 0
        var failure: Int32?
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                buffer.baseAddress.map { Foundation.write(descriptor, $0 + offset, buffer.count - offset) } ?? 0
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                failure = count < 0 ? errno : EIO
                break
            }
            offset += count
        }
        if close(descriptor) != 0 && failure == nil { failure = errno }
        guard let failure else { return nil }
        unlink(path)
        return Failure(number: failure, created: true)
    }

    /// Replaces `target` with `text` atomically: a temporary file beside it, renamed into place.
    ///
    /// Returns nil, or why not (nothing left behind, `target` as it was). `removingStale`: first
    /// remove the temporary files killed runs left beside it (a caller writing many files into one
    /// folder does that once, ``removeStale(in:)``, rather than list the folder per file).
    package static func replace(_ target: URL, _ text: String, removingStale: Bool = true) -> Failure? {
        let temporary = ProcessTemporaryFile.url(beside: target)
        if removingStale { ProcessTemporaryFile.removeStale(beside: target) }
        unlink(temporary.path)
        if let failure = create(temporary.path, text) { return failure }
        guard rename(temporary.path, target.path) == 0 else {
            let failure = errno
            unlink(temporary.path)
            return Failure(number: failure, created: true)
        }
        return nil
    }

    /// Removes the temporary files killed runs left beside any file of `folder`: one listing.
    package static func removeStale(in folder: URL) {
        ProcessTemporaryFile.removeStale(besideFilesIn: folder)
    }
}
