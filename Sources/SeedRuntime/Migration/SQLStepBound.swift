import Foundation
import GRDB
import GRDBSQLite

/// The time a `.sql` migration step may run before SQLite interrupts it (docs/releases.md,
/// "Time bound"): a step that never ends (`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT
/// x+1 FROM c) SELECT count(*) FROM c`) would otherwise hang CI, or an app at launch.
///
/// SQLite calls a progress handler every few thousand virtual-machine instructions of the running
/// statement; past the deadline it returns non-zero and SQLite stops the statement with
/// `SQLITE_INTERRUPT`, and the run is rolled back.
package enum SQLStepBound {
    /// Seconds a step may run when nothing else says: `SEEDKIT_SQL_TIMEOUT` when set to a
    /// positive number, else 60.
    package static var defaultSeconds: Double {
        if let text = ProcessInfo.processInfo.environment["SEEDKIT_SQL_TIMEOUT"], let seconds = Double(text),
            range.contains(seconds)
        {
            return seconds
        }
        return 60
    }

    /// Seconds seedkit accepts: above zero, up to a day.
    package static let range: ClosedRange<Double> = 0.001...86_400

    /// What a valid bound is, for messages.
    package static let expectation = "a number of seconds above 0, up to 86400"

    /// The uptime in nanoseconds at which a step started now with a bound of `seconds` ends.
    static func deadline(seconds: Double) -> UInt64 {
        DispatchTime.now().uptimeNanoseconds &+ UInt64(seconds * 1e9)
    }

    /// Runs `body` with SQLite's progress handler stopping any statement once `deadline` (see
    /// ``deadline(seconds:)``) has passed; the handler is removed afterwards.
    ///
    /// - throws: ``TimedOut`` when SQLite stopped a statement at the deadline; what `body` throws.
    static func bounded<T>(_ db: Database, until deadline: UInt64, seconds: Double, _ body: () throws -> T) throws
        -> T
    {
        // The deadline itself is the handler's context (a pointer-sized number): nothing to keep alive.
        sqlite3_progress_handler(
            db.sqliteConnection, 10_000,
            { context in
                UInt64(UInt(bitPattern: context)) < DispatchTime.now().uptimeNanoseconds ? 1 : 0
            }, UnsafeMutableRawPointer(bitPattern: UInt(deadline)))
        defer { sqlite3_progress_handler(db.sqliteConnection, 0, nil, nil) }
        do {
            return try body()
        } catch let error as DatabaseError
            where error.resultCode == .SQLITE_INTERRUPT && DispatchTime.now().uptimeNanoseconds > deadline
        {
            throw TimedOut(seconds: seconds)
        }
    }

    /// The step ran past its bound.
    struct TimedOut: Error {
        var seconds: Double
    }

    /// The error a step that ran past `seconds` fails the run with, at the statement's place.
    static func error(seconds: Double, file: String, line: Int, column: Int) -> SeedError {
        let shown = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
        return SeedError(
            .timeLimit, file: file, line: line, column: column,
            "this statement ran past the bound of \(shown) s on a SQL migration step and was stopped: a query that never ends (a recursive CTE without a limit, a cross join) or one the store is too big for; fix the step, or give more time with --sql-timeout SECONDS or SEEDKIT_SQL_TIMEOUT=SECONDS; nothing was written"
        )
    }
}
