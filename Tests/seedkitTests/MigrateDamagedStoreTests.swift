import Foundation
import GRDB
import SeedTestSupport
import Testing

/// `migrate` refuses a store with damaged pages before writing into it (issue 14).
@Suite struct MigrateDamagedStoreTests {
    @Test func aStoreWithAGarbagePageIsRefusedAndLeftAsItWas() throws {
        let project = try TemporaryProject()
        try project.remove("migrations/0001-add-fourth-book.yml")
        try expectEqual(project.seedkit("build").status, 0)  // a seed without 0001, so 0001 is pending
        try project.write("migrations/0001-add-fourth-book.yml", BookStore.fourthBook)
        // A table of the user's that the migration never reads, then its page garbled: the file
        // still opens and the migration's own reads succeed; only a check of every page finds it.
        let seed = try project.database("build/seed.sqlite")
        try seed.write { db in
            try db.execute(sql: "CREATE TABLE user_notes (id INTEGER PRIMARY KEY, text TEXT)")
            for n in 1...20 {
                try db.execute(sql: "INSERT INTO user_notes (text) VALUES (?)", arguments: ["note \(n)"])
            }
        }
        let root = try seed.read { db in
            try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'user_notes'")
        }
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
        expectEqual(result.status, 3, "\(result)")
        #expect(result.stderr.contains("the store is damaged (PRAGMA quick_check: "), "\(result)")
        #expect(
            result.stderr.contains(
                "nothing was written. Recover its data first (sqlite3 STORE .recover), then migrate the recovered store"
            ), "\(result)")
        expectEqual(project.sha256("user.sqlite"), before)
    }

    @Test func aSoundStoreStillMigrates() throws {
        let project = try TemporaryProject()
        try project.remove("migrations/0001-add-fourth-book.yml")
        try expectEqual(project.seedkit("build").status, 0)
        try project.write("migrations/0001-add-fourth-book.yml", BookStore.fourthBook)
        let result = try project.seedkit("migrate", "build/seed.sqlite")
        expectEqual(result.status, 0, "\(result)")
    }
}

/// A store over 16 MB is checked in proportion to the run (issue 23): its header, and every page
/// the run reads or writes; the whole file only with --check-whole-store (or verify).
@Suite struct MigrateLargeStoreDamageTests {
    /// A BookStore user store grown past 16 MB by a table of the user's, with 0001 pending.
    private func largeStore() throws -> TemporaryProject {
        let project = try TemporaryProject()
        try project.remove("migrations/0001-add-fourth-book.yml")
        try expectEqual(project.seedkit("build").status, 0)
        try project.write("migrations/0001-add-fourth-book.yml", BookStore.fourthBook)
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("user.sqlite"))
        let store = try project.database("user.sqlite")
        try store.write { db in
            try db.execute(sql: "CREATE TABLE user_notes (id INTEGER PRIMARY KEY, text TEXT)")
            try db.execute(
                sql:
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000) INSERT INTO user_notes (text) SELECT printf('%.400c', 'x') || i FROM n"
            )
        }
        try store.close()
        return project
    }

    /// Overwrites page `page` (1-based) of the project's `user.sqlite` with garbage.
    private func garble(_ project: TemporaryProject, page: Int) throws {
        var bytes = try #require(project.read("user.sqlite"))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        #expect(page > 1 && page <= bytes.count / pageSize)
        bytes.replaceSubrange((page - 1) * pageSize..<page * pageSize, with: Data(repeating: 0xA5, count: pageSize))
        try project.write("user.sqlite", bytes)
    }

    private func rootPage(_ project: TemporaryProject, _ name: String) throws -> Int {
        let store = try project.database("user.sqlite")
        defer { try? store.close() }
        return try #require(
            try store.read { db in
                try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = ?", arguments: [name])
            })
    }

    @Test(arguments: ["books", "sqlite_autoindex_books_1"])
    func aDamagedPageOfATableTheMigrationWritesIsRefused(name: String) throws {
        let project = try largeStore()
        #expect((project.read("user.sqlite")?.count ?? 0) > 16 << 20)
        try garble(project, page: try rootPage(project, name))
        let before = project.sha256("user.sqlite")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 3, "\(result)")
        #expect(
            result.stderr.contains(
                "the store is damaged (SQLite, on a page this migration read: database disk image is malformed); nothing was written. Recover its data first"
            ), "\(result)")
        expectEqual(project.sha256("user.sqlite"), before)
    }

    @Test func aDamagedPageTheMigrationNeverReadsIsFoundByTheWholeStoreCheck() throws {
        let project = try largeStore()
        try garble(project, page: try rootPage(project, "user_notes"))
        let before = project.sha256("user.sqlite")
        let whole = try project.seedkit("migrate", "user.sqlite", "--check-whole-store")
        expectEqual(whole.status, 3, "\(whole)")
        #expect(whole.stderr.contains("the store is damaged (PRAGMA quick_check: "), "\(whole)")
        expectEqual(project.sha256("user.sqlite"), before)
        // By default the run neither reads nor spreads it: it applies (documented), and verify finds it.
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        try expectEqual(project.seedkit("verify", "user.sqlite").status, 3)
    }

    @Test func aTruncatedStoreIsRefusedByItsHeader() throws {
        let project = try largeStore()
        let bytes = try #require(project.read("user.sqlite"))
        try project.write("user.sqlite", bytes.prefix(bytes.count - 8192))
        let before = project.sha256("user.sqlite")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 3, "\(result)")
        // Opening it already finds the header's page count past the file's end.
        #expect(
            result.stderr.contains("not a SQLite database, or corrupt (database disk image is malformed)"), "\(result)")
        expectEqual(project.sha256("user.sqlite"), before)
    }
}
