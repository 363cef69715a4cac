import Foundation
import SeedRuntime

/// A write past the file-size limit (`ulimit -f`, RLIMIT_FSIZE) raises SIGXFSZ, whose default
/// action kills the process: `build` died with exit 153 and left its temporary file, and
/// `migrate --backup` died mid-copy.
///
/// seedkit takes the signal itself (its handler only notes it), so the write fails with EFBIG
/// instead: SQLite returns an I/O error, the command cleans up as on any failure, and the report
/// names the limit (exit 4).
enum FileSizeLimit {
    /// Installs the handler; the first thing the CLI does, before any file is written.
    static func prepare() {
        fileSizeLimitReached.pointee = 0
        // A handler, not SIG_IGN: the write fails with EFBIG either way, and the handler tells
        // the report that the limit, not the disk, was the cause. It only stores a flag.
        signal(SIGXFSZ) { _ in fileSizeLimitReached.pointee = 1 }
        // A parent may hand the signal down blocked (it stays pending, the write fails all the
        // same, and the handler never says why): unblock it, for this thread and those it starts.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGXFSZ)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// Whether a write of this process went past the limit.
    static var reached: Bool { fileSizeLimitReached.pointee != 0 }

    /// The limit in bytes, nil when there is none.
    static var bytes: UInt64? {
        var limit = rlimit()
        #if os(Linux)
            let infinity = rlim_t.max  // RLIM_INFINITY, which Swift does not import on Linux
            guard getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != infinity else {
                return nil
            }
        #else
            guard getrlimit(RLIMIT_FSIZE, &limit) == 0, limit.rlim_cur != RLIM_INFINITY else { return nil }
        #endif
        return UInt64(limit.rlim_cur)
    }

    /// "a file grew past this process's file-size limit (ulimit -f: 256 KB; File too large, EFBIG)".
    static var explanation: String {
        let size = bytes.map { $0 % 1024 == 0 ? "\($0 / 1024) KB" : "\($0) bytes" } ?? "unknown"
        return
            "a file grew past this process's file-size limit (ulimit -f: \(size); \(String(cString: strerror(EFBIG))), EFBIG)"
    }

    /// `error` said with its real cause when the limit was reached: an I/O failure's messages
    /// (SQLite says only "disk I/O error") get the limit, the rest of what they say is kept.
    static func explain(_ error: SeedError) -> SeedError {
        guard reached, error.kind == .io else { return error }
        return SeedError(
            error.kind,
            error.diagnostics.map { diagnostic in
                var diagnostic = diagnostic
                guard !diagnostic.message.contains("file-size limit") else { return diagnostic }
                // "cannot write the backup: …" keeps its lead: the limit is said where the cause goes.
                if diagnostic.message.hasPrefix("cannot "), let colon = diagnostic.message.range(of: ": ") {
                    diagnostic.message =
                        diagnostic.message[..<colon.upperBound] + explanation + ": "
                        + diagnostic.message[colon.upperBound...]
                } else {
                    diagnostic.message = explanation + ": " + diagnostic.message
                }
                return diagnostic
            })
    }
}

/// Set by the SIGXFSZ handler: memory allocated (and cleared: commands run in-process, where
/// ``FileSizeLimit/prepare()`` never runs, read it too) before the handler is installed.
nonisolated(unsafe) private let fileSizeLimitReached: UnsafeMutablePointer<sig_atomic_t> = {
    let flag = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: 1)
    flag.initialize(to: 0)
    return flag
}()
