public import SeedRuntime

/// Errors and warnings, as a command reports them when it stops: gcc-style lines on stderr, a
/// JSON document, or GitHub Actions annotations.
public struct DiagnosticsReport: Report {
    /// The errors and warnings, in the order found.
    public var diagnostics: [Diagnostic]

    /// Reports `diagnostics`, as the command that failed found them.
    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

    /// How many lines a list has before it ends with its totals.
    static let totalsFrom = 10

    /// Text on stderr, one JSON document, or annotations: errors are no table of data.
    public static let views: Set<ReportView> = [.text, .document, .annotated]

    /// For people, on stderr: `file:line:col: error: message [code]`, one a line; after a list
    /// too long to count at a glance, a line with the totals, as compilers end (`12 errors, 1 warning`).
    public func writeText(to output: ReportOutput) {
        // Messages quote names and values from stores and files: nothing in them may act on a terminal.
        output.note(diagnostics.map { $0.description.escapingControls(keepingNewlines: true) + "\n" }.joined())
        if let totals { output.note(totals + "\n") }
    }

    /// `12 errors, 1 warning` from ``totalsFrom`` lines on; nil for fewer, and where a list was
    /// cut (its last line already says how many more there are).
    var totals: String? {
        guard diagnostics.count >= Self.totalsFrom, !diagnostics.contains(where: { $0.code == .multipleErrors }) else {
            return nil
        }
        func count(_ severity: Diagnostic.Severity, _ noun: String) -> String? {
            let count = diagnostics.filter { $0.severity == severity }.count
            return count == 0 ? nil : "\(count) \(noun)\(count == 1 ? "" : "s")"
        }
        let parts = [count(.error, "error"), count(.warning, "warning")].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// `{"code": 1560 or the only error's code, "errors": [{file, line, column, severity, code, message, table}]}`.
    public var document: JSONOutput? {
        let errors = diagnostics.filter { $0.severity == .error }
        let code: JSONOutput =
            errors.count > 1
            ? .int(DiagnosticCode.multipleErrors.rawValue) : errors.first.map { .int($0.code.rawValue) } ?? .null
        return .object([
            ("code", code),
            ("errors", .array(diagnostics.map(Self.json))),
        ])
    }

    /// One annotation per diagnostic, on stdout, titled `seedkit CODE`.
    public func writeAnnotated(to output: ReportOutput) {
        output.write(
            diagnostics.map { diagnostic in
                GitHubAnnotation(
                    diagnostic.severity, file: diagnostic.file, line: diagnostic.line, column: diagnostic.column,
                    title: "seedkit \(diagnostic.code.rawValue)", diagnostic.message + " [\(diagnostic.code.rawValue)]"
                ).text
            }.joined())
    }

    static func json(_ diagnostic: Diagnostic) -> JSONOutput {
        .object([
            ("file", diagnostic.file.map { .string($0) } ?? .null),
            ("line", diagnostic.line > 0 ? .int(diagnostic.line) : .null),
            ("column", diagnostic.column > 0 ? .int(diagnostic.column) : .null),
            ("severity", .string(diagnostic.severity.rawValue)),
            ("code", .int(diagnostic.code.rawValue)),
            ("message", .string(diagnostic.message)),
            ("table", diagnostic.table.map { .string($0) } ?? .null),
        ])
    }
}
