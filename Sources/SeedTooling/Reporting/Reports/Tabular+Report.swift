import SeedRuntime

/// A table's rows (`inspect STORE TABLE`): an aligned table for people, the rows as JSON, CSV or
/// Markdown.
extension Tabular: Report {
    public static let views: Set<ReportView> = [.text, .document, .rows]

    public func writeText(to output: ReportOutput) {
        output.write(TableFormat(truncate: output.terminal, color: output.color).render(self))
    }

    /// `{"columns": [...], "rows": [{column: value}], "omitted": n}`: values keep their SQLite
    /// types (integers, reals, strings, null); blobs are base64 strings; a ref is
    /// `{"key": parent's natural key, "id": value stored}`.
    public var document: JSONOutput? {
        .object([
            ("columns", .array(columns.map { .string($0) })),
            (
                "rows",
                .array(
                    rows.enumerated().map { index, row in
                        .object(
                            zip(columns, row).enumerated().map { column, cell in
                                // A ref: {"key": the parent's natural key, "id": the value stored}.
                                guard let reference = references[column]?[index], reference.id != .null else {
                                    return (cell.0, JSONOutput.sql(cell.1 ?? .null))
                                }
                                return (
                                    cell.0,
                                    .object([
                                        ("key", JSONOutput.sql(reference.key)), ("id", JSONOutput.sql(reference.id)),
                                    ])
                                )
                            })
                    })
            ),
            ("omitted", .int(omitted)),
        ])
    }

    public var tabular: Tabular? { self }
}
