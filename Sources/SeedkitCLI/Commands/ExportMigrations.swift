import ArgumentParser
import Foundation
import SeedRuntime
import SeedTooling

extension SeedTool {
    struct ExportMigrations: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export-migrations",
            abstract: "Write the migrations as .json and .sql files for an app bundle.",
            discussion: """
                The app runtime reads .json and .sql migrations (it has no YAML parser). A .json file written here \
                has the same checksum as its .yml, so stores migrated by the CLI and by the app agree.
                """)

        @Argument(help: "The folder to write into (created if missing).")
        var directory: String
        @OptionGroup var project: ProjectOptions

        func run() throws {
            try reporting(.human) {
                let migrations = try project.loadMigrations(defaultMayBeMissing: false)
                let target = URL(fileURLWithPath: directory)
                let source = URL(fileURLWithPath: project.migrations)
                if target.resolvingSymlinksInPath().standardizedFileURL.path
                    == source.resolvingSymlinksInPath().standardizedFileURL.path
                {
                    throw SeedError(
                        .configuration, file: directory,
                        "this is the migrations folder: a .json written beside each .yml would be a second migration with the same number; export into the app's resources folder instead"
                    )
                }
                // What migrate --dry-run refuses (an unknown table or column, an update without from:) is not exported.
                if FileManager.default.fileExists(atPath: project.manifest) {
                    try SeedBuilder(manifest: try project.loadManifest(), migrations: migrations)
                        .refuseMigrationsMigrateRefuses()
                }
                let files = try migrations.map { migration throws(SeedError) -> (name: String, text: String) in
                    switch migration.body {
                    case .sql(let sql): (migration.bundledFileName, sql)
                    case .changes: (migration.bundledFileName, try BundledMigration.jsonText(of: migration))
                    }
                }
                try refuseStaleMigrations(in: target, keeping: Set(files.map(\.name)))
                do { try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true) } catch {
                    throw SeedError(.io, file: directory, "cannot create the folder: \(error.localizedDescription)")
                }
                // What killed exports left, removed once: listing the folder per file made 5,000 files O(n²).
                FileWriting.removeStale(in: target)
                for (migration, (name, text)) in zip(migrations, files) {
                    let file = target.appendingPathComponent(name)
                    if let failure = FileWriting.replace(file, text, removingStale: false) {
                        throw SeedError(.io, file: file.path, failure.description)
                    }
                    print("wrote \((directory as NSString).appendingPathComponent(name))  \(migration.checksum)")
                }
                if migrations.isEmpty {
                    print("the folder \(project.migrations) has no migrations; nothing was written")
                }
            }
        }

        /// A migration file in the target that this export does not write would ship in the app and
        /// be applied (a migration removed or renumbered since the last export): refused, each
        /// named, before anything is written. seedkit never deletes files.
        private func refuseStaleMigrations(in target: URL, keeping written: Set<String>) throws(SeedError) {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: target.path) else { return }
            let stale = names.sorted().filter { name in
                !written.contains(name)
                    && Migration.parseFileName(name).map { Migration.fileExtensions.contains($0.ext) } == true
            }
            guard !stale.isEmpty else { return }
            throw SeedError(
                .configuration,
                stale.map { name in
                    Diagnostic(
                        file: (directory as NSString).appendingPathComponent(name), code: .configuration,
                        message:
                            "a migration this export does not write; an app would apply it: remove it (export-migrations never deletes files), nothing was written"
                    )
                })
        }
    }
}
