import ArgumentParser
import Foundation
import SeedRuntime
import SeedTooling

extension SeedTool {
    struct NewMigration: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new-migration",
            abstract:
                "Write the next numbered migration: a scaffold, or with --from the changes from an old seed to the fixtures.",
            discussion: """
                With --from, compares a seed a previous release shipped with a fresh build of the fixtures, by each table's \
                key: new keys become inserts (parents first), changed values updates with from/to, removed keys deletes \
                with from (children first); refs are written as natural keys. A row whose key changed is a rename (an \
                update of its key) when --rename names it, or when the fixtures give the table's INTEGER PRIMARY KEY and \
                both seeds agree on it; otherwise a delete plus an insert. With --to, compares with that seed, one \
                `seedkit build` wrote from this manifest and these migrations, instead of building the fixtures again. \
                Never overwrites a file.
                """)

        @Argument(help: "What the migration does, e.g. \"add fourth book\" (slugged into the file name).")
        var name: String
        @Option(name: .long, help: ArgumentHelp("The seed a previous release shipped.", valueName: "old-seed"))
        var from: String?
        @Option(
            name: .long,
            help: ArgumentHelp(
                "With --from: the seed `seedkit build` wrote from the fixtures, compared instead of building them again.",
                valueName: "new-seed"))
        var to: String?
        @Option(
            name: .long,
            help: ArgumentHelp(
                "With --from: a row whose key changed is this row renamed, e.g. 'countries:Turkey=Türkiye' (composite keys: parts separated by commas; a part with a comma, '=' or '\"' in double quotes). Repeatable.",
                valueName: "table:old=new"))
        var rename: [String] = []
        @OptionGroup var project: ProjectOptions
        @OptionGroup var format: FormatOption<NewMigrationReport>

        func validate() throws {
            if MigrationGenerator.slug(name).isEmpty {
                throw ValidationError("the name needs at least one letter or digit, like \"add fourth book\"")
            }
            if !rename.isEmpty && from == nil {
                throw ValidationError("--rename says how to read the changes since an old seed: use it with --from")
            }
            if to != nil && from == nil {
                throw ValidationError("--to names the new seed to compare an old seed with: use it with --from")
            }
        }

        func run() throws {
            let report = try reporting(format.format) {
                let workflow = ReleaseWorkflow(migrations: try project.loadMigrations(), folder: project.migrations)
                var fresh: FreshBuild?
                defer { withExtendedLifetime(fresh) {} }  // the fresh build is removed once compared
                return try workflow.newMigration(
                    name: name, from: from, to: to, renames: rename,
                    manifest: { () throws(SeedError) in try project.loadManifest() },
                    hasManifest: project.hasManifest
                ) { manifest in
                    let build = try FreshBuild(manifest: manifest, migrations: workflow.migrations)
                    fresh = build
                    return build.url
                }
            }
            Output.render(report, format.format)
        }
    }
}
