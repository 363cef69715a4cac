/// One problem found in a fixture, manifest, migration or store, with where and why.
///
/// Rendered gcc-style by the CLI: `seeds/data/books.csv:7:3: error: price 10 is less than the minimum 15 [1620]`.
public struct Diagnostic: Sendable, Equatable, Error, CustomStringConvertible {
    /// How bad: an error stops the command; a warning (a kept conflict) does not.
    public enum Severity: String, Sendable { case error, warning, note }

    /// The file the problem is in (fixture, manifest, migration, store); nil when none.
    public var file: String?
    /// 1-based line of the record's first line; 0 when unknown.
    public var line: Int
    /// 1-based column: the field's position in its record for fixtures, the character column for YAML/JSON documents.
    public var column: Int
    /// Error, warning or note.
    public var severity: Severity
    /// The stable code (README, "Error codes").
    public var code: DiagnosticCode
    /// What is wrong and, where it helps, what to do.
    public var message: String
    /// The table the problem concerns, when there is one.
    public var table: String?

    /// A diagnostic; `line`/`column` 0 mean unknown.
    public init(
        file: String? = nil, line: Int = 0, column: Int = 0, severity: Severity = .error,
        code: DiagnosticCode, message: String, table: String? = nil
    ) {
        self.file = file
        self.line = line
        self.column = column
        self.severity = severity
        self.code = code
        self.message = message
        self.table = table
    }

    /// `file:line:col: error: message [code]`.
    public var description: String {
        var location = ""
        if let file {
            location = file
            if line > 0 { location += ":\(line)" + (column > 0 ? ":\(column)" : "") }
            location += ": "
        }
        return "\(location)\(severity.rawValue): \(message) [\(code.rawValue)]"
    }
}

/// Stable codes for every kind of problem.
///
/// 15xx/16xx follow Core Data's validation codes; 2xxx are seedkit's own (docs/reference.md, "Error
/// codes").
public struct DiagnosticCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number, as printed in brackets: `[2050]`.
    public var rawValue: Int
    /// A code by number.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The number as text.
    public var description: String { String(rawValue) }

    // Core Data's validation codes.
    /// A rule or check that has no code of its own.
    public static let otherRule = DiagnosticCode(rawValue: 1550)
    /// Several problems at once.
    public static let multipleErrors = DiagnosticCode(rawValue: 1560)
    /// A required value is missing (NOT NULL, `required`).
    public static let missingRequired = DiagnosticCode(rawValue: 1570)
    /// A to-many relationship has fewer rows than its minimum.
    public static let tooFewRelated = DiagnosticCode(rawValue: 1580)
    /// A to-many relationship has more rows than its maximum.
    public static let tooManyRelated = DiagnosticCode(rawValue: 1590)
    /// A delete of a row something still references.
    public static let deleteDenied = DiagnosticCode(rawValue: 1600)
    /// A number above its maximum.
    public static let numberTooLarge = DiagnosticCode(rawValue: 1610)
    /// A number below its minimum.
    public static let numberTooSmall = DiagnosticCode(rawValue: 1620)
    /// A date after its maximum.
    public static let dateTooLate = DiagnosticCode(rawValue: 1630)
    /// A date before its minimum.
    public static let dateTooSoon = DiagnosticCode(rawValue: 1640)
    /// Text longer than its maximum length.
    public static let stringTooLong = DiagnosticCode(rawValue: 1660)
    /// Text shorter than its minimum length.
    public static let stringTooShort = DiagnosticCode(rawValue: 1670)
    /// Text that does not match its pattern.
    public static let patternMismatch = DiagnosticCode(rawValue: 1680)

    // seedkit's own.
    /// CSV or JSON syntax: unterminated quote, wrong field count, bad JSON.
    public static let parseError = DiagnosticCode(rawValue: 2001)
    /// Bytes that are not UTF-8.
    public static let invalidEncoding = DiagnosticCode(rawValue: 2002)
    /// A value that does not fit its column's type.
    public static let typeMismatch = DiagnosticCode(rawValue: 2010)
    /// A fixture or migration names a column the table lacks.
    public static let unknownColumn = DiagnosticCode(rawValue: 2020)
    /// A reference to a key that no parent row has, or a failed FOREIGN KEY.
    public static let unresolvedReference = DiagnosticCode(rawValue: 2030)
    /// Two rows with the same natural key, or a UNIQUE constraint.
    public static let duplicateKey = DiagnosticCode(rawValue: 2040)
    /// A migration change that the user's edit of the row blocks.
    public static let conflict = DiagnosticCode(rawValue: 2050)
    /// A bad manifest or migration file: unknown key, wrong shape, missing file.
    public static let configuration = DiagnosticCode(rawValue: 2100)
    /// The store was refused: changed migration, newer store, not a database.
    public static let storeRefused = DiagnosticCode(rawValue: 2200)
    /// SQLite or the file system failed.
    public static let ioFailure = DiagnosticCode(rawValue: 2300)
    /// A `.sql` migration step ran past its time bound and was stopped.
    public static let timeLimit = DiagnosticCode(rawValue: 2400)
}
