import SeedRuntime

/// A table's rows (`inspect STORE TABLE`): an aligned table for people, the rows as JSON, CSV or
/// Markdown; every format writes the rows as it reads them (``Tabular/forEachRow(_:)``).
extension Tabular: Report {
    /// Text, one JSON document, and the rows themselves: rows have nothing to annotate.
    public static let views: Set<ReportView> = [.text, .document, .rows]

    /// Writes the rows as an aligned table, with a line saying how many were left out.
    public func writeText(to output: ReportOutput) {
        TableFormat(truncate: output.terminal, color: output.color).write(self, to: output.write)
    }

    /// `{"columns": [...], "rows": [{column: value}], "omitted": n}`: values keep their SQLite
    /// types (integers, reals, strings, null); blobs are base64 strings; a ref is
    /// `{"key": parent's natural key, "id": value stored}`.
    ///
    /// Of held rows only (``writeDocument(to:)`` streams).
    public var document: JSONOutput? {
        var rows: [JSONOutput] = []
        let omitted = forEachRow { rows.append(object($0)) }
        return .object([
            ("columns", .array(columns.map { .string($0) })), ("rows", .array(rows)), ("omitted", .int(omitted)),
        ])
    }

    /// ``document`` as ``JSONOutput/render(_:indent:)`` prints it, each row written as it is read.
    public func writeDocument(to output: ReportOutput) {
        let header = JSONOutput.render(.array(columns.map { .string($0) }), indent: "  ")
        output.write("{\n  \"columns\": \(header),\n  \"rows\": [")
        var first = true
        let omitted = forEachRow { row in
            output.write((first ? "\n    " : ",\n    ") + JSONOutput.render(object(row), indent: "    "))
            first = false
        }
        output.write((first ? "]" : "\n  ]") + ",\n  \"omitted\": \(omitted)\n}\n")
    }

    /// One row as a JSON object: a ref as {"key": the parent's natural key, "id": the value stored}.
    private func object(_ row: Row) -> JSONOutput {
        .object(
            zip(columns, row.cells).enumerated().map { column, cell in
                guard let reference = row.references[column], reference.id != .null else {
                    return (cell.0, JSONOutput.sql(cell.1 ?? .null))
                }
                return (
                    cell.0,
                    .object([("key", JSONOutput.sql(reference.key)), ("id", JSONOutput.sql(reference.id))])
                )
            })
    }

    /// The rows are the report's rows.
    public var tabular: Tabular? { self }
}
