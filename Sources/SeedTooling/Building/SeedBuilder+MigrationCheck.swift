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

    /// The refs the migrations write that no row of this build and no migration provides (see
    /// ``MigrationReferences``).
    ///
    /// A release names the same parents again and again (a category per book): each value is asked
    /// of the seed once.
    func unresolvedMigrationRefs(_ migrations: [Migration], plans: [TablePlan], dialect: any StoreDialect, db: Database)
        throws -> [Diagnostic]
    {
        var known: [String: Bool?] = [:]
        return try MigrationReferences.unresolved(in: migrations, tables: manifest.specs, dialect: dialect) {
            table, column, value in
            let exact: String  // 1 and 1.0 may convert apart: only the same value is the same question
            switch value {
            case .integer(let number): exact = "i:\(number)"
            case .real(let number): exact = "r:\(number.bitPattern)"
            default: exact = MigrationReferences.canonical(value)
            }
            let id = [table.lowercasedName, column.lowercasedName, exact].joined(separator: "\u{0}")
            if let answer = known[id] { return answer }
            let answer = try Self.exists(table: table, column: column, value: value, plans: plans, db: db)
            known[id] = answer
            return answer
        }
    }

    private static func exists(table: String, column: String, value: InputValue, plans: [TablePlan], db: Database)
        throws -> Bool?
    {
        guard let plan = plans.first(where: { $0.config.name.isSameName(as: table) }),
            let info = plan.table.column(plan.storeColumn(column))
        else { return nil }
        guard case .success(let converted) = (plan.modelTypes[column] ?? plan.dialect.columnType(info)).convert(value)
        else { return false }
        return try db.cachedStatement(
            sql:
                "SELECT EXISTS (SELECT 1 FROM \(quoteIdentifier(plan.table.name)) WHERE \(quoteIdentifier(info.name)) = ?)"
        ).rows(binding: [converted]).first?.first == .integer(1)
    }
}
