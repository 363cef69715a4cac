import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import SeedTooling
import Testing

@Suite struct StoreVerifierTests {
    private func seed() throws -> TemporaryProject {
        let project = try TemporaryProject()
        try project.buildSeed()
        return project
    }

    @Test func aFreshSeedHasNoFindings() throws {
        let project = try seed()
        let manifest = try project.manifest()
        try expectEqual(
            project.database("build/seed.sqlite").read { db in try StoreVerifier.verify(db, manifest: manifest) }, [])
        try expectEqual(
            project.database("build/seed.sqlite").read { db in try StoreVerifier.verify(db, manifest: nil) }, [])
    }

    @Test func rowsThatBreakTheManifestsRulesAreFoundByKey() throws {
        let project = try seed()
        try project.database("build/seed.sqlite").write { db in
            try db.execute(sql: "UPDATE books SET price = 2000 WHERE title = 'The second book'")
            try db.execute(sql: "UPDATE categories SET name = '' WHERE name = 'Biography'")
        }
        let manifest = try project.manifest()
        let findings = try project.database("build/seed.sqlite").read { db in
            try StoreVerifier.verify(db, manifest: manifest)
        }
        expectEqual(findings.map(\.table), ["categories", "books"])
        expectEqual(findings.map(\.key), ["", "The second book"])
        expectEqual(findings.map(\.column), ["name", "price"])
        expectEqual(findings.map(\.code), [.stringTooShort, .numberTooLarge])
        expectEqual(findings[1].message, "price 2000 is greater than the maximum 1000")
    }

    @Test func aMissingParentIsFoundWithoutAManifest() throws {
        let project = try seed()
        try project.database("build/seed.sqlite").writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "DELETE FROM categories WHERE name = 'Biography'")
        }
        let findings = try project.database("build/seed.sqlite").read { db in
            try StoreVerifier.verify(db, manifest: nil)
        }
        expectEqual(findings.count, 1)
        #expect(findings.first?.table == "books")
        #expect(findings.first?.key == "The third book")
        #expect(findings.first?.code == .unresolvedReference)
        #expect(findings.first?.message == "references a missing row of categories")
    }
}
