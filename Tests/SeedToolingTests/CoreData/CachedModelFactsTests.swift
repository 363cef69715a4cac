import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

@testable import SeedTooling

/// `migrate` with no manifest takes the model a store keeps: through the library, a cache that
/// does not decode is said and left out, and a store that is not there is left to the migration.
@Suite struct CachedModelFactsTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "seedkit-modelcache-\(UUID().uuidString)")

    @Test func aCacheThatDoesNotDecodeIsSaidAndLeftOut() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("app.store").path
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB); INSERT INTO Z_MODELCACHE VALUES (x'00ff00ff')")
        }
        try queue.close()
        var notices: [String] = []
        expectEqual(CoreDataModel.cachedFacts(store: path, notice: { notices.append($0) }) == nil, true)
        expectEqual(notices.count, 1)
        #expect(
            notices.first?.hasPrefix("the model the store keeps could not be decoded, so seedkit migrates without it: ")
                == true, "\(notices)")
        // No file: nothing to say here (the migration says the store is missing).
        notices = []
        expectEqual(
            CoreDataModel.cachedFacts(
                store: directory.appendingPathComponent("gone").path, notice: { notices.append($0) })
                == nil, true)
        expectEqual(notices, [])
    }
}
