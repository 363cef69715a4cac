import Foundation
public import SeedRuntime

extension OutputFormat {
    /// `--format github`: the text for people, on stdout, with what needs attention (errors,
    /// refusals, divergences, conflicts) as GitHub Actions annotations (`::error file=…::…`).
    public static let github = OutputFormat(name: "github", view: .annotated, isForPeople: true) { report, output in
        report.writeAnnotated(to: output)
    }
}

/// One GitHub Actions workflow command (`::error file=…,line=…,title=…::message`), escaped as
/// the runner reads it.
public struct GitHubAnnotation: Sendable {
    /// `error`, `warning` or `notice`: the workflow command's name.
    public var severity: Diagnostic.Severity
    /// The file the annotation is shown on, or nil for one on the run as a whole.
    public var file: String?
    /// The line in `file` (1-based), or 0 for none.
    public var line: Int
    /// The column in `line` (1-based), or 0 for none.
    public var column: Int
    /// The annotation's title, shown in bold above the message.
    public var title: String
    /// What the annotation says.
    public var message: String

    /// Describes one annotation; ``rendered`` escapes its fields.
    public init(
        _ severity: Diagnostic.Severity = .error, file: String?, line: Int = 0, column: Int = 0, title: String,
        _ message: String
    ) {
        self.severity = severity
        self.file = file
        self.line = line
        self.column = column
        self.title = title
        self.message = message
    }

    /// The annotation's line, ending in a newline.
    public var text: String {
        var properties: [String] = []
        if let file { properties.append("file=\(Self.escapeProperty(file))") }
        if line > 0 { properties.append("line=\(line)") }
        if column > 0 { properties.append("col=\(column)") }
        properties.append("title=\(Self.escapeProperty(title))")
        let command = severity == .error ? "error" : severity == .warning ? "warning" : "notice"
        return "::\(command) \(properties.joined(separator: ","))::\(Self.escapeData(message))\n"
    }

    /// A CI log shows colours and a terminal acts on escapes: what a store or a file names is
    /// escaped as in every line for people; then `%`, CR and LF as the runner reads them.
    private static func escapeData(_ text: String) -> String {
        text.escapingControls(keepingNewlines: true).replacingOccurrences(of: "%", with: "%25").replacingOccurrences(
            of: "\r", with: "%0D"
        )
        .replacingOccurrences(of: "\n", with: "%0A")
    }

    private static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
