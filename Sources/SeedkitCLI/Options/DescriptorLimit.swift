import Foundation
import SeedRuntime

/// The number of files the process may have open at once (`ulimit -n`).
///
/// Too few, and opening a store, its journal or the migrations folder fails halfway with messages
/// that name the wrong cause, or crashes the runtime: seedkit raises its own soft limit when the
/// hard one allows, and otherwise refuses to start, saying so (exit 4, docs/reference.md).
enum DescriptorLimit {
    /// Enough for every command: standard streams, two stores with their journals, a backup,
    /// fixtures and migrations being read, the runtime's own.
    static let needed: rlim_t = 32

    static func prepare() {
        var limit = rlimit()
        guard getrlimit(openFilesResource, &limit) == 0, limit.rlim_cur < needed else { return }
        if limit.rlim_max >= needed {  // RLIM_INFINITY is the largest value
            var raised = limit
            raised.rlim_cur = needed
            if setrlimit(openFilesResource, &raised) == 0 { return }
        }
        Output.standardError(
            "seedkit: error: this process may have only \(limit.rlim_cur) files open at once (ulimit -n \(limit.rlim_cur)), and seedkit needs \(needed) (stores and their journals, migrations, fixtures); raise the limit (ulimit -n 256); nothing was done [\(DiagnosticCode.ioFailure.rawValue)]\n"
        )
        exit(4)
    }

    #if os(Linux)
        private static let openFilesResource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let openFilesResource = RLIMIT_NOFILE
    #endif
}
