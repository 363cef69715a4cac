import Foundation
public import GRDB

/// A value as SQLite stores it: one of its five storage classes.
public enum SQLValue: Hashable, Sendable, CustomStringConvertible {
    /// NULL.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob([UInt8])

    /// Whether two values are the same stored value, as SQLite's BINARY collation compares them:
    /// text by its UTF-8 bytes (`"Caf\u{E9}"` and `"Cafe\u{301}"` are two values, though Swift's
    /// `String ==` calls them equal), blobs by their bytes, numbers by value within a storage class.
    ///
    /// Hashing agrees. This is the one comparison keys, `from` checks, diffs and releases use
    /// (docs/reference.md, "How seedkit compares text and names").
    public static func == (lhs: SQLValue, rhs: SQLValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.integer(let a), .integer(let b)): return a == b
        case (.real(let a), .real(let b)): return a == b
        case (.text(let a), .text(let b)): return sameBytes(a, b)
        case (.blob(let a), .blob(let b)): return a == b
        default: return false
        }
    }

    /// Hashes what ``==(_:_:)`` compares: the storage class and its content (text by its bytes).
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .integer(let value):
            hasher.combine(1)
            hasher.combine(value)
        case .real(let value):
            hasher.combine(2)
            hasher.combine(value)
        case .text(let value):
            hasher.combine(3)
            hasher.combine(value.utf8.count)
            if value.utf8.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil
            {
                for byte in value.utf8 { hasher.combine(byte) }
            }
        case .blob(let bytes):
            hasher.combine(4)
            hasher.combine(bytes)
        }
    }

    /// Whether two values are the same stored value as a column with `collation` compares them:
    /// ``isSame(as:)`` of their ``folded(collation:)`` values.
    package func isSame(as other: SQLValue, collation: String) -> Bool {
        guard case .text(let a) = self, case .text(let b) = other, collation != "BINARY" else {
            return isSame(as: other)
        }
        // NOCASE's folding, compared without making the folded texts.
        if collation == "NOCASE" { return a.isSameName(as: b) }
        return folded(collation: collation) == other.folded(collation: collation)
    }

    /// The value as a column with `collation` tells it apart from others: text under SQLite's
    /// built-in `NOCASE` with its ASCII letters lower-cased, under `RTRIM` without its trailing
    /// spaces, as SQLite defines them; any other value or collation (BINARY, an app's own) as it is.
    package func folded(collation: String) -> SQLValue {
        guard case .text(let text) = self else { return self }
        switch collation {
        case "NOCASE": return .text(text.lowercasedName)
        case "RTRIM":
            guard text.utf8.last == 0x20 else { return self }
            var bytes = Array(text.utf8)
            while bytes.last == 0x20 { bytes.removeLast() }
            return .text(String(decoding: bytes, as: UTF8.self))
        default: return self
        }
    }

    /// The integer, for an `.integer`; nil for anything else.
    package var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// Whether two values are the same stored value.
    ///
    /// Integers and reals compare numerically (SQLite stores `10.0` in a REAL column for `10`),
    /// everything else compares by storage class and content. NULL is the same as NULL.
    package func isSame(as other: SQLValue) -> Bool {
        switch (self, other) {
        case (.integer(let a), .real(let b)): return Double(a) == b
        case (.real(let a), .integer(let b)): return a == Double(b)
        default: return self == other
        }
    }

    /// The value as a SQL literal, for messages and generated SQL.
    package var sqlLiteral: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return SQLValue.format(value)
        case .text(let value): return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let bytes):
            return "X'" + bytes.map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined() + "'"
        }
    }

    /// Reads back what ``sqlLiteral`` wrote; nil for anything else.
    package init?(sqlLiteral text: String) {
        if text == "NULL" {
            self = .null
        } else if let value = Int64(text) {
            self = .integer(value)
        } else if let value = Double(text), text.first.map({ $0.isNumber || $0 == "-" }) == true {
            self = .real(value)
        } else if text.count >= 2, text.hasPrefix("'"), text.hasSuffix("'") {
            self = .text(String(text.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'"))
        } else if text.hasPrefix("X'"), text.hasSuffix("'"), text.count % 2 == 1 {
            var bytes: [UInt8] = []
            var digits = text.dropFirst(2).dropLast()
            while !digits.isEmpty {
                guard let byte = UInt8(digits.prefix(2), radix: 16) else { return nil }
                bytes.append(byte)
                digits = digits.dropFirst(2)
            }
            self = .blob(bytes)
        } else {
            return nil
        }
    }

    /// A UUID's text (8-4-4-4-12, upper case, as `UUID.uuidString` prints it) when the value
    /// is 16 bytes; nil for anything else.
    ///
    /// Only a column typed `.uuid` holds UUIDs: see ``readable(as:)``.
    package var uuidText: String? {
        guard case .blob(let b) = self, b.count == 16 else { return nil }
        return UUID(
            uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        ).uuidString
    }

    /// The value as people read and write it for a column of `type`: a UUID attribute's 16
    /// bytes as its text (what fixtures and migrations give), a JSON element's bytes as its
    /// text, anything else as it is.
    package func readable(as type: ColumnType?) -> SQLValue {
        if type == .json, case .blob(let bytes) = self, let text = String(validating: bytes, as: UTF8.self) {
            return .text(text)  // a composite's Codable collection: its JSON
        }
        guard type == .uuid, let text = uuidText else { return self }
        return .text(text)
    }

    /// A short human rendering: text unquoted, numbers as written, NULL as `NULL`.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return SQLValue.format(value)
        case .text(let value): return value
        case .blob(let bytes): return "<\(bytes.count) bytes>"
        }
    }

    /// Formats a double the shortest way that reads back the same (`12.0` as `12.0`, `0.1` as `0.1`).
    ///
    /// ±Infinity is `1e999` / `-1e999`: SQLite's own literal for it (`.dump` writes it), a JSON
    /// number, and what a REAL column of a fixture reads back as the same value.
    package static func format(_ value: Double) -> String {
        if value.isInfinite { return value < 0 ? "-1e999" : "1e999" }
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) + ".0" }
        return String(value)
    }
}

extension SQLValue: DatabaseValueConvertible {
    /// The value for GRDB.
    public var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .integer(let value): return value.databaseValue
        case .real(let value): return value.databaseValue
        case .text(let value): return value.databaseValue
        case .blob(let bytes): return Data(bytes).databaseValue
        }
    }

    /// A value read with GRDB; nil never (every storage class maps).
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> SQLValue? {
        switch dbValue.storage {
        case .null: return .null
        case .int64(let value): return .integer(value)
        case .double(let value): return .real(value)
        case .string(let value): return .text(value)
        case .blob(let data): return .blob([UInt8](data))
        }
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
