import Foundation
import GRDB
import SeedTestSupport
import Testing

@testable import SeedRuntime

/// An empty blob (base64 `""`) is stored as an empty blob, `X''`, as `seedkit build` stores it:
/// not as NULL, which a NOT NULL column refuses and an app reads as "no value".
///
/// SQLite's `sqlite3_bind_blob` takes a NULL pointer for NULL, and an empty `Data`'s bytes have no
/// address on Apple platforms (on Linux they do: these pass there with either binding; they pin
/// it).
@Suite struct EmptyBlobTests {
    private let schema = "CREATE TABLE files (name TEXT NOT NULL UNIQUE, data BLOB NOT NULL, note BLOB);"
    private let specs = [TableSpec(name: "files", key: ["name"])]

    /// The value and type of `data` and `note` in each row, by name, from the store's file.
    private func stored(_ outcome: MultiRowOutcome) -> [String] { outcome.tables["files"] ?? [] }

    @Test(arguments: [1, 40], [false, true])
    func anEmptyBlobIsInsertedAsAnEmptyBlob(rows: Int, writesDirectly: Bool) throws {
        let base = try multiRowStore(schema: schema, seed: "", coreData: false)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let entries = (1...rows).map { "{\"name\": \"f\($0)\", \"data\": \"\", \"note\": \"\"}" }.joined(
            separator: ", ")
        let migration = try loadMigration(json: "{\"insert\": {\"files\": [\(entries)]}}", fileName: "0001-files.json")
        let outcome = try multiRowRun(base, specs: specs, migrations: [migration], multiRow: true) {
            $0.writesDirectly = writesDirectly
        }
        #expect(!outcome.report.hasPrefix("error"), "\(outcome.report)")
        expectEqual(stored(outcome).count, rows, "\(outcome.report)")
        #expect(stored(outcome).allSatisfy { !$0.contains("NULL") }, "\(stored(outcome))")
    }

    @Test(arguments: [false, true])
    func anUpdateToAnEmptyBlobStoresAnEmptyBlob(writesDirectly: Bool) throws {
        let base = try multiRowStore(
            schema: schema, seed: "INSERT INTO files VALUES ('f1', X'01', X'02');", coreData: false)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let migration = try loadMigration(
            json:
                "{\"update\": {\"files\": [{\"key\": \"f1\", \"from\": {\"data\": \"AQ==\", \"note\": \"Ag==\"}, \"to\": {\"data\": \"\", \"note\": \"\"}}]}}",
            fileName: "0001-files.json")
        let outcome = try multiRowRun(base, specs: specs, migrations: [migration], multiRow: false) {
            $0.writesDirectly = writesDirectly
        }
        #expect(!outcome.report.hasPrefix("error"), "\(outcome.report)")
        expectEqual(stored(outcome).count, 1)
        #expect(stored(outcome).allSatisfy { !$0.contains("NULL") }, "\(stored(outcome))")
    }
}
