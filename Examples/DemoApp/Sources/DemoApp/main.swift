import Foundation
import GRDB
import SeedRuntime

// DemoApp: what an app sees across launches. Every store lives in a temporary folder.
let root = FileManager.default.temporaryDirectory.appendingPathComponent(
    "DemoApp-\(ProcessInfo.processInfo.processIdentifier)")
defer { try? FileManager.default.removeItem(at: root) }
// Built by SeedkitPlugin from seeds/ and migrations/ at build time.
let seed: URL = {
    guard let url = Bundle.module.url(forResource: "seed", withExtension: "sqlite") else {
        print("the app bundles no seed.sqlite (SeedkitPlugin builds it)")
        exit(1)
    }
    return url
}()
let store = root.appendingPathComponent("Library/BookStore.sqlite")

func bytes(_ url: URL) -> Data? { try? Data(contentsOf: url) }

print("1. first launch:", prepareBookStore(at: store))
print("2. second launch:", prepareBookStore(at: store))

// The user edits a price; version 2 of the app ships a new migration that reprices two books.
try DatabaseQueue(path: store.path).write { db in
    try db.execute(sql: "UPDATE books SET price = 9 WHERE title = 'The second book'")
}
let version2 = root.appendingPathComponent("v2/migrations")
try FileManager.default.createDirectory(at: version2, withIntermediateDirectories: true)
for migration in try MigrationDirectory.load(bundle: .module) {
    let name = migration.id + ".json"
    guard let bundled = Bundle.module.url(forResource: migration.id, withExtension: "json") else {
        print("the app bundles no \(name) (SeedkitPlugin exports it)")
        exit(1)
    }
    try FileManager.default.copyItem(at: bundled, to: version2.appendingPathComponent(name))
}
try Data(
    """
    {"update": {"books": [
      {"key": "The first book", "from": {"price": 10}, "to": {"price": 11}},
      {"key": "The second book", "from": {"price": 15}, "to": {"price": 16}}]}}
    """.utf8
).write(to: version2.appendingPathComponent("0002-reprice.json"))
print("3. after a new migration:", prepareBookStore(at: store, migrations: { try MigrationDirectory.load(version2) }))

// Version 1 again (a downgrade): the store has 0002, these migrations end at 0001.
let before = bytes(store)
print("4. refused store:", prepareBookStore(at: store))
print("   store unchanged:", bytes(store) == before)

// A refused first launch: a seed newer than the bundled migrations leaves no store behind.
let fresh = root.appendingPathComponent("Fresh/BookStore.sqlite")
let empty = root.appendingPathComponent("empty-migrations")
try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
print("5. refused first launch:", prepareBookStore(at: fresh, migrations: { try MigrationDirectory.load(empty) }))
print("   store left behind:", FileManager.default.fileExists(atPath: fresh.path))

runGRDBExamples()
