import Foundation

/// Starts threads with `pthread_create`, whose failure is reported: Foundation's
/// `Thread.start()` returns nothing when the system can't start a thread (out of memory under
/// `ulimit -v`, or of threads under `ulimit -u`), and whoever then waits for that thread's work
/// waits forever, holding the store's write lock.
package enum DetachedThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Runs `body` on a new detached thread with a stack of `stackSize` bytes (0: the system's default).
    ///
    /// - Parameters:
    ///   - purpose: what the thread is for, as the error says it (`read migrations/0004-big.json`).
    ///   - stackSize: the thread's stack in bytes (0: the system's default).
    ///   - body: what the thread runs.
    /// - throws: ``SeedError`` (I/O) when the thread can't start; `body` then never runs.
    package static func start(_ purpose: String, stackSize: Int = 0, _ body: @escaping @Sendable () -> Void)
        throws(SeedError)
    {
        let attributes = UnsafeMutablePointer<pthread_attr_t>.allocate(capacity: 1)
        pthread_attr_init(attributes)
        defer {
            pthread_attr_destroy(attributes)
            attributes.deallocate()
        }
        if stackSize > 0 { pthread_attr_setstacksize(attributes, stackSize) }
        // The thread belongs to the run that starts it: it prints and names files as that run does.
        let invocation = Invocation.current
        let run: @Sendable () -> Void = {
            if let invocation { invocation.bind(body) } else { body() }
        }
        let context = Unmanaged.passRetained(Body(run)).toOpaque()
        #if os(Linux)
            var thread: pthread_t = 0
        #else
            var thread: pthread_t?
        #endif
        let result = pthread_create(
            &thread, attributes,
            { context in
                #if os(Linux)
                    guard let context else { return nil }
                #endif
                Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
                return nil
            }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw SeedError(
                .io,
                "cannot start a thread to \(purpose) (pthread_create: \(String(cString: strerror(result)))): the process is short of memory or threads (ulimit -v, ulimit -u); nothing was written"
            )
        }
        #if os(Linux)
            pthread_detach(thread)
        #else
            if let thread { pthread_detach(thread) }
        #endif
    }
}
