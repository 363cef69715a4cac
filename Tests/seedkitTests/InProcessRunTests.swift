import Foundation
import GRDB
import SeedTestSupport
import Testing

/// Most CLI tests run seedkit's commands in this process (`project.seedkit`), each on a thread
/// with its own working directory and output; these check that such a run is the binary's run:
/// the same bytes, the same status, nothing shared with the runs beside it.
@Suite struct InProcessRunTests {
    /// Commands with every kind of ending: success, data errors, usage errors, a refused store.
    static let commands: [[String]] = [
        ["build"],
        ["build", "--check"],
        ["migrate", "user.sqlite", "--dry-run"],
        ["migrate", "user.sqlite"],
        ["status", "user.sqlite", "--format", "json"],
        ["inspect", "user.sqlite", "books", "--format", "csv"],
        ["diff", "build/seed.sqlite", "user.sqlite", "--format", "markdown"],
        ["verify", "user.sqlite"],
        ["new-migration", "again"],
        ["check-upgrade", "user.sqlite"],
        ["diff", "only-one.sqlite"],
        ["migrate", "-dash.sqlite"],
        ["inspect", "text.sqlite"],
        ["build", "--format", "nope"],
        ["--version"],
        ["migrate", "--help"],
    ]

    @Test func aRunInProcessPrintsAndEndsAsTheBinaryDoes() throws {
        let inProcess = try TemporaryProject.withUserStore()
        let binary = try TemporaryProject.withUserStore()
        for project in [inProcess, binary] { try project.write("text.sqlite", "this is not a database\n") }
        for arguments in Self.commands {
            let expected = try binary.seedkitProcess(arguments)
            let result = try #require(runSeedkitInProcess(arguments, in: inProcess.root), "\(arguments) ran in-process")
            expectEqual(result.status, expected.status, "\(arguments): \(result) / binary: \(expected)")
            expectEqual(timeless(result.stdout), timeless(expected.stdout), "\(arguments)")
            expectEqual(timeless(result.stderr), timeless(expected.stderr), "\(arguments)")
        }
        // The ledger's applied_at is the clock's second: two runs may straddle one. Set aside, every byte agrees.
        for project in [inProcess, binary] {
            try project.database("user.sqlite").write { db in
                try db.execute(sql: "UPDATE _seedkit_migrations SET applied_at = NULL")
            }
        }
        for file in ["build/seed.sqlite", "user.sqlite"] {
            expectEqual(inProcess.sha256(file), binary.sha256(file), "\(file) is written as the binary writes it")
        }
        expectEqual(inProcess.listing("migrations"), binary.listing("migrations"))
        expectEqual(inProcess.listing("."), binary.listing("."))
    }

    /// Eight builds at once, each in its own folder named by relative paths: each prints its own
    /// report, writes its own seed, and `build --check` (a temporary seed in `$TMPDIR`) meets no other.
    @Test func runsAtOnceKeepTheirFoldersOutputAndTemporaryFilesApart() throws {
        let projects = try (0..<8).map { _ in try TemporaryProject() }
        for (index, project) in projects.enumerated() {
            try project.write("seeds/data/categories.csv", "name\nFiction\nBiography\nShelf \(index)\n")
        }
        let directory = FileManager.default.currentDirectoryPath
        let builds = Results()
        DispatchQueue.concurrentPerform(iterations: projects.count) { index in
            builds.set(index, runSeedkitInProcess(["build"], in: projects[index].root))
        }
        let checks = Results()
        DispatchQueue.concurrentPerform(iterations: projects.count) { index in
            checks.set(index, runSeedkitInProcess(["build", "--check"], in: projects[index].root))
        }
        expectEqual(FileManager.default.currentDirectoryPath, directory, "the test process stays where it was")
        for (index, project) in projects.enumerated() {
            let build = try #require(builds.get(index))
            expectEqual(build.status, 0, "\(build)")
            #expect(build.stdout.hasPrefix("built build/seed.sqlite: "), "\(build)")
            expectEqual(build.stderr, "", "\(build)")
            let shelves = try project.database("build/seed.sqlite").read { db in
                try String.fetchAll(db, sql: "SELECT name FROM categories WHERE name LIKE 'Shelf %'")
            }
            expectEqual(shelves, ["Shelf \(index)"])
            let check = try #require(checks.get(index))
            expectEqual(check.status, 0, "\(check)")
            expectEqual(check.stdout, "build/seed.sqlite is up to date\n", "\(check)")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter {
            $0.hasPrefix("seedkit-check-\(getpid())")
        }
        expectEqual(leftovers, [])
    }

    /// `--absolute-paths` is the run's: the next run names files from its folder again.
    @Test func anOptionOfOneRunIsNotTheNextRuns() throws {
        let project = try TemporaryProject()
        try project.write("seeds/data/books.csv", "title,price,category_id\nThe first book,-10,Fiction\n")
        let absolute = try #require(runSeedkitInProcess(["build", "--absolute-paths"], in: project.root))
        #expect(absolute.stderr.hasPrefix(project.path("seeds/data/books.csv") + ":2:2:"), "\(absolute)")
        let relative = try #require(runSeedkitInProcess(["build"], in: project.root))
        expectEqual(
            relative.stderr, "seeds/data/books.csv:2:2: error: price -10 is less than the minimum 0 [1620]\n",
            "\(relative)")
    }
}

/// `text` with the durations it reports (`0.06 s`) as `… s`: the one thing two runs may print differently.
///
/// Durations and the clock's timestamps (status prints when each migration was applied) set aside.
private func timeless(_ text: String) -> String {
    text.replacingOccurrences(of: "[0-9]+\\.[0-9]+ s\\b", with: "… s", options: .regularExpression)
        .replacingOccurrences(
            of: "[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}Z?", with: "<time>",
            options: .regularExpression)
}

/// The results of runs made at once, by index.
private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Int: CommandResult] = [:]

    func set(_ index: Int, _ result: CommandResult?) { lock.withLock { results[index] = result } }
    func get(_ index: Int) -> CommandResult? { lock.withLock { results[index] } }
}
