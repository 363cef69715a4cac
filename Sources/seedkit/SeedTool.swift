import ArgumentParser

@main
struct SeedTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seedkit",
        abstract: "Build seed SQLite databases from fixtures, and migrate the stores users already have.",
        discussion: """
            Exit codes: 0 success · 1 the input data has errors · 2 usage or configuration error · \
            3 the store was refused · 4 SQLite or I/O failure.
            """,
        version: "0.1.0",
        subcommands: [Build.self, Migrate.self, Status.self, Inspect.self, ExportMigrations.self]
    )
}
