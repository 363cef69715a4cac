import Foundation

/// How seedkit converts input to a column, derived from the column's declared SQL type.
///
/// The mapping follows SQLite's type-affinity rules (INT → integer, CHAR/CLOB/TEXT →
/// text, REAL/FLOA/DOUB → real, BLOB → blob, anything else numeric) with three
/// refinements that seed data needs: BOOL → boolean (stored 0/1), DATE → an ISO 8601
/// date, DATETIME/TIMESTAMP → an ISO 8601 date-time (both stored as the text given).
/// A column without a declared type, or declared `ANY`, takes input as it comes.
package enum ColumnType: String, Sendable, Equatable {
    case integer, real, numeric, text, blob, boolean, date, datetime, any
    /// Core Data's dates: seconds since 2001-01-01 00:00:00 UTC, stored as a real. Takes an
    /// ISO 8601 date or date-time (or a number of seconds).
    case referenceDate
    /// Core Data's UUIDs: 16 bytes. Takes the usual text form, `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
    case uuid
    /// A SwiftData composite attribute's `Codable` collection (a Binary element): JSON, stored as
    /// its UTF-8 bytes in a BLOB (docs/core-data.md, "Composite attributes"). Takes JSON text.
    case json

    /// The conversion for a declared type such as `VARCHAR(25)` or `INTEGER`.
    package init(declaredType: String) {
        let type = declaredType.uppercasedName
        // No type, or STRICT tables' ANY (any value, stored as given; in other tables ANY has
        // NUMERIC affinity, which SQLite itself applies to what is bound).
        if type.isEmpty || type.trimmingCharacters(in: .whitespaces) == "ANY" {
            self = .any
        } else if type.contains("BOOL") {
            self = .boolean
        } else if type.contains("DATETIME") || type.contains("TIMESTAMP") {
            self = .datetime
        } else if type.contains("DATE") {
            self = .date
        } else if type.contains("INT") {
            self = .integer
        } else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") {
            self = .text
        } else if type.contains("BLOB") {
            self = .blob
        } else if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") {
            self = .real
        } else {
            self = .numeric
        }
    }

    /// The result of converting text to this type.
    package enum Converted: Equatable {
        case null
        case integer(Int64)
        case real(Double)
        /// The input bytes, unchanged, as text.
        case sameText
        case blob([UInt8])
    }

    /// Converts UTF-8 text (a CSV field or a JSON string) to this type.
    ///
    /// - returns: the value to store, or a reason why the text does not fit.
    package func convert(text bytes: UnsafeRawBufferPointer) -> Result<Converted, ConversionFailure> {
        switch self {
        case .text, .any:
            return .success(.sameText)
        case .integer:
            // Exactly, digit by digit: a double would round 2^63 + 1 to 2^63 and clamp below -2^63.
            if let value = NumberSyntax.integer(bytes) { return .success(.integer(value)) }
            switch NumberSyntax.exactInteger(bytes) {
            case .integer(let value): return .success(.integer(value))
            case .outOfRange: return .failure(.init(expected: ColumnType.integerRange))
            case .fractional, .notANumber: return .failure(.init(expected: "an integer"))
            }
        case .real:
            if let value = NumberSyntax.real(bytes) ?? NumberSyntax.infinity(bytes) { return .success(.real(value)) }
            return .failure(.init(expected: "a number"))
        case .numeric:
            if let value = NumberSyntax.integer(bytes) { return .success(.integer(value)) }
            if let value = NumberSyntax.real(bytes) {
                if let exact = Int64(exactly: value), abs(value) < 9.0e15 { return .success(.integer(exact)) }
                return .success(.real(value))
            }
            if let value = NumberSyntax.infinity(bytes) { return .success(.real(value)) }
            return .failure(.init(expected: "a number"))
        case .boolean:
            switch String(decoding: bytes, as: UTF8.self).lowercasedName {
            case "1", "true", "yes", "t", "y": return .success(.integer(1))
            case "0", "false", "no", "f", "n": return .success(.integer(0))
            default: return .failure(.init(expected: "a boolean (true/false, 1/0, yes/no)"))
            }
        case .date:
            return DateSyntax.isDate(bytes) ? .success(.sameText) : .failure(.init(expected: "a date (YYYY-MM-DD)"))
        case .datetime:
            return DateSyntax.isDateTime(bytes)
                ? .success(.sameText)
                : .failure(.init(expected: "a date-time (YYYY-MM-DD[THH:MM[:SS[.fff]]][Z|±HH:MM])"))
        case .blob:
            guard let data = Data(base64Encoded: Data(bytes)) else {
                return .failure(.init(expected: "base64-encoded bytes"))
            }
            return .success(.blob([UInt8](data)))
        case .uuid:
            guard let uuid = UUID(uuidString: String(decoding: bytes, as: UTF8.self)) else {
                return .failure(.init(expected: "a UUID"))
            }
            return .success(.blob(withUnsafeBytes(of: uuid.uuid) { Array($0) }))
        case .json:
            let data = Data(bytes)
            guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil else {
                return .failure(.init(expected: "JSON text"))
            }
            return .success(.blob([UInt8](data)))
        case .referenceDate:
            if let seconds = DateSyntax.secondsSinceReferenceDate(bytes) { return .success(.real(seconds)) }
            if let seconds = NumberSyntax.real(bytes) { return .success(.real(seconds)) }
            return .failure(.init(expected: "a date (YYYY-MM-DD or an ISO 8601 date-time)"))
        }
    }

    /// Converts a value from a fixture or migration to the value to store.
    package func convert(_ input: InputValue) -> Result<SQLValue, ConversionFailure> {
        switch input {
        case .null:
            return .success(.null)
        case .string(let string):
            var contiguous = string
            return contiguous.withUTF8 { convert(text: UnsafeRawBufferPointer($0)) }.map { converted in
                switch converted {
                case .null: return .null
                case .integer(let value): return .integer(value)
                case .real(let value): return .real(value)
                // The text itself (a String is valid UTF-8: decoding its bytes would copy the same text).
                case .sameText: return .text(string)
                case .blob(let bytes): return .blob(bytes)
                }
            }
        case .integer(let value):
            switch self {
            case .integer, .numeric, .any: return .success(.integer(value))
            case .real, .referenceDate: return .success(.real(Double(value)))
            case .text: return .success(.text(String(value)))
            case .boolean where value == 0 || value == 1: return .success(.integer(value))
            default: return .failure(.init(expected: expectation))
            }
        case .real(let value):
            // YAML's .nan: SQLite would store NaN as NULL. ±Infinity (YAML's .inf, a number past a
            // double's range such as 1e999) is a value a REAL column holds, as SQLite stores it.
            let takesInfinity = self == .real || self == .numeric || self == .any
            guard value.isFinite || (value.isInfinite && takesInfinity) else {
                return .failure(.init(expected: self == .text ? "text (quote it)" : "a finite number"))
            }
            switch self {
            case .real, .any, .referenceDate: return .success(.real(value))
            // Past 2^53 a double no longer says which integer was written (JSON and YAML numbers
            // beyond 64 bits arrive as doubles): those stay reals, or are refused by integer columns.
            case .numeric: return .success(ColumnType.exactInteger(value).map { .integer($0) } ?? .real(value))
            case .integer:
                if let exact = ColumnType.exactInteger(value) { return .success(.integer(exact)) }
                return .failure(
                    .init(
                        expected: value == value.rounded()
                            ? ColumnType.integerRange + " (write it as a whole number, without a point or exponent)"
                            : "an integer"))
            case .text: return .success(.text(SQLValue.format(value)))
            default: return .failure(.init(expected: expectation))
            }
        case .bool(let value):
            switch self {
            case .boolean, .integer, .numeric, .any: return .success(.integer(value ? 1 : 0))
            default: return .failure(.init(expected: expectation))
            }
        case .json(let text):
            switch self {
            case .text, .any: return .success(.text(text))
            // A composite's JSON element given as a nested list or map: its JSON text, as a BLOB (convert(text:)).
            case .json: return .success(.blob(Array(text.utf8)))
            default: return .failure(.init(expected: expectation))
            }
        }
    }

    /// What an INTEGER column takes, for messages about numbers out of its range.
    package static let integerRange = "an integer from -9223372036854775808 to 9223372036854775807"

    /// `value` as an integer when it is one and a double can only have come from that integer
    /// (its magnitude is below 2^53); nil otherwise.
    static func exactInteger(_ value: Double) -> Int64? {
        guard abs(value) < 9_007_199_254_740_992 else { return nil }
        return Int64(exactly: value)
    }

    /// What this type accepts, for messages.
    package var expectation: String {
        switch self {
        case .integer: return "an integer"
        case .real, .numeric: return "a number"
        case .text: return "text"
        case .blob: return "base64-encoded bytes"
        case .uuid: return "a UUID"
        case .json: return "JSON text"
        case .boolean: return "a boolean"
        case .date, .referenceDate: return "a date (YYYY-MM-DD)"
        case .datetime: return "a date-time"
        case .any: return "a value"
        }
    }
}

/// Why a value does not fit a column: what the column expected.
package struct ConversionFailure: Error, Equatable {
    package var expected: String
}

/// Strict number syntax: what a person writes, nothing that `strtod` would also take
/// (no hex, no `inf`/`nan`, no surrounding spaces).
package enum NumberSyntax {
    package static func integer(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        var index = 0
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < bytes.count else { return nil }
        var value: Int64 = 0
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (multiplied, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (added, overflow2) =
                negative
                ? multiplied.subtractingReportingOverflow(Int64(digit))
                : multiplied.addingReportingOverflow(Int64(digit))
            if overflow1 || overflow2 { return nil }
            value = added
            index += 1
        }
        return value
    }

    /// What ``exactInteger(_:)`` found.
    enum ExactInteger: Equatable {
        case integer(Int64)
        /// A whole number past 64 bits.
        case outOfRange
        /// A number with a fractional part (`12.5`, `1e-1`).
        case fractional
        case notANumber
    }

    /// Reads a decimal number (`12`, `-3`, `12.0`, `1e3`, `1.5E+2`) as an exact integer, digit by
    /// digit: no double in between, so nothing is rounded or clamped.
    static func exactInteger(_ bytes: UnsafeRawBufferPointer) -> ExactInteger {
        let count = bytes.count
        var index = 0
        var negative = false
        if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        // The significant digits (leading zeros dropped) and how many of them follow the point.
        var digits: [UInt8] = []
        var fractionDigits = 0
        var sawDigit = false
        while index < count, bytes[index] &- UInt8(ascii: "0") < 10 {
            sawDigit = true
            if !(digits.isEmpty && bytes[index] == UInt8(ascii: "0")) {
                digits.append(bytes[index] - UInt8(ascii: "0"))
            }
            index += 1
        }
        if index < count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < count, bytes[index] &- UInt8(ascii: "0") < 10 {
                sawDigit = true
                fractionDigits += 1
                if !(digits.isEmpty && bytes[index] == UInt8(ascii: "0")) {
                    digits.append(bytes[index] - UInt8(ascii: "0"))
                }
                index += 1
            }
        }
        guard sawDigit else { return .notANumber }
        var exponent = 0
        if index < count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var negativeExponent = false
            if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                negativeExponent = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            let start = index
            while index < count, bytes[index] &- UInt8(ascii: "0") < 10 {
                // Saturate: anything past a million digits is out of range or zero anyway.
                if exponent < 1_000_000 { exponent = exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")) }
                index += 1
            }
            guard index > start else { return .notANumber }
            if negativeExponent { exponent = -exponent }
        }
        guard index == count else { return .notANumber }
        // Trailing zeros of the significand move into the exponent.
        while let last = digits.last, last == 0 {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty { return .integer(0) }
        let scale = exponent - fractionDigits
        if scale < 0 { return .fractional }
        if digits.count + scale > 19 { return .outOfRange }
        var value: Int64 = 0
        for position in 0..<(digits.count + scale) {
            let digit = position < digits.count ? Int64(digits[position]) : 0
            let (multiplied, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (added, overflow2) =
                negative ? multiplied.subtractingReportingOverflow(digit) : multiplied.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return .outOfRange }
            value = added
        }
        return .integer(value)
    }

    /// Whether ``real(_:)`` takes `bytes`, decided without converting them when the number is
    /// plainly finite: the JSON scanner checks every number it meets, and the column converts it later.
    static func isReal(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let syntax = realSyntax(bytes) else { return false }
        // Below 10^300 the nearest double is finite (tiny values round to zero, also finite);
        // only a number that may reach the largest double needs strtod to say.
        return syntax.integerDigits + syntax.exponent <= 300 || finiteValue(bytes) != nil
    }

    package static func real(_ bytes: UnsafeRawBufferPointer) -> Double? {
        realSyntax(bytes) == nil ? nil : finiteValue(bytes)
    }

    /// ±Infinity for a number written beyond a double's range (`1e999`, `-1e999`), as SQLite reads
    /// such a literal; nil for anything else.
    ///
    /// What a REAL column takes for the infinity SQLite can store, and what `inspect --format csv`
    /// prints for it (docs/reference.md).
    static func infinity(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard realSyntax(bytes) != nil, finiteValue(bytes) == nil else { return nil }
        return bytes.first == UInt8(ascii: "-") ? -.infinity : .infinity
    }

    /// `[+-] digits [. digits] [(e|E) [+-] digits]`, at least one digit in the mantissa, fewer than
    /// 64 bytes: how many digits come before the point, and the exponent (saturated far past 308).
    private static func realSyntax(_ bytes: UnsafeRawBufferPointer) -> (integerDigits: Int, exponent: Int)? {
        var index = 0
        let count = bytes.count
        guard count > 0, count < 64 else { return nil }
        if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
        var integerDigits = 0
        while index < count, bytes[index] &- UInt8(ascii: "0") < 10 {
            index += 1
            integerDigits += 1
        }
        var mantissaDigits = integerDigits
        if index < count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < count, bytes[index] &- UInt8(ascii: "0") < 10 {
                index += 1
                mantissaDigits += 1
            }
        }
        guard mantissaDigits > 0 else { return nil }
        var exponent = 0
        if index < count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var negative = false
            if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                negative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            var exponentDigits = 0
            while index < count, bytes[index] &- UInt8(ascii: "0") < 10 {
                if exponent < 10_000 { exponent = exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")) }
                index += 1
                exponentDigits += 1
            }
            guard exponentDigits > 0 else { return nil }
            if negative { exponent = -exponent }
        }
        guard index == count else { return nil }
        return (integerDigits, exponent)
    }

    /// strtod of bytes ``realSyntax(_:)`` took; nil when the value is out of a double's range.
    private static func finiteValue(_ bytes: UnsafeRawBufferPointer) -> Double? {
        let count = bytes.count
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { buffer in
            for i in 0..<count { buffer[i] = CChar(bitPattern: bytes[i]) }
            buffer[count] = 0
            guard let base = buffer.baseAddress else { return nil }
            let value = strtod(base, nil)
            return value.isFinite ? value : nil
        }
    }
}

/// ISO 8601 calendar dates and date-times, checked digit by digit and against the calendar.
enum DateSyntax {
    static func isDate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count == 10 && dateAt(bytes, 0)
    }

    static func isDateTime(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 10, dateAt(bytes, 0) else { return false }
        if bytes.count == 10 { return true }
        guard bytes.count >= 16, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
            let hour = digits(bytes, 11, 2), hour < 24, bytes[13] == UInt8(ascii: ":"),
            let minute = digits(bytes, 14, 2), minute < 60
        else { return false }
        var index = 16
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            guard let second = digits(bytes, index + 1, 2), second < 61 else { return false }
            index += 3
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                let start = index
                while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
                guard index > start else { return false }
            }
        }
        if index == bytes.count { return true }
        if bytes[index] == UInt8(ascii: "Z") { return index + 1 == bytes.count }
        guard bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"), bytes.count == index + 6,
            let offsetHour = digits(bytes, index + 1, 2), offsetHour < 24, bytes[index + 3] == UInt8(ascii: ":"),
            let offsetMinute = digits(bytes, index + 4, 2), offsetMinute < 60
        else { return false }
        return true
    }

    /// Seconds from 2001-01-01 00:00:00 UTC to an ISO 8601 date or date-time (a date alone is
    /// midnight UTC; an offset is honoured); nil when the text is not one.
    static func secondsSinceReferenceDate(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard isDateTime(bytes), let year = digits(bytes, 0, 4), let month = digits(bytes, 5, 2),
            let day = digits(bytes, 8, 2)
        else { return nil }
        var seconds = Double(daysFromCivil(year, month, day) - daysFromCivil(2001, 1, 1)) * 86_400
        guard bytes.count > 10, let hour = digits(bytes, 11, 2), let minute = digits(bytes, 14, 2) else {
            return seconds
        }
        seconds += Double(hour * 3600 + minute * 60)
        var index = 16
        if index < bytes.count, bytes[index] == UInt8(ascii: ":"), let second = digits(bytes, index + 1, 2) {
            seconds += Double(second)
            index += 3
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                var scale = 0.1
                index += 1
                while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                    seconds += Double(bytes[index] - UInt8(ascii: "0")) * scale
                    scale /= 10
                    index += 1
                }
            }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"),
            let offsetHour = digits(bytes, index + 1, 2), let offsetMinute = digits(bytes, index + 4, 2)
        {
            let offset = Double(offsetHour * 3600 + offsetMinute * 60)
            seconds -= bytes[index] == UInt8(ascii: "+") ? offset : -offset
        }
        return seconds
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func dateAt(_ bytes: UnsafeRawBufferPointer, _ start: Int) -> Bool {
        guard let year = digits(bytes, start, 4), bytes[start + 4] == UInt8(ascii: "-"),
            let month = digits(bytes, start + 5, 2), bytes[start + 7] == UInt8(ascii: "-"),
            let day = digits(bytes, start + 8, 2), (1...12).contains(month), day >= 1
        else { return false }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= days[month - 1]
    }

    static func digits(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ count: Int) -> Int? {
        guard start + count <= bytes.count else { return nil }
        var value = 0
        for i in start..<(start + count) {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        return value
    }
}
