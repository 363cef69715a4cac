import Foundation
public import SeedRuntime

/// `seedkit export-migrations DIR` (docs/reference.md#commands): writes the migrations as the
/// `.json` and `.sql` files an app bundles, with the checksums of their `.yml` sources.
///
/// Everything is checked before the first file is written: the target is not the migrations
/// folder, no migration `migrate --dry-run` refuses is exported, and no migration file in the
/// target would be left that this export does not write.
///
/// ```swift
/// let report = try MigrationExport.run(migrations, into: "App/Migrations", from: "migrations") { nil }
/// report.written.map(\.path)   // ["App/Migrations/0001-add-fourth-book.json"]
/// ```
public enum MigrationExport {
    /// Writes each migration into `directory` (created if missing) and reports what it wrote.
    ///
    /// - Parameters:
    ///   - migrations: the project's migrations, in order.
    ///   - directory: the folder to write into, as the user named it (the report names files under it).
    ///   - folder: the migrations folder, as the user named it (an export into it is refused).
    ///   - manifest: loads the project's manifest, or returns nil when there is none; asked once
    ///     the target is known not to be the migrations folder.
    /// - Returns: the files written, in order, with their checksums.
    /// - Throws: ``SeedError``: configuration when `directory` is the migrations folder, a
    ///   migration is one `migrate` refuses, or the target holds a migration this export does not
    ///   write (nothing is written then); I/O when a folder or file cannot be written.
    public static func run(
        _ migrations: [Migration], into directory: String, from folder: String,
        manifest: () throws(SeedError) -> Manifest?
    ) throws(SeedError) -> ExportReport {
        let target = URL(fileURLWithPath: directory)
        let source = URL(fileURLWithPath: folder)
        if target.resolvingSymlinksInPath().standardizedFileURL.path
            == source.resolvingSymlinksInPath().standardizedFileURL.path
        {
            throw SeedError(
                .configuration, file: directory,
                "this is the migrations folder: a .json written beside each .yml would be a second migration with the same number; export into the app's resources folder instead"
            )
        }
        // What migrate --dry-run refuses (an unknown table or column, an update without from:) is not exported.
        if let manifest = try manifest() {
            try SeedBuilder(manifest: manifest, migrations: migrations).refuseMigrationsMigrateRefuses()
        }
        let files = try migrations.map { migration throws(SeedError) -> (name: String, text: String) in
            switch migration.body {
            case .sql(let sql): (migration.bundledFileName, sql)
            case .changes: (migration.bundledFileName, try BundledMigration.jsonText(of: migration))
            }
        }
        try refuseStaleMigrations(in: target, shown: directory, keeping: Set(files.map(\.name)))
        do { try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true) } catch {
            throw SeedError(.io, file: directory, "cannot create the folder: \(error.localizedDescription)")
        }
        // What killed exports left, removed once: listing the folder per file made 5,000 files O(n²).
        FileWriting.removeStale(in: target)
        var written: [ExportReport.Written] = []
        for (migration, (name, text)) in zip(migrations, files) {
            let file = target.appendingPathComponent(name)
            if let failure = FileWriting.replace(file, text, removingStale: false) {
                throw SeedError(.io, file: file.path, failure.description)
            }
            written.append(
                ExportReport.Written(
                    path: (directory as NSString).appendingPathComponent(name), checksum: migration.checksum))
        }
        return ExportReport(folder: directory, migrationsFolder: folder, written: written)
    }

    /// Refuses each migration file in the target that this export does not write, before anything is written.
    ///
    /// Such a file would ship in the app and be applied (a migration removed or renumbered since
    /// the last export); seedkit never deletes files.
    private static func refuseStaleMigrations(
        in target: URL, shown directory: String, keeping written: Set<String>
    ) throws(SeedError) {
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
