import Foundation

/// Everything that can go wrong in seedkit, as one error type with a kind that maps to an exit code.
///
/// ```swift
/// do { _ = try installer.prepareStore() }
/// catch let error as SeedError where error.kind == .refused { showUnstableStoreMessage(error) }
/// catch { showError(error) }
/// ```
///
/// Its ``description`` (and `localizedDescription`) is what the `seedkit` CLI prints:
/// `file:line: error: message [code]`, one line per diagnostic.
public struct SeedError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// What failed, coarse enough to act on.
    ///
    /// Each kind has its own CLI exit code.
    public enum Kind: Sendable, Equatable {
        /// The input data has errors (validation, parse, conflicts under `--on-conflict fail`). Exit 1.
        case invalidData
        /// Usage or configuration: bad manifest, missing file, malformed migration. Exit 2.
        case configuration
        /// The store was refused: changed migration, newer than these migrations, not a database. Exit 3.
        case refused
        /// SQLite or I/O failed: locked, disk full, read-only. Exit 4.
        case io
        /// A bound ran out: a `.sql` migration step ran past its time bound and was stopped. Exit 5.
        case timeLimit
    }

    /// What failed; decides the exit code and what an app should do.
    public var kind: Kind
    /// Every problem found; at least one.
    public var diagnostics: [Diagnostic]

    /// An error with every problem found.
    public init(_ kind: Kind, _ diagnostics: [Diagnostic]) {
        self.kind = kind
        self.diagnostics = diagnostics
    }

    /// An error with one problem; its code defaults to the kind's.
    public init(
        _ kind: Kind, file: String? = nil, line: Int = 0, column: Int = 0, code: DiagnosticCode? = nil,
        _ message: String
    ) {
        let defaultCode: DiagnosticCode
        switch kind {
        case .invalidData: defaultCode = .otherRule
        case .configuration: defaultCode = .configuration
        case .refused: defaultCode = .storeRefused
        case .io: defaultCode = .ioFailure
        case .timeLimit: defaultCode = .timeLimit
        }
        self.init(
            kind, [Diagnostic(file: file, line: line, column: column, code: code ?? defaultCode, message: message)])
    }

    /// The CLI exit code for this error (1 invalid data, 2 configuration, 3 refused, 4 I/O, 5 time limit).
    package var exitCode: Int32 {
        switch kind {
        case .invalidData: return 1
        case .configuration: return 2
        case .refused: return 3
        case .io: return 4
        case .timeLimit: return 5
        }
    }

    /// Every diagnostic as the CLI prints it, one per line.
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }

    /// The same text as ``description``, for `localizedDescription` and alerts.
    public var errorDescription: String? { description }
}
