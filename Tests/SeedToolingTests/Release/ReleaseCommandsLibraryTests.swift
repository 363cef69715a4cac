import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

@testable import SeedTooling

/// The release commands' work, through the library (issue 43: commands only configure).
///
/// For `new-migration`, `export-migrations` and `check-upgrade`: the files written and the report of them, each refusal with its
/// reason, and nothing written when refused. The CLI's exact output stays in seedkitTests.
@Suite struct ReleaseCommandsLibraryTests {
    private func text(_ report: some Report) -> String {
        var text = ""
        report.writeText(to: ReportOutput(write: { text += $0 }))
        return text
    }

    private func json(_ report: some Report) throws -> [String: Any] {
        let document = try #require(report.document)
        return try #require(
            try JSONSerialization.jsonObject(with: Data(JSONOutput.render(document).utf8)) as? [String: Any])
    }

    @Test func exportWritesEachMigrationAndReportsItsChecksum() throws {
        let project = try TemporaryProject()
        let migrations = try project.migrations()
        let report = try MigrationExport.run(migrations, into: project.path("app"), from: project.path("migrations")) {
            () throws(SeedError) in try Manifest.load(path: project.path("seeds/seedkit.yml"))
        }
        let path = project.path("app/0001-add-fourth-book.json")
        expectEqual(report.written, [ExportReport.Written(path: path, checksum: migrations[0].checksum)])
        #expect(project.exists("app/0001-add-fourth-book.json"))
        expectEqual(text(report), "wrote \(path)  \(migrations[0].checksum)\n")
        let document = try json(report)
        expectEqual(document["folder"] as? String, project.path("app"))
        expectEqual((document["written"] as? [[String: String]])?.first?["checksum"], migrations[0].checksum)
    }

    @Test func anExportOfNoMigrationsSaysSoAndWritesNothing() throws {
        let project = try TemporaryProject()
        let report = try MigrationExport.run([], into: project.path("app"), from: "migrations") { nil }
        expectEqual(text(report), "the folder migrations has no migrations; nothing was written\n")
        expectEqual(project.listing("app"), [])
    }

    @Test func anExportIntoTheMigrationsFolderIsRefused() throws {
        let project = try TemporaryProject()
        let before = project.listing("migrations")
        #expect {
            try MigrationExport.run(
                try project.migrations(), into: project.path("migrations"), from: project.path("migrations")
            ) { nil }
        } throws: { error in
            let error = error as? SeedError
            return error?.kind == .configuration
                && error?.diagnostics.first?.message.hasPrefix("this is the migrations folder") == true
        }
        expectEqual(project.listing("migrations"), before)
    }

    @Test func aMigrationInTheTargetThisExportDoesNotWriteIsRefusedBeforeAnyIsWritten() throws {
        let project = try TemporaryProject()
        try project.write("app/0009-removed.json", "{}\n")
        #expect {
            try MigrationExport.run(try project.migrations(), into: project.path("app"), from: "migrations") { nil }
        } throws: { error in
            (error as? SeedError)?.diagnostics.map(\.file) == [project.path("app/0009-removed.json")]
        }
        expectEqual(project.listing("app"), ["0009-removed.json"])
    }

    private func workflow(_ project: TemporaryProject) throws -> ReleaseWorkflow {
        ReleaseWorkflow(migrations: try project.migrations(), folder: project.path("migrations"))
    }

    @Test func aNewMigrationWithoutASeedIsAScaffoldReportedAsWritten() throws {
        let project = try TemporaryProject()
        let report = try workflow(project).newMigration(
            name: "fix the prices", from: nil, renames: [],
            manifest: { () throws(SeedError) in try Manifest.load(path: project.path("seeds/seedkit.yml")) },
            hasManifest: true, freshBuild: { _ in throw CocoaError(.featureUnsupported) })
        let path = project.path("migrations/0002-fix-the-prices.yml")
        expectEqual(report.written, [NewMigrationReport.Written(path: path, summary: "an empty scaffold")])
        #expect(project.exists("migrations/0002-fix-the-prices.yml"))
        expectEqual(text(report), "wrote \(path): an empty scaffold\n")
        let document = try json(report)
        #expect(document["note"] is NSNull)
        expectEqual((document["written"] as? [[String: Any]])?.first?["path"] as? String, path)
    }

    @Test func aRenameThatDoesNotParseIsRefusedBeforeAnythingIsRead() throws {
        let project = try TemporaryProject()
        let before = project.listing("migrations")
        #expect(throws: SeedError.self) {
            try workflow(project).newMigration(
                name: "rename", from: project.path("nowhere.sqlite"), renames: ["no colon here"],
                manifest: { () throws(SeedError) in try Manifest.load(path: project.path("seeds/seedkit.yml")) },
                hasManifest: true, freshBuild: { _ in throw CocoaError(.featureUnsupported) })
        }
        expectEqual(project.listing("migrations"), before)
    }

    @Test func aSeedThatHoldsWhatTheFixturesHoldNeedsNoMigration() throws {
        let project = try TemporaryProject.withRelease()
        let workflow = try workflow(project)
        let seed = project.path("seeds/releases/1.0.sqlite")
        let report = try workflow.newMigration(
            name: "release 1.1", from: seed, renames: [],
            manifest: { () throws(SeedError) in try Manifest.load(path: project.path("seeds/seedkit.yml")) },
            hasManifest: true,
            freshBuild: { _ in
                try project.buildSeed("build/fresh.sqlite", migrations: [])
                return project.url("build/fresh.sqlite")
            })
        expectEqual(report.written, [])
        expectEqual(text(report), workflow.nothingToMigrate(from: seed) + "\n")
        expectEqual(project.listing("migrations"), [])
    }

    @Test func anUpgradeCheckRefusesAKeyNoSeedHoldsBeforeMigratingAny() throws {
        let project = try TemporaryProject()
        try project.buildSeed("seeds/releases/1.0.sqlite", migrations: [])
        try project.buildSeed()
        try project.write(
            "migrations/0002-typo.yml",
            "update:\n  books:\n    - key: The frist book\n      from: { price: 10.0 }\n      to: { price: 11.0 }\n")
        let checker = UpgradeChecker(manifest: try project.manifest(), migrations: try project.migrations())
        #expect {
            try checker.run([project.path("seeds/releases/1.0.sqlite")], fresh: project.url("build/seed.sqlite"))
        } throws: { error in
            let error = error as? SeedError
            return error?.kind == .invalidData
                && error?.diagnostics.map(\.message).contains { $0.contains("'The frist book'") } == true
        }
    }
}
