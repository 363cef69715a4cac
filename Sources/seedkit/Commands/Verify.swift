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
        @OptionGroup var output: OutputOptions

        func run() throws {
            var checkedRules = false
            var integrity = StoreVerifier.Integrity.full
            let findings = try reporting(.human, store: store) {
                let manifest = try self.manifest.load()
                checkedRules = manifest != nil
                let queue = try StoreAccess.openReadOnly(store, notice: Output.notice(about: store))
                defer { try? queue.close() }
                do {
                    // SQLite evaluates CHECK constraints only on a writable connection: the store is
                    // checked through a copy in memory where its size allows (docs/reference.md, verify).
                    let (checked, method) = try StoreVerifier.checkableCopy(
                        of: queue, size: StoreAccess.fileSize(store))
                    integrity = method
                    if case .withoutCheckConstraints(let why) = method {
                        Output.standardError("\(store): note: CHECK constraints were not evaluated: \(why)\n")
                    }
                    return try checked.read { db in try StoreVerifier.verify(db, manifest: manifest) }
                } catch let error as SeedError { throw error } catch {
                    throw SeedError(databaseError: error, file: store)
                }
            }
            let tabular = Tabular(
                columns: ["table", "key", "column", "code", "message"],
                rows: findings.map { finding in
                    [
                        finding.table.map { .text($0) } ?? .null, finding.key.map { .text($0) } ?? .null,
                        finding.column.map { .text($0) } ?? .null,
                        .integer(Int64(finding.code.rawValue)), .text(finding.message),
                    ]
                })
            if output.format == .table {
                for finding in findings {
                    let place = [finding.table, finding.key.map { "[\($0)]" }, finding.column.map { ".\($0)" }]
                        .compactMap { $0 }.joined()
                    // Names, keys and values come from the store: nothing in them may act on a terminal.
                    print(
                        "\(store): \(place.isEmpty ? "" : place + ": ")\(finding.message) [\(finding.code.rawValue)]"
                            .escapingControls())
                }
                print(
                    findings.isEmpty
                        ? "\(store): ok (\(integrity.summary), foreign keys\(checkedRules ? ", rules and checks" : ""))"
                        : "\(store): \(findings.count) problem\(findings.count == 1 ? "" : "s")")
            } else {
                print(output.renderer.render(tabular), terminator: "")
            }
            // A manifest that does not fit the store (a table it lacks, a check that does not run)
            // is a configuration error, as in every command: exit 2, after every finding is shown.
            // A damaged store (integrity_check's findings) is refused, 3, as every command refuses it.
            if findings.contains(where: { $0.code == .storeRefused }) { throw ExitCode(3) }
            if findings.contains(where: { $0.code == .configuration }) { throw ExitCode(2) }
            if !findings.isEmpty { throw ExitCode(1) }
        }
    }
}
