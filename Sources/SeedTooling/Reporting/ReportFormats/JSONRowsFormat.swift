import SeedRuntime
/// `{"columns": [...], "rows": [{column: value}], "omitted": n}`: values keep their SQLite
/// types (integers, reals, strings, null); blobs are base64 strings.
public struct JSONRowsFormat: ReportFormat {
    public init() {}

    public func render(_ tabular: Tabular) -> String {
        JSONOutput.render(.object([
            ("columns", .array(tabular.columns.map { .string($0) })),
            ("rows", .array(tabular.rows.map { row in .object(zip(tabular.columns, row).map { ($0.0, JSONOutput.sql($0.1)) }) })),
            ("omitted", .int(tabular.omitted)),
        ])) + "\n"
    }
}
