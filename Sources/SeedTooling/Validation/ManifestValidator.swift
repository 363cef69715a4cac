public import SeedRuntime

/// Checks rows that migrations write against the manifest's rules, with the same codes and
/// messages as a build.
public struct ManifestValidator: RowValidator {
    private let rules: [String: [String: ColumnRules]]

    public init(manifest: Manifest) {
        var rules: [String: [String: ColumnRules]] = [:]
        for table in manifest.tables {
            rules[table.name.lowercased()] = Dictionary(table.rules.map { ($0.column.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        }
        self.rules = rules
    }

    public func validate(table: String, values: [(column: String, value: SQLValue)], file: String, line: Int) -> [Diagnostic] {
        guard let columns = rules[table.lowercased()] else { return [] }
        var problems: [Diagnostic] = []
        for (column, value) in values {
            guard let rule = columns[column.lowercased()] else { continue }
            for problem in rule.check(value) {
                problems.append(Diagnostic(file: file, line: line, code: problem.code, message: "\(table): \(problem.message)", table: table))
            }
        }
        return problems
    }
}
