import Foundation
import GRDB
import SeedTestSupport
import Testing

/// One real case of a command exiting with a code the exit-code table (docs/reference.md) claims for it.
struct ExitCase: Sendable, CustomTestStringConvertible {
    /// The command as the table names it (`status`, `build`, …).
    var command: String
    var code: Int32
    /// What the case is, for the test's name.
    var label: String
    /// Prepares the project (a BookStore project with `user.sqlite`, migration 0001 pending) and
    /// returns the arguments; what it returns second is kept alive while seedkit runs (a lock).
    var setup: @Sendable (TemporaryProject) throws -> (arguments: [String], holding: (any Sendable)?)
    /// Printed (stdout or stderr) by the case.
    var message: String
    /// Run through `sh` with this redirection of seedkit's stdout (`>&-`: closed).
    var stdout: String? = nil

    var testDescription: String { "\(command) exits \(code): \(label)" }
}

/// The exit-code table of docs/reference.md, row by row: which commands it says exit with which code.
private func documentedClaims() throws -> (commands: [String], claims: Set<String>) {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let reference = try String(contentsOf: root.appendingPathComponent("docs/reference.md"), encoding: .utf8)
    let section = try #require(reference.components(separatedBy: "## Exit codes\n").dropFirst().first)
    let rows = section.split(separator: "\n").prefix { $0.hasPrefix("|") || $0.isEmpty }.filter {
        $0.hasPrefix("| ") && !$0.hasPrefix("| code")
    }
    var commands: [String] = []
    var claims: Set<String> = []
    for line in section.split(separator: "\n") where line.hasPrefix("Every command: ") {
        commands = line.dropFirst("Every command: ".count).split(separator: ",").map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: " `."))
        }
    }
    for row in rows {
        let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        guard cells.count == 3, let code = Int32(cells[0]) else { continue }
        let who = cells[2]
        let named =
            who.hasPrefix("every command")
            ? commands
            : who.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map {
                String($0.element.split(separator: " ")[0])
            }
        for command in named { claims.insert("\(command) \(code)") }
    }
    return (commands, claims)
}

/// Every (command, exit code) pair the documented table claims happens in a real case, with its
/// message, and no case exits with a code the table does not claim for its command (issue 14).
@Suite struct ExitCodeTableTests {
    static let cases: [ExitCase] = {
        func plain(_ arguments: String...)
            -> @Sendable (TemporaryProject) throws -> (arguments: [String], holding: (any Sendable)?)
        {
            let arguments = arguments
            return { _ in (arguments, nil) }
        }
        let notADatabase: @Sendable (TemporaryProject) throws -> Void = { project in
            try project.write("text.sqlite", "this is not a database\n")
        }
        let newerStore: @Sendable (TemporaryProject) throws -> Void = { project in
            try project.write("migrations/0002-later.yml", "insert:\n  categories:\n    - { name: Poetry }\n")
            _ = try project.seedkit("migrate", "user.sqlite")
            try project.remove("migrations/0002-later.yml")
        }
        let expensive: @Sendable (TemporaryProject) throws -> Void = { project in
            try project.write(
                "migrations/0002-expensive.yml",
                "insert:\n  books:\n    - { title: Gold, price: 5000, category_id: Fiction }\n")
        }
        var cases: [ExitCase] = []
        // build
        cases += [
            ExitCase(
                command: "build", code: 0, label: "a valid project", setup: plain("build"),
                message: "built build/seed.sqlite"),
            ExitCase(
                command: "build", code: 1, label: "a value above its maximum",
                setup: { project in
                    try project.write("seeds/data/books.csv", BookStore.books + "Gold,5000,Fiction\n")
                    return (["build"], nil)
                }, message: "price 5000 is greater than the maximum 1000 [1610]"),
            ExitCase(
                command: "build", code: 1, label: "--check of a stale seed",
                setup: { project in
                    _ = try project.seedkit("build")
                    try project.write("seeds/data/categories.csv", BookStore.categories + "Poetry\n")
                    return (["build", "--check"], nil)
                }, message: "build/seed.sqlite is stale"),
            ExitCase(
                command: "build", code: 2, label: "no manifest", setup: plain("build", "--manifest", "none.yml"),
                message: "none.yml: error:"),
            ExitCase(
                command: "build", code: 2, label: "an output that is an input",
                setup: plain("build", "--output", "seeds/schema.sql"), message: "[2100]"),
            ExitCase(
                command: "build", code: 3,
                label: "a Core Data template with only some of the persistent-history tables",
                setup: { project in
                    let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                            "Examples/CoreDataBookStore")
                    try project.remove("seeds")
                    try project.remove("migrations")
                    try FileManager.default.copyItem(
                        at: example.appendingPathComponent("seeds"), to: project.url("seeds"))
                    try FileManager.default.copyItem(
                        at: example.appendingPathComponent("migrations"), to: project.url("migrations"))
                    try project.database("seeds/empty.sqlite").write { db in
                        try db.execute(
                            sql:
                                "CREATE TABLE ATRANSACTION (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER); INSERT INTO Z_PRIMARYKEY VALUES (16002, 'ATRANSACTION', 0, 0)"
                        )
                    }
                    return (["build"], nil)
                },
                message:
                    "seeds/empty.sqlite: error: the store tracks Core Data persistent history (ATRANSACTION; Z_ENT 16001–16003 in Z_PRIMARYKEY) without all three of ATRANSACTION, ACHANGE and ATRANSACTIONSTRING"
            ),
            ExitCase(
                command: "build", code: 4, label: "an output folder that is a file",
                setup: { project in
                    try project.write("afile", "")
                    return (["build", "--output", "afile/seed.sqlite"], nil)
                }, message: "cannot create the output folder"),
        ]
        // migrate
        cases += [
            ExitCase(
                command: "migrate", code: 0, label: "a pending migration", setup: plain("migrate", "user.sqlite"),
                message: "user.sqlite: 1 migration applied"),
            ExitCase(
                command: "migrate", code: 1, label: "migration data above its maximum",
                setup: { project in
                    try expensive(project)
                    return (["migrate", "user.sqlite"], nil)
                },
                message:
                    "migrations/0002-expensive.yml:3: error: books: price 5000 is greater than the maximum 1000 [1610]"),
            ExitCase(
                command: "migrate", code: 1, label: "a conflict under --on-conflict fail",
                setup: { project in
                    try project.database("user.sqlite").write { db in
                        try db.execute(sql: "UPDATE books SET price = 99 WHERE title = 'The first book'")
                    }
                    try project.write(
                        "migrations/0002-reprice.yml",
                        "update:\n  books:\n    - { key: The first book, from: { price: 10 }, to: { price: 11 } }\n")
                    return (["migrate", "user.sqlite", "--on-conflict", "fail"], nil)
                }, message: "[2050]"),
            ExitCase(
                command: "migrate", code: 2, label: "no store", setup: plain("migrate", "none.sqlite"),
                message: "none.sqlite: error: no store here"),
            ExitCase(
                command: "migrate", code: 3, label: "a store newer than the migrations",
                setup: { project in
                    try newerStore(project)
                    return (["migrate", "user.sqlite"], nil)
                }, message: "user.sqlite: error: the store is newer than these migrations"),
            ExitCase(
                command: "migrate", code: 4, label: "a store locked past --busy-timeout",
                setup: { project in
                    var configuration = Configuration()
                    // the lock outlives this access, as another app's would
                    configuration.allowsUnsafeTransactions = true
                    let holder = try DatabaseQueue(path: project.path("user.sqlite"), configuration: configuration)
                    try holder.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
                    return (["migrate", "user.sqlite", "--busy-timeout", "0"], holder)
                }, message: "user.sqlite: error: the store is locked by another connection"),
            ExitCase(
                command: "migrate", code: 5, label: "a .sql step past --sql-timeout",
                setup: { project in
                    try project.write(
                        "migrations/0002-forever.sql",
                        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c;\n")
                    return (["migrate", "user.sqlite", "--sql-timeout", "0.2"], nil)
                }, message: "ran past the bound of 0.2 s on a SQL migration step"),
        ]
        // status
        cases += [
            ExitCase(
                command: "status", code: 0, label: "a store", setup: plain("status", "user.sqlite"),
                message: "0001-add-fourth-book"),
            ExitCase(
                command: "status", code: 1, label: "--exit-code with a pending migration",
                setup: plain("status", "user.sqlite", "--exit-code"), message: "pending"),
            ExitCase(
                command: "status", code: 2, label: "no store", setup: plain("status", "none.sqlite"),
                message: "none.sqlite: error: no store here"),
            ExitCase(
                command: "status", code: 3, label: "not a database",
                setup: { project in
                    try notADatabase(project)
                    return (["status", "text.sqlite"], nil)
                },
                message: "text.sqlite: error: not a SQLite database"),
        ]
        // inspect
        cases += [
            ExitCase(
                command: "inspect", code: 0, label: "a store", setup: plain("inspect", "user.sqlite"),
                message: "integrity     ok"),
            ExitCase(
                command: "inspect", code: 2, label: "a table the store lacks",
                setup: plain("inspect", "user.sqlite", "authors"), message: "user.sqlite: error:"),
            ExitCase(
                command: "inspect", code: 3, label: "not a database",
                setup: { project in
                    try notADatabase(project)
                    return (["inspect", "text.sqlite"], nil)
                },
                message: "text.sqlite: error: not a SQLite database"),
        ]
        // diff
        cases += [
            ExitCase(
                command: "diff", code: 0, label: "two stores", setup: plain("diff", "build/seed.sqlite", "user.sqlite"),
                message: "books: no differences"),
            ExitCase(
                command: "diff", code: 1, label: "--exit-code when they differ",
                setup: { project in
                    _ = try project.seedkit("migrate", "user.sqlite")
                    return (["diff", "build/seed.sqlite", "user.sqlite", "--exit-code"], nil)
                }, message: "+ 'The fourth book'"),
            ExitCase(
                command: "diff", code: 2, label: "no second store", setup: plain("diff", "user.sqlite", "none.sqlite"),
                message: "none.sqlite: error: no store here"),
            ExitCase(
                command: "diff", code: 3, label: "a second store that is not a database",
                setup: { project in
                    try notADatabase(project)
                    return (["diff", "user.sqlite", "text.sqlite"], nil)
                }, message: "text.sqlite: error: not a SQLite database"),
        ]
        // verify
        cases += [
            ExitCase(
                command: "verify", code: 0, label: "a sound store", setup: plain("verify", "user.sqlite"),
                message: "user.sqlite: ok"),
            ExitCase(
                command: "verify", code: 1, label: "a row that breaks a rule",
                setup: { project in
                    try project.database("user.sqlite").write { db in
                        try db.execute(sql: "UPDATE books SET price = 5000 WHERE title = 'The first book'")
                    }
                    return (["verify", "user.sqlite"], nil)
                }, message: "[1610]"),
            ExitCase(
                command: "verify", code: 2, label: "a manifest table the store lacks",
                setup: { project in
                    try project.database("user.sqlite").write { db in try db.execute(sql: "DROP TABLE books") }
                    return (["verify", "user.sqlite"], nil)
                }, message: "the manifest names table books, which the store does not have [2100]"),
            ExitCase(
                command: "verify", code: 3, label: "not a database",
                setup: { project in
                    try notADatabase(project)
                    return (["verify", "text.sqlite"], nil)
                },
                message: "text.sqlite: error: not a SQLite database"),
        ]
        // check-upgrade
        cases += [
            ExitCase(
                command: "check-upgrade", code: 0, label: "an old seed that converges",
                setup: { project in
                    // the fixtures hold what 0001 adds
                    try project.write("seeds/data/books.csv", BookStore.books + "The fourth book,12,Biography\n")
                    return (["check-upgrade", "user.sqlite"], nil)
                }, message: "1 old seed converges"),
            ExitCase(
                command: "check-upgrade", code: 1, label: "a migration the fixtures do not hold",
                setup: { project in
                    try project.write("migrations/0002-poetry.yml", "insert:\n  categories:\n    - { name: Poetry }\n")
                    return (["check-upgrade", "user.sqlite"], nil)
                }, message: "DIVERGES from a fresh build"),
            ExitCase(
                command: "check-upgrade", code: 1, label: "fixture data errors",
                setup: { project in
                    try project.write("seeds/data/books.csv", BookStore.books + "Gold,5000,Fiction\n")
                    return (["check-upgrade", "user.sqlite"], nil)
                }, message: "[1610]"),
            ExitCase(
                command: "check-upgrade", code: 2, label: "no manifest",
                setup: plain("check-upgrade", "user.sqlite", "--manifest", "none.yml"), message: "none.yml: error:"),
            ExitCase(
                command: "check-upgrade", code: 3, label: "an old seed newer than the migrations",
                setup: { project in
                    try newerStore(project)
                    return (["check-upgrade", "user.sqlite"], nil)
                }, message: "user.sqlite: error: the store is newer than these migrations"),
        ]
        // new-migration
        cases += [
            ExitCase(
                command: "new-migration", code: 0, label: "a scaffold", setup: plain("new-migration", "more-books"),
                message: "0002-more-books.yml"),
            ExitCase(
                command: "new-migration", code: 1, label: "--from with fixture data errors",
                setup: { project in
                    try project.write("seeds/data/books.csv", BookStore.books + "Gold,5000,Fiction\n")
                    return (["new-migration", "gold", "--from", "user.sqlite"], nil)
                }, message: "[1610]"),
            ExitCase(
                command: "new-migration", code: 2, label: "--from a store that does not exist",
                setup: plain("new-migration", "more", "--from", "none.sqlite"),
                message: "none.sqlite: error: no old seed here: an old seed is one a release shipped"),
            ExitCase(
                command: "new-migration", code: 3, label: "--from an old seed newer than the migrations",
                setup: { project in
                    try newerStore(project)
                    return (["new-migration", "more", "--from", "user.sqlite"], nil)
                }, message: "user.sqlite: error: the store is newer than these migrations"),
        ]
        // export-migrations
        cases += [
            ExitCase(
                command: "export-migrations", code: 0, label: "into a folder",
                setup: plain("export-migrations", "app/migrations"), message: "0001-add-fourth-book"),
            ExitCase(
                command: "export-migrations", code: 2, label: "into the migrations folder",
                setup: plain("export-migrations", "migrations"),
                message: "migrations: error: this is the migrations folder"),
            ExitCase(
                command: "export-migrations", code: 4, label: "into a path below a file",
                setup: { project in
                    try project.write("afile", "")
                    return (["export-migrations", "afile/migrations"], nil)
                }, message: "afile/migrations: error: cannot create the folder"),
        ]
        // init
        cases += [
            ExitCase(
                command: "init", code: 0, label: "a new project", setup: plain("init", "fresh"),
                message: "wrote fresh/seeds/seedkit.yml"),
            ExitCase(
                command: "init", code: 2, label: "a project that exists", setup: plain("init", "."),
                message: "seeds/seedkit.yml: error: already exists"),
            ExitCase(
                command: "init", code: 3, label: "a --template that is not a database",
                setup: { project in
                    try notADatabase(project)
                    let model = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                        .deletingLastPathComponent()
                        .appendingPathComponent("Examples/CoreDataBookStore/seeds/BookStore.xcdatamodeld")
                    return (["init", "fresh", "--coredata", model.path, "--template", "text.sqlite"], nil)
                }, message: "text.sqlite: error: not a SQLite database"),
            ExitCase(
                command: "init", code: 4, label: "a folder below a file",
                setup: { project in
                    try project.write("afile", "")
                    return (["init", "afile/fresh"], nil)
                }, message: "afile/fresh: error: cannot write the project"),
        ]
        // Every command: a usage error is 2, and output nobody can receive is 4.
        for (command, arguments) in [
            ("build", ["build"]), ("migrate", ["migrate", "user.sqlite"]), ("status", ["status", "user.sqlite"]),
            ("inspect", ["inspect", "user.sqlite"]),
            ("diff", ["diff", "build/seed.sqlite", "user.sqlite"]), ("verify", ["verify", "user.sqlite"]),
            ("check-upgrade", ["check-upgrade", "user.sqlite"]),
            ("new-migration", ["new-migration", "more"]),
            ("export-migrations", ["export-migrations", "app/migrations"]), ("init", ["init", "fresh"]),
        ] {
            cases.append(
                ExitCase(
                    command: command, code: 2, label: "an unknown option",
                    setup: { _ in (arguments + ["--no-such-option"], nil) },
                    message: "Unknown option '--no-such-option'"))
            cases.append(
                ExitCase(
                    command: command, code: 4, label: "a closed stdout", setup: { _ in (arguments, nil) },
                    message: "standard output is closed", stdout: ">&-"))
        }
        return cases
    }()

    @Test(arguments: cases)
    func theCodeTheDocsClaimHappensWithItsMessage(_ exitCase: ExitCase) throws {
        let project = try TemporaryProject.withUserStore()
        let (arguments, holding) = try exitCase.setup(project)
        let result: CommandResult
        if let redirection = exitCase.stdout {
            result = try run(
                URL(fileURLWithPath: "/bin/sh"),
                ["-c", "\"$0\" \"$@\" \(redirection)", seedkitBinary.path] + arguments, in: project.root)
        } else {
            result = try runSeedkit(arguments, in: project.root)
        }
        withExtendedLifetime(holding) {}
        expectEqual(result.status, exitCase.code, "\(arguments): \(result)")
        #expect((result.stdout + result.stderr).contains(exitCase.message), "\(arguments): \(result)")
    }

    /// The documented table and the cases above agree: each pair it claims has a case, each case's
    /// pair is claimed, and the table covers every command `seedkit --help` lists.
    @Test func theDocsClaimExactlyThePairsTheCasesShow() throws {
        let (commands, claims) = try documentedClaims()
        let shown = Set(Self.cases.map { "\($0.command) \($0.code)" })
        expectEqual(
            claims.subtracting(shown).sorted(), [],
            "pairs docs/reference.md claims that no case shows: add a case to ExitCodeTableTests")
        expectEqual(
            shown.subtracting(claims).sorted(), [],
            "pairs the cases show that docs/reference.md does not claim: fix its exit-code table")
        let help = try runSeedkit(["--help"], in: FileManager.default.temporaryDirectory)
        // A subcommand's line: two spaces, its name, then its abstract (wrapped lines are indented further).
        let listed =
            help.stdout.components(separatedBy: "SUBCOMMANDS:").last?.split(separator: "\n").compactMap {
                line -> String? in
                guard line.hasPrefix("  "), !line.hasPrefix("   "), line.contains("   ") else { return nil }
                return line.split(separator: " ").first.map(String.init)
            } ?? []
        expectEqual(
            Set(listed.filter { $0 != "help" }), Set(commands),
            "every command needs its row in the exit-code table of docs/reference.md and cases here: \(listed)")
    }
}
