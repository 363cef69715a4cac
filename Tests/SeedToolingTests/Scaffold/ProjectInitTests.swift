import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

@testable import SeedTooling

/// `seedkit init`'s work, through the library: the layout written and the report of it, and each
/// input refused before anything is written.
@Suite struct ProjectInitTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seedkit-init-\(UUID().uuidString)")

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private func contents(_ folder: String) -> [String] {
        ((try? FileManager.default.subpathsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    @Test func thePlainLayoutIsWrittenAndReportedWithItsNextSteps() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let report = try ProjectInit.run(directory: path("app"), coredata: nil, template: nil)
        expectEqual(report.folder, path("app"))
        expectEqual(
            report.written.map(\.path),
            [
                "seeds/seedkit.yml", "seeds/schema.sql", "seeds/data/items.csv", "migrations/README.md",
                "seeds/releases/README.md", ".github/workflows/seedkit.yml", ".gitignore",
            ].map { path("app/" + $0) })
        #expect(report.written.allSatisfy { FileManager.default.fileExists(atPath: $0.path) })
        expectEqual(report.next.first, "cd \(path("app"))")
        #expect(
            report.next.contains(
                "seedkit build                         # writes build/seed.sqlite, the seed your app bundles"))
        var text = ""
        report.writeText(to: ReportOutput(write: { text += $0 }))
        #expect(text.hasPrefix("wrote \(path("app/seeds/seedkit.yml"))  "), "\(text)")
        #expect(text.contains("\nnext:\n  cd \(path("app"))\n"), "\(text)")
    }

    @Test func aFolderThatIsAFileIsRefusedAndNothingIsWritten() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: path("file")))
        do {
            _ = try ProjectInit.run(directory: path("file"), coredata: nil, template: nil)
            Issue.record("a file as the project folder should be refused")
        } catch {
            expectEqual(error.kind, .configuration)
            expectEqual(error.diagnostics.map(\.message), ["is a file, not a folder; nothing was written"])
        }
        expectEqual(contents(directory.path), ["file"])
    }

    @Test func aMissingModelAndATemplateThatIsNoCoreDataStoreAreRefused() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            _ = try ProjectInit.run(directory: path("app"), coredata: path("Gone.xcdatamodeld"), template: nil)
            Issue.record("a missing model should be refused")
        } catch {
            expectEqual(error.kind, .configuration)
            expectEqual(
                error.diagnostics.map(\.message),
                ["no such model (--coredata names an .xcdatamodeld or .xcdatamodel); nothing was written"])
        }
        let plain = try DatabaseQueue(path: path("plain.sqlite"))
        try plain.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY)") }
        try plain.close()
        do {
            _ = try ProjectInit.readTemplate(path("plain.sqlite"))
            Issue.record("a store without Core Data's tables is no template")
        } catch {
            expectEqual(error.kind, .configuration)
            #expect(error.diagnostics.first?.message.hasPrefix("not a Core Data store (no ") == true, "\(error)")
        }
        #expect(ProjectInit.isSQLiteFile(path("plain.sqlite")))
        #expect(!ProjectInit.isSQLiteFile(directory.path))
        expectEqual(contents(directory.path), ["plain.sqlite"])
    }

    @Test func aFolderNameIsQuotedForTheShellOnlyWhenItNeedsIt() {
        expectEqual(ProjectInit.shellWord("my-app/v1.2"), "my-app/v1.2")
        expectEqual(ProjectInit.shellWord("my app"), "'my app'")
        expectEqual(ProjectInit.shellWord("it's"), "'it'\\''s'")
        expectEqual(ProjectInit.shellWord(""), "''")
    }
}
