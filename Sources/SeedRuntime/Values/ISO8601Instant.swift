/// A moment read from an ISO 8601 date or date-time, for comparing dates as time rather than text.
///
/// `2024-01-05T12:00:00+05:00` is 07:00 UTC, so it is *before* `2024-01-05T10:00:00Z`, though it
/// sorts after it as text; `10:00:00.5Z` is after `10:00:00Z`. A date alone is midnight UTC, and so
/// is a date-time without an offset taken as UTC. Fractions of a second count to 18 digits.
///
/// ```swift
/// let limit = ISO8601Instant("2024-01-05T10:00:00Z")
/// ISO8601Instant("2024-01-05T12:00:00+05:00")! < limit!   // true
/// ```
package struct ISO8601Instant: Comparable, Hashable, Sendable {
    /// Whole seconds since 1970-01-01 00:00:00 UTC.
    package var seconds: Int64
    /// The fraction of the second, in units of 10⁻¹⁸ s.
    package var attoseconds: Int64

    package init(seconds: Int64, attoseconds: Int64 = 0) {
        self.seconds = seconds
        self.attoseconds = attoseconds
    }

    /// Reads `YYYY-MM-DD[(T| )HH:MM[:SS[.f…]]][Z|±HH:MM]`, checked against the calendar; nil for anything else.
    package init?(_ bytes: UnsafeRawBufferPointer) {
        guard DateSyntax.isDateTime(bytes), let year = DateSyntax.digits(bytes, 0, 4),
            let month = DateSyntax.digits(bytes, 5, 2),
            let day = DateSyntax.digits(bytes, 8, 2)
        else { return nil }
        var seconds = Int64(DateSyntax.daysFromCivil(year, month, day)) * 86_400
        var attoseconds: Int64 = 0
        if bytes.count > 10, let hour = DateSyntax.digits(bytes, 11, 2), let minute = DateSyntax.digits(bytes, 14, 2) {
            seconds += Int64(hour * 3600 + minute * 60)
            var index = 16
            if index < bytes.count, bytes[index] == UInt8(ascii: ":"),
                let second = DateSyntax.digits(bytes, index + 1, 2)
            {
                seconds += Int64(second)
                index += 3
                if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                    index += 1
                    var scale: Int64 = 100_000_000_000_000_000
                    while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                        attoseconds += Int64(bytes[index] - UInt8(ascii: "0")) * scale
                        scale /= 10
                        index += 1
                    }
                }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"),
                let offsetHour = DateSyntax.digits(bytes, index + 1, 2),
                let offsetMinute = DateSyntax.digits(bytes, index + 4, 2)
            {
                let offset = Int64(offsetHour * 3600 + offsetMinute * 60)
                seconds -= bytes[index] == UInt8(ascii: "+") ? offset : -offset
            }
        }
        self.init(seconds: seconds, attoseconds: attoseconds)
    }

    /// See ``init(_:)-(UnsafeRawBufferPointer)``.
    package init?(_ text: String) {
        var text = text
        guard let instant = text.withUTF8({ ISO8601Instant(UnsafeRawBufferPointer($0)) }) else { return nil }
        self = instant
    }

    /// The moment `seconds` after 2001-01-01 00:00:00 UTC, as Core Data stores dates; nil when not finite.
    package init?(referenceSeconds: Double) {
        guard referenceSeconds.isFinite, abs(referenceSeconds) < 1e15 else { return nil }
        let whole = referenceSeconds.rounded(.down)
        self.init(
            seconds: Int64(whole) + 978_307_200,
            attoseconds: min(Int64(((referenceSeconds - whole) * 1e9).rounded()), 999_999_999) * 1_000_000_000)
    }

    package static func < (lhs: ISO8601Instant, rhs: ISO8601Instant) -> Bool {
        (lhs.seconds, lhs.attoseconds) < (rhs.seconds, rhs.attoseconds)
    }
}
