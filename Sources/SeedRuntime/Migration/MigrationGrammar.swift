/// The migration format, defined once (docs/releases.md, "Migration files"): the file formats a
/// migrations folder holds, the sections of a declarative file (`insert`, `update`, `delete`), the
/// fields of their items with the kind of value each holds, and the operation each section makes.
///
/// Every reader goes through it: the document reader (``DataChanges/init(document:file:)``, for
/// YAML and for JSON it cannot stream), the streamed JSON reader
/// (``Migration/readStreamed(file:json:chunkRows:firstChunkRows:emit:)``) and the large file read
/// while applied (``DeferredJSONMigration``, which streams). A section or field is spelled here
/// only, and so is each message refusing one; the streamed reader hands what it refuses to the
/// document reader, so that all three give the same error at the same `file:line:col`. The
/// tooling's generator writes its section and field names from here too.
///
/// Adding an operation is a ``DataChanges/Operation/Kind`` with its ``Section`` here, its case of
/// ``DataChanges/Operation`` (below) and the five switches that make and take one apart, and its
/// apply step (``MigrationRun``); the compiler then names the release checks that must say what
/// it means to them (the tooling's `MigrationKeys`, `UpgradeChecker`).
package enum MigrationGrammar {
    /// The sections of a declarative migration, one per operation, in the order the generator writes them.
    package static let sections = DataChanges.Operation.Kind.allCases.map(Section.init)

    /// The section of operations of `kind`.
    package static func section(_ kind: DataChanges.Operation.Kind) -> Section {
        sections.first { $0.kind == kind } ?? Section(kind)
    }

    /// The section named `name` (as written: names are case-sensitive), or nil.
    package static func section(named name: String) -> Section? {
        sections.first { $0.name == name }
    }

    /// One section: its name, what each of its items is, and the operation a table's items make.
    package struct Section: Sendable {
        /// The operation its items make; its name is the section's.
        package let kind: DataChanges.Operation.Kind
        package let items: Items
        package var name: String { kind.name }

        /// The section of operations of `kind`: what its items are, each field with its rule.
        package init(_ kind: DataChanges.Operation.Kind) {
            self.kind = kind
            switch kind {
            case .insert:
                items = .rows
            case .update:
                items = .changes([
                    Field(.key, .required),
                    Field(.expected, .optional),
                    Field(.wanted, .nonEmpty),
                ])
            case .delete:
                // Without `from`, a delete could not tell a row the user changed from the one the seed shipped.
                let why =
                    "give the values the previous seed shipped (`from: {}` for a row with nothing but its key), so that a row the user changed is kept"
                items = .changes([
                    Field(.key, .required),
                    Field(.expected, .requiredBecause(why)),
                ])
            }
        }

        /// The fields of an item, for a section of changes; none for rows.
        package var fields: [Field] {
            if case .changes(let fields) = items { return fields }
            return []
        }

        /// The field named `name` (as written), or nil.
        package func field(named name: String) -> Field? { fields.first { $0.name == name } }
    }

    /// What each item of a section is.
    package enum Items: Sendable {
        /// A row: a map of column: value (`insert`).
        case rows
        /// A change of a row found by its key: a map of these fields (`update`, `delete`).
        case changes([Field])
    }

    /// A field of a change.
    package struct Field: Sendable {
        package let kind: Kind
        package let rule: Rule
        /// The field's name, its kind's.
        package var name: String { kind.rawValue }

        init(_ kind: Kind, _ rule: Rule) {
            self.kind = kind
            self.rule = rule
        }

        /// What the field holds, and where it goes in a ``DataChanges/RowChange``; its raw value
        /// is its name, the same in every section that has it.
        package enum Kind: String, Sendable, Equatable {
            /// The row's key: one value, or a map of column: value for a composite key (``DataChanges/RowChange/key``).
            case key
            /// The values the row is expected to hold: a map of column: value (``DataChanges/RowChange/from``).
            case expected = "from"
            /// The values to write: a map of column: value (``DataChanges/RowChange/to``).
            case wanted = "to"

            /// `key`, `from`, `to`.
            package var name: String { rawValue }
        }

        /// Whether an item must have the field.
        package enum Rule: Sendable {
            case optional
            case required
            /// Required, for the reason the message gives.
            case requiredBecause(String)
            /// Present with at least one value.
            case nonEmpty
        }
    }

    // MARK: - Messages: every refusal of the format's shape, worded once

    /// `insert, update or delete` (`conjunction` "or"), as lists are shown in messages.
    static func listed(_ names: [String], _ conjunction: String) -> String {
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " \(conjunction) " + (names.last ?? "")
    }

    static var sectionNames: [String] { sections.map(\.name) }

    /// The document is not a map.
    static var notAMap: String { "a migration is a map with \(listed(sectionNames, "and/or"))" }

    /// A top-level key that names no section.
    static func unknownSection(_ name: String) -> String {
        "unknown operation '\(name)' (expected \(listed(sectionNames, "or")))"
    }

    /// A section that is not a map of tables.
    static func notTables(_ section: Section) -> String { "'\(section.name)' must be a map of table: [rows]" }

    /// A table whose items are not a list.
    static func notItems(_ section: Section, table: String) -> String {
        "'\(section.name).\(table)' must be a list of rows"
    }

    /// A row that is not a map (`what`: "a row to insert", "'from'").
    static func notValues(_ what: String) -> String { "\(what) must be a map of column: value" }

    /// An item of changes that is not a map.
    static func notAChange(_ section: Section) -> String {
        let names = section.fields.map(\.name)
        // `key, from and to`, `key, from`: the wording the messages have always had.
        let shown = names.count > 2 ? listed(names, "and") : names.joined(separator: ", ")
        return "each \(section.name) is a map with \(shown)"
    }

    /// A field the section does not have.
    static func unknownField(_ name: String, in section: Section) -> String {
        "unknown field '\(name)' in \(section.name) (expected \(section.fields.map(\.name).joined(separator: ", ")))"
    }

    /// A map with `key` twice (the words of the YAML parser's refusal, which a YAML file meets first).
    static func repeatedKey(_ key: String, firstLine: Int) -> String {
        "key '\(key)' appears twice in the same map (first at line \(firstLine)); keep one"
    }

    /// A key given as a list.
    static let keyIsAList = "a key is one value, or a map of column: value for a composite key"

    /// An item without a field it must have.
    static func missing(_ field: Field, in section: Section) -> String {
        switch field.rule {
        case .optional, .required: return "this \(section.name) has no '\(field.name)'"
        case .requiredBecause(let reason): return "this \(section.name) has no '\(field.name)': \(reason)"
        case .nonEmpty: return "this \(section.name) has no '\(field.name)' values"
        }
    }

    // MARK: - File formats

    /// The formats of migration files, by extension (lower-cased: ``Migration/parseFileName(_:)``).
    package enum FileFormat: Sendable, CaseIterable {
        /// Declarative, YAML: read by the tool; an app bundles its JSON (`seedkit export-migrations`).
        case yaml
        /// Declarative, JSON.
        case json
        /// SQL, run as written.
        case sql

        /// The extensions of files of this format, the one written first.
        package var extensions: [String] {
            switch self {
            case .yaml: return ["yml", "yaml"]
            case .json: return ["json"]
            case .sql: return ["sql"]
            }
        }

        /// The extension a file of this format is written with.
        package var fileExtension: String { extensions.first ?? "" }

        /// The format a file of this format is bundled in (`seedkit export-migrations`, the build
        /// plugin): the runtime has no YAML parser.
        package var bundled: FileFormat { self == .yaml ? .json : self }

        /// The format of files with extension `ext` (lower-cased), or nil.
        package init?(extension ext: String) {
            guard let format = Self.allCases.first(where: { $0.extensions.contains(ext) }) else { return nil }
            self = format
        }
    }

    /// Every extension of a migration file.
    package static let fileExtensions = Set(FileFormat.allCases.flatMap(\.extensions))

    /// `NNNN-name.yml, .json or .sql`: one name of each format, for messages.
    static var fileNamesShown: String {
        "NNNN-name" + listed(FileFormat.allCases.map { "." + $0.fileExtension }, "or")
    }
}

// MARK: - Operations

extension DataChanges {
    /// One section's items for one table, in the order written.
    package enum Operation: Sendable, Equatable {
        case insert(table: String, rows: [RowValues])
        case update(table: String, changes: [RowChange])
        case delete(table: String, changes: [RowChange])
    }
}

extension DataChanges.Operation {
    /// What an operation does; its raw value is its section's name.
    package enum Kind: String, Sendable, CaseIterable {
        case insert, update, delete

        /// The name of its section: `insert`, `update`, `delete`.
        package var name: String { rawValue }
    }

    /// The operation of `kind` on `table`, from the items a section of that kind reads: rows for
    /// `.rows`, changes for `.changes`.
    package init(_ kind: Kind, table: String, rows: [DataChanges.RowValues], changes: [DataChanges.RowChange]) {
        switch kind {
        case .insert: self = .insert(table: table, rows: rows)
        case .update: self = .update(table: table, changes: changes)
        case .delete: self = .delete(table: table, changes: changes)
        }
    }

    package var kind: Kind {
        switch self {
        case .insert: return .insert
        case .update: return .update
        case .delete: return .delete
        }
    }

    package var table: String {
        switch self {
        case .insert(let table, _), .update(let table, _), .delete(let table, _): return table
        }
    }

    /// The rows of a section of rows (an insert's); none for other operations.
    package var rows: [DataChanges.RowValues] {
        switch self {
        case .insert(_, let rows): return rows
        case .update, .delete: return []
        }
    }

    /// The items of a section of changes (an update's, a delete's); none for other operations.
    package var changes: [DataChanges.RowChange] {
        switch self {
        case .insert: return []
        case .update(_, let changes), .delete(_, let changes): return changes
        }
    }

    /// Calls `body` with the values the operation writes, as its section's fields say: each row
    /// of a section of rows (its key among its values: `key` nil), each change's values to write
    /// (``MigrationGrammar/Field/Kind/wanted``, an update's `to`) with the key that finds its row.
    ///
    /// A delete writes none.
    package func forEachWrittenRow(
        _ body: (_ values: DataChanges.RowValues, _ key: DataChanges.Key?, _ line: Int) throws -> Void
    ) rethrows {
        let section = MigrationGrammar.section(kind)
        switch section.items {
        case .rows:
            for row in rows { try body(row, nil, row.line) }
        case .changes(let fields):
            guard fields.contains(where: { $0.kind == .wanted }) else { return }
            for change in changes { try body(change.to, change.key, change.line) }
        }
    }

    /// Rows to insert, or items to update or delete.
    var itemCount: Int { rows.count + changes.count }

    /// The operation without its first `count` items (those a stream applied already).
    func droppingFirst(_ count: Int) -> Self {
        Self(kind, table: table, rows: Array(rows.dropFirst(count)), changes: Array(changes.dropFirst(count)))
    }
}
