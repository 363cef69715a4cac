import Foundation
import GRDB
import SeedTestSupport
import SeedTooling
import Testing

@testable import SeedRuntime

/// The migration format is defined once (``MigrationGrammar``): a shape it refuses gives the same
/// error, at the same place, whichever reader meets it: the document reader of a YAML file, the
/// streamed reader of a JSON file, and a large JSON file read while a run applies it (issue 36).
@Suite struct MigrationGrammarTests {
    /// A migration the format refuses, written so that the same text is YAML (flow style) and
    /// JSON, and where the error is (line, column), with its message.
    struct Refused: CustomStringConvertible {
        var text: String
        var line: Int
        var column: Int
        var message: String
        var description: String { message }
    }

    static let refused: [Refused] = [
        Refused(
            text: "{\"insert\": {\"books\": []},\n \"upsert\": {\"books\": []}}", line: 2, column: 2,
            message: "unknown operation 'upsert' (expected insert, update or delete)"),
        Refused(
            text:
                "{\"update\": {\"books\": [\n  {\"key\": \"A\", \"from\": {\"price\": 1}, \"to\": {\"price\": 2}, \"note\": 1}]}}",
            line: 2, column: 58,
            message: "unknown field 'note' in update (expected key, from, to)"),
        Refused(
            text: "{\"delete\": {\"books\": [\n  {\"key\": \"A\", \"from\": {}, \"to\": {\"price\": 2}}]}}", line: 2,
            column: 28,
            message: "unknown field 'to' in delete (expected key, from)"),
        Refused(
            text: "{\"update\": {\"books\": [\n  {\"key\": \"A\", \"from\": 5, \"to\": {\"price\": 2}}]}}", line: 2,
            column: 24,
            message: "'from' must be a map of column: value"),
        Refused(
            text: "{\"update\": {\"books\": [\n  {\"key\": [\"A\", \"B\"], \"to\": {\"price\": 2}}]}}", line: 2,
            column: 11,
            message: "a key is one value, or a map of column: value for a composite key"),
        Refused(
            text: "{\"update\": {\"books\": [\n  {\"key\": \"A\", \"from\": {\"price\": 1}}]}}", line: 2, column: 3,
            message: "this update has no 'to' values"),
        Refused(
            text: "{\"delete\": {\"books\": [\n  {\"from\": {}}]}}", line: 2, column: 3,
            message: "this delete has no 'key'"),
        Refused(
            text: "{\"delete\": {\"books\": [\n  {\"key\": \"A\"}]}}", line: 2, column: 3,
            message:
                "this delete has no 'from': give the values the previous seed shipped (`from: {}` for a row with nothing but its key), so that a row the user changed is kept"
        ),
        Refused(
            text: "{\"delete\": {\"books\": [\n  \"A\"]}}", line: 2, column: 3,
            message: "each delete is a map with key, from"),
        Refused(
            text: "{\"update\": {\"books\": [\n  7]}}", line: 2, column: 3,
            message: "each update is a map with key, from and to"),
        Refused(
            text: "{\"insert\": {\"books\": [\n  [\"A\", 1]]}}", line: 2, column: 3,
            message: "a row to insert must be a map of column: value"),
        Refused(
            text: "{\"insert\": {\"books\":\n  {\"title\": \"A\"}}}", line: 2, column: 3,
            message: "'insert.books' must be a list of rows"),
        Refused(
            text: "{\"update\":\n  [1]}", line: 2, column: 3,
            message: "'update' must be a map of table: [rows]"),
        Refused(
            text: "[\n  1]", line: 1, column: 1,
            message: "a migration is a map with insert, update and/or delete"),
    ]

    /// The one diagnostic `error` carries, as `line:column: message`.
    private func located(_ error: any Error) -> String {
        guard let error = error as? SeedError, error.diagnostics.count == 1, let diagnostic = error.diagnostics.first
        else { return "\(error)" }
        return "\(diagnostic.line):\(diagnostic.column): \(diagnostic.message)"
    }

    private func expected(_ refused: Refused) -> String { "\(refused.line):\(refused.column): \(refused.message)" }

    @Test(arguments: refused) func aYAMLFileIsRefusedWhereAndWhyTheFormatSays(_ refused: Refused) throws {
        let project = try TemporaryProject()
        try project.write("bad/0001-bad.yml", refused.text + "\n")
        let read = {
            try MigrationDirectory.load(project.url("bad"), displayPath: "bad", yamlParser: YAMLDocument.parser)
        }
        #expect(throws: (any Error).self) { try read() }
        do { _ = try read() } catch { expectEqual(located(error), expected(refused)) }
    }

    @Test(arguments: refused) func aJSONFileReadRowByRowIsRefusedAsTheYAMLOneIs(_ refused: Refused) throws {
        let project = try TemporaryProject()
        try project.write("bad/0001-bad.json", refused.text + "\n")
        #expect(throws: (any Error).self) { try MigrationDirectory.load(project.url("bad")) }
        do { _ = try MigrationDirectory.load(project.url("bad")) } catch {
            expectEqual(located(error), expected(refused))
        }
    }

    /// A JSON file of 1 MiB or more is read while a run applies it; what the format refuses is
    /// that run's error, the same one, and the store is left as it was.
    @Test(arguments: refused) func aLargeJSONFileReadWhileAppliedIsRefusedAsTheOthersAre(_ refused: Refused) throws {
        let project = try TemporaryProject()
        // Trailing whitespace is JSON's: the same document, at the same lines, past the size read while applied.
        try project.write(
            "bad/0001-bad.json", refused.text + "\n" + String(repeating: " ", count: DeferredJSONMigration.threshold))
        let migrations = try MigrationDirectory.load(project.url("bad"))
        guard case .changes(let changes)? = migrations.first?.body else {
            Issue.record("not read")
            return
        }
        #expect(changes.deferred != nil, "read while applied")
        let queue = try DatabaseQueue(path: project.path("store.sqlite"))
        try queue.write { db in try db.execute(sql: "CREATE TABLE books (title TEXT PRIMARY KEY, price INTEGER)") }
        let before = try #require(project.read("store.sqlite"))
        do {
            _ = try SeedMigrator(migrations: migrations).migrate(queue)
            Issue.record("applied a migration the format refuses")
        } catch {
            expectEqual(located(error), expected(refused))
        }
        try queue.close()
        expectEqual(project.read("store.sqlite"), before, "nothing written")
    }

    /// A key twice in a map: YAML's parser refuses it; JSON kept one of the two, silently (a
    /// row's first `price`, an update's last `key`).
    ///
    /// Refused alike now, at the second one.
    static let repeated: [Refused] = [
        Refused(
            text: "{\"insert\": {\"books\": [\n  {\"title\": \"X\", \"price\": 1, \"price\": 2}]}}", line: 2,
            column: 30,
            message: "key 'price' appears twice in the same map (first at line 2); keep one"),
        Refused(
            text: "{\"insert\": {\"books\": [\n  {\"title\": \"A\"},\n  {\"title\": \"B\", \"title\": \"C\"}]}}",
            line: 3,
            column: 18, message: "key 'title' appears twice in the same map (first at line 3); keep one"),
        Refused(
            text:
                "{\"update\": {\"books\": [\n  {\"key\": \"A\", \"from\": {\"price\": 1}, \"to\": {\"price\": 2},\n   \"key\": \"B\"}]}}",
            line: 3, column: 4, message: "key 'key' appears twice in the same map (first at line 2); keep one"),
        Refused(
            text: "{\"insert\": {\"books\": []},\n \"insert\": {\"books\": []}}", line: 2, column: 2,
            message: "key 'insert' appears twice in the same map (first at line 1); keep one"),
        Refused(
            text: "{\"delete\": {\"books\": [],\n  \"books\": []}}", line: 2, column: 3,
            message: "key 'books' appears twice in the same map (first at line 1); keep one"),
        Refused(
            text: "{\"insert\": {\"books\": [\n  {\"title\": {\"tag\": 1, \"tag\": 2}}]}}", line: 2, column: 24,
            message: "key 'tag' appears twice in the same map (first at line 2); keep one"),
    ]

    @Test(arguments: repeated) func aKeyTwiceInAMapIsRefusedInJSONAsInYAML(_ refused: Refused) throws {
        let project = try TemporaryProject()
        try project.write("yaml/0001-twice.yml", refused.text + "\n")
        try project.write("json/0001-twice.json", refused.text + "\n")
        try project.write(
            "large/0001-twice.json",
            refused.text + "\n" + String(repeating: " ", count: DeferredJSONMigration.threshold))
        do {
            _ = try MigrationDirectory.load(project.url("yaml"), displayPath: "yaml", yamlParser: YAMLDocument.parser)
            Issue.record("YAML read")
        } catch {
            // YAML's parser places a repeated key by searching the text for it: at its first letter,
            // inside the quotes (JSON's readers place a key at its opening quote, as YAML's parser
            // places every other key).
            expectEqual(located(error), "\(refused.line):\(refused.column + 1): YAML: \(refused.message)")
        }
        do {
            _ = try MigrationDirectory.load(project.url("json"))
            Issue.record("JSON read")
        } catch {
            expectEqual(located(error), expected(refused))
        }
        let queue = try DatabaseQueue(path: project.path("store.sqlite"))
        try queue.write { db in try db.execute(sql: "CREATE TABLE books (title TEXT PRIMARY KEY, price INTEGER)") }
        let before = try #require(project.read("store.sqlite"))
        do {
            _ = try SeedMigrator(migrations: try MigrationDirectory.load(project.url("large"))).migrate(queue)
            Issue.record("large JSON applied")
        } catch {
            expectEqual(located(error), expected(refused))
        }
        try queue.close()
        expectEqual(project.read("store.sqlite"), before, "nothing written")
    }

    /// Every section and field of the format appears in the example docs/releases.md gives for
    /// migration files, and every name there is one the grammar has.
    @Test func theDocumentedExampleShowsEverySectionAndField() throws {
        let docs = try String(contentsOf: Self.root.appendingPathComponent("docs/releases.md"), encoding: .utf8)
        let start = try #require(docs.range(of: "## Migration files"))
        let example = try #require(docs[start.upperBound...].components(separatedBy: "```").dropFirst().first)
        let lines = example.components(separatedBy: "\n")
        let sections = lines.filter { !$0.hasPrefix(" ") && $0.contains(":") }.map { String($0.prefix { $0 != ":" }) }
            .filter { $0 != "yaml" && !$0.isEmpty }
        expectEqual(sections, MigrationGrammar.sections.map(\.name))
        for section in MigrationGrammar.sections {
            for field in section.fields {
                #expect(example.contains("\(field.name): "), "\(section.name).\(field.name)")
            }
        }
    }

    /// The build plugin cannot import the modules: its list of migration files' extensions, and
    /// the extension each is exported with, must be the grammar's.
    @Test func theBuildPluginTakesTheExtensionsTheGrammarDefines() throws {
        let plugin = try String(
            contentsOf: Self.root.appendingPathComponent("Plugins/SeedkitPlugin/SeedkitPlugin.swift"), encoding: .utf8)
        let line = try #require(plugin.components(separatedBy: "\n").first { $0.contains("let bundledExtension") })
        let pairs = line.matches(of: /"([a-z]+)": "([a-z]+)"/).map { (String($0.output.1), String($0.output.2)) }
        let plugins = Dictionary(pairs, uniquingKeysWith: { first, _ in first })
        var grammars: [String: String] = [:]
        for format in MigrationGrammar.FileFormat.allCases {
            for ext in format.extensions { grammars[ext] = format.bundled.extensions.first }
        }
        expectEqual(pairs.count, plugins.count, "each extension once")
        expectEqual(plugins, grammars)
        expectEqual(Set(grammars.keys), Migration.fileExtensions)
    }

    /// The repository's root (this file is Tests/SeedToolingTests/MigrationGrammarTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
}
