import ArgumentParser
import SeedRuntime

/// `--busy-timeout SECONDS`.
struct BusyTimeoutOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("How long to wait for another connection's lock, in seconds.", valueName: "seconds"))
    var busyTimeout: Double = 5
}

extension ConflictPolicy: ExpressibleByArgument {}
