/// A table or column name as SQLite compares names: ASCII letters case-insensitively, every
/// other byte as is (`é` and `É` are two columns, as they are to SQLite, which folds ASCII
/// case only; see docs/reference.md, "How seedkit compares text and names").
///
/// Two names are equal (and hash alike) when their ASCII-lower-cased bytes are; ``name`` keeps the
/// spelling it was made from.
///
/// Made once per name and kept (dictionary keys, sets, a row's columns), it replaces folding
/// at every comparison. Building one costs no copy when the name has no upper-case ASCII letter
/// (``Swift/String/lowercasedName``), as table and column names usually do: a big migration
/// makes them once per row.
package struct SQLName: Hashable, Sendable, CustomStringConvertible {
    /// The name as written.
    package let name: String
    /// The name with ASCII letters lower-cased: what equality and hashing use (its bytes).
    package let lowered: String

    package init(_ name: String) {
        self.name = name
        lowered = name.lowercasedName
    }

    package static func == (lhs: SQLName, rhs: SQLName) -> Bool { sameBytes(lhs.lowered, rhs.lowered) }
    package func hash(into hasher: inout Hasher) {
        hasher.combine(lowered.utf8.count)
        if lowered.utf8.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
            for byte in lowered.utf8 { hasher.combine(byte) }
        }
    }
    package var description: String { name }

    /// Whether `other` names the same table or column.
    package func matches(_ other: String) -> Bool { sameName(other, lowered) }
}

/// Whether `name`, its ASCII letters lower-cased, is `lowered` (already lower-cased): SQLite's
/// rule for names (`sqlite3StrICmp`), byte by byte.
package func sameName(_ name: String, _ lowered: String) -> Bool {
    name.utf8.elementsEqual(lowered.utf8) { asciiLower($0) == $1 }
}

/// `byte`, lower-cased when it is an ASCII upper-case letter.
@inline(__always)
package func asciiLower(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte | 0x20 : byte }

extension String {
    /// The name with its ASCII letters lower-cased and every other byte kept, as SQLite folds
    /// names; no new string when there is no upper-case ASCII letter (the common case for table
    /// and column names, looked up once per row of a big migration).
    ///
    /// Not `lowercased()`, whose Unicode case mapping makes `É` and `é` one name where SQLite has
    /// two.
    package var lowercasedName: String {
        guard utf8.contains(where: { $0 >= 65 && $0 <= 90 }) else { return self }
        return String(decoding: utf8.map(asciiLower), as: UTF8.self)
    }

    /// The name with its ASCII letters upper-cased and every other byte kept (SQL keywords,
    /// Core Data's upper-case table and column names).
    package var uppercasedName: String {
        guard utf8.contains(where: { $0 >= 97 && $0 <= 122 }) else { return self }
        return String(decoding: utf8.map { $0 >= 97 && $0 <= 122 ? $0 & ~0x20 : $0 }, as: UTF8.self)
    }

    /// Whether `self` and `other` name the same table or column as SQLite matches names: the
    /// same bytes once ASCII letters are lower-cased.
    package func isSameName(as other: String) -> Bool {
        utf8.elementsEqual(other.utf8) { asciiLower($0) == asciiLower($1) }
    }
}

extension Substring {
    /// See ``Swift/String/lowercasedName``.
    package var lowercasedName: String { String(self).lowercasedName }
    /// See ``Swift/String/uppercasedName``.
    package var uppercasedName: String { String(self).uppercasedName }
    /// See ``Swift/String/isSameName(as:)``.
    package func isSameName(as other: String) -> Bool { String(self).isSameName(as: other) }
}
