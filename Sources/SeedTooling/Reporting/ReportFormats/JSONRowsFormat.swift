import SeedRuntime

/// `{"columns": [...], "rows": [{column: value}], "omitted": n}`: values keep their SQLite
/// types (integers, reals, strings, null); blobs are base64 strings; a ref is
/// `{"key": parent's natural key, "id": value stored}`.
public struct JSONRowsFormat: ReportFormat {
    public init() {}

    public func render(_ tabular: Tabular) -> String {
        JSONOutput.render(
            .object([
                ("columns", .array(tabular.columns.map { .string($0) })),
                (
                    "rows",
                    .array(
                        tabular.rows.enumerated().map { index, row in
                            .object(
                                zip(tabular.columns, row).enumerated().map { column, cell in
                                    // A ref: {"key": the parent's natural key, "id": the value stored}.
                                    guard let reference = tabular.references[column]?[index], reference.id != .null
                                    else { return (cell.0, JSONOutput.sql(cell.1)) }
                                    return (
                                        cell.0,
                                        .object([
                                            ("key", JSONOutput.sql(reference.key)),
                                            ("id", JSONOutput.sql(reference.id)),
                                        ])
                                    )
                                })
                        })
                ),
                ("omitted", .int(tabular.omitted)),
            ])) + "\n"
    }
}
