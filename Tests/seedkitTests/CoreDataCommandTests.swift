import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// The repository's Core Data example.
private let example: URL = {
    var root = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { root.deleteLastPathComponent() }
    return root.appendingPathComponent("Examples/CoreDataBookStore")
}()

/// Writes the store Core Data wrote before the chapter's update (SPEC §9) to `path`.
private func writeReferenceStore(_ project: TemporaryProject, _ path: String) throws -> Data {
    try CoreDataReference.write(into: try project.database(path))
}

@Suite struct CoreDataCommandTests {
    private let manifest = example.appendingPathComponent("seeds/seedkit.yml").path
    private let migrations = example.appendingPathComponent("migrations").path

    @Test func migratesTheExampleStoreAsCoreDataWould() throws {
        let project = try TemporaryProject(bookStore: false)
        let metadata = try writeReferenceStore(project, "BookStore.sqlite")
        let result = try project.seedkit("migrate", "BookStore.sqlite", "--manifest", manifest, "--migrations", migrations)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("applied 0001-add-fourth-book: 1 inserted"))
        let db = try project.database("BookStore.sqlite")
        let books = try db.read { db in try Row.fetchAll(db, sql: "SELECT Z_PK, Z_ENT, Z_OPT, ZCATEGORY, ZPRICE, ZTITLE FROM ZBOOK WHERE Z_PK = 79") }
        #expect(books.map { "\($0[0] as Int)|\($0[1] as Int)|\($0[2] as Int)|\($0[3] as Int)|\($0[4] as Double)|\($0[5] as String)" } == ["79|1|1|52|12.0|The fourth book"])
        #expect(try db.read { db in try Int.fetchOne(db, sql: "SELECT Z_OPT FROM ZBOOKCATEGORY WHERE ZNAME = 'Biography'") } == 2)
        #expect(try db.read { db in try Int.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book'") } == 79)
        #expect(try db.read { db in try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA") } == metadata)
        let status = try project.seedkit("status", "BookStore.sqlite", "--migrations", migrations)
        #expect(status.stdout.contains("0001-add-fourth-book          applied"))
    }

    @Test func theModelsRulesValidateMigrationData() throws {
        let project = try TemporaryProject(bookStore: false)
        _ = try writeReferenceStore(project, "BookStore.sqlite")
        let bytes = try #require(project.read("BookStore.sqlite"))
        try project.write("migrations/0001-long.yml", "insert:\n  Book:\n    - { title: \"\(String(repeating: "x", count: 120))\", price: 2000, category: Fiction }\n")
        let result = try project.seedkit("migrate", "BookStore.sqlite", "--manifest", manifest, "--migrations", "migrations")
        #expect(result.status == 1)
        #expect(result.stderr.contains("migrations/0001-long.yml:3: error: Book: title 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' is 120 characters long, longer than the maximum 100 [1660]"), "\(result)")
        #expect(result.stderr.contains("Book: price 2000 is greater than the maximum 1000 [1610]"))
        #expect(project.read("BookStore.sqlite") == bytes)
    }

    @Test func inspectAndVerifySpeakCoreData() throws {
        let project = try TemporaryProject(bookStore: false)
        _ = try writeReferenceStore(project, "BookStore.sqlite")
        #expect(try project.seedkit("inspect", "BookStore.sqlite").stdout.contains("kind          Core Data"))
        #expect(try project.seedkit("verify", "BookStore.sqlite", "--manifest", manifest).status == 0)
        try project.database("BookStore.sqlite").write { db in try db.execute(sql: "UPDATE ZBOOKCATEGORY SET ZNAME = NULL WHERE Z_PK = 51") }
        let result = try project.seedkit("verify", "BookStore.sqlite", "--manifest", manifest)
        #expect(result.status == 1)
        #expect(result.stdout.contains("BookStore.sqlite: ZBOOKCATEGORY[NULL].name: name is required but missing [1570]"), "\(result)")
    }

    @Test func manifestNamesAreCheckedAgainstTheModel() throws {
        let project = try TemporaryProject(bookStore: false)
        try FileManager.default.copyItem(at: example.appendingPathComponent("seeds/BookStore.xcdatamodeld"), to: project.url("seeds/BookStore.xcdatamodeld"))
        try project.write("seeds/seedkit.yml", "model: BookStore.xcdatamodeld\ntables:\n  Bok: { file: data/books.csv, key: title }\n  Book: { file: data/books.csv, key: titel }\n")
        let result = try project.seedkit("migrate", "x.sqlite")
        #expect(result.status == 2)
        #expect(result.stderr.contains("seeds/seedkit.yml:3:3: error: unknown entity 'Bok': the model has Book, BookCategory, Page [2100]"), "\(result)")
        #expect(result.stderr.contains("seeds/seedkit.yml:4:38: error: entity Book has no attribute or to-one relationship 'titel' [2100]"))
        try project.write("seeds/seedkit.yml", "model: BookStore.xcdatamodeld\ntables:\n  Book: { file: data/books.csv, key: title }\n")
        let build = try project.seedkit("build")
        #expect(build.status == 2)
        #expect(build.stderr.contains("building a Core Data seed (model:) is not supported yet"))
    }
}
