import SeedRuntime

/// One way of printing a command's report, chosen with `--format NAME`: the same set, with the
/// same meaning, on every command (docs/reference.md#output-formats).
///
/// A format is one file in `ReportFormats/` that says which view of a report it prints (text
/// for people, a JSON document, rows, annotated text) and how, plus its line in ``all``.
/// A command hands its report to ``render(_:to:)`` and never builds JSON or tables itself; a
/// report offers the views it can (``Report/views``), and a command refuses, before it does
/// anything, a format whose view its report does not offer (exit 2, listing those it does).
///
/// ```swift
/// let format = try OutputFormat.named("markdown", for: StoreSummary.self)
/// format.render(summary, to: ReportOutput(write: { print($0, terminator: "") }))
/// ```
public struct OutputFormat: Sendable, Hashable, CustomStringConvertible {
    /// The name `--format` takes, and help and errors show.
    public let name: String
    /// Earlier spellings that still select the format (`table` for `human`): scripts use them.
    public let aliases: [String]
    /// The view of a report the format prints.
    public let view: ReportView
    /// Whether people read it, rather than a program: on a terminal, a table of rows is then cut
    /// to a first page (`inspect`) and a migration's report to a sample of each kind of row.
    public let isForPeople: Bool
    private let write: @Sendable (any Report, ReportOutput) -> Void

    /// A format; its file in `ReportFormats/` declares it, and ``all`` lists it.
    public init(
        name: String, aliases: [String] = [], view: ReportView, isForPeople: Bool,
        write: @escaping @Sendable (any Report, ReportOutput) -> Void
    ) {
        self.name = name
        self.aliases = aliases
        self.view = view
        self.isForPeople = isForPeople
        self.write = write
    }

    /// Formats are equal when their names are: a name means one format everywhere.
    public static func == (a: OutputFormat, b: OutputFormat) -> Bool { a.name == b.name }
    /// Hashes the name, the format's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    /// The name `--format` takes (`json`).
    public var description: String { name }

    /// Whether reports of this type can be printed in this format.
    public func renders(_ report: any Report.Type) -> Bool { report.views.contains(view) }

    /// Prints `report` to `output`.
    ///
    /// A report that does not offer ``view`` prints nothing: commands refuse such a format before
    /// they run (``named(_:for:)``).
    public func render(_ report: some Report, to output: ReportOutput) {
        guard renders(type(of: report)) else { return }
        write(report, output)
    }

    /// `report` as this format prints it to stdout; what it says on stderr is left out.
    public func rendered(_ report: some Report, terminal: Bool = false, color: Bool = false) -> String {
        var text = ""
        render(report, to: ReportOutput(terminal: terminal, color: color, write: { text += $0 }))
        return text
    }
}

// MARK: - The registry

extension OutputFormat {
    /// Every format, in the order help and errors list them.
    public static let all: [OutputFormat] = [.human, .json, .csv, .markdown, .github]

    /// The format `name` spells (a name or an alias), or nil.
    public init?(spelling name: String) {
        guard let format = Self.all.first(where: { $0.name == name || $0.aliases.contains(name) }) else { return nil }
        self = format
    }

    /// The formats reports of type `report` can be printed in.
    public static func formats(for report: any Report.Type) -> [OutputFormat] { all.filter { $0.renders(report) } }

    /// The format `name` spells, when `report` can be printed in it; otherwise why not, naming
    /// the formats it can be printed in.
    public static func named(_ name: String, for report: any Report.Type) throws(FormatRefusal) -> OutputFormat {
        guard let format = OutputFormat(spelling: name) else {
            throw FormatRefusal(given: name, known: false, offered: formats(for: report))
        }
        guard format.renders(report) else {
            throw FormatRefusal(given: name, known: true, offered: formats(for: report))
        }
        return format
    }
}

/// A `--format` a command does not print: what was given, and what the command offers.
public struct FormatRefusal: Error, Sendable, CustomStringConvertible {
    /// The name given with `--format`, as typed.
    public var given: String
    /// Whether `given` names a format at all (another command may print it).
    public var known: Bool
    /// The formats the command prints, in the registry's order, for the message that lists them.
    public var offered: [OutputFormat]

    /// What the usage error says: the format refused and the ones the command prints.
    public var description: String {
        let list = offered.map(\.name).joined(separator: ", ")
        let given = self.given.isEmpty ? "''" : self.given
        return known
            ? "--format \(given) is not one this command prints; it prints \(list)"
            : "--format \(given) is not a format; this command prints \(list)"
    }
}

// MARK: - Reports

/// What a format prints of a report.
public enum ReportView: String, Sendable, CaseIterable {
    /// Text for people (``Report/writeText(to:)``).
    case text
    /// One JSON document (``Report/document``).
    case document
    /// Rows under column names (``Report/tabular``).
    case rows
    /// Text for people with GitHub Actions annotations for what needs attention (``Report/writeAnnotated(to:)``).
    case annotated
}

/// What a command hands to the renderer: the result of its work, in the views it can be printed in.
///
/// Every report has a text for people; the other views are offered by listing them in
/// ``views`` and implementing them.
public protocol Report {
    /// The views this report offers; ``ReportView/text`` is always one.
    static var views: Set<ReportView> { get }
    /// Writes the report for people.
    func writeText(to output: ReportOutput)
    /// The report as one JSON document (``ReportView/document``).
    var document: JSONOutput? { get }
    /// Writes ``document``, pretty-printed, then a newline; a report of many rows writes each as it is read.
    func writeDocument(to output: ReportOutput)
    /// The report as rows under column names (``ReportView/rows``).
    var tabular: Tabular? { get }
    /// Writes the report for people, what needs attention as GitHub Actions annotations (``ReportView/annotated``).
    func writeAnnotated(to output: ReportOutput)
}

extension Report {
    /// No JSON document unless the report gives one (``ReportView/document`` not in its views
    /// then).
    public var document: JSONOutput? { nil }
    /// No rows unless the report gives them (``ReportView/rows`` not in its views then).
    public var tabular: Tabular? { nil }
    /// Writes ``document`` as one pretty-printed JSON text and a newline; nothing without one.
    public func writeDocument(to output: ReportOutput) {
        guard let document else { return }
        output.write(JSONOutput.render(document) + "\n")
    }
    /// Writes the text for people: a report with nothing to annotate annotates nothing.
    public func writeAnnotated(to output: ReportOutput) { writeText(to: output) }
}

/// Where a report is printed: stdout, stderr for people, and what the terminal allows.
public struct ReportOutput {
    /// Whether stdout is a terminal: a table then cuts long text.
    public var terminal: Bool
    /// Whether a table may use colour (a terminal, and `NO_COLOR` unset).
    public var color: Bool
    /// Writes to stdout.
    public var write: (String) -> Void
    /// Writes text for people to stderr (human diagnostics, notes).
    public var note: (String) -> Void
    /// Says a warning about what was printed (the CLI prefixes the file it is about).
    public var warning: (String) -> Void

    /// Describes where a report goes: stdout, what the terminal allows, and stderr for notes and
    /// warnings.
    public init(
        terminal: Bool = false, color: Bool = false, write: @escaping (String) -> Void,
        note: @escaping (String) -> Void = { _ in }, warning: @escaping (String) -> Void = { _ in }
    ) {
        self.terminal = terminal
        self.color = color
        self.write = write
        self.note = note
        self.warning = warning
    }
}

extension ReportOutput {
    /// Writes one line for people, then a newline: every character a terminal acts on is escaped
    /// (`\x1b`, `\r`, `\n`), since what a store, a file or a path holds must not act on it.
    public func line(_ text: String) { write(text.escapingControls() + "\n") }
}
