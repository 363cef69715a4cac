import ArgumentParser
import Foundation
import GRDB
import SeedRuntime
import SeedTooling

extension SeedTool {
    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what a store holds: its kind, tables, seed hash and migrations, or a table's rows.",
            discussion:
                "Read-only: the store is opened read-only, nothing is created, and no -wal or -shm file is left behind."
        )

        @Argument(help: "The store.")
        var store: String
        @Argument(help: "A table whose rows to show.")
        var table: String?
        @Option(
            name: .customLong("where"), help: ArgumentHelp("Only rows matching this SQL expression.", valueName: "sql"))
        var filter: String?
        @Option(
            name: .long, parsing: .unconditional,
            help: "At most this many rows (default: 50 on a terminal, all otherwise).")
        var limit: Int?
        @Option(name: .long, help: ArgumentHelp("Only these columns, comma-separated.", valueName: "a,b"))
        var columns: String?
        @Flag(name: .long, help: "Run PRAGMA quick_check whatever the store's size (by default only up to 64 MB).")
        var check = false
        @Flag(name: .long, help: "Show refs as the values stored (parent ids), not by the parent's natural key.")
        var raw = false
        @OptionGroup var manifest: OptionalManifestOption
        @OptionGroup var output: FormatOption<StoreSummary>

        func validate() throws {
            if table == nil && (filter != nil || limit != nil || columns != nil || raw) {
                throw ValidationError(
                    "--where, --limit, --columns and --raw apply to a table's rows: seedkit inspect STORE TABLE …")
            }
            if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        }

        func run() throws {
            try reporting(.human, store: store) {
                let queue = try StoreAccess.openReadOnly(store, notice: Output.notice(about: store))
                defer { try? queue.close() }
                do {
                    if let table {
                        let defaultLimit = Output.stdoutIsTerminal && output.format.isForPeople ? 50 : nil
                        let loaded = try manifest.load()
                        let rows = try queue.read { db -> Tabular in
                            // Refs by the parent's key: the manifest's, else those the seed recorded; --raw: none.
                            var refs: [String: TableSpec.Reference] = [:]
                            let specs = try loaded.map { $0.tables.map(\.spec) } ?? SeedCatalog.tableSpecs(db) ?? []
                            for spec in specs where spec.name.isSameName(as: table) && !raw { refs = spec.refs }
                            // A Core Data entity name shows the entity's rows in the app's terms.
                            let picked = columns?.split(separator: ",").map {
                                $0.trimmingCharacters(in: .whitespaces)
                            }
                            if try !db.tableExists(table),
                                let entityRows = try StoreInspector.entityRows(
                                    db, entity: table, model: loaded?.model, refs: refs, raw: raw, filter: filter,
                                    limit: limit ?? defaultLimit, columns: picked)
                            {
                                return entityRows
                            }
                            return try StoreInspector.rows(
                                db, table: table, filter: filter, limit: limit ?? defaultLimit,
                                columns: picked, refs: refs)
                        }
                        Output.render(rows, output.format, about: store)
                    } else {
                        let summary = try queue.read { db in
                            try StoreInspector.summary(db, path: store, fullCheck: check ? true : nil)
                        }
                        Output.render(summary, output.format, about: store)
                        // The summary shows the finding; stderr says why the exit code is 3, naming the store.
                        if !summary.integrity.ok {
                            throw SeedError(
                                .refused, file: store,
                                "the store is damaged (\(summary.integrity.method): \(summary.integrity.detail)); recover its data first (sqlite3 STORE .recover)"
                            )
                        }
                    }
                } catch let error as SeedError {
                    throw SeedError(
                        error.kind,
                        error.diagnostics.map {
                            var d = $0
                            d.file = d.file ?? store
                            return d
                        })
                } catch let error as DatabaseError {
                    throw SeedError(databaseError: error, file: store)
                }
            }
        }
    }
}
