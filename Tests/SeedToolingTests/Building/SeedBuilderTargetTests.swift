import Foundation
import SeedRuntime
import SeedTestSupport
import Testing

@testable import SeedTooling

/// What `build` decides before building, and how a failed build is said, through the library.
@Suite struct SeedBuilderTargetTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "seedkit-target-\(UUID().uuidString)")

    private func manifest(_ yaml: String) throws -> Manifest {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try "CREATE TABLE t (id INTEGER PRIMARY KEY);".write(
            to: directory.appendingPathComponent("schema.sql"), atomically: true, encoding: .utf8)
        try "id\n".write(to: directory.appendingPathComponent("t.csv"), atomically: true, encoding: .utf8)
        let path = directory.appendingPathComponent("seedkit.yml")
        try yaml.write(to: path, atomically: true, encoding: .utf8)
        return try Manifest.load(path: path.path)
    }

    @Test func theOutputOptionWinsOverTheManifestAndNeitherIsAnError() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let withOutput = try manifest(
            "schema: schema.sql\noutput: out.sqlite\ntables:\n  t: { file: t.csv, key: id }\n")
        expectEqual(try SeedBuilder.target(nil, manifest: withOutput).lastPathComponent, "out.sqlite")
        expectEqual(try SeedBuilder.target("given.sqlite", manifest: withOutput).lastPathComponent, "given.sqlite")
        let without = try manifest("schema: schema.sql\ntables:\n  t: { file: t.csv, key: id }\n")
        do {
            _ = try SeedBuilder.target(nil, manifest: without)
            Issue.record("no output anywhere should be an error")
        } catch {
            expectEqual(error.kind, .configuration)
            expectEqual(
                error.diagnostics.map(\.message), ["no output: add output: to the manifest or pass --output PATH"])
            expectEqual(error.diagnostics.map(\.file), [without.path])
        }
    }

    @Test func sourceDateEpochIsWholeSecondsOrAnError() throws {
        expectEqual(try SeedBuilder.historyTimestamp(sourceDateEpoch: nil), nil)
        expectEqual(
            try SeedBuilder.historyTimestamp(sourceDateEpoch: "1700000000"), Date(timeIntervalSince1970: 1_700_000_000))
        do {
            _ = try SeedBuilder.historyTimestamp(sourceDateEpoch: "1.5")
            Issue.record("a fraction should be refused")
        } catch {
            expectEqual(error.kind, .configuration)
            expectEqual(
                error.diagnostics.map(\.message), ["SOURCE_DATE_EPOCH must be whole seconds since 1970 (it is '1.5')"])
        }
    }

    @Test func anIOFailureSaysNothingWasWrittenAndNamesTheOutput() throws {
        let failure = SeedBuilder.unwritten(SeedError(.io, "disk I/O error"), output: "seed.sqlite", check: false)
        let error = try #require(failure as? SeedError)
        expectEqual(error.diagnostics.map(\.file), ["seed.sqlite"])
        expectEqual(
            error.diagnostics.map(\.message), ["disk I/O error; nothing was written (seed.sqlite is as it was)"])
        let check = try #require(
            SeedBuilder.unwritten(SeedError(.io, "disk I/O error"), output: "seed.sqlite", check: true) as? SeedError)
        expectEqual(
            check.diagnostics.map(\.message),
            ["disk I/O error; nothing was written (--check builds in the temporary folder)"])
        // Not an I/O failure: as it was.
        let configuration = try #require(
            SeedBuilder.unwritten(SeedError(.configuration, "bad"), output: "seed.sqlite", check: false) as? SeedError)
        expectEqual(configuration.diagnostics.map(\.message), ["bad"])
        expectEqual(configuration.diagnostics.map(\.file), [nil])
    }
}
