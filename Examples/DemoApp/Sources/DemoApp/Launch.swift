import Foundation
import SeedRuntime

// What the app runs at launch. docs/runtime.md quotes this file (scripts/check-markdown.py checks that it does, verbatim).

// snippet: launch
/// Installs the bundled seed on first launch, applies bundled migrations on later ones.
func prepareBookStore(
    at storeURL: URL, migrations: () throws -> [Migration] = { try MigrationDirectory.load(bundle: .module) }
) -> String {
    guard let seed = Bundle.module.url(forResource: "seed", withExtension: "sqlite") else {
        return "failed: the app bundles no seed.sqlite"
    }
    do {
        let installer = SeedInstaller(store: storeURL, seed: seed, migrations: try migrations())
        switch try installer.prepareStore() {
        case .installedSeed(let report):
            return "installed the seed, then applied \(report.migrations.map(\.id))"
        case .migrated(let report):
            let rows = report.events.map { "\($0.kind) \($0.table) \($0.keyDescription)" }
            return "applied \(report.migrations.map(\.id)): \(rows.joined(separator: "; "))"
        case .upToDate:
            return "up to date"
        }
    } catch let error as SeedError where error.kind == .refused {
        // The store is newer than this app, or corrupt: say so instead of crashing.
        return "refused: \(error.localizedDescription)"
    } catch {
        return "failed: \(error)"
    }
}
// end snippet
