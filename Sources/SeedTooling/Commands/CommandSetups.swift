import Foundation
public import SeedRuntime

// How the commands set the libraries up from a manifest, migrations and their flags: each
// command only turns its command line into these arguments (issue 43), and the property tests
// call the same functions with the arguments as values (docs/reference.md#commands).

extension MigrationDirectory {
    /// The project's migrations, as every command reads them (`--migrations DIR`).
    ///
    /// `none` is none. A folder named with `--migrations` must exist; a missing default folder is
    /// no migrations where a project may not have any yet (`build`, `new-migration`,
    /// `check-upgrade`), and an error where it would make a wrong directory look like "nothing to
    /// do" (`migrate`, `status`, `export-migrations`).
    ///
    /// - Parameters:
    ///   - given: the `--migrations` value, nil for the default folder `migrations`.
    ///   - base: the folder a relative path is read from (nil: the current directory); messages
    ///     name the path as given.
    ///   - defaultMayBeMissing: a missing default folder is no migrations.
    ///   - deferringLargeJSON: large JSON files are read while applied (`migrate`; see
    ///     ``DeferredJSONMigration``).
    /// - Returns: the folder's migrations (none for `none` or a missing default folder).
    /// - Throws: ``SeedError`` (configuration) for a missing folder that must exist, and what
    ///   reading the migrations throws.
    public static func project(
        _ given: String?, relativeTo base: URL? = nil, defaultMayBeMissing: Bool = true,
        deferringLargeJSON: Bool = false
    ) throws(SeedError) -> [Migration] {
        if given == "none" { return [] }
        let path = given ?? "migrations"
        let directory = base.map { URL(fileURLWithPath: path, relativeTo: $0) } ?? URL(fileURLWithPath: path)
        let shown = PathDisplay.absolute ? directory.standardizedFileURL.path : path
        var isFolder: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory.path, isDirectory: &isFolder) {
            if given == nil && defaultMayBeMissing { return [] }
            throw SeedError(
                .configuration, file: shown,
                given == nil
                    ? "no migrations folder here; run seedkit in the project's folder, or pass --migrations DIR (--migrations none for none)"
                    : "no such migrations folder (--migrations none for none)")
        }
        return try read(
            directory, displayPath: shown, yamlParser: YAMLDocument.parser, missingIsEmpty: false,
            deferringLargeJSON: deferringLargeJSON)
    }
}

extension SeedMigrator.Options {
    /// The options `seedkit migrate` runs with: its flags, the manifest's tables, rules, model and
    /// release keys, or without a manifest the model the store keeps (Z_MODELCACHE).
    ///
    /// - Parameters:
    ///   - store: the store's path, read for its cached model when the manifest gives none.
    ///   - manifest: the project's manifest, nil without one.
    ///   - migrations: the migrations run (a ref to a key the store lacks is a typo when the
    ///     release provides it nowhere).
    ///   - onConflict: `--on-conflict`.
    ///   - listsEveryRow: every row is kept for the report (`--verbose`, or JSON and CSV), not the
    ///     first ``MigrateReport/rowsPerKind`` of each kind.
    ///   - allowsMissingHistory: `--without-history`.
    ///   - allowsCloudKit: `--allow-cloudkit`.
    ///   - checksWholeStore: `--check-whole-store`.
    ///   - sqlTimeLimit: `--sql-timeout` in seconds, nil for the default.
    ///   - notice: where a note about the store's cached model goes.
    public init(
        migrating store: String, manifest: Manifest?, migrations: [Migration], onConflict: ConflictPolicy,
        listsEveryRow: Bool, allowsMissingHistory: Bool = false, allowsCloudKit: Bool = false,
        checksWholeStore: Bool = false, sqlTimeLimit: Double? = nil, notice: (String) -> Void
    ) {
        self.init(onConflict: onConflict)
        eventsPerKind = listsEveryRow ? nil : MigrateReport.rowsPerKind
        self.allowsMissingHistory = allowsMissingHistory
        self.allowsCloudKit = allowsCloudKit
        if checksWholeStore { storeCheck = .whole }
        if let sqlTimeLimit { self.sqlTimeLimit = sqlTimeLimit }
        // The CLI's own connection: no GRDB transaction observer to keep informed.
        writesDirectly = true
        if let manifest {
            tables = manifest.specs
            validator = ManifestValidator(manifest: manifest)
            coreDataFacts = manifest.model?.facts
            releaseKeys = ReleaseKeyIndex(manifest: manifest, migrations: migrations)
        }
        // No model given: the one the store keeps (Z_MODELCACHE: every SwiftData store, every
        // Core Data store since about iOS 5) gives its facts, its keys and its history's properties.
        if coreDataFacts == nil {
            coreDataFacts = CoreDataModel.cachedFacts(store: store, notice: notice)
        }
    }
}

extension SeedBuilder {
    /// `seedkit build`'s builder and the seed it writes, from the manifest and the command's flags.
    ///
    /// A manifest the builder cannot build is refused first. The migrations are read on another
    /// thread while the build reads the fixtures; when the output or `SOURCE_DATE_EPOCH` is
    /// wrong, what reading them throws comes first, as when they were read before.
    ///
    /// - Parameters:
    ///   - manifest: the project's manifest.
    ///   - output: `--output PATH`, nil for the manifest's `output:`.
    ///   - sourceDateEpoch: `SOURCE_DATE_EPOCH`, the history transaction's time when set.
    ///   - allowsMissingHistory: `--without-history`.
    ///   - allowsCloudKit: `--allow-cloudkit`.
    ///   - readsBack: not `--without-read-back`.
    ///   - read: reads the project's migrations.
    /// - Returns: the builder, and the seed it is to write.
    /// - Throws: ``SeedError`` for an unsupported manifest, no output, a bad `SOURCE_DATE_EPOCH`,
    ///   or what reading the migrations threw.
    public static func command(
        manifest: Manifest, output: String?, sourceDateEpoch: String?, allowsMissingHistory: Bool = false,
        allowsCloudKit: Bool = false, readsBack: Bool = true,
        readingMigrations read: @escaping @Sendable () throws(SeedError) -> [Migration]
    ) throws(SeedError) -> (builder: SeedBuilder, target: URL) {
        if let error = unsupported(manifest) { throw error }
        var builder = SeedBuilder(manifest: manifest, readingMigrations: read)
        let target: URL
        do {
            target = try SeedBuilder.target(output, manifest: manifest)
            if let time = try historyTimestamp(sourceDateEpoch: sourceDateEpoch) { builder.historyTimestamp = time }
        } catch {
            _ = try builder.readMigrations()
            throw error
        }
        builder.allowsMissingHistory = allowsMissingHistory
        builder.allowsCloudKit = allowsCloudKit
        builder.readsBack = readsBack
        return (builder, target)
    }
}

extension UpgradeChecker {
    /// `seedkit check-upgrade OLD…`: each old seed is refused first unless it is one, then the
    /// manifest and migrations are read, the fixtures built fresh, and each seed checked.
    ///
    /// - Parameters:
    ///   - oldSeeds: the seeds earlier releases shipped.
    ///   - manifest: reads the project's manifest.
    ///   - migrations: reads the project's migrations.
    ///   - allowsMissingHistory: `--without-history`.
    ///   - listsEveryRow: `--verbose`, or JSON output.
    ///   - progress: how far the check is after the fresh build (stage, steps done, of all steps
    ///     but the fresh build's one).
    ///   - freshBuild: builds the manifest's fixtures with the migrations (``FreshSeed``) and
    ///     says where; the caller removes the file.
    /// - Returns: each old seed's outcome.
    /// - Throws: ``SeedError`` for a file that is no old seed, and what reading the project,
    ///   the fresh build or the check throws.
    public static func check(
        _ oldSeeds: [String], manifest: () throws(SeedError) -> Manifest,
        migrations: () throws(SeedError) -> [Migration], allowsMissingHistory: Bool = false,
        listsEveryRow: Bool = false, progress: (@Sendable (_ stage: String, _ done: Int, _ total: Int) -> Void)? = nil,
        freshBuild: (Manifest, [Migration]) throws(SeedError) -> URL
    ) throws(SeedError) -> [Outcome] {
        for seed in oldSeeds { try requireOldSeed(seed) }
        let manifest = try manifest()
        let migrations = try migrations()
        let fresh = try freshBuild(manifest, migrations)
        var checker = UpgradeChecker(manifest: manifest, migrations: migrations)
        checker.allowsMissingHistory = allowsMissingHistory
        checker.listsEveryRow = listsEveryRow
        progress?("the keys the release names", 0, 3 * oldSeeds.count)
        checker.progress = progress
        return try checker.run(oldSeeds, fresh: fresh)
    }
}
