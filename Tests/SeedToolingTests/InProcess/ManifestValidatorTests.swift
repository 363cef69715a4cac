import Foundation
import SeedRuntime
import SeedTestSupport
import SeedTooling
import Testing

/// The manifest's rules as a migration's rows meet them (`migrate`, `check-upgrade`).
@Suite struct ManifestValidatorTests {
    private func validator() throws -> ManifestValidator {
        ManifestValidator(manifest: try TemporaryProject().manifest())
    }

    @Test func rowsWithinTheRulesPass() throws {
        let validator = try validator()
        #expect(validator.validate(table: "books", values: [("title", .text("A book")), ("price", .real(12)), ("category_id", .integer(1))], file: "m.yml", line: 3).isEmpty)
        #expect(validator.validate(table: "categories", values: [("name", .text("Poetry"))], file: "m.yml", line: 3).isEmpty)
    }

    @Test func eachBrokenRuleIsADiagnosticOnTheMigrationsLine() throws {
        let problems = try validator().validate(table: "books", values: [("title", .text("A book")), ("price", .real(-1))], file: "migrations/0002-x.yml", line: 7)
        #expect(problems.map(\.code) == [.numberTooSmall])
        #expect(problems.map(\.file) == ["migrations/0002-x.yml"])
        #expect(problems.map(\.line) == [7])
        #expect(problems.map(\.message) == ["books: price -1 is less than the minimum 0"])
        let long = try validator().validate(table: "categories", values: [("name", .text(String(repeating: "x", count: 26)))], file: "m.yml", line: 1)
        #expect(long.map(\.code) == [.stringTooLong])
    }

    @Test func tableAndColumnNamesMatchInAnyCase() throws {
        let problems = try validator().validate(table: "BOOKS", values: [("Price", .integer(5000))], file: "m.yml", line: 2)
        #expect(problems.map(\.code) == [.numberTooLarge])
    }

    @Test func tablesAndColumnsWithoutRulesAreNotChecked() throws {
        let validator = try validator()
        #expect(validator.validate(table: "authors", values: [("price", .real(-1))], file: "m.yml", line: 1).isEmpty)
        #expect(validator.validate(table: "books", values: [("title", .text(""))], file: "m.yml", line: 1).isEmpty)
    }
}
