import SeedRuntime

/// A JSON fixture's records in the Swift type's shape: each record that gives a composite whole
/// (`"size": {"width": 1.5}`, `"placement": "window"`) is handed to ``SwiftShape`` (the one place
/// that expands it) and gets the stored elements' fields it stands for
/// (docs/swiftdata.md, "Giving a composite in the Swift shape").
///
/// A CSV fixture's header names the elements (`size.width`).
struct SwiftShapeFields: Sendable {
    let shape: SwiftShape
    let entity: String
    let file: String
    let table: String
    /// The fixture's field names, by column index.
    private let names: [String]
    /// Column index of each field name, lower-cased.
    private let columns: [String: Int]
    /// Whether the field at a column index names a composite whole.
    private let isComposite: [Bool]

    /// The composites of `entity` a JSON fixture may give whole, or nil when it has none.
    init?(dialect: any StoreDialect, entity: String, file: String, table: String, names: [String]) {
        guard let shape = Self.shape(dialect, entity: entity) else { return nil }
        self.shape = shape
        self.entity = entity
        self.file = file
        self.table = table
        self.names = names
        var columns: [String: Int] = [:]
        for (index, name) in names.enumerated() where columns[name.lowercasedName] == nil {
            columns[name.lowercasedName] = index
        }
        self.columns = columns
        isComposite = names.map { !$0.contains(".") && shape.composite($0) != nil }
    }

    /// The names a JSON fixture's keys may have besides `fields`: the composites of `shape` given whole.
    static func wholeNames(_ shape: SwiftShape?, fields: [String]) -> [String] {
        guard let shape else { return [] }
        return shape.composites.map(\.name).filter { name in !fields.contains { $0.isSameName(as: name) } }
    }

    /// The Swift shape of `entity`'s composites, as `dialect` knows them (nil: not a Core Data store).
    static func shape(_ dialect: any StoreDialect, entity: String) -> SwiftShape? {
        (dialect as? CoreDataDialect)?.swiftShape(of: entity)
    }

    /// Whether the field at column `index` names a composite whole (its elements' fields carry its value).
    func namesComposite(_ index: Int) -> Bool { isComposite.indices.contains(index) && isComposite[index] }

    /// Gives `record` the elements' fields of each composite it gives whole (the whole field
    /// stays; its column loads nothing).
    ///
    /// False, with its problems in `diagnostics`, when the record cannot be expanded: it is then
    /// not loaded.
    func expand(_ record: inout RawRecord, diagnostics: inout [Diagnostic]) -> Bool {
        var wanted = false
        for field in 0..<record.count where record.kinds[field] == .json || namesComposite(record.columns[field]) {
            wanted = true
            break
        }
        guard wanted else { return true }
        let values = (0..<record.count).map { field in (names[record.columns[field]], Self.value(record, field)) }
        guard let expansion = shape.expand(values, entity: entity) else { return true }
        for problem in expansion.problems {
            diagnostics.append(
                Diagnostic(
                    file: file, line: record.line, column: problem.index + 1, code: problem.code(twice: .parseError),
                    message: problem.message, table: table))
        }
        guard expansion.problems.isEmpty else { return false }
        for (value, source) in zip(expansion.values, expansion.sources) where namesComposite(record.columns[source]) {
            guard let column = columns[value.column.lowercasedName] else { continue }
            Self.append(value.value, column: column, to: &record)
        }
        return true
    }

    /// A field's value as a row gives it.
    private static func value(_ record: RawRecord, _ field: Int) -> InputValue {
        let text = record.text(field)
        switch record.kinds[field] {
        case .null: return .null
        case .text: return .string(text)
        case .json: return .json(text)
        case .bool: return .bool(text == "true")
        case .integer: return Int64(text).map(InputValue.integer) ?? Double(text).map(InputValue.real) ?? .string(text)
        case .real: return Double(text).map(InputValue.real) ?? .string(text)
        }
    }

    /// Appends `value` to `record` as the field of `column`, as the JSON reader would have read it.
    private static func append(_ value: InputValue, column: Int, to record: inout RawRecord) {
        let start = record.bytes.count
        let kind: RawRecord.Kind
        switch value {
        case .null: kind = .null
        case .bool(let flag):
            record.bytes.append(contentsOf: (flag ? "true" : "false").utf8)
            kind = .bool
        case .integer(let number):
            record.bytes.append(contentsOf: String(number).utf8)
            kind = .integer
        case .real(let number):
            record.bytes.append(contentsOf: String(number).utf8)
            kind = .real
        case .string(let text):
            record.bytes.append(contentsOf: text.utf8)
            kind = .text
        case .json(let text):
            record.bytes.append(contentsOf: text.utf8)
            kind = .json
        }
        record.append(column: column, kind: kind, start: start)
    }
}
