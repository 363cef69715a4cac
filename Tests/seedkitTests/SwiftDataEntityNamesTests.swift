import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// Core Data names its history entities CHANGE, TRANSACTION and TRANSACTIONSTRING in
/// `Z_PRIMARYKEY` (16001–16003).
///
/// An app's own entity may be called `Transaction` or `Change` (a finance app's
/// `@Model final class Transaction`): its table is ZTRANSACTION, which is also what the history
/// entity's name would give. The history entities are not the app's.
@Suite struct SwiftDataEntityNamesTests {
    /// The Transaction ↔ Change model of this suite.
    private static let transactionAndChange = """
        [("Change", [("summary", 700, "NSString", None, False)], [("transaction", "Transaction", "changes", False, True, 1)], [["summary"]]),
         ("Transaction", [("name", 700, "NSString", None, False)], [("changes", "Change", "transaction", True, False, 1)], [["name"]])]
        """

    /// A store written by Examples/SwiftDataStore/make-store.py with its `ENTITIES` replaced by
    /// `entities` (a Python expression; `m` is the script's module).
    private func store(_ project: TemporaryProject, _ path: String, entities: String = transactionAndChange) throws {
        let makeStore = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Examples/SwiftDataStore/make-store.py")
        let python = Process()
        python.executableURL = Python3.executable
        python.arguments = Python3.arguments([
            "-c",
            """
            import importlib.util, sys
            spec = importlib.util.spec_from_file_location("m", sys.argv[1]); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
            m.ENTITIES = \(entities.replacingOccurrences(of: "\n", with: " "))
            sys.argv = ["make-store.py", sys.argv[2]]; m.main()
            """, makeStore.path, project.path(path),
        ])
        try python.run()
        python.waitUntilExit()
        expectEqual(python.terminationStatus, 0)
    }

    @Test func anEntityNamedTransactionIsNotTheHistorysTransaction() throws {
        let project = try TemporaryProject(bookStore: false)
        try store(project, "app.store")
        try project.write(
            "migrations/0001-four.yml",
            "insert:\n  Transaction:\n    - { name: T1 }\n    - { name: T2 }\n    - { name: T3 }\n    - { name: T4 }\n")
        let first = try project.seedkit("migrate", "app.store")
        expectEqual(first.status, 0, "\(first)")
        // More Transaction rows (4) than history transactions (1): not an inconsistent Z_MAX.
        try project.write("migrations/0002-change.yml", "insert:\n  Change:\n    - { summary: C1, transaction: T4 }\n")
        let second = try project.seedkit("migrate", "app.store")
        expectEqual(second.status, 0, "\(second)")
        try expectEqual(
            project.rows("app.store", "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT"),
            [
                "1|'Change'|1", "2|'Transaction'|4", "16001|'CHANGE'|6", "16002|'TRANSACTION'|2",
                "16003|'TRANSACTIONSTRING'|1",
            ])
        try expectEqual(
            project.rows(
                "app.store",
                "SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS FROM ACHANGE WHERE ZTRANSACTIONID = 2 ORDER BY Z_PK"
            ), ["5|0|1|1|2|NULL", "6|1|2|4|2|X'40'"])
        let inspect = try project.seedkit("inspect", "app.store")
        expectEqual(inspect.status, 0, "\(inspect)")
        #expect(
            inspect.stdout.contains("entity       rows\n-----------  ----\nChange       1\nTransaction  4\n\n"),
            "\(inspect.stdout)")
    }

    @Test func aBuildNumbersItsHistoryFromOneBesideATransactionEntity() throws {
        let project = try TemporaryProject(bookStore: false)
        try store(project, "seeds/default.store")
        try project.write(
            "seeds/seedkit.yml",
            "template: default.store\noutput: ../build/seed.store\ntables:\n  Transaction: { file: data/Transaction.csv, key: name }\n  Change: { file: data/Change.csv, key: summary, refs: { transaction: Transaction.name } }\n"
        )
        try project.write("seeds/data/Transaction.csv", "name\nT1\nT2\n")
        try project.write("seeds/data/Change.csv", "summary,transaction\nC1,T2\n")
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 0, "\(build)")
        try expectEqual(
            project.rows(
                "build/seed.store",
                "SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID FROM ACHANGE ORDER BY Z_PK"),
            [
                "1|0|1|1|1", "2|0|2|1|1", "3|0|2|2|1",
            ])
        try expectEqual(project.rows("build/seed.store", "SELECT Z_PK FROM ATRANSACTION"), ["1"])
        try expectEqual(
            project.rows("build/seed.store", "SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT"),
            [
                "1|1", "2|2", "16001|3", "16002|1", "16003|1",
            ])
    }

    /// `@Attribute(.unique) var id: UUID`, SwiftData's most common key: reports name the row
    /// by its UUID as the migration writes it, not as `<16 bytes>`.
    @Test func aUUIDKeyIsReportedAsTheUUID() throws {
        let project = try TemporaryProject(bookStore: false)
        try store(project, "app.store", entities: "[e[:3] + ([[\"id\"]],) for e in m.ENTITIES]")
        try project.write(
            "migrations/0001-add.yml",
            """
            insert:
              Author:
                - { id: 6BA7B810-9DAD-41D1-80B4-00C04FD430C8, name: Italo Calvino }
              Book:
                - { id: 0e8f1c0a-1d52-4c6b-9f43-6a1e2b3c4d03, title: Invisible Cities, pages: 165, author: 6BA7B810-9DAD-41D1-80B4-00C04FD430C8 }

            """)
        let insert = try project.seedkit("migrate", "app.store")
        expectEqual(insert.status, 0, "\(insert)")
        #expect(
            insert.stdout.contains(
                "  inserted        Author '6BA7B810-9DAD-41D1-80B4-00C04FD430C8'\n  inserted        Book '0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D03'\n"
            ), "\(insert.stdout)")
        try project.write(
            "migrations/0002-pages.yml",
            "update:\n  Book:\n    - { key: 0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D03, from: { pages: 1 }, to: { pages: 2 } }\n"
        )
        let conflict = try project.seedkit("migrate", "app.store")
        expectEqual(conflict.status, 0, "\(conflict)")
        #expect(
            conflict.stdout.contains(
                "  conflict        Book '0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D03': changed in the store (pages is 165, expected 1)"
            ), "\(conflict.stdout)")
        try expectEqual(project.rows("app.store", "SELECT hex(ZID) FROM ZBOOK"), ["'0E8F1C0A1D524C6B9F436A1E2B3C4D03'"])
    }
}
