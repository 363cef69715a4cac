import ArgumentParser
import Foundation
import SeedRuntime
import SeedTooling

extension SeedTool {
    struct Build: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate the fixtures and compile them into a seed SQLite file.",
            discussion:
                "Reports every error at once and writes nothing unless all is valid; the output is replaced atomically and is byte-identical for identical inputs."
        )

        @OptionGroup var project: ProjectOptions
        @Option(
            name: .long,
            help: ArgumentHelp("Where to write the seed (default: the manifest's output).", valueName: "path"))
        var output: String?
        @Flag(
            name: .long,
            help: "Build in a temporary file and exit 1 if the output is missing or stale; never writes the output.")
        var check = false
        @Flag(
            name: .long,
            help:
                "Fill a Core Data template that tracks persistent history without history entries (by default the build is recorded as one transaction by the author seedkit)."
        )
        var withoutHistory = false
        @Flag(
            name: .long,
            help:
                "Write history into a template mirrored to CloudKit (ANSCK… tables), refused by default: every device would export the seed's rows."
        )
        var allowCloudkit = false
        @Flag(
            name: .long,
            help:
                "Skip reading the seed back: by default every loaded table is read back through SQLite and compared with the fixtures, and a difference fails the build (exit 4)."
        )
        var withoutReadBack = false
        @OptionGroup var format: FormatOption<BuildReport>

        func run() throws {
            try reporting(format.format) {
                let manifest = try project.loadManifest()
                // The migrations are read on another thread while the build reads the fixtures;
                // what reading them throws comes first, as when they were read before.
                let project = project
                let setup = try SeedBuilder.command(
                    manifest: manifest, output: output,
                    // The history transaction's time: SOURCE_DATE_EPOCH (reproducible builds) when set.
                    sourceDateEpoch: ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"],
                    allowsMissingHistory: withoutHistory, allowsCloudKit: allowCloudkit, readsBack: !withoutReadBack
                ) { () throws(SeedError) in try project.loadMigrations() }
                var builder = setup.builder
                let target = setup.target
                let shownTarget = output ?? target.relativePathFromCurrentDirectory
                if check {
                    let interruption = Interruption(cleaning: SeedBuilder.checkURL)
                    defer { interruption.stop() }
                    let fresh: Bool
                    do { fresh = try builder.isUpToDate(target) } catch {
                        _ = try builder.readMigrations()  // their error as it is
                        throw SeedBuilder.unwritten(error, output: shownTarget, check: true)
                    }
                    Output.render(BuildReport(output: shownTarget, .checked(upToDate: fresh)), format.format)
                    if !fresh { throw ExitCode(1) }
                    return
                }
                let interruption = Interruption(cleaning: SeedBuilder.temporaryURL(for: target))
                defer { interruption.stop() }
                let bar = ProgressBar(enabled: Output.stderrIsTerminal && format.format == .human)
                builder.progress = { table, rows, read, size in
                    bar.update(table: table, rows: rows, read: read, size: size)
                }
                let summary: SeedBuilder.Summary
                do { summary = try builder.build(to: target) } catch {
                    _ = try builder.readMigrations()  // their error as it is
                    throw SeedBuilder.unwritten(error, output: shownTarget, check: false)
                }
                let migrations = try builder.readMigrations()
                Output.completedWork = "built \(shownTarget)"
                bar.finish()
                Output.render(
                    BuildReport(output: shownTarget, .built(summary, migrations: migrations.map(\.id))), format.format)
            }
        }
    }
}

/// A one-line progress bar on stderr, drawn at most ten times a second, only for builds longer than half a second.
final class ProgressBar: @unchecked Sendable {
    private let enabled: Bool
    private let start = Date()
    private var last = Date.distantPast
    private var drawn = false

    init(enabled: Bool) { self.enabled = enabled }

    func update(table: String, rows: Int, read: Int, size: Int) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(start) > 0.5, now.timeIntervalSince(last) > 0.1 else { return }
        last = now
        let fraction = size > 0 ? min(1, Double(read) / Double(size)) : 0
        let filled = Int(fraction * 30)
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: 30 - filled)
        Output.standardError(
            raw: "\r\u{1B}[2K\(bar) \(Int(fraction * 100))% \(table.escapingControls()): \(rows.grouped) rows")
        drawn = true
    }

    func finish() {
        if drawn { Output.standardError(raw: "\r\u{1B}[2K") }
    }
}

extension URL {
    var relativePathFromCurrentDirectory: String {
        let path = standardizedFileURL.path
        let current = FileManager.default.currentDirectoryPath
        return path.hasPrefix(current + "/") ? String(path.dropFirst(current.count + 1)) : path
    }
}
