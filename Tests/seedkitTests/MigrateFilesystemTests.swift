import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// A small tmpfs of its own, so a test can fill it up or make it read-only.
///
/// Needs root (CI and the development machines run as root); where mounting is impossible the tests
/// say so.
private final class SmallFilesystem {
    let url: URL

    init?(kilobytes: Int) {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("seedkit-fs-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        guard Self.run(["mount", "-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", url.path]) else {
            try? FileManager.default.removeItem(at: url)
            return nil
        }
    }

    func remountReadOnly() -> Bool { Self.run(["mount", "-o", "remount,ro", url.path]) }

    deinit {
        _ = Self.run(["umount", url.path])
        try? FileManager.default.removeItem(at: url)
    }

    static func run(_ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    static let available: Bool = SmallFilesystem(kilobytes: 64) != nil
}

/// The tests below are skipped where no tmpfs can be mounted, and that skip is never silent: it is
/// printed, and it fails the run when `SEEDKIT_EXPECTED_SKIPS` is set and does not list `tmpfs`
/// (CI sets it, empty, in .ci/run: there every test must run).
@Suite struct MigrateFilesystemSkipTests {
    @Test func theFilesystemTestsRunUnlessTheirSkipIsExpected() {
        guard !SmallFilesystem.available else { return }
        let message = "MigrateFilesystemTests skipped: cannot mount a tmpfs (needs root and CAP_SYS_ADMIN)"
        FileHandle.standardError.write(Data(("seedkit tests: " + message + "\n").utf8))
        if let expected = ProcessInfo.processInfo.environment["SEEDKIT_EXPECTED_SKIPS"],
            !expected.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }).contains("tmpfs")
        {
            Issue.record("\(message), and SEEDKIT_EXPECTED_SKIPS ('\(expected)') does not list tmpfs")
        }
    }
}

@Suite(.serialized, .enabled(if: SmallFilesystem.available, "needs to mount a tmpfs (root)"))
struct MigrateFilesystemTests {
    @Test func aFullDiskFailsCleanlyAndLeavesTheStoreAsItWas() throws {
        let project = try TemporaryProject.withUserStore()
        let filesystem = try #require(SmallFilesystem(kilobytes: 160))
        let store = filesystem.url.appendingPathComponent("user.sqlite")
        try FileManager.default.copyItem(atPath: project.path("user.sqlite"), toPath: store.path)
        let before = try #require(FileManager.default.contents(atPath: store.path))
        var rows = "insert:\n  books:\n"
        for index in 0..<300 {
            rows +=
                "    - { title: \"\(String(repeating: "long title ", count: 150)) \(index)\", price: 1, category_id: Fiction }\n"
        }
        try project.write("migrations/0002-too-big.yml", rows)
        let result = try project.seedkit("migrate", store.path)
        expectEqual(result.status, 4, "\(result)")
        #expect(result.stderr.contains("the disk is full"), "\(result)")
        #expect(result.stderr.contains("nothing was written"))
        expectEqual(FileManager.default.contents(atPath: store.path), before)
        try expectEqual(
            FileManager.default.contentsOfDirectory(atPath: filesystem.url.path), ["user.sqlite"],
            "no journal left behind")
    }

    @Test func aBackupOntoAFullDiskNamesTheCauseAndLeavesNothingThere() throws {
        let project = try TemporaryProject.withUserStore()
        try project.database("user.sqlite").write { db in
            for index in 0..<5_000 {
                try db.execute(
                    sql: "INSERT INTO books (title, price, category_id) VALUES (?, 1, 1)",
                    arguments: ["A book the user added, number \(index), with a long title"])
            }
        }
        let filesystem = try #require(SmallFilesystem(kilobytes: 128))
        let backup = filesystem.url.appendingPathComponent("copy.sqlite")
        let before = try #require(project.sha256("user.sqlite"))
        let result = try project.seedkit("migrate", "user.sqlite", "--backup", backup.path)
        expectEqual(result.status, 4, "\(result)")
        #expect(result.stderr.contains("cannot write the backup: the disk is full"), "\(result)")
        #expect(result.stderr.contains("SQLITE_FULL"), "\(result)")
        #expect(result.stderr.contains("the store was not migrated"), "\(result)")
        #expect(!result.stderr.contains("not an error"), "\(result)")
        expectEqual(project.sha256("user.sqlite"), before)
        try expectEqual(
            FileManager.default.contentsOfDirectory(atPath: filesystem.url.path), [],
            "no temporary file or journal left behind")
    }

    @Test func aFullTemporaryFolderNamesItselfAndIsLeftEmpty() throws {
        let project = try TemporaryProject()
        var books = "title,price,category_id\n"
        for index in 0..<5_000 { books += "Book number \(index) of a long series of books,\(index % 900),Fiction\n" }
        try project.write("seeds/data/books.csv", books)
        try expectEqual(project.seedkit("build", "--output", "old.sqlite").status, 0)
        let filesystem = try #require(SmallFilesystem(kilobytes: 128))
        for arguments in [["check-upgrade", "old.sqlite"], ["build", "--check"]] {
            let result = try runSeedkit(arguments, in: project.root, environment: ["TMPDIR": filesystem.url.path])
            expectEqual(result.status, 4, "\(arguments): \(result)")
            #expect(result.stderr.contains("the disk is full"), "\(arguments): \(result)")
            if arguments[0] == "check-upgrade" {
                #expect(
                    result.stderr.contains("in the temporary folder \(filesystem.url.path): set TMPDIR to use another"),
                    "\(result)")
            }
            try expectEqual(
                FileManager.default.contentsOfDirectory(atPath: filesystem.url.path), [],
                "\(arguments) left files behind")
        }
    }

    @Test func aReadOnlyStoreFailsCleanlyAndIsNotChanged() throws {
        let project = try TemporaryProject.withUserStore()
        let filesystem = try #require(SmallFilesystem(kilobytes: 512))
        let store = filesystem.url.appendingPathComponent("user.sqlite")
        try FileManager.default.copyItem(atPath: project.path("user.sqlite"), toPath: store.path)
        let before = try #require(FileManager.default.contents(atPath: store.path))
        #expect(filesystem.remountReadOnly())
        let result = try project.seedkit("migrate", store.path)
        expectEqual(result.status, 4, "\(result)")
        #expect(result.stderr.contains("read-only"), "\(result)")
        expectEqual(FileManager.default.contents(atPath: store.path), before)
        // Reading still works on a read-only store.
        #expect(try project.seedkit("status", store.path).stdout.contains("pending"))
    }
}
