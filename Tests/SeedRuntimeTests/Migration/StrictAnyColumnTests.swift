import Foundation
import GRDB
import SeedTestSupport
import Testing

@testable import SeedRuntime

/// A STRICT table's `ANY` column holds any value as given (https://sqlite.org/stricttables.html):
/// migrate used to read `ANY` as NUMERIC and refuse text ("is not a number (the column is ANY)").
@Suite struct StrictAnyColumnTests {
    @Test(arguments: [" STRICT", ""])
    func anAnyColumnTakesTextNumbersAndBlobsAsGiven(strict: String) throws {
        let base = try multiRowStore(
            schema: "CREATE TABLE t (k TEXT NOT NULL UNIQUE, v ANY)\(strict);", seed: "", coreData: false)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let json =
            #"{"insert": {"t": [{"k": "a", "v": "abc"}, {"k": "b", "v": 12}, {"k": "c", "v": 2.5}, {"k": "d", "v": null}]}}"#
        let migration = try loadMigration(json: json, fileName: "0001-t.json")
        let outcome = try multiRowRun(
            base, specs: [TableSpec(name: "t", key: ["k"])], migrations: [migration], multiRow: true)
        #expect(!outcome.report.hasPrefix("error"), "\(outcome.report)")
        expectEqual(
            outcome.tables["t"], ["1|\"a\"|\"abc\"", "2|\"b\"|12", "3|\"c\"|2.5", "4|\"d\"|NULL"], "\(outcome.tables)"
        )
    }
}
