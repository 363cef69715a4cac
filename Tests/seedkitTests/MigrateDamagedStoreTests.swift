import Foundation
import GRDB
import SeedTestSupport
import Testing

/// `migrate` refuses a store with damaged pages before writing into it (issue 14).
@Suite struct MigrateDamagedStoreTests {
    @Test func aStoreWithAGarbagePageIsRefusedAndLeftAsItWas() throws {
        let project = try TemporaryProject()
        try project.remove("migrations/0001-add-fourth-book.yml")
        #expect(try project.seedkit("build").status == 0)  // a seed without 0001, so 0001 is pending
        try project.write("migrations/0001-add-fourth-book.yml", BookStore.fourthBook)
        // A table of the user's that the migration never reads, then its page garbled: the file
        // still opens and the migration's own reads succeed; only a check of every page finds it.
        let seed = try project.database("build/seed.sqlite")
        try seed.write { db in
            try db.execute(sql: "CREATE TABLE user_notes (id INTEGER PRIMARY KEY, text TEXT)")
            for n in 1...20 { try db.execute(sql: "INSERT INTO user_notes (text) VALUES (?)", arguments: ["note \(n)"]) }
        }
        let root = try seed.read { db in try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'user_notes'") }
        try seed.close()
        var bytes = try #require(project.read("build/seed.sqlite"))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let pages = bytes.count / pageSize
        let page = try #require(root)
        #expect(page > 1 && page <= pages)
        bytes.replaceSubrange((page - 1) * pageSize..<page * pageSize, with: Data(repeating: 0xA5, count: pageSize))
        try project.write("user.sqlite", bytes)
        let before = project.sha256("user.sqlite")
        let result = try project.seedkit("migrate", "user.sqlite")
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("the store is damaged (PRAGMA quick_check: "), "\(result)")
        #expect(result.stderr.contains("nothing was written. Recover its data first (sqlite3 STORE .recover), then migrate the recovered store"), "\(result)")
        #expect(project.sha256("user.sqlite") == before)
    }

    @Test func aSoundStoreStillMigrates() throws {
        let project = try TemporaryProject()
        try project.remove("migrations/0001-add-fourth-book.yml")
        #expect(try project.seedkit("build").status == 0)
        try project.write("migrations/0001-add-fourth-book.yml", BookStore.fourthBook)
        let result = try project.seedkit("migrate", "build/seed.sqlite")
        #expect(result.status == 0, "\(result)")
    }
}
