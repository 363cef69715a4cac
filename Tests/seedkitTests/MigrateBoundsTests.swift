import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// Issue 41: a `.sql` step that never ends stops at its time bound (exit 5), the store unchanged;
/// on 17ab545 `migrate`, `--dry-run` and the app's library call ran forever.
@Suite struct MigrateBoundsTests {
    static let forever = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c;\n"

    private func project() throws -> TemporaryProject {
        let project = try TemporaryProject.withUserStore()
        try project.write(
            "migrations/0002-forever.sql", "INSERT INTO categories (name) VALUES ('Poetry');\n" + Self.forever)
        return project
    }

    @Test(arguments: [[], ["--dry-run"]])
    func aStepThatNeverEndsStopsAtTheBound(_ extra: [String]) throws {
        let project = try project()
        let before = project.sha256("user.sqlite")
        let started = Date()
        let result = try project.seedkit(["migrate", "user.sqlite", "--sql-timeout", "0.5"] + extra)
        #expect(result.status == 5, "\(result)")
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(
            result.stderr.contains(
                "migrations/0002-forever.sql:2:1: error: this statement ran past the bound of 0.5 s on a SQL migration step and was stopped"
            ), "\(result)")
        #expect(
            result.stderr.contains("--sql-timeout SECONDS or SEEDKIT_SQL_TIMEOUT=SECONDS; nothing was written [2400]"))
        #expect(project.sha256("user.sqlite") == before)
    }

    @Test func theBoundIsValidated() throws {
        let project = try project()
        let result = try project.seedkit("migrate", "user.sqlite", "--sql-timeout", "0")
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("--sql-timeout takes a number of seconds above 0, up to 86400; '0' is not one"))
    }

    @Test func theLibraryCallAppsUseIsBoundedToo() throws {
        let project = try TemporaryProject.withUserStore()
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write("migrations/0001-forever.sql", Self.forever)
        let migrator = try SeedMigrator(migrations: MigrationDirectory.load(project.url("migrations")))
        var options = SeedMigrator.Options()
        #expect(options.sqlTimeLimit == 60 || ProcessInfo.processInfo.environment["SEEDKIT_SQL_TIMEOUT"] != nil)
        options.sqlTimeLimit = 0.3
        let error = #expect(throws: SeedError.self) {
            try migrator.migrate(try project.database("user.sqlite"), options: options)
        }
        #expect(error?.kind == .timeLimit, "\(String(describing: error))")
        let ledger = try project.database("user.sqlite").read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM _seedkit_migrations")
        }
        #expect(ledger == 0)
    }
}
