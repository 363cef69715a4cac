public import SeedRuntime

/// Checks rows that migrations write against the manifest's rules, with the same codes and
/// messages as a build.
public struct ManifestValidator: RowValidator {
    private let rules: [String: [String: [ColumnRules]]]
    /// Lower-cased table → lower-cased attributes seedkit cannot write (Transformable and other archived values) → their type.
    private let unwritable: [String: [String: String]]

    public init(manifest: Manifest) {
        var rules: [String: [String: [ColumnRules]]] = [:]
        var unwritable: [String: [String: String]] = [:]
        for table in manifest.tables {
            for attribute in manifest.model?.flattened(table.name)?.attributes ?? [] where !CoreDataModel.supportedTypes.contains(attribute.type) {
                unwritable[table.name.lowercased(), default: [:]][attribute.name.lowercased()] = attribute.type
            }
            var byColumn = Dictionary(table.rules.map { ($0.column.lowercased(), [$0]) }, uniquingKeysWith: { first, _ in first })
            // A Core Data model's own rules apply on top of the manifest's.
            for rule in manifest.model?.rules(for: table.name) ?? [] { byColumn[rule.column.lowercased(), default: []].append(rule) }
            rules[table.name.lowercased()] = byColumn
        }
        self.rules = rules
        self.unwritable = unwritable
    }

    public func validate(table: String, values: [(column: String, value: SQLValue)], file: String, line: Int) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        let tableKey = table.lowercasedName
        if let unwritable = unwritable[tableKey] {
            for (column, _) in values {
                guard let type = unwritable[column.lowercasedName] else { continue }
                problems.append(Diagnostic(file: file, line: line, code: .unknownColumn, message: "\(table): \(column) is a \(type) attribute (an archived object, written by the app's own code), which seedkit cannot write", table: table))
            }
        }
        guard let columns = rules[tableKey] else { return problems }
        for (column, value) in values {
            guard let rules = columns[column.lowercasedName] else { continue }
            for rule in rules {
                // Once per value of a big migration: no array built when a rule holds.
                for problem in rule.check(value) {
                    problems.append(Diagnostic(file: file, line: line, code: problem.code, message: "\(table): \(problem.message)", table: table))
                }
            }
        }
        return problems
    }
}
