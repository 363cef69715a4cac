import Foundation
import SeedRuntime
import SeedkitCLI

/// Runs `seedkit` with `arguments` in this process, as if in `directory`, and returns what it
/// printed and its exit status; nil when it cannot, and the binary must be spawned instead.
///
/// The command runs on a thread of its own, the way `main()` runs it in the binary
/// (``SeedTool/run(_:)``), inside an ``Invocation`` that collects its output, so that tests
/// running at once do not mix theirs. The thread has its own working directory (Linux's
/// `unshare(CLONE_FS)`, then `chdir`; the threads it starts share it), so relative paths mean
/// what they mean to the binary. Where a thread cannot have one (not Linux, or `unshare` refused)
/// this returns nil. What only a process shows (stdin, the environment, signals, closed streams,
/// limits) is not run this way: see `TemporaryProject.seedkitProcess`.
public func runSeedkitInProcess(_ arguments: [String], in directory: URL) -> CommandResult? {
    #if os(Linux)
        final class Outcome: @unchecked Sendable { var result: CommandResult? }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        do {
            // The stack the binary's main thread has (ulimit -s): no more, so that a recursion too
            // deep for the binary is too deep here too.
            try DetachedThread.start("run seedkit in-process", stackSize: mainThreadStack) {
                defer { done.signal() }
                guard let unshare = unshareFunction, unshare(cloneFS) == 0, chdir(directory.path) == 0 else { return }
                let run = Invocation()
                let status = run.bind { SeedTool.run(arguments) }
                outcome.result = CommandResult(status: status, stdout: run.standardOutput, stderr: run.standardError)
            }
        } catch { return nil }
        done.wait()
        return outcome.result
    #else
        return nil
    #endif
}

#if os(Linux)
    /// `unshare(2)`, which Glibc's Swift module does not import (glibc declares it only under
    /// `_GNU_SOURCE`): looked up by name, nil where the C library has none.
    private let unshareFunction: (@convention(c) (Int32) -> Int32)? = dlsym(nil, "unshare").map {
        unsafeBitCast($0, to: (@convention(c) (Int32) -> Int32).self)
    }

    /// The soft `ulimit -s`, the size of a process's main thread stack (8 MiB when unlimited).
    private var mainThreadStack: Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_STACK.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
            return 8 << 20
        }
        return Int(limit.rlim_cur)
    }

    /// `CLONE_FS` (linux/sched.h): the working directory, root and umask, shared no more.
    private let cloneFS: Int32 = 0x0000_0200
#endif

/// How `TemporaryProject.seedkit` chooses between this process and the binary.
enum SeedkitRuns {
    /// `SEEDKIT_TEST_PROCESS=1`: every run spawns the binary (to compare, or to rule the in-process runs out).
    static let processOnly = ProcessInfo.processInfo.environment["SEEDKIT_TEST_PROCESS"] == "1"

    /// Whether an argument names something that is the process's own (its standard streams, its
    /// descriptors, its terminal): in-process, it would be the test runner's.
    static func namesProcessState(_ argument: String) -> Bool {
        ["/dev/std", "/dev/fd", "/dev/tty", "/proc/self"].contains { argument.contains($0) }
    }

    /// With `SEEDKIT_TEST_RUNS=FILE`, appends `kind` (`in-process`, `process`) to FILE, a line a run: how many ran which way.
    static func note(_ kind: String) {
        guard let path = ProcessInfo.processInfo.environment["SEEDKIT_TEST_RUNS"] else { return }
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let line = Array((kind + "\n").utf8)
        _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
