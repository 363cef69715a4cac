import ArgumentParser
import Foundation
import GRDB
import SeedRuntime
import SeedTooling

extension SeedTool {
    struct NewMigration: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new-migration",
            abstract:
                "Write the next numbered migration: a scaffold, or with --from the changes from an old seed to the fixtures.",
            discussion: """
                With --from, compares a seed a previous release shipped with a fresh build of the fixtures, by each table's \
                key: new keys become inserts (parents first), changed values updates with from/to, removed keys deletes \
                with from (children first); refs are written as natural keys. A row whose key changed is a rename (an \
                update of its key) when --rename names it, or when the fixtures give the table's INTEGER PRIMARY KEY and \
                both seeds agree on it; otherwise a delete plus an insert. Never overwrites a file.
                """)

        @Argument(help: "What the migration does, e.g. \"add fourth book\" (slugged into the file name).")
        var name: String
        @Option(name: .long, help: ArgumentHelp("The seed a previous release shipped.", valueName: "old-seed"))
        var from: String?
        @Option(
            name: .long,
            help: ArgumentHelp(
                "With --from: a row whose key changed is this row renamed, e.g. 'countries:Turkey=Türkiye' (composite keys: parts separated by commas; a part with a comma, '=' or '\"' in double quotes). Repeatable.",
                valueName: "table:old=new"))
        var rename: [String] = []
        @OptionGroup var project: ProjectOptions

        func validate() throws {
            if MigrationGenerator.slug(name).isEmpty {
                throw ValidationError("the name needs at least one letter or digit, like \"add fourth book\"")
            }
            if !rename.isEmpty && from == nil {
                throw ValidationError("--rename says how to read the changes since an old seed: use it with --from")
            }
        }

        func run() throws {
            try reporting(.human) {
                let workflow = ReleaseWorkflow(migrations: try project.loadMigrations(), folder: project.migrations)
                try workflow.requireNewFile(name: name)
                let hints = try rename.map { text throws(SeedError) in try RenameHint.parse(text) }
                let files: [ReleaseWorkflow.File]
                if let from {
                    var fresh: FreshBuild?
                    files = try workflow.changes(
                        name: name, from: from, manifest: { try project.loadManifest() }, renames: hints
                    ) { manifest in
                        let build = try FreshBuild(manifest: manifest, migrations: workflow.migrations)
                        fresh = build
                        return build.url
                    }
                    withExtendedLifetime(fresh) {}  // the fresh build is removed once compared
                    guard !files.isEmpty else {
                        print(workflow.nothingToMigrate(from: from))
                        return
                    }
                } else {
                    // Its examples are rows of the project's own tables (a manifest that does not load: the BookStore's).
                    files = workflow.scaffold(
                        name: name, manifest: project.hasManifest ? try? project.loadManifest() : nil)
                }
                try workflow.write(files)
                for file in files {
                    print("wrote \(workflow.shown(file.name)): \(file.summary)")
                    for pair in file.renamePairs { print("  rename \(pair)") }
                    for pair in file.likelyRenames { print("  likely rename \(pair)") }
                }
            }
        }
    }
}

/// A seed built from the current fixtures into a temporary file, removed when released.
final class FreshBuild {
    let url: URL
    /// Ctrl-C or SIGTERM while the fresh build exists removes it.
    private let interruption: Interruption

    /// - parameter progress: the build's progress (``SeedBuilder/progress``), for a command's bar.
    init(
        manifest: Manifest, migrations: [Migration],
        progress: (@Sendable (_ table: String, _ rows: Int, _ bytesRead: Int, _ fileSize: Int) -> Void)? = nil
    ) throws(SeedError) {
        url = ProcessTemporaryFile.url(temporary: "fresh")
        ProcessTemporaryFile.removeStale(temporary: "fresh")
        interruption = Interruption(cleaning: url, SeedBuilder.temporaryURL(for: url))
        var builder = SeedBuilder(manifest: manifest, migrations: migrations)
        builder.progress = progress
        do { _ = try builder.build(to: url) } catch let error
            where error.kind == .io
        {
            // SQLite's message names no file: say where the fresh build goes (a full or limited $TMPDIR).
            let folder = url.deletingLastPathComponent().path
            throw SeedError(
                error.kind,
                error.diagnostics.map { diagnostic in
                    var diagnostic = diagnostic
                    if diagnostic.file == nil {
                        diagnostic.file = url.path
                        diagnostic.message +=
                            " (a fresh build of the fixtures, in the temporary folder \(folder): set TMPDIR to use another)"
                    }
                    return diagnostic
                })
        }
    }

    deinit {
        interruption.stop()
        for suffix in ["", "-journal"] { unlink(url.path + suffix) }
    }
}
