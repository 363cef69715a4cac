import Foundation
import SeedRuntime

/// The migration an app would load from a folder holding one file, `fileName` with `json`
/// (`MigrationDirectory.load`, as the runtime reads it). The folder is removed again.
public func loadMigration(json: String, fileName: String) throws -> Migration {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seedkit-migration-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try Data(json.utf8).write(to: directory.appendingPathComponent(fileName))
    guard let migration = try MigrationDirectory.load(directory).first else {
        throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "\(fileName) loaded no migration"])
    }
    return migration
}
