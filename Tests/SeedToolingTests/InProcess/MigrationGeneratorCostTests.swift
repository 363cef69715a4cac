import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import SeedTooling
import Testing

/// `new-migration --from` at `diff`'s speed plus writing (docs/performance.md, "new-migration
/// reads a release's rows in bulk"): counted, not clocked.
///
/// A release of twice the rows reads them in as many transactions (one per store and pass, not one
/// per deleted row) and runs at most twice the statements.
@Suite struct MigrationGeneratorCostTests {
    private final class Count: @unchecked Sendable {
        var statements = 0
        var transactions = 0
    }

    /// Half of `rows` books deleted, as many inserted, a tenth of those kept with a new price.
    private func generate(rows: Int) throws -> (count: Count, summary: String, yaml: String) {
        let project = try TemporaryProject()
        func books(_ range: ClosedRange<Int>, bump: Bool) -> String {
            "title,price,category_id\n"
                + range.map { "Book \($0),\(bump && $0 % 10 == 0 ? $0 % 50 + 1 : $0 % 50),Fiction\n" }.joined()
        }
        try project.write("seeds/data/books.csv", books(1...rows, bump: false))
        try project.buildSeed("old.sqlite", migrations: [])
        try project.write("seeds/data/books.csv", books(rows / 2 + 1...rows + rows / 2, bump: true))
        try project.buildSeed("new.sqlite", migrations: [])
        let (old, current) = (try project.database("old.sqlite"), try project.database("new.sqlite"))
        let count = Count()
        for queue in [old, current] {
            queue.inDatabase { db in
                db.trace(options: .statement) { event in
                    guard case .statement(let statement) = event else { return }
                    count.statements += 1
                    if statement.sql.hasPrefix("BEGIN") { count.transactions += 1 }
                }
            }
        }
        let generated = try #require(
            try MigrationGenerator(manifest: project.manifest()).generate(
                old: old, current: current, header: "# 0002\n"))
        return (count, generated.summary, generated.yaml)
    }

    @Test func twiceTheRowsTakeAsManyTransactionsAndAtMostTwiceTheStatements() throws {
        let small = try generate(rows: 200)
        let big = try generate(rows: 400)
        expectEqual(small.summary, "100 inserts, 10 updates, 100 deletes")
        expectEqual(big.summary, "200 inserts, 20 updates, 200 deletes")
        // Children before parents: the deletes in reverse key order, the first book last.
        #expect(
            big.yaml.hasSuffix("    - key: \"Book 1\"\n      from: { price: 1.0, category_id: \"Fiction\" }\n"),
            "\(big.yaml.suffix(400))")
        expectEqual(big.count.transactions, small.count.transactions, "one read per store and pass, whatever the rows")
        #expect(
            big.count.statements <= 2 * small.count.statements,
            "\(big.count.statements) statements for 400 rows, \(small.count.statements) for 200")
    }
}
