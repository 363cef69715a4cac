import Foundation
import SeedRuntime
public import SeedRuntime

/// The validation rules of one column (docs/reference.md, "The manifest (`seeds/seedkit.yml`)"), checked on converted values.
public struct ColumnRules: Sendable {
    /// The column the rules apply to.
    public var column: String
    /// Whether the column must hold a value (not NULL, not empty text).
    public var required = false
    /// The smallest number the column may hold (`min:`), inclusive.
    public var min: Double?
    /// The largest number the column may hold (`max:`), inclusive.
    public var max: Double?
    /// The fewest characters a text may have (`min_length:`).
    public var minLength: Int?
    /// The most characters a text may have (`max_length:`).
    public var maxLength: Int?
    /// The pattern a text must match as a whole (`pattern:`).
    public var pattern: Pattern?
    /// The only values the column may hold (`one_of:`), compared as text.
    public var oneOf: [String]? { didSet { oneOfBytes = oneOf.map { $0.map { Array($0.utf8) } } } }
    /// Dates (or date-times) as ISO 8601 text, exclusive; compared as the moments they are
    /// (offsets and fractions of a second count; a date alone is midnight UTC), never as text.
    public var after: String? { didSet { afterInstant = after.flatMap { ISO8601Instant($0) } } }
    /// The moment every date must be before (`before:`); see ``after``.
    public var before: String? { didSet { beforeInstant = before.flatMap { ISO8601Instant($0) } } }
    /// Core Data date limits (a Date attribute's minValueString/maxValueString): seconds since
    /// 2001-01-01 UTC, as the store holds dates; inclusive, as Core Data's are.
    public var earliest: Double?
    /// The latest date a Core Data attribute allows, in seconds since 2001-01-01 UTC, inclusive.
    public var latest: Double?
    /// The value is an archive `NSKeyedArchiver` wrote (a Core Data Transformable attribute's bytes).
    public var keyedArchive = false
    private var afterInstant: ISO8601Instant?
    private var beforeInstant: ISO8601Instant?
    // The same limits as UTF-8, for ``Prepared/quicklyPasses(text:)``.
    private var oneOfBytes: [[UInt8]]?

    /// No rules yet for `column`: each is set as the manifest or model gives it.
    public init(column: String) { self.column = column }

    /// These rules with `other`'s set limits on top (a manifest's rules over a model's).
    public func merged(with other: ColumnRules) -> ColumnRules {
        var result = self
        result.required = required || other.required
        result.min = other.min ?? min
        result.max = other.max ?? max
        result.minLength = other.minLength ?? minLength
        result.maxLength = other.maxLength ?? maxLength
        result.pattern = other.pattern ?? pattern
        result.oneOf = other.oneOf ?? oneOf
        result.after = other.after ?? after
        result.earliest = other.earliest ?? earliest
        result.latest = other.latest ?? latest
        result.before = other.before ?? before
        result.keyedArchive = keyedArchive || other.keyedArchive
        return result
    }

    /// Whether any rule needs the value as a Swift string (length, pattern, one_of, dates).
    var needsText: Bool {
        minLength != nil || maxLength != nil || pattern != nil || oneOf != nil || after != nil || before != nil
    }

    /// `2001-01-02T00:00:00Z` for 86400 seconds since 2001.
    static func referenceDate(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSinceReferenceDate: seconds))
    }

    /// The problems with `value`: each broken rule with its code and the limit it broke.
    public func check(_ value: SQLValue) -> [(code: DiagnosticCode, message: String)] {
        var problems: [(code: DiagnosticCode, message: String)] = []  // as returned: no cast of the array
        guard value != .null else {
            if required { problems.append((.missingRequired, "\(column) is required but missing")) }
            return problems
        }
        if min != nil || max != nil {
            var shown: String { Self.show(value) }
            let number: Double?
            switch value {
            case .integer(let int): number = Double(int)
            case .real(let real): number = real
            case .text(let text): number = Double(text)
            default: number = nil
            }
            if let number {
                if let min, number < min {
                    problems.append(
                        (.numberTooSmall, "\(column) \(shown) is less than the minimum \(Self.format(min))"))
                }
                if let max, number > max {
                    problems.append(
                        (.numberTooLarge, "\(column) \(shown) is greater than the maximum \(Self.format(max))"))
                }
            } else {
                problems.append(
                    (.otherRule, "\(column) \(Self.quote(value)) is not a number, so its min/max can't hold"))
            }
        }
        if earliest != nil || latest != nil {
            let seconds: Double? =
                switch value {
                case .integer(let int): Double(int)
                case .real(let real): real
                default: nil
                }
            if let seconds, let earliest, seconds < earliest {
                problems.append(
                    (
                        .dateTooSoon,
                        "\(column) \(Self.referenceDate(seconds)) is before the earliest allowed \(Self.referenceDate(earliest))"
                    ))
            }
            if let seconds, let latest, seconds > latest {
                problems.append(
                    (
                        .dateTooLate,
                        "\(column) \(Self.referenceDate(seconds)) is after the latest allowed \(Self.referenceDate(latest))"
                    ))
            }
        }
        if keyedArchive, let why = CoreDataDialect.archiveProblem(value) {
            problems.append((.otherRule, CoreDataDialect.archiveMessage(attribute: column, why: why)))
        }
        guard needsText else { return problems }
        let text: String
        switch value {
        case .text(let string): text = string
        default: text = value.description
        }
        // A text is never more characters than UTF-8 bytes: a short one needs no counting against a maximum.
        if minLength != nil || maxLength.map({ text.utf8.count > $0 }) == true {
            let length = text.count
            if let minLength, length < minLength {
                problems.append(
                    (
                        .stringTooShort,
                        "\(column) \(Self.quote(value)) is \(length) characters long, shorter than the minimum \(minLength)"
                    ))
            }
            if let maxLength, length > maxLength {
                problems.append(
                    (
                        .stringTooLong,
                        "\(column) \(Self.quote(value)) is \(length) characters long, longer than the maximum \(maxLength)"
                    ))
            }
        }
        if let pattern, !pattern.matchesWhole(text) {
            problems.append(
                (.patternMismatch, "\(column) \(Self.quote(value)) does not match the pattern \(pattern.source)"))
        }
        if let oneOf, !oneOf.contains(text) {
            problems.append(
                (.otherRule, "\(column) \(Self.quote(value)) is not one of \(oneOf.joined(separator: ", "))"))
        }
        if after != nil || before != nil {
            // Text is an ISO 8601 date or date-time; a number is a Core Data date, seconds since 2001.
            let instant: ISO8601Instant?
            var shown = text
            switch value {
            case .integer(let seconds):
                instant = ISO8601Instant(referenceSeconds: Double(seconds))
                shown = Self.referenceDate(Double(seconds))
            case .real(let seconds):
                instant = ISO8601Instant(referenceSeconds: seconds)
                shown = Self.referenceDate(seconds)
            default: instant = ISO8601Instant(text)
            }
            if let instant {
                if let after, let afterInstant, !(instant > afterInstant) {
                    problems.append((.dateTooSoon, "\(column) \(shown) is not after \(after), the earliest allowed"))
                }
                if let before, let beforeInstant, !(instant < beforeInstant) {
                    problems.append((.dateTooLate, "\(column) \(shown) is not before \(before), the latest allowed"))
                }
            } else {
                problems.append(
                    (
                        .otherRule,
                        "\(column) \(Self.quote(value)) is not an ISO 8601 date or date-time, so after/before can't hold"
                    ))
            }
        }
        return problems
    }

    private static func compare(_ bytes: UnsafeRawBufferPointer, _ other: [UInt8]) -> Int {
        let common = Swift.min(bytes.count, other.count)
        for index in 0..<common where bytes[index] != other[index] { return bytes[index] < other[index] ? -1 : 1 }
        return bytes.count == other.count ? 0 : (bytes.count < other.count ? -1 : 1)
    }

    static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }

    /// A number as a person wrote it: `10` rather than `10.0`.
    static func show(_ value: SQLValue) -> String {
        if case .real(let real) = value { return format(real) }
        return value.description
    }

    static func quote(_ value: SQLValue) -> String {
        if case .text(let text) = value {
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            return "'\(shown)'"
        }
        return value.description
    }
}

extension ColumnRules {
    /// One column's rules prepared for checking many values on a hot path (a build's reading
    /// thread): their limits are fields of one object, read in place. (A `ColumnRules` read out
    /// of an array, an object or a pointer to call a method on it is copied first, a retain and
    /// a release for each of its strings and arrays: 7% of a 1M-row build's CPU.)
    final class Prepared: @unchecked Sendable {
        /// The rules themselves, for ``check(_:)`` and its messages when a quick answer is not `true`.
        let rules: ColumnRules
        let required: Bool
        private let min: Double?
        private let max: Double?
        /// Whether min/max are the only rules a number can break (no dates, nothing on its text).
        private let numbersNeedOnlyLimits: Bool
        /// Whether a rule needs the value as a number (min/max, Core Data date limits).
        private let hasNumericLimits: Bool
        private let pattern: Pattern?
        private let minLength: Int?
        private let maxLength: Int?
        private let checksDates: Bool
        private let afterInstant: ISO8601Instant?
        private let beforeInstant: ISO8601Instant?
        private let oneOfBytes: [[UInt8]]?

        init(_ rules: ColumnRules) {
            self.rules = rules
            required = rules.required
            min = rules.min
            max = rules.max
            hasNumericLimits = rules.min != nil || rules.max != nil || rules.earliest != nil || rules.latest != nil
            numbersNeedOnlyLimits = !rules.needsText && rules.earliest == nil && rules.latest == nil
            pattern = rules.pattern
            minLength = rules.minLength
            maxLength = rules.maxLength
            checksDates = rules.after != nil || rules.before != nil
            afterInstant = rules.afterInstant
            beforeInstant = rules.beforeInstant
            oneOfBytes = rules.oneOfBytes
        }

        /// ``ColumnRules/check(_:)``.
        func check(_ value: SQLValue) -> [(code: DiagnosticCode, message: String)] { rules.check(value) }

        /// Whether UTF-8 text certainly passes every rule, decided without allocating; nil when
        /// only ``check(_:)`` can tell (non-ASCII lengths, patterns outside the compiled subset,
        /// numeric limits on text).
        ///
        /// Callers run ``check(_:)`` whenever this is not `true`, for the messages.
        func quicklyPasses(text bytes: UnsafeRawBufferPointer) -> Bool? {
            if hasNumericLimits { return nil }
            if let pattern {
                guard let matched = pattern.quicklyMatches(bytes) else { return nil }
                if !matched { return false }
            }
            if minLength != nil || maxLength != nil {
                // A length counts characters: never more than the UTF-8 bytes, and as many when
                // the text has no byte past ASCII and no CR (CR LF is one character).
                var bytesAreCharacters = true
                for byte in bytes where byte >= 0x80 || byte == 0x0D {
                    bytesAreCharacters = false
                    break
                }
                if let maxLength, bytes.count > maxLength { return bytesAreCharacters ? false : nil }
                if let minLength {
                    if bytes.count < minLength { return false }
                    if !bytesAreCharacters { return nil }
                }
            }
            if checksDates {
                guard let instant = ISO8601Instant(bytes) else { return false }
                if let afterInstant, !(instant > afterInstant) { return false }
                if let beforeInstant, !(instant < beforeInstant) { return false }
            }
            if let oneOfBytes, !oneOfBytes.contains(where: { ColumnRules.compare(bytes, $0) == 0 }) { return false }
            return true
        }

        /// Whether `value` certainly passes every rule, without copying the rules; nil when only
        /// ``check(_:)`` can tell (and for NULL, which `required` judges there).
        func quicklyPasses(_ value: SQLValue) -> Bool? {
            switch value {
            case .integer(let int): return quicklyPasses(number: Double(int))
            case .real(let real): return quicklyPasses(number: real)
            case .text(var text): return text.withUTF8 { quicklyPasses(text: UnsafeRawBufferPointer($0)) }
            case .null, .blob: return nil
            }
        }

        /// Whether a number certainly passes every rule; nil when only ``check(_:)`` can tell
        /// (rules on its text or Core Data date limits).
        ///
        /// NaN passes min/max, as in ``check(_:)``.
        func quicklyPasses(number: Double) -> Bool? {
            guard numbersNeedOnlyLimits else { return nil }
            if let min, number < min { return false }
            if let max, number > max { return false }
            return true
        }
    }
}
