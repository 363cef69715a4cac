import Foundation
import SeedRuntime

extension Manifest.TableConfig {
    /// Opens the table's fixture as its ``ReadingOptions`` say: the one place that decides how a
    /// fixture is read, for `build`, `new-migration`, `check-upgrade` and the build plugin alike.
    ///
    /// - parameters:
    ///   - fields: the names a JSON record's keys may have (unused for CSV and TSV, whose header names them).
    ///   - unknownField: the message for a JSON key no field names.
    func openFixture(fields: [String], unknownField: @escaping (String) -> String) throws(SeedError) -> any RecordSource
    {
        switch reading.format {
        case .csv, .tsv:
            return try CSVRecordSource(url: file, displayPath: displayFile, options: reading)
        case .json, .jsonl:
            return try JSONRecordSource(
                url: file, displayPath: displayFile, fields: fields, root: root, lines: reading.format == .jsonl,
                unknownField: unknownField)
        }
    }
}
