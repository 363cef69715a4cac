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
        #expect(
            validator.validate(
                table: "books",
                values: [("title", .text("A book")), ("price", .real(12)), ("category_id", .integer(1))], file: "m.yml",
                line: 3
            ).isEmpty)
        #expect(
            validator.validate(table: "categories", values: [("name", .text("Poetry"))], file: "m.yml", line: 3).isEmpty
        )
    }

    @Test func eachBrokenRuleIsADiagnosticOnTheMigrationsLine() throws {
        let problems = try validator().validate(
            table: "books", values: [("title", .text("A book")), ("price", .real(-1))], file: "migrations/0002-x.yml",
            line: 7)
        expectEqual(problems.map(\.code), [.numberTooSmall])
        expectEqual(problems.map(\.file), ["migrations/0002-x.yml"])
        expectEqual(problems.map(\.line), [7])
        expectEqual(problems.map(\.message), ["books: price -1 is less than the minimum 0"])
        let long = try validator().validate(
            table: "categories", values: [("name", .text(String(repeating: "x", count: 26)))], file: "m.yml", line: 1)
        expectEqual(long.map(\.code), [.stringTooLong])
    }

    @Test func tableAndColumnNamesMatchInAnyCase() throws {
        let problems = try validator().validate(
            table: "BOOKS", values: [("Price", .integer(5000))], file: "m.yml", line: 2)
        expectEqual(problems.map(\.code), [.numberTooLarge])
    }

    @Test func aValidatorForRowsOfOneShapeFindsWhatTheWholeOneFinds() throws {
        // Rows of a few shapes (names in other cases, a column without rules, a table without
        // any), values in and out of the rules, NULLs; each asked of the validator for its shape,
        // of one made for another shape, and of the whole validator.
        let validator = try validator()
        var random = SeededRandom(defaultSeed: 31)
        let shapes: [(String, [String])] = [
            ("books", ["title", "price", "category_id"]), ("BOOKS", ["Price", "TITLE"]),
            ("categories", ["name"]), ("authors", ["name", "price"]), ("books", ["price", "price"]),
        ]
        let prepared = shapes.map { validator.forRows(table: $0.0, columns: $0.1) }
        let values: [SQLValue] = [
            .null, .integer(-1), .integer(5), .real(1000.5), .text(""), .text("A book"),
            .text(String(repeating: "x", count: 101)), .text("é"), .blob([1]),
        ]
        var problems = 0
        for _ in 0..<3_000 {
            let shape = Int.random(in: 0..<shapes.count, using: &random)
            let (table, columns) = shapes[shape]
            let row = columns.map { ($0, values.randomElement(using: &random) ?? .null) }
            let whole = validator.validate(table: table, values: row, file: "m.json", line: 9)
            problems += whole.count
            expectEqual(
                prepared[shape].validate(table: table, values: row, file: "m.json", line: 9), whole,
                "seed \(random.seed)")
            let other = prepared[(shape + 1) % shapes.count]
            expectEqual(
                other.validate(table: table, values: row, file: "m.json", line: 9), whole,
                "seed \(random.seed): another shape's")
        }
        #expect(problems > 1_000)
    }

    @Test func tablesAndColumnsWithoutRulesAreNotChecked() throws {
        let validator = try validator()
        #expect(validator.validate(table: "authors", values: [("price", .real(-1))], file: "m.yml", line: 1).isEmpty)
        #expect(validator.validate(table: "books", values: [("title", .text(""))], file: "m.yml", line: 1).isEmpty)
    }
}
