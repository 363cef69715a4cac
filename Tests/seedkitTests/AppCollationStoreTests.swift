import Foundation
import GRDB
import GRDBSQLite
import SeedRuntime
import SeedTestSupport
import Testing

/// Issue 41: a store whose index uses a collation the app registers (or whose trigger calls the
/// app's function) made every command, `inspect` included, exit 4 `SQLite error 1: no such
/// collation sequence`.
///
/// Writing commands now refuse it (exit 3) naming the index or trigger; read-only commands show
/// what they can.
@Suite struct AppCollationStoreTests {
    /// The BookStore user store with `sql` run on a connection that registers the app's
    /// collation `APPCOLL` and function `app_fn`, as the app's own connection would.
    private func store(_ sql: String) throws -> TemporaryProject {
        let project = try TemporaryProject.withUserStore()
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            db.add(
                collation: DatabaseCollation("APPCOLL") {
                    $0.lowercased() < $1.lowercased()
                        ? .orderedAscending : $0.lowercased() == $1.lowercased() ? .orderedSame : .orderedDescending
                })
            db.add(function: DatabaseFunction("app_fn", argumentCount: 1, pure: true) { $0[0] })
        }
        let queue = try DatabaseQueue(path: project.path("user.sqlite"), configuration: configuration)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
        return project
    }

    @Test func migrateRefusesAStoreWhoseIndexNeedsTheAppsCollationNamingTheIndex() throws {
        let project = try store("CREATE INDEX books_app ON books (title COLLATE APPCOLL);")
        let before = project.sha256("user.sqlite")
        for arguments in [["migrate", "user.sqlite"], ["migrate", "user.sqlite", "--dry-run"]] {
            let result = try project.seedkit(arguments)
            #expect(result.status == 3, "\(result)")
            #expect(
                result.stderr.contains(
                    "user.sqlite: error: the store's index books_app uses the collation APPCOLL, which only the app registers on its connection"
                ), "\(result)")
        }
        #expect(project.sha256("user.sqlite") == before)
    }

    @Test func migrateRefusesAStoreWhoseTriggerCallsTheAppsFunctionNamingTheTrigger() throws {
        let project = try store(
            "CREATE TABLE seen (t TEXT); CREATE TRIGGER stamp AFTER INSERT ON books BEGIN INSERT INTO seen VALUES (app_fn(NEW.title)); END;"
        )
        let result = try project.seedkit("migrate", "user.sqlite")
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("the store's trigger stamp uses the function app_fn"), "\(result)")
    }

    @Test func readOnlyCommandsShowWhatTheyCan() throws {
        let project = try store("CREATE INDEX books_app ON books (title COLLATE APPCOLL);")
        let inspect = try project.seedkit("inspect", "user.sqlite")
        #expect(inspect.status == 0, "\(inspect)")
        #expect(inspect.stdout.contains("books"), "\(inspect)")
        #expect(
            inspect.stdout.contains(
                "not checked: index books_app uses the collation APPCOLL, which only the app registers"),
            "\(inspect)")
        let rows = try project.seedkit("inspect", "user.sqlite", "books")
        #expect(rows.status == 0 && rows.stdout.contains("The first book"), "\(rows)")
        let verify = try project.seedkit("verify", "user.sqlite")
        #expect(verify.status == 3, "\(verify)")
        #expect(
            verify.stdout.contains("integrity: not checked: index books_app uses the collation APPCOLL"), "\(verify)")
        let status = try project.seedkit("status", "user.sqlite")
        #expect(status.status == 0, "\(status)")
    }
}
