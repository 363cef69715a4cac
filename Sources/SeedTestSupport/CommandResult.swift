import Foundation

/// What a process printed and how it exited.
public struct CommandResult: Sendable, CustomStringConvertible {
    /// The exit status, as docs/reference.md's exit codes give it (0: success).
    public var status: Int32
    /// Everything written to stdout.
    public var stdout: String
    /// Everything written to stderr.
    public var stderr: String

    /// The status and both streams, for a failed expectation's message.
    public var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }

    /// The lines the process wrote to stderr, without line ends (and without the empty one after the last).
    public var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
}

/// The seedkit binary under test: `$SEEDKIT_BIN`, or the debug build of this package.
public var seedkitBinary: URL {
    if let path = ProcessInfo.processInfo.environment["SEEDKIT_BIN"] { return URL(fileURLWithPath: path) }
    var root = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { root.deleteLastPathComponent() }
    return root.appendingPathComponent(".build/debug/seedkit")
}

/// Runs `seedkit` and waits for it.
public func runSeedkit(
    _ arguments: [String], in directory: URL, stdin: String? = nil, environment: [String: String] = [:]
) throws -> CommandResult {
    SeedkitRuns.note("process")
    return try run(seedkitBinary, arguments, in: directory, stdin: stdin, environment: environment)
}

/// Runs a program and waits for it, collecting its output.
public func run(
    _ executable: URL, _ arguments: [String], in directory: URL, stdin: String? = nil,
    environment: [String: String] = [:]
) throws -> CommandResult {
    signal(SIGPIPE, SIG_IGN)  // a process that exits before reading its stdin must not kill the tests
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.currentDirectoryURL = directory
    var env = ProcessInfo.processInfo.environment
    env["SWIFT_BACKTRACE"] = "enable=no"
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try? input.fileHandleForWriting.close()
    // Read both pipes before waiting, so a chatty process can't block on a full pipe.
    let group = DispatchGroup()
    nonisolated(unsafe) var errData = Data()
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return CommandResult(
        status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self))
}
