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
                guard let table else {
                    let summary = try queue.read { db in
                        try StoreInspector.summary(db, path: store, fullCheck: check ? true : nil)
                    }
                    Output.render(summary, output.format, about: store)
                    // The summary shows the finding; stderr says why the exit code is 3, naming the store.
                    try summary.requireIntact()
                    return
                }
                let defaultLimit = Output.stdoutIsTerminal && output.format.isForPeople ? 50 : nil
                let loaded = try manifest.load()
                // The rows are printed as they are read, inside this read (docs/performance.md).
                try queue.read { db in
                    let rows = try StoreInspector.tableRows(
                        db, table: table, manifest: loaded, raw: raw, filter: filter, limit: limit ?? defaultLimit,
                        columns: columns?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
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
            }
        }
    }
}
