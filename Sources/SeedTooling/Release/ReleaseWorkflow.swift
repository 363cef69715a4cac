import Foundation
import GRDB
public import SeedRuntime

/// The next release's migration files (`seedkit new-migration`): an empty scaffold, or, from the
/// seed a previous release shipped, a schema step (when the schema changed) and the data changes
/// from that seed to the fixtures; written all or none, never replacing a file.
public struct ReleaseWorkflow {
    /// One migration file to write.
    public struct File: Sendable, Equatable {
        /// The file name (`0002-add-fifth-book.yml`).
        public var name: String
        /// The file's contents.
        public var text: String
        /// What it does, for the line that reports it.
        public var summary: String
        /// The renames it holds (`countries: Turkey → Türkiye`), one line each.
        public var renamePairs: [String]
        /// Deletes and inserts that are likely renames, with the `--rename` to pass (see ``MigrationGenerator/Generated/likelyRenames``).
        public var likelyRenames: [String] = []

        /// A file named `name` holding `text`, reported with `summary` and the renames it holds.
        public init(name: String, text: String, summary: String, renamePairs: [String] = []) {
            self.name = name
            self.text = text
            self.summary = summary
            self.renamePairs = renamePairs
        }
    }

    /// The migrations there are.
    public var migrations: [Migration]
    /// The migrations folder as the user gave it (messages name files under it).
    public var folder: String

    /// A workflow over `migrations`, the migrations in `folder`.
    public init(migrations: [Migration], folder: String) {
        self.migrations = migrations
        self.folder = folder
    }

    /// The number the next migration gets.
    public var nextNumber: Int { (migrations.map(\.number).max() ?? 0) + 1 }

    /// `file` as messages name it: under the migrations folder as given.
    public func shown(_ file: String) -> String { (folder as NSString).appendingPathComponent(file) }

    private var directory: URL { URL(fileURLWithPath: folder) }

    /// Refuses when the next migration's file for `name` exists already.
    public func requireNewFile(name: String) throws(SeedError) {
        let fileName = MigrationGenerator.fileName(number: nextNumber, name: name)
        guard !FileManager.default.fileExists(atPath: directory.appendingPathComponent(fileName).path) else {
            throw SeedError(
                .configuration, file: shown(fileName), "already exists; seedkit never overwrites a migration")
        }
    }

    /// An empty migration named `name`.
    public func scaffold(name: String, manifest: Manifest? = nil) -> [File] {
        [
            File(
                name: MigrationGenerator.fileName(number: nextNumber, name: name),
                text: MigrationGenerator.scaffold(
                    id: Migration.id(number: nextNumber, name: MigrationGenerator.slug(name)), manifest: manifest),
                summary: "an empty scaffold")
        ]
    }

    /// The migrations that take the users of the seed at `seed` (with today's migrations applied,
    /// where existing users are) to what the fixtures hold now: a `.sql` schema step first when
    /// the schema changed, then the data changes; none when nothing changed.
    ///
    /// - Parameters:
    ///   - name: what the migration does, slugged into the file names.
    ///   - seed: the seed a previous release shipped (only read).
    ///   - newSeed: a seed `build` wrote from the manifest and today's migrations, compared instead
    ///     of a fresh build (`--to`; ``BuiltSeed/require(_:manifest:migrations:)`` checks it first).
    ///   - loadManifest: loads the project's manifest (asked once the old seed is known to be there).
    ///   - renames: rows whose key changed that are these rows renamed.
    ///   - freshBuild: builds the fixtures of the manifest (with today's migrations) into a temporary
    ///     seed and returns where; asked after the old seed is read, kept by the caller until this
    ///     returns; not asked with `newSeed`.
    /// - Returns: the files to write, in number order; none when nothing changed.
    /// - Throws: ``SeedError`` naming the seed when it is not one, cannot be migrated or read, or
    ///   a rename hint names no change; naming `newSeed` when it is not a seed built from this
    ///   project; what `loadManifest` and `freshBuild` throw.
    public func changes(
        name: String, from seed: String, to newSeed: String? = nil, manifest loadManifest: () throws -> Manifest,
        renames: [RenameHint], freshBuild: (Manifest) throws -> URL
    ) throws -> [File] {
        try UpgradeChecker.requireOldSeed(seed)
        let manifest = try loadManifest()
        if let newSeed { try BuiltSeed.require(newSeed, manifest: manifest, migrations: migrations) }
        // Start where existing users are: the old seed with today's migrations applied.
        var old: DatabaseQueue
        let copied: Bool
        let checker = UpgradeChecker(manifest: manifest, migrations: migrations)
        do { (old, copied) = try checker.migratedStore(of: seed) } catch let error as SeedError {
            throw error.about(store: seed)
        } catch { throw SeedError(databaseError: error, file: seed) }
        let current = try StoreAccess.openReadOnly(try newSeed ?? freshBuild(manifest).path)
        defer {
            try? old.close()
            try? current.close()
        }
        var files: [File] = []
        let number = nextNumber
        let slug = MigrationGenerator.slug(name)
        // A release that changes the schema: first a .sql step, then the data against the new schema.
        let step: SchemaStep?
        do {
            step = try MigrationGenerator.schemaStep(
                old: old, current: current, oldName: seed, currentName: newSeed ?? "the fresh build",
                coreData: manifest.model != nil)
        } catch let error as SeedError { throw error.about(store: seed) } catch {
            throw SeedError(databaseError: error, file: seed)
        }
        var dataNumber = number
        if let step {
            let id = Migration.id(number: number, name: slug + "-schema")
            let text = "-- \(id): generated by seedkit new-migration from \(seed)\n" + step.sql
            do {
                // The seed itself was read in place (no migration pending): the step runs on a copy of it.
                if !copied {
                    let copy = try checker.migratedCopy(of: seed)
                    try? old.close()
                    old = copy
                }
                try old.write { db in try db.execute(sql: text) }
            } catch {
                throw SeedError(
                    .configuration, file: seed,
                    "the generated schema step does not run on the old seed: \((error as? DatabaseError)?.message ?? "\(error)")"
                )
            }
            files.append(
                File(name: id + "." + MigrationGrammar.FileFormat.sql.fileExtension, text: text, summary: step.summary))
            dataNumber += 1
        }
        let dataName = MigrationGenerator.fileName(number: dataNumber, name: name)
        let header =
            "# \(Migration.id(number: dataNumber, name: slug)): generated by seedkit new-migration from \(seed)\n"
        let generated: MigrationGenerator.Generated?
        // For messages about rename hints: the seed as shipped, and the migrations applied to it here.
        var original: DatabaseQueue?
        var applied: [String] = []
        if !renames.isEmpty, !migrations.isEmpty, let shipped = try? StoreAccess.openReadOnly(seed) {
            let recorded = Set(((try? shipped.read { db in try MigrationLedger.entries(db) }) ?? []).map(\.id))
            applied = migrations.map(\.id).filter { !recorded.contains($0) }
            original = shipped
        }
        defer { try? original?.close() }
        do {
            generated = try MigrationGenerator(manifest: manifest).generate(
                old: old, current: current, header: header, renames: renames, original: original,
                appliedMigrations: applied)
        } catch let error as SeedError { throw error } catch { throw SeedError(databaseError: error, file: seed) }
        if let generated {
            let dataShown = shown(dataName)
            // What we write must read back as a valid migration.
            try WrittenMigrationCheck.require(generated.yaml, fileName: dataName, shown: dataShown)
            var file = File(
                name: dataName, text: generated.yaml, summary: generated.summary, renamePairs: generated.renamePairs)
            file.likelyRenames = generated.likelyRenames
            files.append(file)
        }
        return files
    }

    /// Writes the next migration for `name` and reports each file written (`seedkit new-migration`).
    ///
    /// Without `seed`, an empty scaffold whose examples are rows of the project's tables; with
    /// it, the changes from that seed to the fixtures (``changes(name:from:to:manifest:renames:freshBuild:)``),
    /// or nothing at all when there are none.
    ///
    /// - Parameters:
    ///   - name: what the migration does, slugged into the file name.
    ///   - seed: the seed a previous release shipped, or nil for a scaffold.
    ///   - newSeed: with `seed`, a seed `build` wrote from the fixtures, compared instead of a fresh build.
    ///   - renames: `--rename` as given (`countries:Turkey=Türkiye`), parsed before anything is read.
    ///   - manifest: loads the project's manifest (changes need one; a scaffold whose manifest
    ///     does not load shows the BookStore's rows).
    ///   - hasManifest: whether the project has a manifest for a scaffold to load.
    ///   - freshBuild: builds the fixtures of the manifest into a temporary seed and returns where.
    /// - Returns: the files written, or none and why none were needed.
    /// - Throws: ``SeedError``: configuration when the file exists, a rename does not parse or
    ///   name a change, or the seed is not one; I/O when a file cannot be written (none is left).
    public func newMigration(
        name: String, from seed: String?, to newSeed: String? = nil, renames: [String],
        manifest: () throws(SeedError) -> Manifest, hasManifest: Bool, freshBuild: (Manifest) throws -> URL
    ) throws(SeedError) -> NewMigrationReport {
        try requireNewFile(name: name)
        let hints = try renames.map { text throws(SeedError) in try RenameHint.parse(text) }
        let files: [File]
        if let seed {
            do {
                files = try changes(
                    name: name, from: seed, to: newSeed, manifest: { () throws(SeedError) in try manifest() },
                    renames: hints, freshBuild: freshBuild)
            } catch let error as SeedError { throw error } catch { throw SeedError(databaseError: error, file: seed) }
            guard !files.isEmpty else {
                return NewMigrationReport(written: [], note: nothingToMigrate(from: seed, to: newSeed))
            }
        } else {
            // Its examples are rows of the project's own tables (a manifest that does not load: the BookStore's).
            files = scaffold(name: name, manifest: hasManifest ? try? manifest() : nil)
        }
        try write(files)
        return NewMigrationReport(
            written: files.map { file in
                NewMigrationReport.Written(
                    path: shown(file.name), summary: file.summary, renames: file.renamePairs,
                    likelyRenames: file.likelyRenames)
            })
    }

    /// What to say when ``changes(name:from:to:manifest:renames:freshBuild:)`` finds nothing to
    /// migrate: `seed` holds what the fixtures hold, or with `newSeed` (`--to`, whose fixtures are
    /// not read) what that seed holds.
    public func nothingToMigrate(from seed: String, to newSeed: String? = nil) -> String {
        "\(seed)\(migrations.isEmpty ? "" : " with the existing migrations applied") holds what \(newSeed ?? "the fixtures") hold\(newSeed == nil ? "" : "s"): no migration needed, nothing written"
    }

    /// Writes `files` into the migrations folder, all or none (a schema step without its data
    /// step would ship half a release), never replacing a file.
    public func write(_ files: [File]) throws(SeedError) {
        for file in files {
            guard !FileManager.default.fileExists(atPath: directory.appendingPathComponent(file.name).path) else {
                throw SeedError(
                    .configuration, file: shown(file.name), "already exists; seedkit never overwrites a migration")
            }
        }
        var written: [URL] = []
        for file in files {
            do throws(SeedError) {
                try Self.write(
                    file.text, to: directory.appendingPathComponent(file.name), shown: shown(file.name),
                    directory: directory)
            } catch {
                for url in written { unlink(url.path) }
                throw written.isEmpty
                    ? error
                    : SeedError(
                        error.kind,
                        error.diagnostics.map { diagnostic in
                            var diagnostic = diagnostic
                            diagnostic.message += " (the files this run wrote before it were removed)"
                            return diagnostic
                        })
            }
            written.append(directory.appendingPathComponent(file.name))
        }
    }

    /// Writes a new migration file, never replacing one (O_EXCL).
    ///
    /// A write that fails (a full
    /// disk, the file-size limit) removes what it wrote: a truncated migration must never be
    /// left where the next `migrate` would read it.
    private static func write(_ text: String, to target: URL, shown: String, directory: URL) throws(SeedError) {
        do { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
            throw SeedError(.io, file: shown, "cannot create the folder: \(error.localizedDescription)")
        }
        if let failure = FileWriting.create(target.path, text) {
            throw SeedError(.io, file: shown, failure.description + (failure.created ? "; nothing was written" : ""))
        }
    }
}
