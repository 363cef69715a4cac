import SeedRuntime

/// `verify STORE`: each problem found with its table, key, column and code, then a line saying
/// what was checked; as rows (csv, markdown, json); with each problem as an annotation (github).
public struct VerifyReport: Report {
    /// The store verified, as named on the command line.
    public var store: String
    /// The problems found, in the order found.
    public var findings: [StoreVerifier.Finding]
    /// Which integrity check ran.
    public var integrity: StoreVerifier.Integrity
    /// Whether a manifest's rules and checks were checked too.
    public var checkedRules: Bool

    /// Reports the `findings` on `store`, which integrity check ran and whether rules were checked.
    public init(
        store: String, findings: [StoreVerifier.Finding], integrity: StoreVerifier.Integrity, checkedRules: Bool
    ) {
        self.store = store
        self.findings = findings
        self.integrity = integrity
        self.checkedRules = checkedRules
    }

    /// Every view: text, one JSON document, a row per problem, each problem annotated.
    public static let views: Set<ReportView> = [.text, .document, .rows, .annotated]

    /// Writes a line per problem, then what was checked.
    public func writeText(to output: ReportOutput) { write(to: output, annotated: false) }

    /// Writes the text, with each problem as a GitHub annotation.
    public func writeAnnotated(to output: ReportOutput) { write(to: output, annotated: true) }

    private func write(to output: ReportOutput, annotated: Bool) {
        for finding in findings {
            let place = [finding.table, finding.key.map { "[\($0)]" }, finding.column.map { ".\($0)" }].compactMap {
                $0
            }.joined()
            if annotated {
                output.write(
                    GitHubAnnotation(
                        file: store, title: "seedkit \(finding.code.rawValue)",
                        "\(place.isEmpty ? "" : place + ": ")\(finding.message) [\(finding.code.rawValue)]"
                    ).text)
            }
            // Names, keys and values come from the store: a line for people escapes them.
            output.line("\(store): \(place.isEmpty ? "" : place + ": ")\(finding.message) [\(finding.code.rawValue)]")
        }
        output.line(
            findings.isEmpty
                ? "\(store): ok (\(integrity.summary), foreign keys\(checkedRules ? ", rules and checks" : ""))"
                : "\(store): \(findings.count) problem\(findings.count == 1 ? "" : "s")")
    }

    /// One row per problem: table, key, column, code, message.
    public var tabular: Tabular? {
        Tabular(
            columns: ["table", "key", "column", "code", "message"],
            rows: findings.map { finding in
                [
                    finding.table.map { .text($0) } ?? .null, finding.key.map { .text($0) } ?? .null,
                    finding.column.map { .text($0) } ?? .null,
                    .integer(Int64(finding.code.rawValue)), .text(finding.message),
                ]
            })
    }

    /// The rows, as `inspect STORE TABLE --format json` gives a table's.
    public var document: JSONOutput? { tabular?.document }
}
