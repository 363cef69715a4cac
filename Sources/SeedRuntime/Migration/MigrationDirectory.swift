import Foundation

/// Reads an app's bundled migrations: `NNNN-name.json` and `NNNN-name.sql` files (`seedkit
/// export-migrations` writes them; the runtime has no YAML parser), from a folder or from a
/// bundle's resources.
///
/// ```swift
/// let migrations = try MigrationDirectory.load(Bundle.main.url(forResource: "migrations", withExtension: nil)!)
/// ```
public enum MigrationDirectory {
    /// Parses a YAML document into a `DocNode`; throws a ``SeedError`` naming the file on bad YAML.
    package typealias YAMLParser = @Sendable (_ text: String, _ file: String) throws(SeedError) -> DocNode

    /// The migrations in `directory`, in number order.
    ///
    /// - Parameter directory: the folder. It must exist (an app with no migrations yet bundles an
    ///   empty folder, or passes `[]` to ``SeedInstaller``): a folder missing from the bundle would
    ///   otherwise look like "no migrations", and a store that has some would be refused. A `.yml`
    ///   file in it is a configuration error (bundle the exported `.json`).
    /// - Returns: the migrations, in number order.
    /// - throws: ``SeedError`` (configuration) for a missing or unreadable folder, unreadable or
    ///   malformed files, names that do not start with a number, and two files with the same number.
    ///   A JSON file of 1 MiB or more is read by the run that applies it, while it applies it (a
    ///   big data update is read and parsed on another core, and its rows never all sit in
    ///   memory), so it must still be there then (a bundle's always is): what is wrong with it,
    ///   inside or a file gone, is thrown by that run (``SeedInstaller/prepareStore()``,
    ///   ``SeedMigrator/migrate(_:options:)``), which then writes nothing.
    public static func load(_ directory: URL) throws -> [Migration] {
        try read(directory, missingIsEmpty: false, deferringLargeJSON: true)
    }

    /// ``load(_:)`` with a name for messages and a YAML parser (the tooling's).
    package static func load(_ directory: URL, displayPath: String? = nil, yamlParser: YAMLParser?) throws
        -> [Migration]
    {
        try read(directory, displayPath: displayPath, yamlParser: yamlParser, missingIsEmpty: false)
    }

    /// The migrations among a bundle's resources: its `NNNN-name.json` and `.sql` files, side by
    /// side with its other resources (SwiftPM and Xcode copy resources flat into the bundle, as
    /// `SeedkitPlugin`'s exported migrations are).
    ///
    /// ```swift
    /// let migrations = try MigrationDirectory.load(bundle: .module)
    /// ```
    ///
    /// - throws: ``SeedError`` (configuration) for unreadable or malformed migration files and
    ///   two files with the same number.
    ///   Large JSON files are read while applied, as ``load(_:)`` says.
    public static func load(bundle: Bundle) throws -> [Migration] {
        try read(
            bundle.resourceURL ?? bundle.bundleURL, missingIsEmpty: false, skipOtherFiles: true,
            deferringLargeJSON: true)
    }

    /// ``load(_:displayPath:yamlParser:)`` with typed throws; `missingIsEmpty` makes a missing
    /// folder mean no migrations (the CLI's default `migrations/`); `skipOtherFiles` ignores
    /// files whose names are not `NNNN-name.json` or `.sql` (a bundle's other resources).
    ///
    /// `deferringLargeJSON`: JSON files from ``DeferredJSONMigration/threshold`` on are read while
    /// a run applies them (their errors are then the run's); for the commands that apply.
    package static func read(
        _ directory: URL, displayPath: String? = nil, yamlParser: YAMLParser? = nil, missingIsEmpty: Bool,
        skipOtherFiles: Bool = false, deferringLargeJSON: Bool = false
    ) throws(SeedError) -> [Migration] {
        let shown = displayPath ?? directory.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
            if missingIsEmpty { return [] }
            throw SeedError(
                .configuration, file: shown,
                "the migrations folder does not exist (is it in the app's bundle?); nothing was installed")
        }
        guard isDirectory.boolValue else {
            throw SeedError(.configuration, file: shown, "the migrations path is not a directory")
        }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() } catch {
            throw SeedError(.configuration, file: shown, "cannot list migrations: \(error.localizedDescription)")
        }

        var migrations: [Migration] = []
        var byNumber: [Int: String] = [:]
        for name in names where !name.hasPrefix(".") {
            let file = (shown as NSString).appendingPathComponent(name)
            let parts = Migration.parseFileName(name)
            let format = parts.flatMap { MigrationGrammar.FileFormat(extension: $0.ext) }
            // Among a bundle's other resources: only the formats an app bundles.
            if skipOtherFiles, format.map({ $0.bundled == $0 }) != true { continue }
            guard let parts, let format else {
                if name.lowercasedName.hasSuffix(".md") || name.lowercasedName == "readme" { continue }
                throw SeedError(
                    .configuration, file: file,
                    "not a migration file name: expected \(MigrationGrammar.fileNamesShown) (rename it, or move it out of the migrations directory)"
                )
            }
            if let other = byNumber[parts.number] {
                throw SeedError(
                    .configuration, file: file,
                    "migration number \(parts.number) is used twice: \(other) and \(file); give one of them the next free number"
                )
            }
            byNumber[parts.number] = file
            let url = directory.appendingPathComponent(name)
            // A large JSON file is read, and its text checked, when first needed (see
            // DeferredJSONMigration): here only whether it is a file this process may read.
            if format == .json, deferringLargeJSON, let size = regularFileSize(url.path),
                size >= DeferredJSONMigration.threshold,
                FileManager.default.isReadableFile(atPath: url.path)
            {
                let deferred = DeferredJSONMigration(fileName: name, file: file, url: url)
                migrations.append(
                    Migration(
                        number: parts.number, name: parts.name, file: file, checksum: "",
                        body: .changes(DataChanges(deferred: deferred))))
                continue
            }
            try FileFacts.refuseSpecial(url.path, shown: file, what: "a migration")
            let data: Data
            do { data = try Data(contentsOf: url) } catch {
                throw SeedError(.configuration, file: file, "cannot read: \(error.localizedDescription)")
            }
            if let problem = Migration.textProblem(data, file: file) { throw problem }
            // Text only for SQL and YAML: a JSON migration is parsed from its bytes (it may be 100,000 rows).
            func text() throws(SeedError) -> String {
                guard let text = String(data: data, encoding: .utf8) else {
                    throw SeedError(.configuration, file: file, code: .invalidEncoding, "not UTF-8")
                }
                return text
            }
            switch format {
            case .sql:
                let text = try text()
                migrations.append(
                    Migration(
                        number: parts.number, name: parts.name, file: file, checksum: Migration.checksum(sql: text),
                        body: .sql(text)))
            case .json:
                migrations.append(try Migration.readJSON(fileName: name, file: file, data: data))
            case .yaml:
                guard let yamlParser else {
                    throw SeedError(
                        .configuration, file: file,
                        "YAML migrations need the seedkit tool; bundle migrations as .json or .sql in an app (`seedkit export-migrations`)"
                    )
                }
                migrations.append(
                    try Migration.make(fileName: name, file: file, document: try yamlParser(try text(), file)))
            }
        }
        return migrations.sorted { $0.number < $1.number }
    }
}

/// The size of the regular file at `path` (links followed), nil for anything else: one stat(2),
/// for each JSON file an app loads at every launch (URL resource values cost 0.07 ms more per file).
private func regularFileSize(_ path: String) -> Int? {
    var facts = stat()
    guard stat(path, &facts) == 0, facts.st_mode & S_IFMT == S_IFREG else { return nil }
    return Int(facts.st_size)
}

extension Migration {
    /// What makes `data` not text (invalid UTF-8, a NUL byte, …), at its line; nil for text.
    static func textProblem(_ data: Data, file: String) -> SeedError? {
        guard let problem = data.withUnsafeBytes({ UTF8Validation.textProblem($0) }) else { return nil }
        return SeedError(.configuration, file: file, line: problem.line, code: .invalidEncoding, problem.message)
    }

    /// A JSON migration file read whole: streamed row by row where it can be, else as a document
    /// (which reports what is wrong with it).
    static func readJSON(fileName: String, file: String, data: Data) throws(SeedError) -> Migration {
        if let migration = data.withUnsafeBytes({ Migration.streamed(fileName: fileName, file: file, json: $0) }) {
            return migration
        }
        let document: DocNode
        do { document = try data.withUnsafeBytes { bytes in try JSONScanner.parseDocument(bytes) } } catch let error
            as JSONScanError
        {
            throw SeedError(
                .configuration, file: file, line: error.line, column: error.column, "JSON: \(error.message)")
        } catch { throw SeedError(.configuration, file: file, "JSON: \(error)") }
        return try Migration.make(fileName: fileName, file: file, document: document)
    }
}

extension JSONScanError {
    var line: Int { if case .syntax(let line, _, _) = self { return line } else { return 0 } }
    var column: Int { if case .syntax(_, let column, _) = self { return column } else { return 0 } }
    var message: String {
        if case .syntax(_, _, let message) = self { return message } else { return "unexpected end of file" }
    }
}
