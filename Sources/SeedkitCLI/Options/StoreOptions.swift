import ArgumentParser
import SeedRuntime

/// `--busy-timeout SECONDS`.
struct BusyTimeoutOption: ParsableArguments {
    // Read as text, and unconditionally, so that `-1` reaches ``validate()`` (not "missing value")
    // and the message can quote what was typed.
    @Option(
        name: .customLong("busy-timeout"), parsing: .unconditional,
        help: ArgumentHelp(
            "How long to wait for another connection's lock, in seconds (0 to 86400).", valueName: "seconds")
    )
    var busyTimeoutText: String = "5"

    /// The validated ``busyTimeoutText``.
    var busyTimeout: Double { Double(busyTimeoutText) ?? 5 }

    func validate() throws {
        guard let seconds = Double(busyTimeoutText), BusyTimeout.range.contains(seconds) else {
            throw ValidationError("--busy-timeout takes \(BusyTimeout.expectation); '\(busyTimeoutText)' is not one")
        }
    }
}

extension ConflictPolicy: ExpressibleByArgument {}

/// `--sql-timeout SECONDS`: the bound on each `.sql` migration step.
struct SQLTimeoutOption: ParsableArguments {
    @Option(
        name: .customLong("sql-timeout"), parsing: .unconditional,
        help: ArgumentHelp(
            "How long a .sql migration step may run before it is stopped and the run rolled back, in seconds (default 60, or SEEDKIT_SQL_TIMEOUT).",
            valueName: "seconds"))
    var sqlTimeoutText: String?

    /// The validated bound.
    var sqlTimeout: Double { sqlTimeoutText.flatMap(Double.init) ?? SQLStepBound.defaultSeconds }

    func validate() throws {
        guard let sqlTimeoutText else { return }
        guard let seconds = Double(sqlTimeoutText), SQLStepBound.range.contains(seconds) else {
            throw ValidationError(
                "--sql-timeout takes \(SQLStepBound.expectation); '\(sqlTimeoutText)' is not one")
        }
    }
}
