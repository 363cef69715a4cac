import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

@testable import SeedTooling

/// `inspect`'s work, through the library (issue 43: commands only configure): which rows a
/// table name shows, refs by the parent's key or as stored, and a damaged store refused.
@Suite struct StoreInspectorTests {
    private func csv(_ rows: Tabular) -> String {
        var text = ""
        OutputFormat.csv.render(rows, to: ReportOutput(write: { text += $0 }))
        return text
    }

    @Test func aTablesRefsShowTheParentsKeyUnlessRaw() throws {
        let project = try TemporaryProject()
        try project.buildSeed(migrations: [])
        let queue = try StoreAccess.openReadOnly(project.path("build/seed.sqlite"))
        defer { try? queue.close() }
        let manifest = try project.manifest()
        let (byKey, raw) = try queue.read { db in
            (
                csv(
                    try StoreInspector.tableRows(
                        db, table: "books", manifest: manifest, raw: false, filter: "price > 12", limit: nil,
                        columns: ["title", "category_id"])),
                csv(
                    try StoreInspector.tableRows(
                        db, table: "books", manifest: manifest, raw: true, filter: "price > 12", limit: nil,
                        columns: ["title", "category_id"]))
            )
        }
        expectEqual(byKey, "title,category_id\r\nThe second book,Fiction\r\n")
        expectEqual(raw, "title,category_id\r\nThe second book,1\r\n")
    }

    @Test func aDamagedStoreIsRefusedNamingTheCheckAndWhatItFound() throws {
        var summary = StoreSummary(
            path: "user.sqlite", kind: .plain, fileSize: 4096, pageSize: 4096, pageCount: 1, journalMode: "delete",
            tables: [], meta: [:], ledger: [],
            integrity: StoreSummary.Integrity(method: "quick_check", ok: true, detail: "ok"))
        try summary.requireIntact()
        summary.integrity = StoreSummary.Integrity(method: "quick_check", ok: false, detail: "page 2 is never used")
        #expect {
            try summary.requireIntact()
        } throws: { error in
            let error = error as? SeedError
            return error?.kind == .refused && error?.diagnostics.first?.file == "user.sqlite"
                && error?.diagnostics.first?.message.hasPrefix(
                    "the store is damaged (quick_check: page 2 is never used)")
                    == true
        }
    }
}
