import Foundation
public import SeedRuntime

/// Checks rows that migrations write against the manifest's rules, with the same codes and
/// messages as a build.
public struct ManifestValidator: RowValidator {
    /// Lower-cased table → lower-cased column → its rules, prepared once for checking many values.
    private let rules: [String: [String: [ColumnRules.Prepared]]]
    /// The last row shape's rules, column by column: a big migration's rows all have the same
    /// columns, and looking each one up by its lower-cased name cost more than checking it.
    private let shapes = ShapeMemo()

    /// Prepares the rules of `manifest`'s tables (and its model's, for Core Data) for checking
    /// rows.
    public init(manifest: Manifest) {
        var rules: [String: [String: [ColumnRules.Prepared]]] = [:]
        // Attributes seedkit cannot write (Transformable, composite) are the Core Data dialect's
        // to refuse (CoreDataModelFacts.unwritable), with or without a manifest, so that it is said once.
        for table in manifest.tables {
            var byColumn = Dictionary(
                table.rules.map { ($0.column.lowercasedName, [$0]) }, uniquingKeysWith: { first, _ in first })
            // A Core Data model's own rules apply on top of the manifest's.
            // Its `required` is the Core Data dialect's to check (CoreDataModelFacts.required: with
            // the row's key, for rows left without a value too), so that it is said once.
            // So is a Transformable's archive (CoreDataDialect.invalidArchives).
            for var rule in manifest.model?.rules(for: table.name) ?? [] {
                rule.required = false
                rule.keyedArchive = false
                byColumn[rule.column.lowercasedName, default: []].append(rule)
            }
            rules[table.name.lowercasedName] = byColumn.mapValues { $0.map(ColumnRules.Prepared.init) }
        }
        self.rules = rules
    }

    /// Checks a row of `table` against the rules of its columns, naming `file` and `line` in what
    /// it finds.
    public func validate(table: String, values: [(column: String, value: SQLValue)], file: String, line: Int)
        -> [Diagnostic]
    {
        var problems: [Diagnostic] = []
        let shape = shapes.shape(table: table, columns: values.lazy.map { $0.column }) { columns in
            ruleShape(table, columns)
        }
        Self.check(values, against: shape, table: table, file: file, line: line, into: &problems)
        return problems
    }

    /// The rules of `table`'s `columns`, worked out once for the rows of a big migration (see ``RowValidator/forRows(table:columns:)``).
    package func forRows(table: String, columns: [String]) -> any RowValidator {
        RowsValidator(whole: self, table: table, columns: columns, shape: ruleShape(table, columns))
    }

    /// Each column's rules, by position (none for a column without any).
    private func ruleShape(_ table: String, _ columns: [String]) -> [[ColumnRules.Prepared]] {
        let tableKey = table.lowercasedName
        return columns.map { column in rules[tableKey]?[column.lowercasedName] ?? [] }
    }

    /// Each value against the rules of its column (`shape`, by position), as ``validate(table:values:file:line:)`` checks them.
    fileprivate static func check(
        _ values: [(column: String, value: SQLValue)], against shape: [[ColumnRules.Prepared]], table: String,
        file: String, line: Int, into problems: inout [Diagnostic]
    ) {
        for (index, (_, value)) in values.enumerated() {
            for rule in shape[index] where rule.quicklyPasses(value) != true {
                // Once per value of a big migration that the quick answer does not settle.
                for problem in rule.check(value) {
                    problems.append(
                        Diagnostic(
                            file: file, line: line, code: problem.code, message: "\(table): \(problem.message)",
                            table: table))
                }
            }
        }
    }
}

/// A ``ManifestValidator`` for rows of one table and column list: their rules looked up once, no
/// lock or lookup per row.
///
/// Rows of another shape go to the whole validator.
private struct RowsValidator: RowValidator {
    let whole: ManifestValidator
    let table: String
    let columns: [String]
    let shape: [[ColumnRules.Prepared]]

    func validate(table: String, values: [(column: String, value: SQLValue)], file: String, line: Int) -> [Diagnostic] {
        guard table == self.table, values.count == columns.count,
            values.indices.allSatisfy({ values[$0].column == columns[$0] })
        else {
            return whole.validate(table: table, values: values, file: file, line: line)
        }
        var problems: [Diagnostic] = []
        ManifestValidator.check(values, against: shape, table: table, file: file, line: line, into: &problems)
        return problems
    }
}

/// The rules of the last table and column names a validator was asked about (one lock: the
/// validator is Sendable, a run asks from one thread).
private final class ShapeMemo: @unchecked Sendable {
    typealias Shape = [[ColumnRules.Prepared]]
    private let lock = NSLock()
    private var table = ""
    private var columns: [String] = []
    private var shape: Shape = []

    func shape(table: String, columns: some Collection<String>, make: ([String]) -> Shape) -> Shape {
        lock.lock()
        defer { lock.unlock() }
        if table == self.table, columns.elementsEqual(self.columns) { return shape }
        self.table = table
        self.columns = Array(columns)
        shape = make(self.columns)
        return shape
    }
}
