import Foundation

/// One run of the CLI inside a process that is not its own: the tests run `seedkit`'s commands
/// in-process, several at once, each on a thread of its own.
///
/// What a process keeps for itself is kept here instead, for the threads of that run: what it
/// prints (collected in memory), what it has done so far, how it names files, and a number that
/// keeps its temporary files apart from those of the other runs in the process.
///
/// ```swift
/// let run = Invocation()
/// let status = run.bind { SeedTool.run(arguments) }   // Invocation.current is `run` in there
/// run.standardOutput                                   // what it printed
/// ```
///
/// A thread ``DetachedThread`` starts belongs to the run that started it. A process that runs one
/// command (the `seedkit` binary) has no invocation: its output goes to its file descriptors.
package final class Invocation: @unchecked Sendable {
    private let lock = NSLock()
    private var output: [UInt8] = []
    private var errors: [UInt8] = []
    private var absolute = false
    private var completed: String?

    /// Unique in the process (from 1): temporary files are named after the process and this.
    package let number: Int

    package init() {
        number = Self.lastNumberLock.withLock {
            Self.lastNumber += 1
            return Self.lastNumber
        }
    }

    /// The run the current thread belongs to, nil outside of any.
    package static var current: Invocation? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<Invocation>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Runs `body` on this thread as part of this run, then restores what the thread was part of.
    package func bind<T>(_ body: () throws -> T) rethrows -> T {
        let previous = pthread_getspecific(Self.key)
        pthread_setspecific(Self.key, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.key, previous) }
        return try withExtendedLifetime(self) { try body() }
    }

    /// Appends to what the run printed on stdout.
    package func writeOutput(_ text: String) { lock.withLock { output.append(contentsOf: text.utf8) } }

    /// Appends to what the run printed on stderr.
    package func writeError(_ text: String) { lock.withLock { errors.append(contentsOf: text.utf8) } }

    /// What the run printed on stdout, decoded as UTF-8.
    package var standardOutput: String { lock.withLock { String(decoding: output, as: UTF8.self) } }

    /// What the run printed on stderr, decoded as UTF-8.
    package var standardError: String { lock.withLock { String(decoding: errors, as: UTF8.self) } }

    /// `--absolute-paths` for this run.
    package var absolutePaths: Bool {
        get { lock.withLock { absolute } }
        set { lock.withLock { absolute = newValue } }
    }

    /// What the run did that stays done even if its report is lost.
    package var completedWork: String? {
        get { lock.withLock { completed } }
        set { lock.withLock { completed = newValue } }
    }

    private static let lastNumberLock = NSLock()
    nonisolated(unsafe) private static var lastNumber = 0

    /// The thread-specific slot holding the current run (unretained: ``bind(_:)`` keeps it alive).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}
