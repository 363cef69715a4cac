import Foundation
import SeedRuntime

/// A declarative migration as an app bundles it: the `.json` file `seedkit export-migrations`
/// (and the build plugin) writes, whose checksum is its `.yml`'s.
package enum BundledMigration {
    /// The text of the bundled `.json` file: the migration file's document as canonical JSON,
    /// exactly the text its checksum is computed over.
    package static func jsonText(of migration: Migration) throws(SeedError) -> String {
        guard let data = FileManager.default.contents(atPath: migration.file),
            let text = String(data: data, encoding: .utf8)
        else {
            throw SeedError(.configuration, file: migration.file, "cannot read")
        }
        let document: DocNode
        let ext = (migration.file as NSString).pathExtension.lowercasedName
        if MigrationGrammar.FileFormat(extension: ext) == .json {
            do { document = try data.withUnsafeBytes { try JSONScanner.parseDocument($0) } } catch {
                throw SeedError(.configuration, file: migration.file, code: .parseError, "\(error)")
            }
        } else {
            document = try YAMLDocument.parse(text, file: migration.file)
        }
        return document.jsonText + "\n"
    }

    /// The SHA-256 (hex) of the bundled `.json` file's bytes, for a migration big enough that an
    /// app reads it while applying it (``DeferredJSONMigration/threshold``); nil for any other.
    ///
    /// A seed records it for the migrations it comes with, so that an app's launch finds the
    /// bundled bytes it knows and need not scan them
    /// (``MigrationLedger/recordFileDigest(number:sha256:in:)``).
    package static func digest(of migration: Migration) -> String? {
        guard case .changes = migration.body else { return nil }
        if let bundled = migration.bundledJSON {  // known from reading it (a YAML migration)
            return bundled.bytes >= DeferredJSONMigration.threshold ? bundled.sha256 : nil
        }
        guard
            let size = FileFacts.size(migration.file),
            size >= DeferredJSONMigration.threshold / 4,  // canonical JSON is not four times its source
            let text = try? jsonText(of: migration), text.utf8.count >= DeferredJSONMigration.threshold
        else { return nil }
        return SHA256.hex(text.utf8)
    }
}
