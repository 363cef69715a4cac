import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

@testable import SeedTooling

/// How a refused or failed write to a store is said, through the library (`migrate`'s errors).
@Suite struct StoreWriteFailureTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "seedkit-writefailure-\(UUID().uuidString)")

    @Test func aRolledBackIOFailureSaysNothingWasWrittenOnce() throws {
        let io = try #require(
            StoreWriteFailure.rolledBack(DatabaseError(resultCode: .SQLITE_IOERR), store: "user.sqlite") as? SeedError)
        expectEqual(io.kind, .io)
        expectEqual(io.diagnostics.map(\.file), ["user.sqlite"])
        #expect(
            io.diagnostics.allSatisfy {
                $0.message.hasSuffix("; the migrations were rolled back: nothing was written")
            },
            "\(io.diagnostics)")
        // A message that already says so is kept as it is; an error that is not I/O is returned unchanged.
        let said = try #require(
            StoreWriteFailure.rolledBack(SeedError(.io, "cannot write; nothing was written"), store: "user.sqlite")
                as? SeedError)
        expectEqual(said.diagnostics.map(\.message), ["cannot write; nothing was written"])
        let refused = try #require(
            StoreWriteFailure.rolledBack(SeedError(.refused, "foreign"), store: "user.sqlite") as? SeedError)
        expectEqual(refused.diagnostics.map(\.message), ["foreign"])
        expectEqual(refused.diagnostics.map(\.file), [nil])
    }

    @Test func aHeaderNoSQLiteWritesIsRefusedAndAReadFailureNamesTheStore() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("user.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY)") }
        try queue.close()
        try StoreAccess.refuseUnwritableFormat(path)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[18] = 3
        try bytes.write(to: URL(fileURLWithPath: path))
        do {
            try StoreAccess.refuseUnwritableFormat(path)
            Issue.record("write version 3 should be refused")
        } catch {
            expectEqual(error.kind, .refused)
            expectEqual(error.diagnostics.map(\.file), [path])
            #expect(
                error.diagnostics.first?.message.hasPrefix("the store's header gives file format write version 3")
                    == true, "\(error)")
        }
        do {
            _ = try StoreAccess.reading("user.sqlite") { throw DatabaseError(resultCode: .SQLITE_CORRUPT) }
            Issue.record("a corrupt read should be an error")
        } catch {
            expectEqual(error.kind, .refused)
            expectEqual(error.diagnostics.map(\.file), ["user.sqlite"])
        }
        expectEqual(try StoreAccess.reading("user.sqlite") { 7 }, 7)
    }
}
