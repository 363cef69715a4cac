import ArgumentParser
import Foundation
import GRDB
import SeedRuntime

/// Opening a store the user named: never creates one, refuses what is not a database.
enum StoreOpener {
    /// Opens an existing store for reading only.
    static func readOnly(_ path: String) throws(SeedError) -> DatabaseQueue {
        try requireExisting(path)
        var configuration = Configuration()
        configuration.readonly = true
        return try open(path, configuration)
    }

    /// Opens an existing store for writing, waiting up to `busyTimeout` seconds for locks.
    static func writable(_ path: String, busyTimeout: Double) throws(SeedError) -> DatabaseQueue {
        try requireExisting(path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        return try open(path, configuration)
    }

    private static func requireExisting(_ path: String) throws(SeedError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw SeedError(.configuration, file: path, "no store here (seedkit never creates one: build a seed with `seedkit build`)")
        }
    }

    private static func open(_ path: String, _ configuration: Configuration) throws(SeedError) -> DatabaseQueue {
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            // Opening is lazy about the header; reading the schema proves it is a database.
            _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            return queue
        } catch {
            throw SeedError(databaseError: error, file: path)
        }
    }
}

/// `--busy-timeout SECONDS`.
struct BusyTimeoutOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("How long to wait for another connection's lock, in seconds.", valueName: "seconds"))
    var busyTimeout: Double = 5
}

extension ConflictPolicy: ExpressibleByArgument {}
