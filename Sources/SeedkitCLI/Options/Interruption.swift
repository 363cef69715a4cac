import Foundation
import GRDB
import SeedRuntime

/// The write end of ``SignalThread``'s pipe, for the C signal handler (which can capture nothing).
nonisolated(unsafe) private var signalPipe: Int32 = -1

/// The thread that runs seedkit's answers to SIGINT and SIGTERM, started first thing.
///
/// The C handler only writes the signal's number into a pipe (async-signal-safe); this thread reads
/// it and runs the handler. No other thread is needed: libdispatch's signal sources need a worker
/// thread, and when none can start (under `ulimit -v`) libdispatch retries forever and the signal
/// is never handled. Until an ``Interruption`` is in place the signals keep their default action
/// (they end the process).
enum SignalThread {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var handlers: [(id: Int, handle: @Sendable (Int32) -> Void)] = []
    nonisolated(unsafe) private static var nextID = 0

    /// Opens the pipe and starts the thread that reads it.
    ///
    /// - throws: ``SeedError`` when the pipe can't be made or the thread can't start.
    static func start() throws(SeedError) {
        // A parent may hand the signals down blocked (a test runner's worker thread does): they
        // would stay pending and never reach the handler. Unblocked here, for every thread after.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw SeedError(.io, "cannot make a pipe to receive signals (\(String(cString: strerror(errno))))")
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let readEnd = ends[0]
        signalPipe = ends[1]
        try DetachedThread.start("receive signals (SIGINT, SIGTERM)") {
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count == 1 { deliver(Int32(byte)) } else if count < 0 && errno == EINTR { continue } else { return }
            }
        }
    }

    private static func deliver(_ number: Int32) {
        if let handle = lock.withLock({ handlers.last?.handle }) {
            handle(number)
            return
        }
        // No handler any more: the default action, as if nothing had caught the signal.
        Foundation.signal(number, SIG_DFL)
        raise(number)
    }

    fileprivate static func add(_ handle: @escaping @Sendable (Int32) -> Void) -> Int {
        let id = lock.withLock {
            nextID += 1
            handlers.append((nextID, handle))
            return nextID
        }
        // No thread to answer (a command run in-process, by the tests): the signals are the process's.
        guard signalPipe >= 0 else { return id }
        for number in [SIGINT, SIGTERM] {
            Foundation.signal(number) { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipe, &byte, 1)
            }
        }
        return id
    }

    fileprivate static func remove(_ id: Int) {
        let none = lock.withLock {
            handlers.removeAll { $0.id == id }
            return handlers.isEmpty
        }
        if none && signalPipe >= 0 {
            Foundation.signal(SIGINT, SIG_DFL)
            Foundation.signal(SIGTERM, SIG_DFL)
        }
    }
}

/// Handles Ctrl-C (SIGINT) and SIGTERM from a CI runner while a command writes, so that an
/// interrupted command leaves nothing half-done and exits 130 or 143 as shells expect.
final class Interruption: @unchecked Sendable {
    private let lock = NSLock()
    private var received: Int32?
    private var id: Int?

    /// Calls `handler` (on ``SignalThread``'s thread) with the signal's number when one arrives.
    init(_ handler: @escaping @Sendable (Int32) -> Void) {
        id = SignalThread.add { [weak self] number in
            self?.lock.withLock { self?.received = self?.received ?? number }
            handler(number)
        }
    }

    /// Removes `temporary` files (and their `-journal`) and exits: for a build, whose output only ever appears by rename.
    convenience init(cleaning temporary: URL...) {
        self.init { number in
            for file in temporary { for suffix in ["", "-journal"] { unlink(file.path + suffix) } }
            Output.standardError("\ninterrupted: nothing was written\n")
            _exit(128 + number)
        }
    }

    /// The first signal received, if any.
    var signal: Int32? { lock.withLock { received } }

    func stop() {
        if let id { SignalThread.remove(id) }
        id = nil
    }
}

/// A `migrate` run's answer to SIGINT/SIGTERM.
///
/// Before the store is open, the command exits at once (nothing was written). Once it writes, the
/// signal is noted and the running SQLite statement interrupted (`sqlite3_interrupt`); the migrator
/// stops between migrations and before committing (``SeedMigrator/Options/shouldStop``), so the
/// transaction is rolled back and the command exits 128 + the signal with the store as it was.
final class WriteInterruption: @unchecked Sendable {
    private let lock = NSLock()
    private var queue: DatabaseQueue?
    private var interruption: Interruption?

    init(store: String) {
        interruption = Interruption { [weak self] number in
            guard let self, let queue = self.lock.withLock({ self.queue }) else {
                Output.standardError("\ninterrupted: nothing was written to \(store)\n")
                _exit(128 + number)
            }
            queue.interrupt()
        }
    }

    /// From now on, a signal interrupts `queue`'s transaction instead of exiting.
    func writing(_ queue: DatabaseQueue) { lock.withLock { self.queue = queue } }

    /// The first signal received, if any.
    var signal: Int32? { interruption?.signal }

    func stop() { interruption?.stop() }
}
