import Foundation
import PackagePlugin

/// Builds a target's seed and exports its migrations at build time, as resources of the
/// target (`Bundle.module`): `seed.sqlite` and `NNNN-name.json` (SwiftPM copies resources flat
/// into the bundle; `MigrationDirectory.load(bundle:)` picks the migrations out).
///
/// A target opts in by having `seeds/seedkit.yml` in its folder, and must then have a
/// `migrations/` folder too, empty while it has no migrations: both commands are always given
/// `--migrations` with that folder, and a folder named so that does not exist is a
/// configuration error (exit 2) that fails the build. Exclude both from the target's sources.
/// The commands re-run only when a file under `seeds/` or `migrations/` changes; errors print
/// as `file:line:col: error: …` with absolute paths, which editors and Xcode show as diagnostics.
@main
struct SeedkitPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let directory = target.directoryURL
        let manifest = directory.appending(path: "seeds/seedkit.yml")
        guard FileManager.default.fileExists(atPath: manifest.path) else { return [] }
        let seedkit = try context.tool(named: "seedkit").url
        let migrations = directory.appending(path: "migrations")
        let output = context.pluginWorkDirectoryURL
        let seed = output.appending(path: "seed.sqlite")
        let exported = output.appending(path: "migrations")  // flattened into the bundle
        let inputs = files(under: directory.appending(path: "seeds")) + files(under: migrations)
        let exportedFiles = files(under: migrations).compactMap { file in
            Self.bundledExtension[file.pathExtension.lowercased()].map { ext in
                exported.appending(path: file.deletingPathExtension().lastPathComponent + "." + ext)
            }
        }
        return [
            .buildCommand(
                displayName: "seedkit build \(target.name)",
                executable: seedkit,
                arguments: [
                    "build", "--manifest", manifest.path, "--migrations", migrations.path, "--output", seed.path,
                    "--absolute-paths",
                ],
                inputFiles: inputs, outputFiles: [seed]),
            .buildCommand(
                displayName: "seedkit export-migrations \(target.name)",
                executable: seedkit,
                arguments: [
                    "export-migrations", exported.path, "--manifest", manifest.path, "--migrations", migrations.path,
                    "--absolute-paths",
                ],
                inputFiles: inputs, outputFiles: exportedFiles),
        ]
    }

    /// The extension of each migration file the command exports, and that of the file it writes.
    ///
    /// A plugin cannot import the modules: this is `MigrationGrammar.FileFormat` spelled out, and
    /// MigrationGrammarTests fails when the two differ.
    static let bundledExtension = ["yml": "json", "yaml": "json", "json": "json", "sql": "sql"]

    /// Every file under `directory`, sorted; none when it does not exist.
    private func files(under directory: URL) -> [URL] {
        guard
            let enumerator = FileManager.default.enumerator(
                at: directory, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        return enumerator.compactMap { $0 as? URL }
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            .sorted { $0.path < $1.path }
    }
}
