public import SeedRuntime

extension Manifest {
    /// What migrations need to know of each table, in load order: keys, refs, and the
    /// model's defaults for new rows (Core Data).
    public var specs: [TableSpec] {
        tables.map { table in
            var spec = table.spec
            spec.defaults = model?.defaults(for: table.name) ?? [:]
            return spec
        }
    }

    /// The tables marked `migrate_only: true`, by ``lowercasedName``.
    var migrateOnlyTables: Set<String> { Set(tables.filter(\.migrateOnly).map(\.name.lowercasedName)) }
}
