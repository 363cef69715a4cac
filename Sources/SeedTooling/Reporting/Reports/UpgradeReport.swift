import SeedRuntime

/// `check-upgrade OLD_SEED…`: for each old seed, whether it converges with a fresh build and
/// what it kept, lost or could not check; as JSON; with each reason a seed fails as an
/// annotation on that seed (github).
public struct UpgradeReport: Report {
    /// Each old seed's outcome, in the order given.
    public var outcomes: [UpgradeChecker.Outcome]
    /// Lists each row the release touched that is as in a fresh build (`--verbose`), not only their counts.
    public var verbose = false

    /// Reports `outcomes`; `verbose` lists each row the release touched, not only counts.
    public init(_ outcomes: [UpgradeChecker.Outcome], verbose: Bool = false) {
        self.outcomes = outcomes
        self.verbose = verbose
    }

    /// Text, one JSON document, and divergences as annotations: outcomes are no table of rows.
    public static let views: Set<ReportView> = [.text, .document, .annotated]

    /// Writes each old seed, what converged, what the user kept and what was lost.
    public func writeText(to output: ReportOutput) { write(to: output, annotated: false) }

    /// Writes the text, with each divergence and lost edit as a GitHub annotation.
    public func writeAnnotated(to output: ReportOutput) { write(to: output, annotated: true) }

    private func write(to output: ReportOutput, annotated: Bool) {
        let line = output.line
        for outcome in outcomes {
            if let failure = outcome.failure {
                line(
                    outcome.refused
                        ? "\(outcome.seed): refused; its upgrade cannot be checked"
                        : "\(outcome.seed): the migrations do not apply; DIVERGES from a fresh build")
                for part in failure.split(separator: "\n") { line("  \(String(part).escapingControls())") }
                continue
            }
            let applied =
                outcome.applied.isEmpty ? "no migration to apply" : "applied " + outcome.applied.joined(separator: ", ")
            let verdict =
                !outcome.converges
                ? "DIVERGES from a fresh build"
                : outcome.lostEdits.isEmpty
                    ? "converges with a fresh build" : "converges with a fresh build but LOSES a user's edits"
            line("\(outcome.seed): \(applied); \(verdict)")
            for difference in outcome.schema { line("  schema: \(difference.escapingControls())") }
            for divergence in outcome.divergences {
                let place = "\(divergence.table) \(divergence.key)" + (divergence.column.map { ".\($0)" } ?? "")
                line("  \(place.escapingControls()): got \(divergence.got), expected \(divergence.expected)")
                if let cause = divergence.cause { line("    \(cause.escapingControls())") }
            }
            for table in outcome.tables {
                let parts = table.ok.map { "\($0.count) \($0.kind)" }
                let ok = table.ok.reduce(0) { $0 + $1.count }
                var summary = "\(ok) row\(ok == 1 ? "" : "s") the release touched as in a fresh build"
                if !parts.isEmpty { summary += " (\(parts.joined(separator: ", ")))" }
                if table.diverging > 0 { summary += "; \(table.diverging) DIVERGE" + (table.diverging == 1 ? "S" : "") }
                line("  \(table.table.escapingControls()): \(summary)")
            }
            if verbose { for row in outcome.okRows { line("  ok: \(row.escapingControls())") } }
            // Values come from the seeds and the migrations: nothing in them may act on a terminal.
            for edit in outcome.keptEdits { line("  ok: \(edit.escapingControls())") }
            for edit in outcome.lostEdits { line("  LOST: \(edit.escapingControls())") }
            for gap in outcome.notChecked { line("  not checked: \(gap.escapingControls())") }
        }
        if annotated { output.write(annotations) }
        let diverging = outcomes.filter { !$0.converges }.count
        let losing = outcomes.filter { $0.converges && !$0.lostEdits.isEmpty }.count
        var verdicts: [String] = []
        if diverging > 0 { verdicts.append("\(diverging) of \(outcomes.count) old seeds do not converge") }
        if losing > 0 {
            verdicts.append(
                "\(losing) of \(outcomes.count) old seeds converge\(losing == 1 ? "s" : "") but lose\(losing == 1 ? "s" : "") a user's edits"
            )
        }
        line(
            verdicts.isEmpty
                ? "\(outcomes.count) old seed\(outcomes.count == 1 ? " converges" : "s converge")"
                : verdicts.joined(separator: "; "))
    }

    /// Each reason an old seed fails, as an annotation on that seed.
    var annotations: String {
        var text = ""
        func error(_ seed: String, _ message: String) {
            text += GitHubAnnotation(file: seed, title: "seedkit check-upgrade", message).text
        }
        for outcome in outcomes {
            if let failure = outcome.failure {
                error(
                    outcome.seed,
                    (outcome.refused ? "refused; its upgrade cannot be checked: " : "the migrations do not apply: ")
                        + failure)
                continue
            }
            for difference in outcome.schema {
                error(outcome.seed, "diverges from a fresh build: schema: \(difference)")
            }
            for divergence in outcome.divergences {
                let place = "\(divergence.table) \(divergence.key)" + (divergence.column.map { ".\($0)" } ?? "")
                error(
                    outcome.seed,
                    "diverges from a fresh build: \(place): got \(divergence.got), expected \(divergence.expected)")
            }
            for edit in outcome.lostEdits { error(outcome.seed, "a user's edit is lost: \(edit)") }
        }
        return text
    }

    /// `[{"seed", "passed", "divergences", …}]`, one object per old seed.
    public var document: JSONOutput? {
        .array(
            outcomes.map { outcome in
                .object([
                    ("seed", .string(outcome.seed)),
                    ("passed", .bool(outcome.passed)),
                    ("applied", .array(outcome.applied.map { .string($0) })),
                    (
                        "divergences",
                        .array(
                            outcome.divergences.map { divergence in
                                .object([
                                    ("table", .string(divergence.table)), ("key", .string(divergence.key)),
                                    ("column", divergence.column.map { .string($0) } ?? .null),
                                    ("got", .string(divergence.got)), ("expected", .string(divergence.expected)),
                                    ("cause", divergence.cause.map { .string($0) } ?? .null),
                                ])
                            })
                    ),
                    ("keptEdits", .array(outcome.keptEdits.map { .string($0) })),
                    ("lostEdits", .array(outcome.lostEdits.map { .string($0) })),
                    ("notChecked", .array(outcome.notChecked.map { .string($0) })),
                    ("schema", .array(outcome.schema.map { .string($0) })),
                    (
                        "tables",
                        .array(
                            outcome.tables.map { table in
                                .object(
                                    [("table", .string(table.table))]
                                        + table.ok.map { ($0.kind, .int($0.count)) }
                                        + [("diverging", .int(table.diverging))])
                            })
                    ),
                    ("okRows", .array(outcome.okRows.map { .string($0) })),
                    ("failure", outcome.failure.map { .string($0) } ?? .null),
                    ("refused", .bool(outcome.refused)),
                ])
            })
    }
}
