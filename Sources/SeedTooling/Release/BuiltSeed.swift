import Foundation
import GRDB
public import SeedRuntime

/// A seed `seedkit build` wrote from this project: what `new-migration NAME --from OLD --to NEW`
/// compares the old seed with, instead of building the fixtures again (docs/reference.md,
/// "Commands").
///
/// What a seed says of itself is checked: seedkit's metadata (a content hash `build` writes), the
/// tables' keys, refs and defaults as the manifest gives them, and the migrations it was built
/// with, each by its checksum, as the migrations folder holds them. Fixtures edited since the
/// build cannot be told without building them; `build --check` tells that.
public enum BuiltSeed {
    /// Refuses `path` unless it is a seed `build` wrote from `manifest` and `migrations`.
    ///
    /// - Throws: ``SeedError``: configuration (exit 2) when there is no file; refused (exit 3)
    ///   when it is not a SQLite database, not a seed seedkit built, a store `migrate` wrote to, or
    ///   a seed built from another manifest or other migrations, each reason named.
    public static func require(_ path: String, manifest: Manifest, migrations: [Migration]) throws(SeedError) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw SeedError(
                .configuration, file: path,
                "no seed here: --to takes the seed `seedkit build` wrote from these fixtures (run `seedkit build` first)"
            )
        }
        let store = try StoreAccess.openReadOnly(path)
        defer { try? store.close() }
        let problems: [String]
        do {
            problems = try store.read { db in try findings(db, manifest: manifest, migrations: migrations) }
        } catch let error as SeedError { throw error.about(store: path) } catch {
            throw SeedError(databaseError: error, file: path)
        }
        guard problems.isEmpty else {
            throw SeedError(
                .refused,
                problems.map { Diagnostic(file: path, code: .storeRefused, message: $0 + rebuild) })
        }
    }

    private static let rebuild =
        "; --to takes the seed `seedkit build` wrote from this project, built again after any change"

    /// Why the store `db` is not a seed `build` wrote from `manifest` and `migrations`; empty when it is one.
    static func findings(_ db: Database, manifest: Manifest, migrations: [Migration]) throws -> [String] {
        let meta = try SeedCatalog.meta(db)
        guard meta["content_hash"] != nil, let specs = try SeedCatalog.tableSpecs(db) else {
            return ["not a seed seedkit built: it has no content hash in \(SeedCatalog.metaTable)"]
        }
        var problems: [String] = []
        let wanted = manifest.specs
        for spec in wanted where !specs.contains(where: { $0.name == spec.name }) {
            problems.append("built from another manifest: it has no table \(spec.name), which the manifest lists")
        }
        for spec in specs {
            guard let expected = wanted.first(where: { $0.name == spec.name }) else {
                problems.append("built from another manifest: its table \(spec.name) is not in the manifest")
                continue
            }
            if spec.key != expected.key || spec.refs != expected.refs {
                problems.append(
                    "built from another manifest: table \(spec.name) has key \(describe(spec)), the manifest gives \(describe(expected))"
                )
            } else if spec.defaults.mapValues(\.sqlLiteral) != expected.defaults.mapValues(\.sqlLiteral) {
                problems.append("built from another model: table \(spec.name)'s defaults are not the model's")
            }
        }
        let ledger = try MigrationLedger.entries(db)
        if let applied = ledger.first(where: { $0.origin == .applied }) {
            problems.append(
                "a store `migrate` wrote to (it applied \(applied.id)), not a seed `build` wrote")
            return problems
        }
        let built = ledger.map { "\($0.id) \($0.checksum)" }
        let folder = migrations.map { "\($0.id) \($0.checksum)" }
        if built != folder {
            let missing = migrations.filter { migration in
                !ledger.contains { $0.number == migration.number && $0.checksum == migration.checksum }
            }
            let extra = ledger.filter { entry in
                !migrations.contains { $0.number == entry.number && $0.checksum == entry.checksum }
            }
            var parts: [String] = []
            if !missing.isEmpty {
                parts.append("built without " + missing.map(\.id).joined(separator: ", ") + " as the folder holds it")
            }
            if !extra.isEmpty {
                parts.append(
                    "built with " + extra.map(\.id).joined(separator: ", ") + " as the folder does not hold it")
            }
            problems.append("built with other migrations: " + parts.joined(separator: "; "))
        }
        return problems
    }

    /// `(isbn) refs { category_id: categories.name }`.
    private static func describe(_ spec: TableSpec) -> String {
        let key = "(" + spec.key.joined(separator: ", ") + ")"
        guard !spec.refs.isEmpty else { return key }
        return key + " refs { "
            + spec.refs.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + " }"
    }
}
