import Foundation
import GRDB

/// Handles Ctrl-C (SIGINT) and SIGTERM from a CI runner while a command writes, so that an
/// interrupted command leaves nothing half-done and exits 130 or 143 as shells expect.
final class Interruption: @unchecked Sendable {
    private var sources: [any DispatchSourceSignal] = []
    private let lock = NSLock()
    private var received: Int32?

    /// Calls `handler` (on another thread) with the signal's number when one arrives.
    init(_ handler: @escaping @Sendable (Int32) -> Void) {
        for number in [SIGINT, SIGTERM] {
            #if !os(Linux)
            // Darwin's kqueue source sees a signal only if its default action is off.
            Foundation.signal(number, SIG_IGN)
            #endif
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                self?.lock.withLock { self?.received = self?.received ?? number }
                handler(number)
            }
            source.resume()
            sources.append(source)
            Self.waitUntilArmed(number)
        }
    }

    /// libdispatch on Linux arms a signal source on its manager thread, after `resume()`, by
    /// installing its own handler. Setting SIG_IGN first (as Darwin needs) left a window in which
    /// a Ctrl-C was dropped and a migration ran to the end; without it a signal before the source
    /// is armed ends the process by its default action, before anything is written. Wait (at
    /// most a second) until the handler is installed, so that the write never starts unarmed.
    private static func waitUntilArmed(_ number: Int32) {
        #if os(Linux)
        for _ in 0..<1000 {
            var current = sigaction()
            guard sigaction(number, nil, &current) == 0 else { return }
            if unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) != unsafeBitCast(SIG_DFL, to: Int.self) { return }
            usleep(1000)
        }
        #endif
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
        for source in sources { source.cancel() }
        Foundation.signal(SIGINT, SIG_DFL)
        Foundation.signal(SIGTERM, SIG_DFL)
    }
}

/// A `migrate` run's answer to SIGINT/SIGTERM. Before the store is open, the command exits at
/// once (nothing was written). Once it writes, the signal is noted and the running SQLite
/// statement interrupted (`sqlite3_interrupt`); the migrator stops between migrations and
/// before committing (``SeedMigrator/Options/shouldStop``), so the transaction is rolled back
/// and the command exits 128 + the signal with the store as it was.
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
