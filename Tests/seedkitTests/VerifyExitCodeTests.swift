import Foundation
import GRDB
import SeedTestSupport
import Testing

/// `verify` exits 2 when the manifest does not fit the store (configuration), 1 for data
/// problems, as every command does (issue 14).
@Suite struct VerifyExitCodeTests {
    @Test func aCheckThatDoesNotRunOnTheStoreIsAConfigurationError() throws {
        let project = try TemporaryProject()
        try expectEqual(project.seedkit("build").status, 0)
        try project.write(
            "seeds/seedkit.yml",
            BookStore.manifest + "    checks:\n      - sql: \"no_such_column > 1\"\n        message: never runs\n")
        let result = try project.seedkit("verify", "build/seed.sqlite")
        expectEqual(result.status, 2, "\(result)")
        #expect(
            result.stdout.contains(
                "build/seed.sqlite: books: check 'no_such_column > 1' does not run on this store: no such column: no_such_column [2100]"
            ), "\(result)")
    }

    @Test func aTableTheStoreLacksIsAConfigurationError() throws {
        let project = try TemporaryProject()
        try expectEqual(project.seedkit("build").status, 0)
        let store = try project.database("build/seed.sqlite")
        try store.write { db in try db.execute(sql: "DROP TABLE books") }
        try store.close()
        let result = try project.seedkit("verify", "build/seed.sqlite")
        expectEqual(result.status, 2, "\(result)")
        #expect(
            result.stdout.contains(
                "build/seed.sqlite: books: the manifest names table books, which the store does not have [2100]"),
            "\(result)")
    }
}
