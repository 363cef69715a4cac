import ArgumentParser
import Foundation
import SeedRuntime
import SeedTooling

/// Where the project's manifest and migrations are.
struct ProjectOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The manifest.", valueName: "path"))
    var manifest: String = "seeds/seedkit.yml"

    @Option(name: .long, help: ArgumentHelp("The migrations directory.", valueName: "dir"))
    var migrations: String = "migrations"

    func loadManifest() throws(SeedError) -> Manifest { try Manifest.load(path: manifest) }

    func loadMigrations() throws(SeedError) -> [Migration] {
        try MigrationDirectory.load(URL(fileURLWithPath: migrations), displayPath: migrations, yamlParser: YAMLDocument.parser)
    }

    /// Whether a manifest exists where --manifest points (commands that can work without one).
    var hasManifest: Bool { FileManager.default.fileExists(atPath: manifest) }
}

/// `--format human|json|github` for commands that report diagnostics.
struct DiagnosticFormatOption: ParsableArguments {
    @Option(name: .long, help: "How to print results and errors: human, json or github (GitHub Actions annotations).")
    var format: DiagnosticFormat = .human
}

extension DiagnosticFormat: ExpressibleByArgument {}

/// Runs a command body, printing a ``SeedError`` in the chosen format and exiting with its code.
func reporting<T>(_ format: DiagnosticFormat, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as SeedError {
        Output.diagnostics(error.diagnostics, format: format)
        throw ExitCode(error.exitCode)
    }
}

enum Output {
    /// Human diagnostics go to stderr; machine formats (json, github) to stdout, where tools read them.
    static func diagnostics(_ diagnostics: [Diagnostic], format: DiagnosticFormat) {
        let text = format.render(diagnostics)
        if format == .human { standardError(text) } else { print(text, terminator: "") }
    }

    static func standardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    static var stderrIsTerminal: Bool { isatty(2) == 1 }
    static var stdoutIsTerminal: Bool { isatty(1) == 1 }
}

/// `--manifest PATH` for commands that read stores and use a manifest when there is one.
struct OptionalManifestOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The manifest whose keys, refs, rules and model apply (default: seeds/seedkit.yml when present).", valueName: "path"))
    var manifest: String = "seeds/seedkit.yml"

    /// The manifest, or nil when there is no file there. A file that is there must be valid.
    func load() throws(SeedError) -> Manifest? {
        FileManager.default.fileExists(atPath: manifest) ? try Manifest.load(path: manifest) : nil
    }
}
