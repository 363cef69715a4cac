import Foundation
import GRDB
import SeedTestSupport
import Testing

/// Every error about a store names the store that failed, in `PATH: error: … [code]` form, and
/// leaves it byte-identical (issue 14: `diff GOOD CORRUPT` blamed GOOD; refusals in `migrate`
/// and `check-upgrade` named no file; a read-only folder was called a read-only store).
@Suite struct StoreBlameTests {
    /// A BookStore project with `good.sqlite` (the seed plus a 600-row `notes` table, so the store
    /// has many pages) and `bad.sqlite`, the same file with one leaf page of `notes` overwritten
    /// with garbage: it opens, its schema reads, and `PRAGMA integrity_check` reports the page.
    static func projectWithDamagedCopy(migrationsPending: Bool = false) throws -> TemporaryProject {
        let project = try TemporaryProject()
        if migrationsPending { try project.remove("migrations/0001-add-fourth-book.yml") }
        try expectEqual(project.seedkit("build").status, 0)
        if migrationsPending { try project.write("migrations/0001-add-fourth-book.yml", BookStore.fourthBook) }
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("good.sqlite"))
        let good = try project.database("good.sqlite")
        let root = try good.write { db -> Int? in
            try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
            for n in 1...600 {
                try db.execute(
                    sql: "INSERT INTO notes (text) VALUES (?)", arguments: [String(repeating: "note \(n) ", count: 12)])
            }
            return try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'notes'")
        }
        try good.close()
        var bytes = try #require(project.read("good.sqlite"))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let page = try #require(root) + 3  // notes was created last: the pages after its root are its leaves
        #expect(page * pageSize < bytes.count, "the store has \(bytes.count / pageSize) pages")
        bytes.replaceSubrange((page - 1) * pageSize..<page * pageSize, with: Data(repeating: 0xA5, count: pageSize))
        try project.write("bad.sqlite", bytes)
        try #require(
            try integrityProblems(project.path("bad.sqlite")) != ["ok"], "the garbage page must be damage SQLite sees")
        try #require(try integrityProblems(project.path("good.sqlite")) == ["ok"])
        return project
    }

    /// `PRAGMA integrity_check` of a copy (so the store itself is never opened for writing).
    static func integrityProblems(_ path: String) throws -> [String] {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent(
            "seedkit-integrity-\(UUID().uuidString).sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy.path)
        defer { try? FileManager.default.removeItem(at: copy) }
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: copy.path, configuration: configuration)
        defer { try? queue.close() }
        do { return try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } } catch {
            return ["\(error)"]
        }
    }

    /// A copy of the binary that nobody (uid 65534) may run: the checkout may sit in a folder only
    /// root can enter (a CI clone under /root), so the tests run a 0755 copy in the project.
    static func binaryForNobody(in project: TemporaryProject) throws -> String {
        let copy = project.path("seedkit-for-nobody")
        if !FileManager.default.fileExists(atPath: copy) {
            try FileManager.default.copyItem(atPath: seedkitBinary.path, toPath: copy)
        }
        expectEqual(chmod(copy, 0o755), 0)
        return copy
    }

    /// Every line of `text` that reports an error starts with `store: `.
    static func errorLines(_ text: String) -> [Substring] {
        text.split(separator: "\n").filter { $0.contains("error: ") }
    }

    @Test(arguments: [["good.sqlite", "bad.sqlite"], ["bad.sqlite", "good.sqlite"]])
    func diffNamesTheStoreThatIsDamagedNotTheOther(stores: [String]) throws {
        let project = try Self.projectWithDamagedCopy()
        let before = (project.sha256("good.sqlite"), project.sha256("bad.sqlite"))
        for format in ["table", "json"] {
            let result = try project.seedkit(["diff"] + stores + ["--format", format])
            expectEqual(result.status, 3, "\(result)")
            let lines = Self.errorLines(result.stderr + result.stdout)
            #expect(!lines.isEmpty, "\(result)")
            for line in lines {
                #expect(
                    line.hasPrefix(
                        "bad.sqlite: error: not a SQLite database, or corrupt (database disk image is malformed)")
                        || line.contains("\"file\":\"bad.sqlite\"") || line.contains("\"file\": \"bad.sqlite\""),
                    "\(result)")
                #expect(!line.contains("good.sqlite"), "\(result)")
            }
        }
        #expect((project.sha256("good.sqlite"), project.sha256("bad.sqlite")) == before)
    }

    @Test(arguments: [
        ["inspect", "bad.sqlite"], ["inspect", "bad.sqlite", "notes"],
        ["inspect", "bad.sqlite", "notes", "--where", "id > 0"], ["verify", "bad.sqlite"],
    ])
    func readCommandsNameTheDamagedStoreAndRefuseIt(command: [String]) throws {
        let project = try Self.projectWithDamagedCopy()
        let before = project.sha256("bad.sqlite")
        let result = try project.seedkit(command)
        expectEqual(result.status, 3, "\(result)")
        #expect(
            result.stderr.hasPrefix(
                "bad.sqlite: error: not a SQLite database, or corrupt (database disk image is malformed)"), "\(result)")
        #expect(result.stderr.hasSuffix("[2200]\n"), "\(result)")
        expectEqual(project.sha256("bad.sqlite"), before)
    }

    /// The ledger's own page garbled: every command that reads it names the store.
    @Test(arguments: [["status"], ["migrate"], ["migrate", "--dry-run"], ["check-upgrade"]])
    func aDamagedLedgerIsRefusedNamingTheStore(command: [String]) throws {
        let project = try TemporaryProject.withUserStore()
        let root = try project.database("user.sqlite").read { db in
            try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = '_seedkit_migrations'")
        }
        var bytes = try #require(project.read("user.sqlite"))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let page = try #require(root)
        bytes.replaceSubrange((page - 1) * pageSize..<page * pageSize, with: Data(repeating: 0x5A, count: pageSize))
        try project.write("user.sqlite", bytes)
        let result = try project.seedkit(command + ["user.sqlite"])
        expectEqual(result.status, 3, "\(result)")
        let lines = Self.errorLines(result.stderr + result.stdout)
        #expect(!lines.isEmpty, "\(result)")
        for line in lines {
            #expect(line.trimmingCharacters(in: .whitespaces).hasPrefix("user.sqlite: error: "), "\(result)")
        }
        expectEqual(project.read("user.sqlite"), bytes)
    }

    /// A refusal says which store was refused: `STORE: error: … [2200]`, in migrate, --dry-run and check-upgrade.
    @Test(arguments: ["newer", "changed", "missing file", "damaged"])
    func refusalsNameTheStore(reason: String) throws {
        let project: TemporaryProject
        let store: String
        var expected: String
        switch reason {
        case "damaged":
            project = try Self.projectWithDamagedCopy(migrationsPending: true)
            store = "bad.sqlite"
            expected = "bad.sqlite: error: the store is damaged (PRAGMA quick_check: "
        default:
            project = try TemporaryProject.withUserStore()
            store = "user.sqlite"
            try project.write("migrations/0002-later.yml", "insert:\n  categories:\n    - { name: Poetry }\n")
            try expectEqual(project.seedkit("migrate", "user.sqlite").status, 0)
            switch reason {
            case "newer":
                try project.remove("migrations/0002-later.yml")
                expected =
                    "user.sqlite: error: the store is newer than these migrations: it has 0002-later applied, the latest here is 0001-add-fourth-book"
            case "changed":
                try project.write(
                    "migrations/0001-add-fourth-book.yml",
                    BookStore.fourthBook.replacingOccurrences(of: "12", with: "13"))
                expected =
                    "user.sqlite: error: migration 0001-add-fourth-book (migrations/0001-add-fourth-book.yml) changed after it was applied to this store"
            default:
                try project.remove("migrations/0001-add-fourth-book.yml")
                expected =
                    "user.sqlite: error: the store has 0001-add-fourth-book applied but no migration file has number 1; restore the file"
            }
            // A pending migration too, except where it would make the newer store's 0002 a missing file.
            if reason != "newer" {
                try project.write("migrations/0003-more.yml", "insert:\n  categories:\n    - { name: Drama }\n")
            }
        }
        let before = project.sha256(store)
        for command in [["migrate"], ["migrate", "--dry-run"], ["check-upgrade"]] {
            let result = try project.seedkit(command + [store])
            expectEqual(result.status, 3, "\(command) \(result)")
            let lines = Self.errorLines(result.stderr + result.stdout).map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(lines.contains { $0.hasPrefix(expected) && $0.hasSuffix("[2200]") }, "\(command) \(result)")
            for line in lines { #expect(line.hasPrefix("\(store): error: "), "\(command) \(result)") }
            expectEqual(project.sha256(store), before)
        }
    }

    /// Damage only a full check sees (a leaf page's count of fragmented bytes, wrong): the rows
    /// read, so `inspect` prints its summary, and says on stderr why it exits 3; `verify`
    /// reports each of integrity_check's lines as a finding on the store, and exits 3 (refused), not 1.
    @Test func damageOnlyAFullCheckSeesIsRefusedByInspectAndVerify() throws {
        let project = try Self.projectWithDamagedCopy()
        let root = try project.database("good.sqlite").read { db in
            try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'notes'")
        }
        var bytes = try #require(project.read("good.sqlite"))
        let page = try #require(root) + 3
        bytes[(page - 1) * 4096 + 7] = 200  // the page header's fragmented free bytes: there are none
        try project.write("bad.sqlite", bytes)
        let finding = "Fragmentation of 0 bytes reported as 200 on page \(page)"
        let inspect = try project.seedkit("inspect", "bad.sqlite")
        expectEqual(inspect.status, 3, "\(inspect)")
        #expect(inspect.stdout.contains("  integrity     FAILED (quick_check): \(finding)\n"), "\(inspect)")
        expectEqual(
            inspect.stderr,
            "bad.sqlite: error: the store is damaged (quick_check: \(finding)); recover its data first (sqlite3 STORE .recover) [2200]\n",
            "\(inspect)")
        let verify = try project.seedkit("verify", "bad.sqlite")
        expectEqual(verify.status, 3, "\(verify)")
        expectEqual(verify.stdout, "bad.sqlite: integrity: \(finding) [2200]\nbad.sqlite: 1 problem\n", "\(verify)")
        expectEqual(project.read("bad.sqlite"), bytes)
    }

    /// A header whose write version SQLite does not know makes SQLite open the store read-only:
    /// that is the store's header, not its permissions, and a dry run (which migrates a copy) says the same.
    @Test(arguments: [["migrate"], ["migrate", "--dry-run"]])
    func aHeaderSQLiteWillNotWriteIsRefusedNotCalledReadOnly(command: [String]) throws {
        let project = try TemporaryProject.withUserStore()
        var bytes = try #require(project.read("user.sqlite"))
        bytes[18] = 180
        try project.write("user.sqlite", bytes)
        let result = try project.seedkit(command + ["user.sqlite"])
        expectEqual(result.status, 3, "\(result)")
        expectEqual(
            result.stderr,
            "user.sqlite: error: the store's header gives file format write version 180, which no SQLite writes (1 is a rollback journal, 2 WAL): SQLite opens it read-only, so it can't be migrated; the header is damaged or from a newer SQLite; nothing was written [2200]\n",
            "\(result)")
        expectEqual(project.read("user.sqlite"), bytes)
    }

    /// Another app's SQLite file (a wrong path): no seedkit ledger, not a Core Data store, and
    /// none of the tables the migrations write.
    ///
    /// docs/reference.md calls it a foreign store: refused (3), on the store, not a configuration
    /// error of the migration file.
    @Test(arguments: [["migrate"], ["migrate", "--dry-run"], ["check-upgrade"]])
    func aForeignStoreIsRefusedOnTheStore(command: [String]) throws {
        let project = try TemporaryProject.withUserStore()
        let other = try project.database("other.sqlite")
        try other.write { db in try db.execute(sql: "CREATE TABLE x (a); INSERT INTO x VALUES (1)") }
        try other.close()
        let before = project.sha256("other.sqlite")
        let result = try project.seedkit(command + ["other.sqlite"])
        expectEqual(result.status, 3, "\(result)")
        #expect(
            (result.stderr + result.stdout).contains(
                "other.sqlite: error: not a store of these migrations: it has no seedkit ledger (_seedkit_migrations) and none of the tables they write (books); it has x. Check the path: seedkit migrates the stores this project's seed started; nothing was written [2200]"
            ), "\(result)")
        expectEqual(project.sha256("other.sqlite"), before)
    }

    /// A store without a ledger that has the migrations' tables (an app's own store) still migrates.
    @Test func aStoreWithoutALedgerButWithTheTablesMigrates() throws {
        let project = try TemporaryProject.withUserStore()
        try project.database("user.sqlite").write { db in try db.execute(sql: "DROP TABLE _seedkit_migrations") }
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
    }

    /// A store the user can write in a folder they cannot: SQLite cannot create the journal
    /// beside it.
    ///
    /// The message names the folder, not the store, as read-only. Tests run as root, which ignores
    /// permissions, so seedkit runs as nobody (setpriv) on a store nobody owns.
    @Test func aReadOnlyFolderIsNotCalledAReadOnlyStore() throws {
        let project = try TemporaryProject.withUserStore()
        let folder = project.url("locked")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        try FileManager.default.copyItem(
            atPath: project.path("user.sqlite"), toPath: folder.appendingPathComponent("user.sqlite").path)
        let before = project.sha256("locked/user.sqlite")
        var command = [seedkitBinary.path]
        if getuid() == 0 {
            // nobody may write the store, and the folder stays root's (0755): nobody cannot create the journal.
            expectEqual(chown(folder.appendingPathComponent("user.sqlite").path, 65534, 65534), 0)
            expectEqual(chmod(project.root.path, 0o755), 0)
            command = [
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                try Self.binaryForNobody(in: project),
            ]
        } else {
            expectEqual(chmod(folder.path, 0o555), 0)
        }
        defer { chmod(folder.path, 0o755) }
        let result = try run(
            URL(fileURLWithPath: command[0]), Array(command.dropFirst()) + ["migrate", "locked/user.sqlite"],
            in: project.root)
        expectEqual(result.status, 4, "\(result)")
        let folderPath = try #require(
            realpath(folder.path, nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            })
        expectEqual(
            result.stderr,
            "locked/user.sqlite: error: the folder \(folderPath) is read-only: SQLite needs to create a journal file beside the store to write it; make the folder writable or move the store; nothing was written [2300]\n",
            "\(result)")
        #expect(!result.stderr.contains("the store is read-only"))
        expectEqual(project.sha256("locked/user.sqlite"), before)
        expectEqual(project.listing("locked"), ["user.sqlite"])
    }

    /// The same for what seedkit writes beside a path: a build's output and a migrate's backup,
    /// in a folder the user cannot write (run as nobody when the tests run as root).
    @Test func aReadOnlyFolderForAnOutputOrABackupIsNamedAsSuch() throws {
        let project = try TemporaryProject.withUserStore()
        expectEqual(chmod(project.root.path, 0o755), 0)
        try FileManager.default.createDirectory(at: project.url("locked"), withIntermediateDirectories: false)
        try FileManager.default.createDirectory(at: project.url("mine"), withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: project.path("user.sqlite"), toPath: project.path("mine/user.sqlite"))
        let root = getuid() == 0
        if root {
            for path in ["mine", "mine/user.sqlite"] { expectEqual(chown(project.path(path), 65534, 65534), 0) }
        } else {
            expectEqual(chmod(project.path("locked"), 0o555), 0)
        }
        defer { chmod(project.path("locked"), 0o755) }
        let before = project.sha256("mine/user.sqlite")
        let locked = try #require(
            realpath(project.path("locked"), nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            })
        func asNobody(_ arguments: [String]) throws -> CommandResult {
            root
                ? try run(
                    URL(fileURLWithPath: "/usr/bin/setpriv"),
                    ["--reuid=65534", "--regid=65534", "--clear-groups", try Self.binaryForNobody(in: project)]
                        + arguments, in: project.root)
                : try project.seedkit(arguments)
        }
        let build = try asNobody(["build", "--output", "locked/seed.sqlite"])
        expectEqual(build.status, 4, "\(build)")
        #expect(
            build.stderr.hasSuffix(
                "locked/seed.sqlite: error: the folder \(locked) is read-only: the seed is written beside its output and renamed into place; make the folder writable or choose another --output; nothing was written [2300]\n"
            ), "\(build)")
        let backup = try asNobody(["migrate", "mine/user.sqlite", "--backup", "locked/backup.sqlite"])
        expectEqual(backup.status, 4, "\(backup)")
        #expect(
            backup.stderr.hasSuffix(
                "locked/backup.sqlite: error: cannot write the backup: the folder \(locked) is read-only (the backup is written beside its path and renamed into place); the store was not migrated [2300]\n"
            ), "\(backup)")
        expectEqual(project.listing("locked"), [])
        expectEqual(project.sha256("mine/user.sqlite"), before)
    }
}
