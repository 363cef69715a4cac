import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import SeedTooling

/// In-process tests of the tooling types: the library API on a `TemporaryProject`'s files, no
/// `seedkit` binary launched. The CLI's contract (exit codes, exact output) stays in seedkitTests.
extension TemporaryProject {
    /// The project's manifest, as `seedkit` reads `seeds/seedkit.yml`.
    func manifest() throws -> Manifest { try Manifest.load(path: path("seeds/seedkit.yml")) }

    /// The project's migrations, YAML included (the tooling's parser).
    func migrations() throws -> [Migration] {
        try MigrationDirectory.load(url("migrations"), displayPath: "migrations", yamlParser: YAMLDocument.parser)
    }

    /// Builds the project's seed (its fixtures and migrations) into `output`, in-process.
    @discardableResult
    func buildSeed(_ output: String = "build/seed.sqlite", migrations: [Migration]? = nil) throws -> SeedBuilder.Summary
    {
        try SeedBuilder(manifest: manifest(), migrations: migrations ?? self.migrations()).build(to: url(output))
    }

    /// `title|price` of every book, in title order.
    func books(_ store: String) throws -> [String] {
        try database(store).read { db in
            try String.fetchAll(db, sql: "SELECT title || '|' || price FROM books ORDER BY title")
        }
    }
}
