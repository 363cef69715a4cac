import ArgumentParser
import Foundation
import SeedRuntime
import SeedTooling

extension SeedTool {
    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract:
                "Write a new project's layout: manifest, schema, a fixture, migrations/, seeds/releases/, a CI workflow.",
            discussion: """
                Writes seeds/seedkit.yml, seeds/schema.sql, seeds/data/items.csv, migrations/README.md, \
                seeds/releases/README.md and .github/workflows/seedkit.yml (seedkit build --format github, check-upgrade). \
                With --coredata MODEL: a manifest naming the model and one fixture per entity instead of the schema and \
                items.csv. With --coredata STORE (a Core Data or SwiftData store that keeps its model in Z_MODELCACHE): \
                a manifest without model:, keys from the entities' uniqueness constraints, fixtures holding the store's \
                rows (refs by the related entity's key), and the store with its rows taken out as template:. Never overwrites: when anything it would write exists, it lists every such path and writes \
                nothing (exit 2).
                """)

        @Argument(help: "The project folder (created if missing).")
        var directory: String = "."
        @Option(
            name: .long,
            help: ArgumentHelp(
                "Scaffold the Core Data form from this model (.xcdatamodeld or .xcdatamodel), or from a store that keeps its model (a SwiftData store): its rows become the fixtures, the store without them the template.",
                valueName: "model-or-store"))
        var coredata: String?
        @Option(
            name: .long,
            help: ArgumentHelp(
                "With --coredata: the empty store your app creates with the model, copied to seeds/empty.sqlite.",
                valueName: "store"))
        var template: String?
        @OptionGroup var format: FormatOption<InitReport>

        func validate() throws {
            if template != nil && coredata == nil {
                throw ValidationError(
                    "--template goes with --coredata MODEL (a plain project's schema is seeds/schema.sql)")
            }
        }

        func run() throws {
            let report = try reporting(format.format) {
                try ProjectInit.run(directory: directory, coredata: coredata, template: template)
            }
            Output.render(report, format.format)
        }
    }
}
