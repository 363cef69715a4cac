extension OutputFormat {
    /// `--format json`: one pretty-printed JSON document per run, on stdout (errors too, where
    /// the command reports its errors in its format).
    public static let json = OutputFormat(name: "json", view: .document, isForPeople: false) { report, output in
        report.writeDocument(to: output)
    }
}
