import Foundation
import SeedRuntime

/// The migration an app would load from a folder holding one file, `fileName` with `json`
/// (`MigrationDirectory.load`, as the runtime reads it).
///
/// The folder is removed again, unless the file is large enough to be read by the run that applies
/// it.
public func loadMigration(json: String, fileName: String) throws -> Migration {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "seedkit-migration-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try Data(json.utf8).write(to: directory.appendingPathComponent(fileName))
    guard let migration = try MigrationDirectory.load(directory).first else {
        try? FileManager.default.removeItem(at: directory)
        throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "\(fileName) loaded no migration"])
    }
    // A large JSON file is read by the run that applies it: it stays (in the temporary folder).
    if case .changes(let changes) = migration.body, changes.deferred != nil { return migration }
    try? FileManager.default.removeItem(at: directory)
    return migration
}
