import Foundation
import SeedTestSupport
import Testing

/// `build` replaces its output with a new file: an output that is one of its inputs, a link, a
/// folder or a device is refused (exit 2) and nothing changes (issue 14).
@Suite struct BuildOutputTests {
    @Test(arguments: [
        "seeds/schema.sql", "seeds/data/books.csv", "seeds/seedkit.yml", "migrations/0001-add-fourth-book.yml",
    ])
    func anOutputThatIsAnInputIsRefusedAndTheInputKept(input: String) throws {
        let project = try TemporaryProject()
        let before = try #require(project.sha256(input))
        let result = try project.seedkit("build", "--output", input)
        expectEqual(result.status, 2, "\(result)")
        #expect(result.stderr.contains("error: the output is one of the build's inputs ("), "\(result)")
        #expect(
            result.stderr.contains("building would replace it with a SQLite file: choose another --output"), "\(result)"
        )
        expectEqual(project.sha256(input), before, "the input is untouched")
        #expect(
            project.listing(URL(fileURLWithPath: input).deletingLastPathComponent().relativePath).filter {
                $0.hasSuffix(".tmp")
            }.isEmpty)
    }

    @Test func anOutputThatIsASymbolicLinkIsRefusedAndTheLinkKept() throws {
        let project = try TemporaryProject()
        try project.write("elsewhere/seed.sqlite", "not yet a seed")
        try FileManager.default.createDirectory(at: project.url("build"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: project.path("build/seed.sqlite"), withDestinationPath: project.path("elsewhere/seed.sqlite"))
        let result = try project.seedkit("build")
        expectEqual(result.status, 2, "\(result)")
        #expect(
            result.stderr.contains(
                "error: the output is a symbolic link (to \(project.path("elsewhere/seed.sqlite"))); name the file itself (a build replaces its output with a new file)"
            ), "\(result)")
        try expectEqual(
            FileManager.default.destinationOfSymbolicLink(atPath: project.path("build/seed.sqlite")),
            project.path("elsewhere/seed.sqlite"))
        expectEqual(project.read("elsewhere/seed.sqlite"), Data("not yet a seed".utf8))
    }

    @Test func anOutputThatIsAFolderOrADeviceIsRefused() throws {
        let project = try TemporaryProject()
        try FileManager.default.createDirectory(at: project.url("build/seed.sqlite"), withIntermediateDirectories: true)
        let folder = try project.seedkit("build")
        expectEqual(folder.status, 2, "\(folder)")
        #expect(folder.stderr.contains("error: the output is a folder; name a file in it"), "\(folder)")
        // A FIFO stands for special files (a device node is not tested: a regression would replace
        // a real /dev node with a regular file when the tests run as root, as the old build did).
        expectEqual(mkfifo(project.path("pipe"), 0o600), 0)
        let fifo = try project.seedkit("build", "--output", "pipe")
        expectEqual(fifo.status, 2, "\(fifo)")
        #expect(fifo.stderr.contains("pipe: error: the output is not a regular file; name a regular file"), "\(fifo)")
        var info = stat()
        #expect(
            lstat(project.path("pipe"), &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO, "the FIFO is still a FIFO")
    }

    @Test func anOrdinaryOutputIsStillReplaced() throws {
        let project = try TemporaryProject()
        // An earlier store (its header says SQLite); a file that is not one is refused (BuildReadBackTests, issue 41).
        try project.write("out/seed.sqlite", Data("SQLite format 3\0an earlier seed".utf8))
        let result = try project.seedkit("build", "--output", "out/seed.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(project.read("out/seed.sqlite")?.prefix(15) == Data("SQLite format 3".utf8))
    }
}
