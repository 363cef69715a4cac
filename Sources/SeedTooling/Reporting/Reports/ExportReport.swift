import Foundation

/// What `export-migrations` wrote, so that a release script can check each bundled file's checksum.
///
/// As text, `wrote PATH  CHECKSUM` per file (or a line saying the migrations folder has none);
/// as JSON, `{"folder", "written": [{"path", "checksum"}]}`.
public struct ExportReport: Report, Sendable {
    /// One file the export wrote.
    public struct Written: Sendable, Equatable {
        /// The file's path, under the target folder as the user named it.
        public var path: String
        /// The migration's checksum (`sha256:…`), the one a store's ledger records for it.
        public var checksum: String

        /// Describes a file written at `path` for a migration whose checksum is `checksum`.
        public init(path: String, checksum: String) {
            self.path = path
            self.checksum = checksum
        }
    }

    /// The target folder, as the user named it.
    public var folder: String
    /// The migrations folder exported from, as the user named it (named when it holds none).
    public var migrationsFolder: String
    /// The files written, in the migrations' order.
    public var written: [Written]

    /// Reports `written`, exported from `migrationsFolder` into `folder`.
    public init(folder: String, migrationsFolder: String, written: [Written]) {
        self.folder = folder
        self.migrationsFolder = migrationsFolder
        self.written = written
    }

    /// Text and one JSON document: the files are no table of data.
    public static let views: Set<ReportView> = [.text, .document]

    /// Writes a line per file written, or that there was nothing to write.
    public func writeText(to output: ReportOutput) {
        for file in written { output.line("wrote \(file.path)  \(file.checksum)") }
        if written.isEmpty {
            output.line("the folder \(migrationsFolder) has no migrations; nothing was written")
        }
    }

    /// `{"folder", "written": [{"path", "checksum"}]}`.
    public var document: JSONOutput? {
        .object([
            ("folder", .string(folder)),
            (
                "written",
                .array(written.map { .object([("path", .string($0.path)), ("checksum", .string($0.checksum))]) })
            ),
        ])
    }
}
