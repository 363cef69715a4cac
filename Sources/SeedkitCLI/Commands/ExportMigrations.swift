import ArgumentParser
import Foundation
import SeedRuntime
import SeedTooling

extension SeedTool {
    struct ExportMigrations: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export-migrations",
            abstract: "Write the migrations as .json and .sql files for an app bundle.",
            discussion: """
                The app runtime reads .json and .sql migrations (it has no YAML parser). A .json file written here \
                has the same checksum as its .yml, so stores migrated by the CLI and by the app agree.
                """)

        @Argument(help: "The folder to write into (created if missing).")
        var directory: String
        @OptionGroup var project: ProjectOptions
        @OptionGroup var format: FormatOption<ExportReport>

        func run() throws {
            let report = try reporting(format.format) {
                let migrations = try project.loadMigrations(defaultMayBeMissing: false)
                return try MigrationExport.run(migrations, into: directory, from: project.migrations) {
                    () throws(SeedError) in project.hasManifest ? try project.loadManifest() : nil
                }
            }
            Output.render(report, format.format)
        }
    }
}
