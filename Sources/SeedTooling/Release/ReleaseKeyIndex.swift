import Foundation
import GRDB
public import SeedRuntime

/// The keys a release provides: every fixture row of the manifest, every row a migration
/// inserts, and every value a migration's update sets (a rename); and, since what a SQL
/// migration inserts is known only by running it, any key of a table a SQL migration writes.
///
/// A ref to a key outside this set is the author's typo, an error at release time; `migrate` with a
/// manifest asks it about each parent the store lacks (``SeedMigrator/Options/releaseKeys``), and
/// release checks can ask ``values(table:column:type:)`` directly.
///
/// Fixtures are read only for the tables asked about, and only when asked: a run whose refs
/// all resolve in the store reads nothing.
public struct ReleaseKeyIndex: ReleaseKeys {
    /// The project's manifest: the tables whose fixtures hold the release's keys.
    public var manifest: Manifest
    /// The release's migrations, whose inserts and renames add keys.
    public var migrations: [Migration]

    /// An index of `manifest`'s fixtures and `migrations`' keys, read only when asked.
    public init(manifest: Manifest, migrations: [Migration]) {
        self.manifest = manifest
        self.migrations = migrations
    }

    package func provides(_ queries: [ReleaseKeyQuery]) throws -> [Bool] {
        var known: [String: Set<SQLValue>] = [:]
        var sqlWrites: [String: Bool] = [:]  // by table: the check compiles a pattern
        return try queries.map { query in
            let id = query.reference.table.lowercasedName + "\u{0}" + query.reference.column.lowercasedName
            if known[id] == nil {
                known[id] = try values(table: query.reference.table, column: query.reference.column, type: query.type)
            }
            if known[id]?.contains(Self.normalized(query.stored)) == true { return true }
            // A SQL migration that writes the table may have provided it (and the user deleted it).
            let table = id + "\u{0}" + (query.storeTable ?? query.reference.table).lowercasedName
            if let writes = sqlWrites[table] { return writes }
            let writes = Migration.sqlMayWrite(
                migrations, table: query.reference.table, storeTable: query.storeTable ?? query.reference.table)
            sqlWrites[table] = writes
            return writes
        }
    }

    /// Every value the release gives `table.column` (names as the manifest writes them), converted
    /// by `type` as the store holds them (numbers that are whole compare as integers).
    package func values(table: String, column: String, type: ColumnType) throws -> Set<SQLValue> {
        var result = Set<SQLValue>()
        func add(_ input: InputValue?) {
            guard let input, input != .null, case .success(let value) = type.convert(input) else { return }
            result.insert(Self.normalized(value))
        }
        if let config = manifest.tables.first(where: { $0.name.isSameName(as: table) }) {
            try readFixture(config, column: column) { add($0) }
        }
        Migration.forEachProvidedRow(in: migrations) { rowTable, row in
            guard rowTable.isSameName(as: table) else { return }
            add(row.values.first { $0.column.isSameName(as: column) }?.value)
        }
        return result
    }

    static func normalized(_ value: SQLValue) -> SQLValue {
        if case .real(let number) = value, number == number.rounded(), abs(number) < 9e15 {
            return .integer(Int64(number))
        }
        return value
    }

    /// Whether every record of `table`'s fixture gives `column` a value (a CSV column, a key
    /// of every JSON record): then the column's values are the author's, not ones SQLite
    /// assigned by order (what makes an id a row's identity across releases).
    package func fixtureGivesEveryRow(table: String, column: String) throws -> Bool {
        guard let config = manifest.tables.first(where: { $0.name.isSameName(as: table) }), config.hasFile else {
            return false
        }
        var records = 0
        var given = 0
        // The first record without a value answers: a fixture that gives no ids is not read whole.
        try readFixture(
            config, column: column, everyRecord: { records += 1 },
            { value in
                if value != .null { given += 1 }
            }, continuing: { given == records })
        return records > 0 && given == records
    }

    /// Calls `body` with the value of `column` in each record of the table's fixture (and
    /// `everyRecord` for each record, whether it has the column or not), while `continuing`
    /// says so (asked before each record).
    private func readFixture(
        _ config: Manifest.TableConfig, column: String, everyRecord: () -> Void = {}, _ body: (InputValue) -> Void,
        continuing: () -> Bool = { true }
    ) throws {
        let columns = config.reading.format.recordsNameTheirFields ? try fixtureColumns(config) : []
        var source = try config.openFixture(fields: config.mapping.fields(forColumns: columns)) { $0 }
        // The fixture's field for the column: as mapped (`columns:`), or the column's own name.
        let wanted = config.mapping.field(for: column).lowercasedName
        guard let field = source.columnNames.firstIndex(where: { $0.lowercasedName == wanted }) else { return }
        var record = RawRecord()
        var ignored: [Diagnostic] = []  // the build reports the fixture's problems
        while continuing(), try source.next(&record, diagnostics: &ignored) {
            ignored.removeAll(keepingCapacity: true)
            everyRecord()
            for index in 0..<record.count where record.columns[index] == field {
                body(Self.input(record, index))
            }
        }
    }

    /// The column names a fixture of `config` whose records name their fields may use: the model's for Core Data, the schema's otherwise.
    fileprivate func fixtureColumns(_ config: Manifest.TableConfig) throws -> [String] {
        if let model = manifest.model {
            // A record may give a composite whole, in the Swift type's shape (SwiftShapeFields.swift).
            let columns = model.fixtureColumns(config.name)
            return columns
                + SwiftShapeFields.wholeNames(SwiftShape(entity: config.name, facts: model.facts), fields: columns)
        }
        let db = try DatabaseQueue()
        switch manifest.source {
        case .schema(let url):
            guard let data = FileManager.default.contents(atPath: url.path) else { return [] }
            try db.writeWithoutTransaction { db in try db.execute(sql: String(decoding: data, as: UTF8.self)) }
        case .template(let url):
            var readOnly = Configuration()
            readOnly.readonly = true
            try DatabaseQueue(path: url.path, configuration: readOnly).backup(to: db)
        case .none:
            return []
        }
        return try db.read { db in try TableInfo.read(db, table: config.name)?.columns.map(\.name) ?? [] }
    }

    fileprivate static func input(_ record: RawRecord, _ field: Int) -> InputValue {
        let text = record.text(field)
        switch record.kinds[field] {
        case .null: return .null
        case .text: return .string(text)
        case .integer: return Int64(text).map(InputValue.integer) ?? .string(text)
        case .real: return Double(text).map(InputValue.real) ?? .string(text)
        case .bool: return .bool(text == "true")
        case .json: return .json(text)
        }
    }
}

extension ReleaseKeyIndex {
    /// The first record of `config`'s fixture, field by field (the fixture's own names), or nil
    /// when it has no file, cannot be read or holds no record: the example `new-migration`'s
    /// scaffold shows.
    func firstRecord(_ config: Manifest.TableConfig) -> [(field: String, value: InputValue)]? {
        guard config.hasFile, config.query == nil,
            let columns = try? (config.reading.format.recordsNameTheirFields ? fixtureColumns(config) : []),
            var source = try? config.openFixture(
                fields: config.mapping.fields(forColumns: columns), unknownField: { $0 })
        else { return nil }
        var record = RawRecord()
        var ignored: [Diagnostic] = []
        guard (try? source.next(&record, diagnostics: &ignored)) == true else { return nil }
        return (0..<record.count).compactMap { index in
            let column = record.columns[index]
            guard column >= 0, column < source.columnNames.count else { return nil }
            return (source.columnNames[column], Self.input(record, index))
        }
    }
}
