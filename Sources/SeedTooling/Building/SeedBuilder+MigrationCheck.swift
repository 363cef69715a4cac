import Foundation
import GRDB
import SeedRuntime

extension SeedBuilder {
    /// What `migrate` would refuse in these migrations as written (an unknown table or column, an
    /// update without `from:`), checked on an empty store with the manifest's schema (or a copy of
    /// its template) in memory: `export-migrations` refuses them as `build` does, without building.
    ///
    /// - throws: ``SeedError`` (configuration, exit 2) naming each problem at its migration.
    public func refuseMigrationsMigrateRefuses() throws(SeedError) {
        guard migrations.contains(where: { if case .changes = $0.body { true } else { false } }) else { return }
        do {
            let queue = try DatabaseQueue()
            switch manifest.source {
            case .schema(let url):
                guard let data = FileManager.default.contents(atPath: url.path),
                    let sql = String(data: data, encoding: .utf8)
                else { return }  // build says why
                try queue.writeWithoutTransaction { db in try db.execute(sql: sql) }
            case .template(let url):
                guard FileManager.default.fileExists(atPath: url.path) else { return }
                try StoreAccess.openReadOnly(url.path).backup(to: queue)
            case .none:
                return
            }
            var options = SeedMigrator.Options()
            options.coreDataFacts = manifest.model?.facts
            options.allowsMissingHistory = true
            options.allowsCloudKit = true
            let problems = try queue.writeWithoutTransaction { db in
                var problems: [Diagnostic] = []
                try db.inTransaction {
                    problems = try SeedMigrator.configurationProblems(
                        of: migrations, tables: manifest.specs, options: options, in: db)
                    return .rollback
                }
                return problems
            }
            if !problems.isEmpty { throw SeedError(.configuration, problems) }
        } catch let error as SeedError {
            throw error
        } catch {
            return  // a schema or template that does not open: build says why
        }
    }
}
