import ArgumentParser
import Foundation
import SeedTooling

/// `--format table|json|csv|markdown` for commands that print rows.
struct OutputOptions: ParsableArguments {
    @Option(name: .long, help: "Output format: table, json, csv or markdown (default: table).")
    var format: ReportFormatName = .table

    /// Colour only on a terminal, and never when NO_COLOR is set.
    var color: Bool {
        Output.stdoutIsTerminal && ProcessInfo.processInfo.environment["NO_COLOR"] == nil && format == .table
    }

    var renderer: any ReportFormat { format.format(terminal: Output.stdoutIsTerminal, color: color) }
}

extension ReportFormatName: ExpressibleByArgument {}
