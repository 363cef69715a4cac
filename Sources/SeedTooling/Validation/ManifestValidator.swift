public import SeedRuntime

/// Checks rows that migrations write against the manifest's rules, with the same codes and
/// messages as a build.
public struct ManifestValidator: RowValidator {
    private let rules: [String: [String: [ColumnRules]]]

    public init(manifest: Manifest) {
        var rules: [String: [String: [ColumnRules]]] = [:]
        for table in manifest.tables {
            var byColumn = Dictionary(table.rules.map { ($0.column.lowercased(), [$0]) }, uniquingKeysWith: { first, _ in first })
            // A Core Data model's own rules apply on top of the manifest's.
            for rule in manifest.model?.rules(for: table.name) ?? [] { byColumn[rule.column.lowercased(), default: []].append(rule) }
            rules[table.name.lowercased()] = byColumn
        }
        self.rules = rules
    }

    public func validate(table: String, values: [(column: String, value: SQLValue)], file: String, line: Int) -> [Diagnostic] {
        guard let columns = rules[table.lowercased()] else { return [] }
        var problems: [Diagnostic] = []
        for (column, value) in values {
            for problem in (columns[column.lowercased()] ?? []).flatMap({ $0.check(value) }) {
                problems.append(Diagnostic(file: file, line: line, code: problem.code, message: "\(table): \(problem.message)", table: table))
            }
        }
        return problems
    }
}
