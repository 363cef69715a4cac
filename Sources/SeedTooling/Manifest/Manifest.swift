import Foundation
public import SeedRuntime

/// A project's `seeds/seedkit.yml`: where the schema comes from, where the seed goes,
/// and each table's fixture, natural key, refs, rules and checks (docs/reference.md, "The manifest (`seeds/seedkit.yml`)").
///
/// Paths in the file are relative to the manifest's folder.
public struct Manifest: Sendable {
    /// The manifest's path as the user named it, for messages.
    public var path: String
    /// The manifest's folder, which the paths it holds are relative to.
    public var directory: URL
    /// Where the seed's schema comes from: DDL, a template store, or neither.
    public var source: SchemaSource
    /// The Core Data model, for a manifest with `model:` (tables are entities, columns attributes).
    public var model: CoreDataModel?
    /// Where the seed is written (`output:`), or nil when the manifest does not say (`--output`
    /// must).
    public var output: URL?
    /// Tables in load order.
    public var tables: [TableConfig]
    /// Raw files that `query:` tables read (`sources:`), loaded into a scratch database, never into the seed.
    public var sources: [Source] = []

    /// A raw file a `query:` reads as a table of its fields (`sources:`).
    public struct Source: Sendable {
        /// The name a `query:` reads the source by, as a table.
        public var name: String
        /// The source file.
        public var file: URL
        /// The source path as written relative to the current directory, for messages.
        public var displayFile: String
        /// How the file is read: its format and reading options.
        public var reading: ReadingOptions
        /// Where the records are in a JSON document (`root:`); nil for the document itself.
        public var root: JSONPointer?
        /// The line of the source's entry in the manifest.
        public var line: Int
        /// The column of the source's entry in the manifest.
        public var column: Int
    }

    /// A table's rows as a SQLite SELECT over the sources gives them (`query:`).
    public struct Query: Sendable {
        /// The SELECT, as written.
        public var sql: String
        /// The line of `query:` in the manifest, for an error in the SQL.
        public var line: Int
        /// The column of `query:` in the manifest.
        public var column: Int
    }

    /// Where the seed's schema comes from (`schema:` or `template:`).
    public enum SchemaSource: Sendable {
        /// DDL run on an empty database.
        case schema(URL)
        /// A store whose schema is used as it is.
        case template(URL)
        /// Neither: a Core Data manifest without a template (enough to migrate, inspect and verify).
        case none
    }

    /// One table's entry.
    public struct TableConfig: Sendable {
        /// The table's name, as the manifest writes it.
        public var name: String
        /// The fixture's file.
        public var file: URL
        /// Whether the entry names its fixture (`file:`); a manifest used only to migrate needs none.
        public var hasFile = true
        /// `migrate_only: true`: the seed leaves the table as the template or schema makes it, and
        /// the release's migrations update and delete rows users already have in it
        /// (docs/reference.md, "Tables only migrations write").
        public var migrateOnly = false
        /// The fixture path as written relative to the current directory, for messages.
        public var displayFile: String
        /// The natural key's columns (`key:`; the primary key by default): what migrations and refs
        /// name rows by.
        public var key: [String]
        /// Each ref column's target (`refs:`): the fixture holds the parent's key, the seed its id.
        public var refs: [String: TableSpec.Reference]
        /// The column rules (`rules:`) every row must satisfy.
        public var rules: [ColumnRules]
        /// The SQL checks (`checks:`) every row must satisfy.
        public var checks: [Check]
        /// Where the table's entry is in the manifest.
        public var line: Int
        /// The column of the table's entry in the manifest.
        public var column: Int
        /// Where each named column is mentioned (key, refs, rules, columns), for unknown-column errors.
        public var columnMentions: [(column: String, line: Int, column2: Int)]
        /// Where the records are in a JSON document (`root: /3166-1`); nil for the document itself.
        public var root: JSONPointer?
        /// Fixture field → column (`columns:`, `ignore:`).
        public var mapping = FieldMapping()
        /// How the fixture is read: its format and reading options, decided once, here.
        public var reading = ReadingOptions(format: .csv)
        /// The SELECT the table's rows come from, instead of a fixture (`query:`).
        public var query: Query?

        /// Where each JSON Pointer of `columns:` is written, by its column, for messages about it.
        public var pointerPositions: [String: (line: Int, column: Int)] = [:]

        /// Where each ref's target (`categories.name`) is written, by the ref's column, for messages about it.
        public var refPositions: [String: (line: Int, column: Int)] = [:]

        /// What migrations need of the table: its name, key and refs.
        public var spec: TableSpec { TableSpec(name: name, key: key, refs: refs) }
    }

    /// A SQL boolean expression every row must satisfy.
    public struct Check: Sendable {
        /// The SQL boolean expression, as written.
        public var sql: String
        /// What an error says of a row that fails the check.
        public var message: String
        /// The line of the check in the manifest.
        public var line: Int
    }

    /// Loads and checks the shape of a manifest.
    ///
    /// Names of tables and columns are checked against the schema later, by the builder.
    ///
    /// - throws: ``SeedError`` (configuration) naming the file, line and key.
    public static func load(path: String) throws(SeedError) -> Manifest {
        let url = URL(fileURLWithPath: path)
        try FileFacts.refuseSpecial(path, shown: path, what: "the manifest")
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SeedError(
                .configuration, file: path,
                "no manifest here: seedkit init writes one (seedkit help init), or pass --manifest PATH")
        }
        if let problem = data.withUnsafeBytes({ UTF8Validation.textProblem($0) }) {
            throw SeedError(.configuration, file: path, line: problem.line, code: .invalidEncoding, problem.message)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw SeedError(.configuration, file: path, code: .invalidEncoding, "the manifest is not UTF-8")
        }
        let document = try YAMLDocument.parse(text, file: path)
        return try Manifest(document: document, path: path, directory: url.deletingLastPathComponent())
    }

    init(document: DocNode, path: String, directory: URL) throws(SeedError) {
        self.path = path
        self.directory = directory
        func fail(_ line: Int, _ column: Int, _ message: String) -> SeedError {
            SeedError(.configuration, file: path, line: line, column: column, message)
        }
        func string(_ node: DocNode, _ what: String) throws(SeedError) -> String {
            switch node.value {
            case .string(let text): return text
            case .integer(let number): return String(number)
            default: throw fail(node.line, node.column, "\(what) must be text")
            }
        }
        guard let entries = document.entries else {
            throw fail(
                document.line, document.column,
                "the manifest must be a map with schema (or template), output and tables")
        }
        var schema: URL?
        var template: URL?
        var model: (url: URL, text: String, line: Int, column: Int)?
        var output: URL?
        var tables: [TableConfig] = []
        var sources: [Source] = []
        var tablesSeen = false
        for entry in entries {
            switch entry.key {
            case "schema": schema = Self.resolve(try string(entry.node, "schema"), in: directory)
            case "template": template = Self.resolve(try string(entry.node, "template"), in: directory)
            case "output": output = Self.resolve(try string(entry.node, "output"), in: directory)
            case "model":
                let text = try string(entry.node, "model")
                model = (Self.resolve(text, in: directory), text, entry.line, entry.column)
            case "sources":
                guard let sourceEntries = entry.node.entries else {
                    throw fail(
                        entry.node.line, entry.node.column,
                        "sources must be a map of name: {file, …}, like codes: { file: data/codes.csv }")
                }
                for source in sourceEntries {
                    sources.append(try Self.source(source, directory: directory, path: path))
                }
            case "tables":
                tablesSeen = true
                guard let tableEntries = entry.node.entries else {
                    throw fail(entry.node.line, entry.node.column, "tables must be a map of table name: {file, key, …}")
                }
                for table in tableEntries { tables.append(try Self.table(table, directory: directory, path: path)) }
            default:
                throw fail(
                    entry.line, entry.column,
                    "unknown key '\(entry.key)' (expected schema, template, output, sources, tables)")
            }
        }
        switch (schema, template) {
        case (let schema?, nil): source = .schema(schema)
        case (nil, let template?): source = .template(template)
        case (nil, nil): source = .none  // enough to migrate, inspect and verify; build says what it needs
        case (.some, .some): throw fail(document.line, document.column, "use schema: or template:, not both")
        }
        // The model the template store keeps in Z_MODELCACHE (every store Core Data or SwiftData
        // wrote since about iOS 5): the model itself when model: is left out, and checked
        // against model: when both are there.
        var cached: CoreDataModel?
        if let template, FileManager.default.fileExists(atPath: template.path) {
            cached = try CoreDataModel.loadCache(store: template, shown: displayPath(template))
        }
        if let model {
            if schema != nil {
                throw fail(model.line, model.column, "a Core Data manifest (model:) takes template:, not schema:")
            }
            let loaded = try CoreDataModel.load(model.url, shown: displayPath(model.url))
            if let cached {
                let differences = loaded.differences(
                    fromCache: cached, model: "model: \(model.text)", cacheName: "the template's Z_MODELCACHE")
                if !differences.isEmpty {
                    throw SeedError(
                        .configuration,
                        [
                            Diagnostic(
                                file: path, line: model.line, column: model.column, code: .configuration,
                                message:
                                    "the model and the model the template store was created with disagree; is the template from another version of the app?"
                            )
                        ]
                            + differences.map {
                                Diagnostic(
                                    file: path, line: model.line, column: model.column, code: .configuration,
                                    message: $0)
                            })
                }
            }
            self.model = loaded
        } else if let cached {
            self.model = cached
        }
        guard tablesSeen else { throw fail(document.line, document.column, "the manifest has no tables:") }
        self.output = output
        self.tables = tables
        self.sources = sources
        var sourceNames = Set<String>()
        for source in sources where !sourceNames.insert(source.name.lowercasedName).inserted {
            throw fail(source.line, source.column, "source '\(source.name)' is listed twice")
        }
        if let table = tables.first(where: { $0.query != nil }), sources.isEmpty {
            throw fail(
                table.line, table.column,
                "table '\(table.name)' has a query: but the manifest has no sources: to read it from")
        }
        var seen = Set<String>()
        for table in tables where !seen.insert(table.name.lowercasedName).inserted {
            throw fail(table.line, table.column, "table '\(table.name)' is listed twice")
        }
        if let model = self.model { try checkNames(against: model) }
    }

    /// With a model, tables are entities and columns attributes or to-one relationships.
    private func checkNames(against model: CoreDataModel) throws(SeedError) {
        var problems: [Diagnostic] = []
        for table in tables {
            guard let entity = model.flattened(table.name) else {
                problems.append(
                    Diagnostic(
                        file: path, line: table.line, column: table.column, code: .configuration,
                        message:
                            "unknown entity '\(table.name)': the model has \(model.entities.map(\.name).joined(separator: ", "))"
                    ))
                continue
            }
            for mention in table.columnMentions
            where !entity.hasColumn(mention.column) && model.manyToMany(entity.name, mention.column) == nil {
                problems.append(
                    Diagnostic(
                        file: path, line: mention.line, column: mention.column2, code: .configuration,
                        message:
                            "entity \(entity.name) has no attribute, to-one or many-to-many relationship '\(mention.column)'"
                    ))
            }
            for (column, reference) in table.refs {
                let (line, position) = table.refPositions[column] ?? (table.line, table.column)
                guard let parent = model.flattened(reference.table) else {
                    let near =
                        model.entities.first { $0.name.isSameName(as: reference.table) }.map {
                            " (names are case-sensitive: \($0.name)?)"
                        } ?? ""
                    problems.append(
                        Diagnostic(
                            file: path, line: line, column: position, code: .configuration,
                            message:
                                "ref \(table.name).\(column) → \(reference): no entity '\(reference.table)'\(near); the model has \(model.entities.map(\.name).joined(separator: ", "))"
                        ))
                    continue
                }
                if !parent.attributes.contains(where: { $0.name == reference.column }) {
                    problems.append(
                        Diagnostic(
                            file: path, line: line, column: position, code: .configuration,
                            message:
                                "ref \(table.name).\(column) → \(reference): \(parent.name) has no attribute '\(reference.column)'; it has \(parent.attributes.map(\.name).joined(separator: ", "))"
                        ))
                }
            }
            for attribute in entity.attributes
            where !CoreDataModel.supportedTypes.contains(attribute.type)
                && table.columnMentions.contains(where: { $0.column == attribute.name })
            {
                problems.append(
                    Diagnostic(
                        file: path, line: table.line, code: .configuration,
                        message:
                            "\(entity.name).\(attribute.name) is a \(attribute.type) attribute, which seedkit does not convert yet"
                    ))
            }
        }
        if !problems.isEmpty { throw SeedError(.configuration, problems) }
    }

    private static func table(_ entry: DocEntry, directory: URL, path: String) throws(SeedError) -> TableConfig {
        func fail(_ line: Int, _ column: Int, _ message: String) -> SeedError {
            SeedError(.configuration, file: path, line: line, column: column, message)
        }
        let name = entry.key
        guard let fields = entry.node.entries else {
            throw fail(entry.node.line, entry.node.column, "table '\(name)' must be a map with file and key")
        }
        var file: String?
        var query: Query?
        var key: [String] = []
        var refs: [String: TableSpec.Reference] = [:]
        var refPositions: [String: (line: Int, column: Int)] = [:]
        var rules: [ColumnRules] = []
        var checks: [Check] = []
        var mentions: [(String, Int, Int)] = []
        var root: (pointer: JSONPointer, line: Int, column: Int)?
        var mapping = FieldMapping()
        var ignoredAt: [(field: String, line: Int, column: Int)] = []
        var pointerPositions: [String: (line: Int, column: Int)] = [:]
        var migrateOnly: DocEntry?
        for field in fields {
            let node = field.node
            switch field.key {
            case "file":
                guard let text = node.string else { throw fail(node.line, node.column, "file must be a path") }
                file = text
            case "query":
                guard let text = node.string, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                    throw fail(node.line, node.column, "query must be a SQLite SELECT over the sources")
                }
                query = Query(sql: text, line: node.line, column: node.column)
            case "key":
                if let text = node.string {
                    key = [text]
                } else if let items = node.items {
                    key = []
                    for item in items {
                        guard let text = item.string else {
                            throw fail(item.line, item.column, "key columns must be names")
                        }
                        key.append(text)
                    }
                } else {
                    throw fail(node.line, node.column, "key must be a column name or a list of them")
                }
                for column in key { mentions.append((column, node.line, node.column)) }
            case "refs":
                guard let refEntries = node.entries else {
                    throw fail(node.line, node.column, "refs must be a map of column: table.key")
                }
                for ref in refEntries {
                    guard let text = ref.node.string, let reference = TableSpec.Reference(text) else {
                        throw fail(
                            ref.node.line, ref.node.column,
                            "ref '\(ref.key)' must be written table.column, like categories.name")
                    }
                    refs[ref.key] = reference
                    refPositions[ref.key] = (ref.node.line, ref.node.column)
                    mentions.append((ref.key, ref.line, ref.column))
                }
            case "rules":
                guard let ruleEntries = node.entries else {
                    throw fail(node.line, node.column, "rules must be a map of column: {rule: value}")
                }
                for ruleEntry in ruleEntries {
                    rules.append(try columnRules(ruleEntry, path: path))
                    mentions.append((ruleEntry.key, ruleEntry.line, ruleEntry.column))
                }
            case "checks":
                guard let items = node.items else {
                    throw fail(node.line, node.column, "checks must be a list of {sql, message}")
                }
                for item in items {
                    guard let checkFields = item.entries else {
                        throw fail(item.line, item.column, "a check is {sql: …, message: …}")
                    }
                    var sql: String?
                    var message: String?
                    for checkField in checkFields {
                        switch checkField.key {
                        case "sql": sql = checkField.node.string
                        case "message": message = checkField.node.string
                        default:
                            throw fail(
                                checkField.line, checkField.column,
                                "unknown key '\(checkField.key)' in a check (expected sql, message)")
                        }
                    }
                    guard let sql else { throw fail(item.line, item.column, "this check has no sql") }
                    checks.append(Check(sql: sql, message: message ?? "check failed: \(sql)", line: item.line))
                }
            case "root":
                guard let text = node.string, let pointer = JSONPointer(text) else {
                    throw fail(
                        node.line, node.column,
                        "root must be a JSON Pointer to the array of records, like /3166-1 (RFC 6901: '/' before each key; ~0 stands for ~ and ~1 for / in a key)"
                    )
                }
                root = (pointer, node.line, node.column)
            case "columns":
                guard let columnEntries = node.entries else {
                    throw fail(
                        node.line, node.column, "columns must be a map of column: fixture field, like { code: alpha_2 }"
                    )
                }
                for columnEntry in columnEntries {
                    guard let source = columnEntry.node.string, !source.isEmpty else {
                        throw fail(
                            columnEntry.node.line, columnEntry.node.column,
                            "columns: '\(columnEntry.key)' must name the fixture field it is read from")
                    }
                    if let earlier = mapping.columns.first(where: { $0.field.isSameName(as: source) }) {
                        throw fail(
                            columnEntry.node.line, columnEntry.node.column,
                            "field '\(source)' is mapped twice (to \(earlier.column) and to \(columnEntry.key)); a field fills one column"
                        )
                    }
                    if source.hasPrefix("/") {
                        guard let pointer = JSONPointer(source), !pointer.tokens.isEmpty else {
                            throw fail(
                                columnEntry.node.line, columnEntry.node.column,
                                "columns: '\(columnEntry.key)': '\(source)' is not a JSON Pointer (RFC 6901: '/' before each key, like /name/common; ~0 stands for ~ and ~1 for / in a key)"
                            )
                        }
                        pointerPositions[columnEntry.key] = (columnEntry.node.line, columnEntry.node.column)
                    }
                    mapping.columns.append((columnEntry.key, source))
                    mentions.append((columnEntry.key, columnEntry.line, columnEntry.column))
                }
            case "migrate_only":
                guard case .bool(let flag) = node.value else {
                    throw fail(node.line, node.column, "migrate_only must be true or false")
                }
                migrateOnly = flag ? field : nil
            case _ where ReadingOptions.keys.contains(field.key):
                continue  // read below, once the file is known
            case "ignore":
                guard let items = node.items else {
                    throw fail(node.line, node.column, "ignore must be a list of fixture fields, like [alpha_3, flag]")
                }
                for item in items {
                    guard let text = item.string else {
                        throw fail(item.line, item.column, "ignore lists fixture field names")
                    }
                    mapping.ignored.append(text)
                    ignoredAt.append((text, item.line, item.column))
                }
            default:
                throw fail(
                    field.line, field.column,
                    "unknown key '\(field.key)' in table '\(name)' (expected file, query, key, refs, rules, checks, root, columns, ignore, migrate_only, format, delimiter, comment, header, nulls, ragged)"
                )
            }
        }
        for ignored in ignoredAt {
            if let mapped = mapping.columns.first(where: { $0.field.isSameName(as: ignored.field) }) {
                throw fail(
                    ignored.line, ignored.column,
                    "field '\(ignored.field)' is both ignored and mapped (columns: \(mapped.column): \(mapped.field)); drop one"
                )
            }
        }
        if let migrateOnly, let given = fields.first(where: { $0.key == "file" || $0.key == "query" }) {
            throw fail(
                migrateOnly.line, migrateOnly.column,
                "table '\(name)' is migrate_only: true and has \(given.key): (line \(given.line)); the seed leaves a migrate-only table as the template makes it, so drop one of them"
            )
        }
        if let query, file != nil {
            throw fail(
                query.line, query.column, "table '\(name)' has both file: and query:; its rows come from one of them")
        }
        if let query, let option = fields.first(where: { ReadingOptions.keys.contains($0.key) || $0.key == "root" }) {
            _ = query
            throw fail(
                option.line, option.column,
                "\(option.key): is a reading option of a file; table '\(name)' takes its rows from its query (give the option to the source it reads)"
            )
        }
        // A manifest used only to migrate names no fixture; a build says it needs one.
        let url = Manifest.resolve(file ?? name, in: directory)
        // The format and reading options, decided once for every command that reads the fixture.
        let reading: ReadingOptions
        if file != nil || fields.contains(where: { ReadingOptions.keys.contains($0.key) }) {
            reading = try ReadingOptions.read(
                fields, file: file ?? name, url: url, manifest: path, entryLine: entry.line, entryColumn: entry.column)
        } else {
            reading = ReadingOptions(format: .csv)
        }
        if let pointer = pointerPositions.sorted(by: { $0.value.line < $1.value.line }).first,
            !reading.format.supportsPointers
        {
            throw fail(
                pointer.value.line, pointer.value.column,
                "columns: '\(pointer.key)' is a JSON Pointer, which reads a JSON record; \(file ?? name) is read as \(reading.format.rawValue)"
            )
        }
        if let root, !reading.format.supportsRoot {
            throw fail(
                root.line, root.column,
                "root: points into a JSON document (\(ReadingOptions.rootFormats)); \(file ?? name) is read as \(reading.format.rawValue)"
            )
        }
        var config = TableConfig(
            name: name, file: url, hasFile: file != nil, displayFile: displayPath(url), key: key, refs: refs,
            rules: rules, checks: checks,
            line: entry.line, column: entry.column,
            columnMentions: mentions.map { (column: $0.0, line: $0.1, column2: $0.2) })
        config.root = root?.pointer
        config.mapping = mapping
        config.reading = reading
        config.query = query
        config.migrateOnly = migrateOnly != nil
        if query != nil { config.displayFile = "\(displayPath(URL(fileURLWithPath: path))) (query of \(name))" }
        config.pointerPositions = pointerPositions
        config.refPositions = refPositions
        return config
    }

    private static func source(_ entry: DocEntry, directory: URL, path: String) throws(SeedError) -> Source {
        func fail(_ line: Int, _ column: Int, _ message: String) -> SeedError {
            SeedError(.configuration, file: path, line: line, column: column, message)
        }
        guard let fields = entry.node.entries else {
            throw fail(
                entry.node.line, entry.node.column,
                "source '\(entry.key)' must be a map with file, like { file: data/codes.csv }")
        }
        var file: String?
        var root: JSONPointer?
        for field in fields {
            switch field.key {
            case "file":
                guard let text = field.node.string else {
                    throw fail(field.node.line, field.node.column, "file must be a path")
                }
                file = text
            case "root":
                guard let text = field.node.string, let pointer = JSONPointer(text) else {
                    throw fail(
                        field.node.line, field.node.column,
                        "root must be a JSON Pointer to the array of records, like /3166-1")
                }
                root = pointer
            case _ where ReadingOptions.keys.contains(field.key): continue
            default:
                throw fail(
                    field.line, field.column,
                    "unknown key '\(field.key)' in source '\(entry.key)' (expected file, root, format, delimiter, comment, header, nulls, ragged)"
                )
            }
        }
        guard let file else { throw fail(entry.line, entry.column, "source '\(entry.key)' has no file:") }
        let url = Manifest.resolve(file, in: directory)
        let reading = try ReadingOptions.read(
            fields, file: file, url: url, manifest: path, entryLine: entry.line, entryColumn: entry.column)
        if root != nil, !reading.format.supportsRoot, let at = fields.first(where: { $0.key == "root" }) {
            throw fail(
                at.node.line, at.node.column,
                "root: points into a JSON document (\(ReadingOptions.rootFormats)); \(file) is read as \(reading.format.rawValue)"
            )
        }
        return Source(
            name: entry.key, file: url, displayFile: displayPath(url), reading: reading, root: root, line: entry.line,
            column: entry.column)
    }

}
