import Foundation
public import GRDB
import SeedRuntime

/// A seedkit project in a fresh temporary folder: `seeds/`, `migrations/`, `build/`.
///
/// Starts as the BookStore example; tests overwrite the files they care about.
public final class TemporaryProject: @unchecked Sendable {
    /// The project's folder, removed when the project is released.
    public let root: URL

    /// A fresh project folder with `seeds/data` and `migrations`; the BookStore's files unless
    /// `bookStore` is false.
    ///
    /// - Throws: a file system error when the folder cannot be made.
    public init(bookStore: Bool = true) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("seedkit-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("seeds/data"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("migrations"), withIntermediateDirectories: true)
        if bookStore {
            try write("seeds/seedkit.yml", BookStore.manifest)
            try write("seeds/schema.sql", BookStore.schema)
            try write("seeds/data/categories.csv", BookStore.categories)
            try write("seeds/data/books.csv", BookStore.books)
            try write("migrations/0001-add-fourth-book.yml", BookStore.fourthBook)
        }
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    /// The URL of `path`, relative to the project folder.
    public func url(_ path: String) -> URL { root.appendingPathComponent(path) }
    /// The file system path of `path`, relative to the project folder.
    public func path(_ path: String) -> String { url(path).path }

    /// Writes `text` to `path`, creating its folders.
    ///
    /// - Throws: a file system error when it cannot be written.
    public func write(_ path: String, _ text: String) throws {
        try write(path, Data(text.utf8))
    }

    /// Writes `data` to `path`, creating its folders.
    ///
    /// - Throws: a file system error when it cannot be written.
    public func write(_ path: String, _ data: Data) throws {
        let target = url(path)
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: target)
    }

    /// The bytes of `path`, or nil when there is no such file.
    public func read(_ path: String) -> Data? { FileManager.default.contents(atPath: self.path(path)) }

    /// The SHA-256 of a file of the project (hex), or nil when there is none: what tests compare before and after.
    public func sha256(_ path: String) -> String? { read(path).map { SHA256.hex($0) } }

    /// Whether `path` exists.
    public func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: self.path(path)) }

    /// Removes `path`, a file or a folder.
    ///
    /// - Throws: a file system error when it cannot be removed.
    public func remove(_ path: String) throws { try FileManager.default.removeItem(at: url(path)) }

    /// The names in a folder, sorted, dot files included.
    public func listing(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: self.path(path))) ?? []).sorted()
    }

    /// A BookStore project whose seed was built before any migration existed, copied to
    /// `user.sqlite`: the store an existing user has.
    ///
    /// `build/seed.sqlite` is there too.
    public static func withUserStore() throws -> TemporaryProject {
        let project = try TemporaryProject()
        let seed = try userSeed.get()
        try project.write("build/seed.sqlite", seed)
        try project.write("user.sqlite", seed)
        return project
    }

    /// A BookStore project with release 1.0 (three books, no migrations) kept in seeds/releases.
    public static func withRelease() throws -> TemporaryProject {
        let project = try TemporaryProject()
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write("seeds/releases/1.0.sqlite", try releaseSeed.get())
        return project
    }

    /// The two seeds above, each built once per test process by the real CLI and then copied:
    /// `seedkit build` is deterministic (BuildCommandTests.identicalInputsGiveByteIdenticalSeeds),
    /// a hundred tests start from these seeds, and their build is not what those tests are about.
    private static let userSeed = Result {
        try buildSeed(["build", "--migrations", "none"], output: "build/seed.sqlite") { _ in }
    }
    private static let releaseSeed = Result {
        try buildSeed(["build", "--output", "seeds/releases/1.0.sqlite"], output: "seeds/releases/1.0.sqlite") {
            project in
            try project.remove("migrations/0001-add-fourth-book.yml")
        }
    }

    private static func buildSeed(_ arguments: [String], output: String, prepare: (TemporaryProject) throws -> Void)
        throws -> Data
    {
        let project = try TemporaryProject()
        try prepare(project)
        let build = try project.seedkit(arguments)
        guard build.status == 0, let seed = project.read(output) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(build)"])
        }
        return seed
    }

    /// Runs `seedkit` with `arguments` in the project folder: in this process
    /// (``runSeedkitInProcess(_:in:)``), unless only a process shows what the test is about
    /// (`stdin`, or an argument naming the process's own streams or descriptors), or
    /// `SEEDKIT_TEST_PROCESS=1` asks for the binary every time.
    @discardableResult
    public func seedkit(_ arguments: String..., stdin: String? = nil) throws -> CommandResult {
        try seedkit(arguments, stdin: stdin)
    }

    /// Runs `seedkit` with `arguments` built at run time (repeated options); see above.
    @discardableResult
    public func seedkit(_ arguments: [String], stdin: String? = nil) throws -> CommandResult {
        if stdin == nil, !SeedkitRuns.processOnly, !arguments.contains(where: SeedkitRuns.namesProcessState),
            let result = runSeedkitInProcess(arguments, in: root)
        {
            SeedkitRuns.note("in-process")
            return result
        }
        return try seedkitProcess(arguments, stdin: stdin)
    }

    /// Runs the seedkit binary with `arguments` in the project folder: for what only a process
    /// shows (its exit, its streams, signals, limits).
    @discardableResult
    public func seedkitProcess(_ arguments: String..., stdin: String? = nil) throws -> CommandResult {
        try seedkitProcess(arguments, stdin: stdin)
    }

    /// Runs the seedkit binary with `arguments` built at run time; see above.
    @discardableResult
    public func seedkitProcess(_ arguments: [String], stdin: String? = nil) throws -> CommandResult {
        try runSeedkit(arguments, in: root, stdin: stdin)
    }

    /// Opens a database of the project for checks.
    public func database(_ path: String) throws -> DatabaseQueue {
        try DatabaseQueue(path: self.path(path))
    }
}

/// The BookStore example (the repository's own seeds/ and migrations/), as files.
public enum BookStore {
    /// The BookStore's manifest: categories keyed by name, books by title with a ref to their
    /// category.
    public static let manifest = """
        schema: schema.sql
        output: ../build/seed.sqlite
        tables:
          categories:
            file: data/categories.csv
            key: name
            rules:
              name: { required: true, min_length: 1, max_length: 25 }
          books:
            file: data/books.csv
            key: title
            refs:
              category_id: categories.name
            rules:
              price: { min: 0, max: 1000 }

        """
    /// The BookStore's schema: `categories`, and `books` referring to a category.
    public static let schema = """
        CREATE TABLE categories (id INTEGER PRIMARY KEY, name VARCHAR(25) NOT NULL UNIQUE);
        CREATE TABLE books (
            id INTEGER PRIMARY KEY,
            title VARCHAR(100) NOT NULL UNIQUE,
            price REAL NOT NULL,
            category_id INTEGER NOT NULL REFERENCES categories(id)
        );

        """
    /// The categories fixture: Fiction and Biography.
    public static let categories = "name\nFiction\nBiography\n"
    /// The books fixture: three books.
    public static let books =
        "title,price,category_id\nThe first book,10,Fiction\nThe second book,15,Fiction\nThe third book,10,Biography\n"
    /// The BookStore's first migration: a fourth book.
    public static let fourthBook = """
        insert:
          books:
            - { title: The fourth book, price: 12, category_id: Biography }

        """
}
