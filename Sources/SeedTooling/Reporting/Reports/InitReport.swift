import Foundation

/// `init`: each file written with what it is for, then the next steps; as JSON,
/// `{"folder", "written": [{"path", "purpose"}], "next": [line]}`.
public struct InitReport: Report, Sendable {
    /// One file `init` wrote: its path as the user named the folder, and what it is for.
    public struct Written: Sendable, Equatable {
        /// The path, under the folder as given (`app/seeds/seedkit.yml`; `seeds/seedkit.yml` for `.`).
        public var path: String
        /// What the file is for, in a phrase.
        public var purpose: String

        /// Describes a file written at `path`, and what it is for.
        public init(path: String, purpose: String) {
            self.path = path
            self.purpose = purpose
        }
    }

    /// The project folder, as given (`.` for the current one).
    public var folder: String
    /// The files written, in order (a `.gitignore` that was there is kept and not listed).
    public var written: [Written]
    /// What to do next, one step a line (a command, with what it does after `#`).
    public var next: [String]

    /// Reports the files written into `folder`, and the steps to take next.
    public init(folder: String, written: [Written], next: [String]) {
        self.folder = folder
        self.written = written
        self.next = next
    }

    /// Text and one JSON document: the files written are no table of data.
    public static let views: Set<ReportView> = [.text, .document]

    /// Writes `wrote PATH  purpose` per file, aligned, then `next:` and a step a line.
    public func writeText(to output: ReportOutput) {
        let width = written.map(\.path.count).max() ?? 0
        for file in written {
            output.line(
                "wrote \(file.path)\(String(repeating: " ", count: width - file.path.count))  \(file.purpose)")
        }
        output.line("next:")
        for step in next { output.line("  " + step) }
    }

    /// `{"folder", "written": [{"path", "purpose"}], "next": [step]}`.
    public var document: JSONOutput? {
        .object([
            ("folder", .string(folder)),
            (
                "written",
                .array(written.map { .object([("path", .string($0.path)), ("purpose", .string($0.purpose))]) })
            ),
            ("next", .array(next.map { .string($0) })),
        ])
    }
}
