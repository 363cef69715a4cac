import ArgumentParser
import Foundation
import GRDB
import SeedRuntime
import SeedTooling

/// Where the project's manifest and migrations are.
struct ProjectOptions: ParsableArguments {
    @Option(
        name: .customLong("manifest"),
        help: ArgumentHelp("The manifest (default: seeds/seedkit.yml).", valueName: "path"))
    var manifestOption: String?

    /// The manifest's path as given (or the default).
    var manifest: String { manifestOption ?? ManifestPath.defaultPath }

    @Option(
        name: .customLong("migrations"),
        help: ArgumentHelp(
            "The migrations directory (default: migrations), or `none` for no migrations.", valueName: "dir"))
    var migrationsOption: String?

    /// The migrations directory as given (or the default).
    var migrations: String { migrationsOption ?? "migrations" }

    @Flag(
        name: .long,
        help: "Name files by absolute path in messages, for editors and build tools (SeedkitPlugin passes it).")
    var absolutePaths = false

    func validate() throws {
        if absolutePaths { PathDisplay.absolute = true }
        try ManifestPath.requireNamed(manifestOption)
    }

    func loadManifest() throws(SeedError) -> Manifest { try Manifest.load(path: manifest) }

    /// The project's migrations, as ``MigrationDirectory/project(_:relativeTo:defaultMayBeMissing:deferringLargeJSON:)``
    /// reads `--migrations` (`defaultMayBeMissing`: `build`, `new-migration`, `check-upgrade`).
    func loadMigrations(defaultMayBeMissing: Bool = true, deferringLargeJSON: Bool = false) throws(SeedError)
        -> [Migration]
    {
        try MigrationDirectory.project(
            migrationsOption, defaultMayBeMissing: defaultMayBeMissing, deferringLargeJSON: deferringLargeJSON)
    }

    /// Whether a manifest exists where --manifest points (commands that can work without one).
    var hasManifest: Bool { manifestOption != ManifestPath.none && FileManager.default.fileExists(atPath: manifest) }
}

/// `--manifest PATH`: the default may be absent (commands that can work without a manifest then
/// do), `none` says there is none, and any other path named must be there (docs/reference.md).
enum ManifestPath {
    static let defaultPath = "seeds/seedkit.yml"
    /// `--manifest none`: no manifest, on purpose.
    static let none = "none"

    /// Exit 2, before anything runs, when `--manifest` names a file that is not there: a typo in
    /// a CI script must not turn off the rules, refs by key and typo checks without a word.
    static func requireNamed(_ given: String?) throws {
        guard let given, given != none, !FileManager.default.fileExists(atPath: given) else { return }
        let shown = PathDisplay.absolute ? URL(fileURLWithPath: given).standardizedFileURL.path : given
        Output.diagnostics(
            SeedError(
                .configuration, file: shown,
                "no such manifest: --manifest names a file that is not there (check the path; --manifest none for no manifest)"
            ).diagnostics, format: .human)
        throw ExitCode(2)
    }
}

/// Runs a command body, printing a ``SeedError`` in the chosen format and exiting with its code.
///
/// With `store`, every error is said about that store (``SeedError/about(store:)``): a
/// diagnostic without a file, and every refusal, is put on it; SQLite's errors name it.
func reporting<T>(_ format: OutputFormat, store: String? = nil, _ body: () throws -> T) throws -> T {
    do {
        do { return try body() } catch let error as SeedError where store != nil {
            throw error.about(store: store ?? "")
        } catch let error as DatabaseError where store != nil { throw SeedError(databaseError: error, file: store) }
    } catch let error as SeedError {
        let error = FileSizeLimit.explain(error)
        Output.diagnostics(error.diagnostics, format: format)
        throw ExitCode(error.exitCode)
    }
}

enum Output {
    /// Writes to stderr, ignoring failures (a full or closed stderr must not crash seedkit).
    ///
    /// What is written is for people: a control character in it (from a store's name or value, a
    /// file name) is escaped, so that nothing a store holds can act on the terminal.
    static func standardError(_ text: String) {
        standardError(raw: text.escapingControls(keepingNewlines: true))
    }

    /// Writes `text` to stderr as is: only for seedkit's own terminal control (the build's progress line).
    ///
    /// A run inside an ``Invocation`` (the tests') writes to it instead.
    static func standardError(raw text: String) {
        if let invocation = Invocation.current { return invocation.writeError(text) }
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                write(2, buffer.baseAddress?.advanced(by: offset), buffer.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// A `notice` for ``StoreAccess`` that prints `store: note: …` on stderr.
    static func notice(about store: String) -> (String) -> Void {
        { message in standardError("\(store): note: \(message)\n") }
    }

    /// Writes `text` to stdout (``StandardOutput``), or to the ``Invocation`` the run is part of.
    static func standardOutput(_ text: String) {
        if let invocation = Invocation.current { return invocation.writeOutput(text) }
        StandardOutput.shared.write(text)
    }

    /// What a command did that stays done even if its report is lost (`user.sqlite: 1 migration applied`).
    static var completedWork: String? {
        get {
            if let invocation = Invocation.current { return invocation.completedWork }
            return processCompletedWork
        }
        set {
            if let invocation = Invocation.current {
                invocation.completedWork = newValue
            } else {
                processCompletedWork = newValue
            }
        }
    }
    nonisolated(unsafe) private static var processCompletedWork: String?

    /// Before anything runs: a closed stdout is refused (every command reports there, so the
    /// work would go unreported), and a closed stdin or stderr is pointed at /dev/null so that
    /// no file seedkit opens takes its number and receives its text.
    static func prepareStandardStreams() {
        for descriptor: Int32 in [0, 2] where fcntl(descriptor, F_GETFD) == -1 {
            let opened = open("/dev/null", O_RDWR)
            if opened >= 0 && opened != descriptor {
                dup2(opened, descriptor)
                close(opened)
            }
        }
        if fcntl(1, F_GETFD) == -1 {
            standardError(
                "seedkit: standard output is closed; nothing was done (seedkit reports on stdout: redirect it to a file or /dev/null) [\(DiagnosticCode.ioFailure.rawValue)]\n"
            )
            exit(4)
        }
    }

    /// Flushes stdout; nil when everything written reached it, else the exit status: 4, after
    /// saying so on stderr, or — when the reader went away (EPIPE) from a command that changed
    /// nothing (`seedkit inspect … | head`) — 141 in silence, as for a process SIGPIPE ends: the
    /// reader stopped reading on purpose, and nothing was done that the lost lines would report.
    static func flushStandardOutput() -> Int32? {
        guard Invocation.current == nil else { return nil }  // its output is in memory
        guard let error = StandardOutput.shared.finish() else { return nil }
        if error == EPIPE && completedWork == nil { return 128 + SIGPIPE }
        let reason = String(cString: strerror(error)) + (completedWork.map { " (\($0) all the same)" } ?? "")
        standardError(
            "seedkit: cannot write the output: \(reason); what was printed is incomplete [\(DiagnosticCode.ioFailure.rawValue)]\n"
        )
        return 4
    }

    /// How wide help and usage are wrapped: nil, for ArgumentParser to ask the terminal (or
    /// `COLUMNS`); inside an ``Invocation``, whose output goes to memory, what a pipe gets
    /// (`COLUMNS`, else 80), not the width of the terminal the tests happen to run in.
    static var columns: Int? {
        guard Invocation.current != nil else { return nil }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap { Int($0) } ?? 80
    }

    /// Never for a run inside an ``Invocation``: its output goes to memory, as to a pipe.
    static var stderrIsTerminal: Bool { Invocation.current == nil && isatty(2) == 1 }
    static var stdoutIsTerminal: Bool { Invocation.current == nil && isatty(1) == 1 }
}

/// `--manifest PATH` for commands that read stores and use a manifest when there is one.
struct OptionalManifestOption: ParsableArguments {
    @Option(
        name: .customLong("manifest"),
        help: ArgumentHelp(
            "The manifest whose keys, refs, rules and model apply (default: seeds/seedkit.yml when present; none for none).",
            valueName: "path"))
    var manifestOption: String?

    /// The manifest's path as given (or the default).
    var manifest: String { manifestOption ?? ManifestPath.defaultPath }

    func validate() throws {
        try ManifestPath.requireNamed(manifestOption)
    }

    /// The manifest, or nil when the default one is not there or `--manifest none` is given.
    ///
    /// A file that is there must be valid; a file named that is not there was refused by
    /// ``validate()``.
    func load() throws(SeedError) -> Manifest? {
        guard manifestOption != ManifestPath.none, FileManager.default.fileExists(atPath: manifest) else { return nil }
        return try Manifest.load(path: manifest)
    }
}

/// Everything the CLI prints to stdout, buffered and written with `write(2)`, so that a failed
/// write (a full disk, `/dev/full`, a closed descriptor) is known and reported, not lost.
final class StandardOutput: @unchecked Sendable {
    static let shared = StandardOutput()
    private let lock = NSLock()
    private var buffer: [UInt8] = []
    /// The errno of the first failed write; nothing more is written after it.
    private var failure: Int32?

    func write(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { drain() }
    }

    /// Writes what is buffered; returns the errno of the first failed write, if any.
    func finish() -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        drain()
        return failure
    }

    private func drain() {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard failure == nil else { return }
        var offset = 0
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes { bytes in
                Foundation.write(1, bytes.baseAddress?.advanced(by: offset), bytes.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                failure = written < 0 ? errno : EIO
                return
            }
            offset += written
        }
    }
}

/// The CLI's `print`: to ``Output/standardOutput(_:)`` (shadows `Swift.print` in this module).
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    Output.standardOutput(items.map { "\($0)" }.joined(separator: separator) + terminator)
}
