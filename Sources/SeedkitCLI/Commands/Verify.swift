import ArgumentParser
import Foundation
import GRDB
import SeedRuntime
import SeedTooling

extension SeedTool {
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Check a store: integrity, foreign keys, and the manifest's rules and checks on the rows it holds now.",
            discussion:
                "Read-only. Exits 1 when anything is found, listing each problem with its table, key, column and code.")

        @Argument(help: "The store.")
        var store: String
        @OptionGroup var manifest: OptionalManifestOption
        @OptionGroup var output: FormatOption<VerifyReport>

        func run() throws {
            var checkedRules = false
            var integrity = StoreVerifier.Integrity.full
            let findings = try reporting(.human, store: store) {
                let manifest = try self.manifest.load()
                checkedRules = manifest != nil
                let queue = try StoreAccess.openReadOnly(store, notice: Output.notice(about: store))
                defer { try? queue.close() }
                return try StoreAccess.reading(store) {
                    // SQLite evaluates CHECK constraints only on a writable connection: the store is
                    // checked through a copy in memory where its size allows (docs/reference.md, verify).
                    let (checked, method) = try StoreVerifier.checkableCopy(
                        of: queue, size: StoreAccess.fileSize(store))
                    integrity = method
                    if case .withoutCheckConstraints(let why) = method {
                        Output.standardError("\(store): note: CHECK constraints were not evaluated: \(why)\n")
                    }
                    return try checked.read { db in try StoreVerifier.verify(db, manifest: manifest) }
                }
            }
            Output.render(
                VerifyReport(store: store, findings: findings, integrity: integrity, checkedRules: checkedRules),
                output.format, about: store)
            // A manifest that does not fit the store (a table it lacks, a check that does not run)
            // is a configuration error, as in every command: exit 2, after every finding is shown.
            // A damaged store (integrity_check's findings) is refused, 3, as every command refuses it.
            if findings.contains(where: { $0.code == .storeRefused }) { throw ExitCode(3) }
            if findings.contains(where: { $0.code == .configuration }) { throw ExitCode(2) }
            if !findings.isEmpty { throw ExitCode(1) }
        }
    }
}
