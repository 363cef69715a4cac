// Times the app runtime in-process for `make bench`:
//
//   seedkit-bench launch STORE SEED MIGRATIONS_DIR [ITERATIONS]
//     what SeedInstaller.prepareStore() costs on an up-to-date store (open, read the
//     ledger, decide "nothing to do"), median and p95 over ITERATIONS runs;
//   seedkit-bench apply STORE SEED MIGRATIONS_DIR
//     one prepareStore() that applies the pending migrations (a big data update at launch):
//     wall seconds, including reading the bundled migrations, and the process's peak RSS.
//   seedkit-bench install STORE SEED MIGRATIONS_DIR
//     the first launch: prepareStore() with no store yet (the seed copied into place, flushed,
//     renamed, and its ledger read): wall seconds.
//   seedkit-bench migrate STORE MIGRATIONS_DIR on|off
//     SeedMigrator.migrate on STORE with the change accounting (SQLite's preupdate hook) on or
//     off: wall seconds, to show what the accounting costs.
import Foundation
import GRDB
import SeedRuntime

let arguments = CommandLine.arguments
guard arguments.count >= 5, ["launch", "apply", "install", "migrate"].contains(arguments[1]) else {
    FileHandle.standardError.write(
        Data(
            "usage: seedkit-bench launch|apply|install STORE SEED MIGRATIONS_DIR [ITERATIONS] | migrate STORE MIGRATIONS_DIR on|off\n"
                .utf8))
    exit(2)
}
if arguments[1] == "migrate" {
    do {
        var options = SeedMigrator.Options()
        options.accountsChanges = arguments[4] == "on"
        options.writesDirectly = true  // as the CLI writes
        let migrator = try SeedMigrator(migrations: MigrationDirectory.load(URL(fileURLWithPath: arguments[3])))
        let queue = try DatabaseQueue(path: arguments[2])
        let start = DispatchTime.now().uptimeNanoseconds
        let report = try migrator.migrate(queue, options: options)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard !report.migrations.isEmpty else { throw SeedError(.io, "nothing was pending") }
        print(String(format: "{\"seconds\": %.4f}", seconds))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
}
let store = URL(fileURLWithPath: arguments[2])
let seed = URL(fileURLWithPath: arguments[3])
let directory = URL(fileURLWithPath: arguments[4])
let iterations = arguments.count > 5 ? Int(arguments[5]) ?? 500 : 500

func measure(_ body: () throws -> Void) rethrows -> [Double] {
    var samples: [Double] = []
    for _ in 0..<iterations {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return samples.sorted()
}

do {
    if arguments[1] == "install" {
        guard !FileManager.default.fileExists(atPath: store.path) else {
            throw SeedError(.io, file: store.path, "the store exists; a first launch has none")
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let outcome = try SeedInstaller(store: store, seed: seed, migrations: try MigrationDirectory.load(directory))
            .prepareStore()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard outcome != .upToDate else { throw SeedError(.io, "the seed was not installed") }
        print(String(format: "{\"seconds\": %.4f}", seconds))
        exit(0)
    }
    if arguments[1] == "apply" {
        let start = DispatchTime.now().uptimeNanoseconds
        let outcome = try SeedInstaller(store: store, seed: seed, migrations: try MigrationDirectory.load(directory))
            .prepareStore()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard outcome != .upToDate else {
            throw SeedError(.io, "nothing was pending; give a store the migrations have not reached")
        }
        var usage = rusage()
        #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        // ru_maxrss: kilobytes on Linux
        print(String(format: "{\"seconds\": %.4f, \"peak_rss_mb\": %.1f}", seconds, Double(usage.ru_maxrss) / 1024))
        exit(0)
    }
    // What an app does at each launch: read its bundled migrations, then prepare the store.
    let full = try measure {
        let installer = SeedInstaller(store: store, seed: seed, migrations: try MigrationDirectory.load(directory))
        guard try installer.prepareStore() == .upToDate else {
            throw SeedError(.io, "the store is not up to date; migrate it first")
        }
    }
    let migrations = try MigrationDirectory.load(directory)
    let prepare = try measure {
        guard try SeedInstaller(store: store, seed: seed, migrations: migrations).prepareStore() == .upToDate else {
            exit(1)
        }
    }
    func median(_ samples: [Double]) -> Double { samples[samples.count / 2] }
    func p95(_ samples: [Double]) -> Double { samples[min(samples.count - 1, samples.count * 95 / 100)] }
    print(
        String(
            format:
                "{\"load_and_prepare_median_ms\": %.3f, \"load_and_prepare_p95_ms\": %.3f, \"prepare_median_ms\": %.3f, \"prepare_p95_ms\": %.3f, \"iterations\": %d}",
            median(full), p95(full), median(prepare), p95(prepare), iterations))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
