import ArgumentParser
import Foundation
import SeedRuntime
import SeedTooling

/// `--format NAME` (docs/reference.md#output-formats): the one set of output formats, with one
/// meaning, on every command.
///
/// `R` is the report the command prints: a format it does not offer is refused before the command
/// runs (exit 2, naming the formats it offers); an older spelling (`table`) selects its format.
struct FormatOption<R: Report>: ParsableArguments {
    @Option(
        name: .customLong("format"), help: ArgumentHelp(FormatOption<R>.help, valueName: "format"),
        completion: .list(OutputFormat.formats(for: R.self).map(\.name)))
    var name = OutputFormat.human.name

    static var help: String {
        "Output format: \(OutputFormat.formats(for: R.self).map(\.name).joined(separator: ", "))."
    }

    func validate() throws {
        do { _ = try OutputFormat.named(name, for: R.self) } catch { throw ValidationError(error.description) }
    }

    /// The format chosen (``validate()`` refused any other).
    var format: OutputFormat { OutputFormat(spelling: name) ?? .human }
}

extension Output {
    /// Prints `report` in `format`: stdout, and stderr for what people read there; a warning
    /// about the output (a CSV that cannot carry a value) names `file`.
    static func render(_ report: some Report, _ format: OutputFormat, about file: String? = nil) {
        format.render(report, to: reportOutput(about: file))
    }

    static func reportOutput(about file: String?) -> ReportOutput {
        ReportOutput(
            terminal: stdoutIsTerminal,
            color: stdoutIsTerminal && ProcessInfo.processInfo.environment["NO_COLOR"] == nil,
            write: { Output.standardOutput($0) }, note: { standardError($0) },
            warning: { standardError("\(file ?? "seedkit"): warning: \($0)\n") })
    }

    /// Prints diagnostics in `format` when it has a form for them (json, github: on stdout, where
    /// tools read them), else as text for people on stderr.
    static func diagnostics(_ diagnostics: [Diagnostic], format: OutputFormat) {
        let shown = format.renders(DiagnosticsReport.self) ? format : .human
        shown.render(DiagnosticsReport(diagnostics), to: reportOutput(about: nil))
    }
}
