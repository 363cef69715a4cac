extension OutputFormat {
    /// `--format human` (the default; `table` is its older spelling): text for people, as each
    /// report writes it; errors on stderr.
    public static let human = OutputFormat(name: "human", aliases: ["table"], view: .text, isForPeople: true) {
        report, output in
        report.writeText(to: output)
    }
}
