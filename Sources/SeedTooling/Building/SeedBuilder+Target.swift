import Foundation
public import SeedRuntime

/// What `seedkit build` decides from its options and environment before building
/// (docs/reference.md#commands), and how a failed build is said.
extension SeedBuilder {
    /// The seed to write: `output` (`--output PATH`) when given, else the manifest's `output:`.
    ///
    /// - throws: ``SeedError`` (configuration) naming the manifest when neither says where.
    public static func target(_ output: String?, manifest: Manifest) throws(SeedError) -> URL {
        guard let target = output.map({ URL(fileURLWithPath: $0) }) ?? manifest.output else {
            throw SeedError(
                .configuration, file: manifest.path, "no output: add output: to the manifest or pass --output PATH")
        }
        return target
    }

    /// The history transaction's time from `SOURCE_DATE_EPOCH` (reproducible builds), nil when unset.
    ///
    /// - throws: ``SeedError`` (configuration) when it is not whole seconds since 1970.
    public static func historyTimestamp(sourceDateEpoch epoch: String?) throws(SeedError) -> Date? {
        guard let epoch else { return nil }
        guard let seconds = Int64(epoch) else {
            throw SeedError(.configuration, "SOURCE_DATE_EPOCH must be whole seconds since 1970 (it is '\(epoch)')")
        }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// An I/O failure of a build is said about its output (SQLite's message names no file),
    /// and says that nothing was written: the output only ever appears by rename.
    ///
    /// - Parameters:
    ///   - error: what the build threw.
    ///   - output: the output as the user named it.
    ///   - check: a `--check` build, which builds in the temporary folder.
    /// - Returns: an I/O ``SeedError`` about `output`, saying nothing was written; any other error as it was.
    public static func unwritten(_ error: any Error, output: String, check: Bool) -> any Error {
        guard let error = error as? SeedError, error.kind == .io else { return error }
        return SeedError(
            error.kind,
            error.diagnostics.map { diagnostic in
                var diagnostic = diagnostic
                if diagnostic.file == nil { diagnostic.file = output }
                if !diagnostic.message.contains("nothing was written") {
                    diagnostic.message +=
                        check
                        ? "; nothing was written (--check builds in the temporary folder)"
                        : "; nothing was written (\(output) is as it was)"
                }
                return diagnostic
            })
    }
}
