import Foundation
import SeedRuntime

extension ReadingOptions {
    /// Opens `file` as these options say: the one place that decides how a file of records is
    /// read, for a table's fixture and a derived table's source alike (`build`, `new-migration`,
    /// `check-upgrade`, the build plugin). A new fixture format is a ``RecordSource`` of its own,
    /// its ``Format`` case, and its line here.
    ///
    /// - parameters:
    ///   - root: where the records are in a JSON document (nil: the document is the array).
    ///   - fields: the names a record's keys may have (unused for CSV and TSV, whose header names them).
    ///   - unknownField: the message for a key no field names.
    func open(
        _ file: URL, displayPath: String, root: JSONPointer?, fields: [String],
        unknownField: @escaping (String) -> String
    ) throws(SeedError) -> any RecordSource {
        switch format {
        case .csv, .tsv:
            return try CSVRecordSource(url: file, displayPath: displayPath, options: self)
        case .json, .jsonl:
            return try JSONRecordSource(
                url: file, displayPath: displayPath, fields: fields, root: root, lines: format == .jsonl,
                unknownField: unknownField)
        }
    }
}

extension Manifest.TableConfig {
    /// Opens the table's fixture as its ``ReadingOptions`` say (``ReadingOptions/open(_:displayPath:root:fields:unknownField:)``).
    func openFixture(fields: [String], unknownField: @escaping (String) -> String) throws(SeedError) -> any RecordSource
    {
        try reading.open(file, displayPath: displayFile, root: root, fields: fields, unknownField: unknownField)
    }
}
