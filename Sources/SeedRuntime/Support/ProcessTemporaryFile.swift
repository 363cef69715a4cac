import Foundation

/// Temporary files named after the process that writes them, so that a file a killed process
/// left behind (SIGKILL, a crash, a power cut) is recognised and removed by a later run.
///
/// ```swift
/// let temporary = ProcessTemporaryFile.url(beside: output)   // build/.seed.sqlite.seedkit-4242.tmp
/// ProcessTemporaryFile.removeStale(beside: output)           // those of processes no longer running
/// ```
package enum ProcessTemporaryFile {
    /// `.<name>.seedkit-<pid>.tmp` in `target`'s folder: written, then renamed onto `target`.
    package static func url(beside target: URL) -> URL {
        target.deletingLastPathComponent().appendingPathComponent(
            ".\(target.lastPathComponent).seedkit-\(owner).tmp")
    }

    /// `seedkit-<purpose>-<pid>.sqlite` in the temporary folder (`$TMPDIR`).
    package static func url(temporary purpose: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("seedkit-\(purpose)-\(owner).sqlite")
    }

    /// `<pid>`, or `<pid>-<n>` for the run ``Invocation`` number n of the process (the tests run
    /// commands in-process, several at once, and their temporary files must not meet).
    private static var owner: String {
        Invocation.current.map { "\(getpid())-\($0.number)" } ?? "\(getpid())"
    }

    /// Removes the temporary files beside `target` whose process is gone.
    package static func removeStale(beside target: URL) {
        removeStale(
            in: target.deletingLastPathComponent(), prefix: ".\(target.lastPathComponent).seedkit-", suffix: ".tmp")
    }

    /// Removes the temporary files beside every file of `folder` (``url(beside:)``'s) whose
    /// process is gone: one listing for a folder a command writes thousands of files into.
    package static func removeStale(besideFilesIn folder: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(".") {
            guard let marker = name.range(of: ".seedkit-", options: .backwards) else { continue }
            let prefix = String(name[..<marker.upperBound])
            if isStale(name, prefix: prefix, suffix: ".tmp") { unlink(folder.appendingPathComponent(name).path) }
        }
    }

    /// Removes ``url(temporary:)`` files for `purpose` whose process is gone.
    package static func removeStale(temporary purpose: String) {
        removeStale(in: FileManager.default.temporaryDirectory, prefix: "seedkit-\(purpose)-", suffix: ".sqlite")
    }

    /// Removes `prefix<pid>suffix` and `prefix<pid>-<n>suffix` files (and their `-journal`, `-wal`, `-shm`) in `folder`
    /// when no process has that pid.
    ///
    /// A pid a live process has (ours, another seedkit's, or an unrelated reuse) keeps its file:
    /// removing too little is harmless, too much is not.
    static func removeStale(in folder: URL, prefix: String, suffix: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where isStale(name, prefix: prefix, suffix: suffix) {
            unlink(folder.appendingPathComponent(name).path)
        }
    }

    /// Whether `name` is `prefix<pid>suffix` or `prefix<pid>-<n>suffix` (or its `-journal`,
    /// `-wal`, `-shm`) and no process has that pid.
    private static func isStale(_ name: String, prefix: String, suffix: String) -> Bool {
        guard name.hasPrefix(prefix) else { return false }
        let rest = name.dropFirst(prefix.count)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard let pid = Int32(digits), pid > 0 else { return false }
        var tail = rest.dropFirst(digits.count)
        if tail.hasPrefix("-") {  // `-<n>`: a run inside the process `pid`
            let number = tail.dropFirst().prefix { $0.isASCII && $0.isNumber }
            if !number.isEmpty { tail = tail.dropFirst(1 + number.count) }
        }
        guard [suffix, suffix + "-journal", suffix + "-wal", suffix + "-shm"].contains(String(tail)) else {
            return false
        }
        return kill(pid, 0) == -1 && errno == ESRCH
    }
}
