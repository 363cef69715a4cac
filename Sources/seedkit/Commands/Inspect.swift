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
        @OptionGroup var output: OutputOptions

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
                        let defaultLimit =
                            Output.stdoutIsTerminal && (output.format == .table || output.format == .markdown)
                            ? 50 : nil
                        let loaded = try manifest.load()
                        let rows = try queue.read { db -> Tabular in
                            // Refs by the parent's key: the manifest's, else those the seed recorded; --raw: none.
                            var refs: [String: TableSpec.Reference] = [:]
                            let specs = try loaded.map { $0.tables.map(\.spec) } ?? SeedCatalog.tableSpecs(db) ?? []
                            for spec in specs where spec.name.isSameName(as: table) && !raw { refs = spec.refs }
                            // A Core Data entity name shows the entity's rows in the app's terms.
                            if columns == nil, try !db.tableExists(table),
                                let entityRows = try StoreInspector.entityRows(
                                    db, entity: table, model: loaded?.model, refs: refs, raw: raw, filter: filter,
                                    limit: limit ?? defaultLimit)
                            {
                                return entityRows
                            }
                            return try StoreInspector.rows(
                                db, table: table, filter: filter, limit: limit ?? defaultLimit,
                                columns: columns?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) },
                                refs: refs)
                        }
                        print(output.renderer.render(rows), terminator: "")
                        // CSV carries every byte but NUL back to build, which reads a NUL in a file as UTF-16: say so.
                        if output.format == .csv,
                            rows.rows.contains(where: {
                                $0.contains { if case .text(let text) = $0 { text.utf8.contains(0) } else { false } }
                            })
                        {
                            Output.standardError(
                                "\(store): warning: a value holds a NUL, which a CSV fixture cannot carry (build refuses the file); --format json keeps it\n"
                            )
                        }
                    } else {
                        let summary = try queue.read { db in
                            try StoreInspector.summary(db, path: store, fullCheck: check ? true : nil)
                        }
                        print(render(summary), terminator: "")
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

        private func render(_ summary: StoreSummary) -> String {
            let tables = Tabular(
                columns: ["table", "rows"], rows: summary.tables.map { [.text($0.name), .integer(Int64($0.rows))] })
            let ledger = Tabular(
                columns: ["migration", "origin", "applied_at", "checksum"],
                rows: summary.ledger.map { entry in
                    [
                        .text(entry.id), .text(entry.origin.rawValue), entry.appliedAt.map { .text($0) } ?? .null,
                        .text(entry.checksum),
                    ]
                })
            switch output.format {
            case .json:
                return JSONOutput.render(
                    .object([
                        ("path", .string(summary.path)),
                        ("kind", .string(summary.kind.rawValue)),
                        ("bytes", .int(summary.fileSize)),
                        ("pageSize", .int(summary.pageSize)),
                        ("pageCount", .int(summary.pageCount)),
                        ("journalMode", .string(summary.journalMode)),
                        ("formatVersion", summary.meta["format_version"].map { .string($0) } ?? .null),
                        ("contentHash", summary.meta["content_hash"].map { .string($0) } ?? .null),
                        (
                            "tables",
                            .array(
                                summary.tables.map { .object([("name", .string($0.name)), ("rows", .int($0.rows))]) })
                        ),
                        (
                            "entities",
                            .array(
                                summary.entities.map { .object([("name", .string($0.name)), ("rows", .int($0.rows))]) })
                        ),
                        ("persistentHistory", summary.persistentHistory.map { .string($0) } ?? .null),
                        (
                            "migrations",
                            .array(
                                summary.ledger.map { entry in
                                    .object([
                                        ("number", .int(entry.number)), ("name", .string(entry.name)),
                                        ("origin", .string(entry.origin.rawValue)),
                                        ("appliedAt", entry.appliedAt.map { .string($0) } ?? .null),
                                        ("checksum", .string(entry.checksum)),
                                    ])
                                })
                        ),
                        (
                            "integrity",
                            .object([
                                ("method", .string(summary.integrity.method)), ("ok", .bool(summary.integrity.ok)),
                                ("detail", .string(summary.integrity.detail)),
                            ])
                        ),
                    ])) + "\n"
            case .csv, .markdown:
                return output.renderer.render(tables)
            case .table:
                var out = "\(summary.path)\n"
                var facts: [(String, String)] = [
                    ("kind", summary.kind.rawValue + (summary.meta["format_version"].map { " (format \($0))" } ?? "")),
                    ("size", "\(summary.fileSize.byteSize) (\(summary.pageCount) pages of \(summary.pageSize) bytes)"),
                    ("journal", summary.journalMode),
                ]
                if let hash = summary.meta["content_hash"] { facts.append(("content hash", hash)) }
                if let history = summary.persistentHistory {
                    facts.append(("history", history))
                }
                facts.append(
                    (
                        "integrity",
                        summary.integrity.ok
                            ? "ok (\(summary.integrity.method)\(summary.integrity.method == "header" ? ": " + summary.integrity.detail : ""))"
                            : "FAILED (\(summary.integrity.method)): \(summary.integrity.detail)"
                    ))
                for (label, value) in facts {
                    out += "  \(label.padding(toLength: 13, withPad: " ", startingAt: 0)) \(value.escapingControls())\n"
                }
                out = out.escapingControls(keepingNewlines: true)
                out += "\n" + output.renderer.render(tables)
                if !summary.entities.isEmpty {
                    out +=
                        "\n"
                        + output.renderer.render(
                            Tabular(
                                columns: ["entity", "rows"],
                                rows: summary.entities.map { [.text($0.name), .integer(Int64($0.rows))] }))
                }
                if !summary.ledger.isEmpty { out += "\n" + output.renderer.render(ledger) }
                return out
            }
        }
    }
}
