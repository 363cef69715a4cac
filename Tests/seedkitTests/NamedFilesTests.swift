import Foundation
import GRDB
import SeedTestSupport
import Testing

/// Files and flags are what they say (issue 34): a `--manifest` that names no file is exit 2 on
/// every command, before anything runs; `--manifest none` is no manifest, on purpose.
@Suite struct NamedManifestTests {
    static let commands: [[String]] = [
        ["build"], ["migrate", "user.sqlite"], ["migrate", "user.sqlite", "--dry-run"], ["status", "user.sqlite"],
        ["verify", "user.sqlite"], ["inspect", "user.sqlite"], ["inspect", "user.sqlite", "books"],
        ["diff", "user.sqlite", "build/seed.sqlite"], ["check-upgrade", "user.sqlite"], ["new-migration", "next"],
        ["export-migrations", "bundle"],
    ]

    @Test(arguments: commands)
    func aNamedManifestThatIsNotThereIsAConfigurationError(command: [String]) throws {
        let project = try TemporaryProject.withUserStore()
        let before = project.sha256("user.sqlite")
        let listing = project.listing(".")
        let migrations = project.listing("migrations")
        let result = try runSeedkit(command + ["--manifest", "seeds/seedkit.ym"], in: project.root)
        expectEqual(result.status, 2, "\(command): \(result)")
        expectEqual(
            result.stderr,
            "seeds/seedkit.ym: error: no such manifest: --manifest names a file that is not there (check the path; --manifest none for no manifest) [2100]\n",
            "\(command): \(result)")
        #expect(result.stdout.isEmpty, "\(command): \(result)")
        expectEqual(project.sha256("user.sqlite"), before)
        #expect(project.listing(".") == listing && project.listing("migrations") == migrations, "nothing written")
    }

    @Test func manifestNoneIsNoManifest() throws {
        let project = try TemporaryProject.withUserStore()
        for command in [
            ["verify", "user.sqlite"], ["inspect", "user.sqlite", "books"], ["migrate", "user.sqlite", "--dry-run"],
        ] {
            let result = try runSeedkit(command + ["--manifest", "none"], in: project.root)
            expectEqual(result.status, 0, "\(command): \(result)")
        }
        let build = try project.seedkit("build", "--manifest", "none")
        expectEqual(build.status, 2, "\(build)")
    }
}

/// A store is the file its path names, read through its links; what is not a regular file is
/// refused before anything opens it (issue 34).
@Suite struct StoreThroughLinksTests {
    static let commands: [[String]] = [
        ["inspect"], ["status"], ["verify"], ["migrate"], ["migrate", "--dry-run"], ["diff", "build/seed.sqlite"],
    ]

    @Test(arguments: commands)
    func anEmptyFileBehindALinkIsRefusedLikeAnEmptyFile(command: [String]) throws {
        let project = try TemporaryProject.withUserStore()
        try project.write("empty.sqlite", "")
        try FileManager.default.createSymbolicLink(
            atPath: project.path("link.sqlite"), withDestinationPath: "empty.sqlite")
        let result = try runSeedkit(command + ["link.sqlite"], in: project.root)
        expectEqual(result.status, 3, "\(result)")
        expectEqual(
            result.stderr,
            "link.sqlite: error: the file is empty (0 bytes), not a store: a store written by an app or by `seedkit build` has at least SQLite's header [2200]\n",
            "\(result)")
        expectEqual(project.read("empty.sqlite"), Data(), "not initialised")
    }

    @Test func aLinkedStoreShowsItsTargetsSize() throws {
        let project = try TemporaryProject.withUserStore()
        try FileManager.default.createSymbolicLink(
            atPath: project.path("link.sqlite"), withDestinationPath: project.path("user.sqlite"))
        let result = try project.seedkit("inspect", "link.sqlite", "--format", "json")
        expectEqual(result.status, 0, "\(result)")
        let size = try #require(
            FileManager.default.attributesOfItem(atPath: project.path("user.sqlite"))[.size] as? Int)
        #expect(result.stdout.contains("\"bytes\": \(size),"), "the target's size, not the link's: \(result)")
    }

    @Test(arguments: commands + [["check-upgrade"], ["new-migration", "next", "--from"]])
    func aFIFOIsRefusedNotWaitedOn(command: [String]) throws {
        let project = try TemporaryProject.withUserStore()
        expectEqual(mkfifo(project.path("pipe.sqlite"), 0o600), 0)
        let started = Date()
        let result = try runSeedkit(command + ["pipe.sqlite"], in: project.root)
        #expect(Date().timeIntervalSince(started) < 20, "no hang: \(result)")
        expectEqual(result.status, 2, "\(command): \(result)")
        #expect(
            result.stderr.contains(
                "pipe.sqlite: error: this is a FIFO (named pipe), not a store file: seedkit reads and migrates stores only in regular files"
            ), "\(command): \(result)")
    }

    @Test func standardInputFromAPipeIsRefused() throws {
        let project = try TemporaryProject.withUserStore()
        let result = try run(
            URL(fileURLWithPath: "/bin/bash"),
            ["-c", "cat user.sqlite | \"$0\" inspect /dev/stdin", seedkitBinary.path], in: project.root)
        expectEqual(result.status, 2, "\(result)")
        #expect(result.stderr.contains("/dev/stdin: error: this is a FIFO (named pipe), not a store file"), "\(result)")
    }
}

/// The process's own limits and pipes: never a crash, a hang or a silent exit (issue 34).
@Suite struct ProcessLimitsTests {
    /// A user store and a migration whose report is long (a few hundred KB with --verbose).
    private func longReport() throws -> TemporaryProject {
        let project = try TemporaryProject.withUserStore()
        let rows = (1...5000).map { #"{"title": "Pipe book \#($0)", "price": 1, "category_id": "Fiction"}"# }.joined(
            separator: ",\n")
        try project.write("migrations/0002-many.json", #"{"insert": {"books": [\#(rows)]}}"#)
        return project
    }

    @Test func aReaderThatGoesAwayAfterTheCommitIsReported() throws {
        let project = try longReport()
        let result = try run(
            URL(fileURLWithPath: "/bin/bash"),
            [
                "-c", "\"$0\" migrate user.sqlite --verbose | head -1; echo \"exit ${PIPESTATUS[0]}\"",
                seedkitBinary.path,
            ], in: project.root)
        expectEqual(result.stdout, "applied 0001-add-fourth-book: 1 inserted\nexit 4\n", "\(result)")
        #expect(
            result.stderr.contains(
                "seedkit: cannot write the output: Broken pipe (user.sqlite: 2 migrations applied all the same); what was printed is incomplete [2300]"
            ), "\(result)")
        let store = try project.database("user.sqlite")
        try expectEqual(
            store.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM _seedkit_migrations WHERE origin = 'applied'")
            }, 2)
    }

    /// `inspect … | head`: the reader stopped on purpose and nothing was done, so seedkit ends in
    /// silence, with the status of a process SIGPIPE ends, as sqlite3 and git do.
    @Test func aReaderThatGoesAwayFromAReadOnlyCommandEndsInSilence() throws {
        let project = try longReport()
        try expectEqual(project.seedkit("migrate", "user.sqlite").status, 0)
        let result = try run(
            URL(fileURLWithPath: "/bin/bash"),
            [
                "-c", "\"$0\" inspect user.sqlite books --limit 6000 | head -1; echo \"exit ${PIPESTATUS[0]}\"",
                seedkitBinary.path,
            ], in: project.root)
        #expect(result.stdout.hasSuffix("\nexit 141\n"), "\(result)")
        expectEqual(result.stdout.split(separator: "\n").count, 2, "\(result)")
        expectEqual(result.stderr, "", "\(result)")
    }

    @Test(arguments: [4, 5, 6, 7, 16])
    func tooFewFileDescriptorsIsAClearError(limit: Int) throws {
        let project = try TemporaryProject.withUserStore()
        let before = project.sha256("user.sqlite")
        let result = try run(
            URL(fileURLWithPath: "/bin/bash"),
            ["-c", "ulimit -n \(limit); exec \"$0\" migrate user.sqlite", seedkitBinary.path], in: project.root)
        expectEqual(result.status, 4, "\(result)")
        expectEqual(
            result.stderr,
            "seedkit: error: this process may have only \(limit) files open at once (ulimit -n \(limit)), and seedkit needs 32 (stores and their journals, migrations, fixtures); raise the limit (ulimit -n 256); nothing was done [2300]\n",
            "\(result)")
        expectEqual(project.sha256("user.sqlite"), before)
    }

    @Test func aLowSoftLimitIsRaisedAndEveryCommandWorksAtTheMinimum() throws {
        let project = try TemporaryProject.withUserStore()
        for command in [
            "ulimit -S -n 5; exec \"$0\" migrate user.sqlite --dry-run", "ulimit -n 32; exec \"$0\" build",
            "ulimit -n 32; exec \"$0\" diff user.sqlite build/seed.sqlite",
            "ulimit -n 32; exec \"$0\" migrate user.sqlite --backup backup.sqlite",
            "ulimit -n 32; exec \"$0\" check-upgrade build/seed.sqlite", "ulimit -n 32; exec \"$0\" verify user.sqlite",
        ] {
            let result = try run(
                URL(fileURLWithPath: "/bin/bash"), ["-c", command, seedkitBinary.path], in: project.root)
            #expect(
                result.status == 0 || (command.contains("check-upgrade") && result.status == 1), "\(command): \(result)"
            )
            #expect(
                !result.stderr.contains("files open at once") && !result.stderr.contains("Too many open files"),
                "\(command): \(result)")
        }
    }

    /// Under `ulimit -v`, the thread that reads a large JSON migration may not start: that is an
    /// error (exit 4, nothing written), never a wait that holds the write lock forever.
    ///
    /// Which limit starves the thread depends on the binary, so a range is tried. Where libdispatch
    /// itself waits for a thread (it retries forever), a SIGINT still ends the run.
    @Test(.tags(.slow)) func aThreadThatCannotStartIsAnErrorNotAHang() throws {
        let project = try TemporaryProject.withUserStore()
        let rows = (1...40000).map { #"{"title": "J\#($0)", "price": 1, "category_id": "Fiction"}"# }.joined(
            separator: ",")
        try project.write("migrations/0002-big.json", #"{"insert": {"books": [\#(rows)]}}"#)
        let pristine = try #require(project.read("user.sqlite"))
        var threadErrors = 0
        for kilobytes in stride(from: 130_000, through: 330_000, by: 10_000) {
            try project.write("user.sqlite", pristine)
            for suffix in ["-journal", "-wal", "-shm"] where project.exists("user.sqlite" + suffix) {
                try project.remove("user.sqlite" + suffix)
            }
            // SIGINT after 20 s; SIGKILL 10 s later only if that was ignored (exit 137).
            let result = try run(
                URL(fileURLWithPath: "/bin/bash"),
                [
                    "-c", "ulimit -v \(kilobytes); exec timeout -s INT -k 10 20 \"$0\" migrate user.sqlite",
                    seedkitBinary.path,
                ], in: project.root)
            #expect(result.status != 137, "ulimit -v \(kilobytes): SIGINT was ignored: \(result)")
            if result.stderr.contains("cannot start a thread to read migrations/0002-big.json") {
                threadErrors += 1
                expectEqual(result.status, 4, "\(result)")
                #expect(result.stderr.contains("nothing was written"), "\(result)")
                expectEqual(project.read("user.sqlite"), pristine, "ulimit -v \(kilobytes)")
            }
            // Whatever stopped it, the migration is applied whole or not at all.
            let applied = try project.database("user.sqlite").read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM _seedkit_migrations WHERE number = 2")
            }
            let books = try project.database("user.sqlite").read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM books")
            }
            #expect(
                applied == 1 ? books == 40004 : books == 3,
                "ulimit -v \(kilobytes): exit \(result.status), \(books ?? -1) books")
            expectEqual((result.status == 0), (applied == 1), "ulimit -v \(kilobytes): \(result)")
        }
        #expect(threadErrors > 0, "no limit in the range starved the reading thread: widen the range")
    }
}

/// Every file seedkit reads is a regular file: a FIFO where a manifest, schema, fixture or
/// migration belongs is named for what it is, never waited on (issue 34).
@Suite struct SpecialFileInputsTests {
    @Test(arguments: [
        (["build"], "seeds/data/books.csv", "a fixture"),
        (["build"], "seeds/schema.sql", "the schema"),
        (["verify", "user.sqlite", "--manifest", "other.yml"], "other.yml", "the manifest"),
        (["status", "user.sqlite"], "migrations/0002-next.sql", "a migration"),
    ])
    func aFIFOInputIsRefusedNotWaitedOn(command: [String], path: String, what: String) throws {
        let project = try TemporaryProject.withUserStore()
        if project.exists(path) { try project.remove(path) }
        expectEqual(mkfifo(project.path(path), 0o600), 0)
        let started = Date()
        let result = try runSeedkit(command, in: project.root)
        #expect(Date().timeIntervalSince(started) < 20, "no hang: \(result)")
        expectEqual(result.status, 2, "\(command): \(result)")
        #expect(
            result.stderr.contains(
                "\(path): error: this is a FIFO (named pipe), not a file: seedkit reads \(what) only from a regular file"
            ), "\(command): \(result)")
    }

    @Test func aLinkThatLeadsNowhereIsSaid() throws {
        let project = try TemporaryProject.withUserStore()
        try FileManager.default.createSymbolicLink(
            atPath: project.path("loop.sqlite"), withDestinationPath: "loop.sqlite")
        try FileManager.default.createSymbolicLink(
            atPath: project.path("gone.sqlite"), withDestinationPath: "missing.sqlite")
        for store in ["loop.sqlite", "gone.sqlite"] {
            let result = try project.seedkit("inspect", store)
            expectEqual(result.status, 2, "\(result)")
            expectEqual(
                result.stderr,
                "\(store): error: a symbolic link that leads to no file (dangling, or a loop): no store here [2100]\n",
                "\(result)")
        }
    }
}
