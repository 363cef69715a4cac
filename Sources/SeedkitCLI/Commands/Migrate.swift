import ArgumentParser
import Foundation
import GRDB
import SeedRuntime
import SeedTooling

extension SeedTool {
    struct Migrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apply pending migrations to an existing store, all in one transaction.",
            discussion: """
                Inserts rows whose key is missing, updates values the user has not changed, deletes unchanged rows \
                nothing references. A row the user changed is a conflict: their value stays. Each migration runs \
                once; a store whose history disagrees with the migrations is refused (exit 3).
                """)

        @Argument(help: "The store to migrate.")
        var store: String
        @OptionGroup var project: ProjectOptions
        @Flag(name: .long, help: "Print the plan and write nothing (the store is opened read-only).")
        var dryRun = false
        @Option(name: .long, help: ArgumentHelp("Write a consistent copy of the store here first.", valueName: "path"))
        var backup: String?
        @Option(
            name: .long,
            help:
                "keep: the user's value stays and the conflict is reported; fail: any conflict is an error and nothing is written."
        )
        var onConflict: ConflictPolicy = .keep
        @Flag(
            name: .long,
            help:
                "List every row in the report (by default the first \(MigrateReport.rowsPerKind) inserted, updated, deleted and up-to-date rows per migration; a row not applied is always listed)."
        )
        var verbose = false
        @Flag(
            name: .long,
            help: ArgumentHelp(
                "Write into a Core Data store that tracks persistent history without history entries (by default seedkit records the run as one transaction by the author seedkit): the app's history consumers never see the rows."
            ))
        var withoutHistory = false
        @Flag(
            name: .long,
            help: ArgumentHelp(
                "Write history into a store mirrored to CloudKit (ANSCK… tables), refused by default: every device that migrates would export the same rows, which would duplicate."
            ))
        var allowCloudkit = false
        @Flag(
            name: .long,
            help:
                "Check every page of the store for damage (PRAGMA quick_check) and every foreign key (PRAGMA foreign_key_check) before committing, whatever its size. By default the foreign keys checked are those SQLite counts the run left unresolved, and a store over 16 MB is checked for damage in proportion to the run: its header, and every page the run reads or writes."
        )
        var checkWholeStore = false
        @OptionGroup var busy: BusyTimeoutOption
        @OptionGroup var sqlTimeout: SQLTimeoutOption
        @OptionGroup var format: FormatOption<MigrateReport>

        func validate() throws {
            if dryRun && backup != nil {
                throw ValidationError("--backup writes a file; it can't be combined with --dry-run")
            }
            if let backup, let problem = StoreBackup.refusal(backup: backup, store: store) {
                throw ValidationError(problem)
            }
        }

        func run() throws {
            let interruption = dryRun ? nil : WriteInterruption(store: store)
            defer { interruption?.stop() }
            try reporting(format.format, store: store) {
                // Not a FIFO or a device, through its links, before anything opens it (the open would block).
                try StoreAccess.refuseSpecialFile(store)
                // Not a read-only file: a header SQLite will not write (dry runs migrate a copy, which inherits it).
                try StoreAccess.refuseUnwritableFormat(store)
                let migrations = try project.loadMigrations(defaultMayBeMissing: false, deferringLargeJSON: true)
                let migrator = try SeedMigrator(migrations: migrations)
                // a big data update's file is read while the manifest is read and the store opened
                migrator.readAhead()
                let manifest = project.hasManifest ? try project.loadManifest() : nil
                // A report for people lists a sample of each kind: the run keeps no more (JSON and CSV list every row).
                var options = SeedMigrator.Options(
                    migrating: store, manifest: manifest, migrations: migrations, onConflict: onConflict,
                    listsEveryRow: verbose || !format.format.isForPeople, allowsMissingHistory: withoutHistory,
                    allowsCloudKit: allowCloudkit, checksWholeStore: checkWholeStore,
                    sqlTimeLimit: sqlTimeout.sqlTimeout, notice: Output.notice(about: store))
                let report: MigrationReport
                if dryRun {
                    report = try migrator.dryRun(
                        try StoreAccess.openReadOnly(store, notice: Output.notice(about: store)), options: options)
                } else {
                    let walExisted = FileManager.default.fileExists(atPath: store + "-wal")
                    let queue = try StoreAccess.openWritable(store, busyTimeout: busy.busyTimeout)
                    interruption?.writing(queue)
                    options.shouldStop = { interruption?.signal != nil }
                    do {
                        if let backup { try StoreBackup.write(queue, to: URL(fileURLWithPath: backup)) }
                        report = try migrator.migrate(queue, options: options)
                    } catch {
                        // Only a successful write may checkpoint a WAL store: a failed one leaves it byte for byte.
                        StoreAccess.closeWithoutCheckpoint(queue, path: store, walExisted: walExisted)
                        if let signal = interruption?.signal {
                            Output.standardError(
                                "\ninterrupted: the migration was rolled back; nothing was written to \(store)\n")
                            throw ExitCode(128 + signal)
                        }
                        if FileSizeLimit.reached { throw StoreWriteFailure.rolledBack(error, store: store) }
                        throw error
                    }
                    if interruption?.signal != nil {
                        Output.standardError(
                            "\n\(store): note: the signal arrived after the migrations were committed: they are applied\n"
                        )
                    }
                    Output.completedWork =
                        "\(store): \(report.migrations.count) migration\(report.migrations.count == 1 ? "" : "s") applied"
                }
                Output.render(
                    MigrateReport(report, store: store, backup: dryRun ? nil : backup), format.format, about: store)
            }
        }
    }
}
