// Times the app-launch path in-process: what SeedInstaller.prepareStore() costs on an
// up-to-date store (open, read the ledger, decide "nothing to do"). Used by `make bench`.
//
//   seedkit-bench launch STORE SEED MIGRATIONS_DIR [ITERATIONS]
import Foundation
import SeedRuntime

let arguments = CommandLine.arguments
guard arguments.count >= 5, arguments[1] == "launch" else {
    FileHandle.standardError.write(Data("usage: seedkit-bench launch STORE SEED MIGRATIONS_DIR [ITERATIONS]\n".utf8))
    exit(2)
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
    // What an app does at each launch: read its bundled migrations, then prepare the store.
    let full = try measure {
        let installer = SeedInstaller(store: store, seed: seed, migrations: try MigrationDirectory.load(directory))
        guard try installer.prepareStore() == .upToDate else { throw SeedError(.io, "the store is not up to date; migrate it first") }
    }
    let migrations = try MigrationDirectory.load(directory)
    let prepare = try measure {
        guard try SeedInstaller(store: store, seed: seed, migrations: migrations).prepareStore() == .upToDate else { exit(1) }
    }
    func median(_ samples: [Double]) -> Double { samples[samples.count / 2] }
    func p95(_ samples: [Double]) -> Double { samples[min(samples.count - 1, samples.count * 95 / 100)] }
    print(String(format: "{\"load_and_prepare_median_ms\": %.3f, \"load_and_prepare_p95_ms\": %.3f, \"prepare_median_ms\": %.3f, \"prepare_p95_ms\": %.3f, \"iterations\": %d}",
                 median(full), p95(full), median(prepare), p95(prepare), iterations))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
