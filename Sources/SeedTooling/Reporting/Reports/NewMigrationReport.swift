import Foundation

/// What `new-migration` wrote, so that a release script can review or commit exactly those files.
///
/// As text, `wrote PATH: summary` per file with its renames and likely renames indented under
/// it, or the line saying no migration was needed; as JSON,
/// `{"written": [{"path", "summary", "renames", "likelyRenames"}], "note"}`.
public struct NewMigrationReport: Report, Sendable {
    /// One migration file written.
    public struct Written: Sendable, Equatable {
        /// The file's path, under the migrations folder as the user named it.
        public var path: String
        /// What the migration does (`2 inserts, 1 update`; `an empty scaffold`).
        public var summary: String
        /// The renames it holds (`countries: 'Turkey' → 'Türkiye'`), one each.
        public var renames: [String]
        /// Deletes and inserts that look like renames, each with the `--rename` that would make it one.
        public var likelyRenames: [String]

        /// Describes the file at `path`: what it does, and the renames it holds or may mean.
        public init(path: String, summary: String, renames: [String] = [], likelyRenames: [String] = []) {
            self.path = path
            self.summary = summary
            self.renames = renames
            self.likelyRenames = likelyRenames
        }
    }

    /// The files written, in number order; empty when nothing changed since the old seed.
    public var written: [Written]
    /// Why nothing was written (the old seed holds what the fixtures hold), or nil.
    public var note: String?

    /// Reports `written`, or `note` saying why nothing was.
    public init(written: [Written], note: String? = nil) {
        self.written = written
        self.note = note
    }

    /// Text and one JSON document: the files are no table of data.
    public static let views: Set<ReportView> = [.text, .document]

    /// Writes a line per file with its renames under it, or the note.
    public func writeText(to output: ReportOutput) {
        if let note { output.line(note) }
        for file in written {
            output.line("wrote \(file.path): \(file.summary)")
            for pair in file.renames { output.line("  rename \(pair)") }
            for pair in file.likelyRenames { output.line("  likely rename \(pair)") }
        }
    }

    /// `{"written": [{"path", "summary", "renames", "likelyRenames"}], "note"}` (`note` null when files were written).
    public var document: JSONOutput? {
        .object([
            (
                "written",
                .array(
                    written.map { file in
                        .object([
                            ("path", .string(file.path)), ("summary", .string(file.summary)),
                            ("renames", .array(file.renames.map { .string($0) })),
                            ("likelyRenames", .array(file.likelyRenames.map { .string($0) })),
                        ])
                    })
            ),
            ("note", note.map { .string($0) } ?? .null),
        ])
    }
}
