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
                // The read's bound counts from here (docs/reference.md, "Reading stores someone handed you").
                let opened = DispatchTime.now().uptimeNanoseconds
                let queue = try StoreAccess.openReadOnly(store, notice: Output.notice(about: store))
                defer { try? queue.close() }
                do {
                    if let table {
                        let defaultLimit = Output.stdoutIsTerminal && output.format.isForPeople ? 50 : nil
                        let loaded = try manifest.load()
                        // The rows are printed as they are read, inside this read (docs/performance.md).
                        try queue.read { db in
                            // Refs by the parent's key: the manifest's, else those the seed recorded; --raw: none.
                            var refs: [String: TableSpec.Reference] = [:]
                            let specs = try loaded.map { $0.tables.map(\.spec) } ?? SeedCatalog.tableSpecs(db) ?? []
                            for spec in specs where spec.name.isSameName(as: table) && !raw { refs = spec.refs }
                            // A Core Data entity name shows the entity's rows in the app's terms.
                            let picked = columns?.split(separator: ",").map {
                                $0.trimmingCharacters(in: .whitespaces)
                            }
                            let rows: Tabular
                            if try !db.tableExists(table),
                                let entityRows = try StoreInspector.entityRows(
                                    db, entity: table, model: loaded?.model, refs: refs, raw: raw, filter: filter,
                                    limit: limit ?? defaultLimit, columns: picked, streamed: true)
                            {
                                rows = entityRows
                            } else {
                                rows = try StoreInspector.rows(
                                    db, table: table, filter: filter, limit: limit ?? defaultLimit,
                                    columns: picked, refs: refs, streamed: true)
                            }
                            // Time spent waiting for the output's reader (a pipe into `less`) is not reading:
                            // the bound moves on by it.
                            let deadline = opened &+ UInt64(StoreAccess.readBound(forFileAt: store) * 1e9)
                            var waited: UInt64 = 0
                            var printing = Output.reportOutput(about: store)
                            printing.write = { text in
                                let start = DispatchTime.now().uptimeNanoseconds
                                Output.standardOutput(text)
                                let spent = DispatchTime.now().uptimeNanoseconds &- start
                                guard spent > 1_000_000 else { return }
                                waited &+= spent
                                StoreAccess.moveReadDeadline(db, to: deadline &+ waited)
                            }
                            output.format.render(rows, to: printing)
                            // A row SQLite could not read stops the rows there: the error says why (exit 2 or 3).
                            if let failure = rows.stream?.failure { throw failure }
                        }
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
