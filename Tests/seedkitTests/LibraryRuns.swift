import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import SeedTooling

/// What `build`, `new-migration --from`, `check-upgrade` and `migrate` do in a project of plain
/// SQLite tables, through the very functions the commands in Sources/SeedkitCLI/Commands call
/// (``SeedBuilder/command(manifest:output:sourceDateEpoch:allowsMissingHistory:allowsCloudKit:readsBack:readingMigrations:)``,
/// ``FreshSeed``, ``UpgradeChecker/check(_:manifest:migrations:allowsMissingHistory:listsEveryRow:progress:freshBuild:)``,
/// ``SeedMigrator/Options``'s `init(migrating:…)`, ``MigrationDirectory``'s `project`), with
/// their arguments as values, without a command line parsed per step.
///
/// For the property tests, which run these hundreds of times (issue 43: logic is tested through
/// the libraries, the CLI layer through its contract, in the commands' own tests). What the
/// commands print is rendered by the same ``OutputFormat`` the commands render through. Paths
/// are absolute: a test's threads share one working directory.
struct LibraryRuns {
    let project: TemporaryProject

    /// `seeds/seedkit.yml`, as the commands load it by default.
    func manifest() throws(SeedError) -> Manifest { try Manifest.load(path: project.path("seeds/seedkit.yml")) }

    /// The project's migrations, as the commands read the default folder: `required` (`migrate`)
    /// refuses a missing folder, the others read it as none.
    func migrations(required: Bool = false, deferringLargeJSON: Bool = false) throws(SeedError) -> [Migration] {
        try Self.migrations(in: folder, required: required, deferringLargeJSON: deferringLargeJSON)
    }

    /// The project's folder, which the default `migrations` folder is relative to.
    private var folder: URL { URL(fileURLWithPath: project.path("migrations")).deletingLastPathComponent() }

    private static func migrations(in folder: URL, required: Bool = false, deferringLargeJSON: Bool = false)
        throws(SeedError) -> [Migration]
    {
        try MigrationDirectory.project(
            nil, relativeTo: folder, defaultMayBeMissing: !required, deferringLargeJSON: deferringLargeJSON)
    }

    /// `seedkit build [--output OUTPUT] [--migrations none] [--without-read-back]`: the output
    /// is the manifest's unless named (relative to the project).
    @discardableResult
    func build(output: String? = nil, withMigrations: Bool = true, readsBack: Bool = true) throws -> SeedBuilder.Summary
    {
        let folder = folder
        let setup = try SeedBuilder.command(
            manifest: try manifest(), output: output.map { project.path($0) },
            sourceDateEpoch: ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"], readsBack: readsBack
        ) { () throws(SeedError) in withMigrations ? try Self.migrations(in: folder) : [] }
        return try setup.builder.build(to: setup.target)
    }

    /// `seedkit new-migration NAME --from OLD [--rename HINT]…`: writes the migration, and returns
    /// its report as `--format human` prints it.
    func newMigration(_ name: String, from old: String, renames: [String]) throws -> String {
        let workflow = ReleaseWorkflow(migrations: try migrations(), folder: project.path("migrations"))
        let report = try withFreshFile("new-migration") { fresh in
            try workflow.newMigration(
                name: name, from: project.path(old), renames: renames,
                manifest: { () throws(SeedError) in try manifest() }, hasManifest: true
            ) { manifest in
                try FreshSeed.build(manifest: manifest, migrations: workflow.migrations, to: fresh)
                return fresh
            }
        }
        return OutputFormat.human.rendered(report)
    }

    /// `seedkit check-upgrade OLD`: its outcomes, and its report as `--format human` prints it.
    func checkUpgrade(_ old: String) throws -> (outcomes: [UpgradeChecker.Outcome], text: String) {
        let outcomes = try withFreshFile("check-upgrade") { fresh in
            try UpgradeChecker.check(
                [project.path(old)], manifest: { () throws(SeedError) in try manifest() },
                migrations: { () throws(SeedError) in try migrations() }
            ) { manifest, migrations throws(SeedError) in
                try FreshSeed.build(manifest: manifest, migrations: migrations, to: fresh)
                return fresh
            }
        }
        return (outcomes, OutputFormat.human.rendered(UpgradeReport(outcomes)))
    }

    /// `seedkit migrate STORE [--verbose] [--format FORMAT]` with the defaults otherwise (keep
    /// conflicts, a 5-second busy timeout): the report as `format` prints it.
    func migrate(_ store: String, verbose: Bool = false, format: OutputFormat = .human) throws -> String {
        let path = project.path(store)
        try StoreAccess.refuseSpecialFile(path)
        try StoreAccess.refuseUnwritableFormat(path)
        let migrations = try migrations(required: true, deferringLargeJSON: true)
        let migrator = try SeedMigrator(migrations: migrations)
        migrator.readAhead()
        let options = SeedMigrator.Options(
            migrating: path, manifest: try manifest(), migrations: migrations, onConflict: .keep,
            listsEveryRow: verbose || !format.isForPeople, notice: { _ in })
        let report = try migrator.migrate(try StoreAccess.openWritable(path, busyTimeout: 5), options: options)
        return format.rendered(MigrateReport(report, store: store, backup: nil))
    }

    /// `body` with a file for a fresh build in the project, removed after (as `FreshBuild` removes its own).
    private func withFreshFile<T>(_ name: String, _ body: (URL) throws -> T) rethrows -> T {
        let url = URL(fileURLWithPath: project.path("fresh-\(name).sqlite"))
        defer { for suffix in ["", "-journal"] { unlink(url.path + suffix) } }
        return try body(url)
    }
}
