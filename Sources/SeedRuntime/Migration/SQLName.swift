/// A table or column name as SQL compares names: case-insensitively. Two names are equal (and
/// hash alike) when their lower-cased forms are; ``name`` keeps the spelling it was made from.
///
/// Made once per name and kept (dictionary keys, sets, a row's columns), it replaces
/// `.lowercased()` at every comparison. Building one costs no copy when the name is already
/// lower-case ASCII (``Swift/String/lowercasedName``), as table and column names usually are:
/// a big migration makes them once per row.
package struct SQLName: Hashable, Sendable, CustomStringConvertible {
    /// The name as written.
    package let name: String
    /// The name lower-cased: what equality and hashing use.
    package let lowered: String

    package init(_ name: String) {
        self.name = name
        lowered = name.lowercasedName
    }

    package static func == (lhs: SQLName, rhs: SQLName) -> Bool { lhs.lowered == rhs.lowered }
    package func hash(into hasher: inout Hasher) { hasher.combine(lowered) }
    package var description: String { name }

    /// Whether `other` names the same table or column.
    package func matches(_ other: String) -> Bool { sameName(other, lowered) }
}

/// Whether `name`, lower-cased, is `lowered` (already lower-cased), without lower-casing a copy of
/// `name` when both are ASCII (names usually are: SQLite itself folds only ASCII).
package func sameName(_ name: String, _ lowered: String) -> Bool {
    if name == lowered { return true }
    var a = name.utf8.makeIterator(), b = lowered.utf8.makeIterator()
    while true {
        switch (a.next(), b.next()) {
        case (nil, nil): return true
        case let (x?, y?) where x < 0x80 && y < 0x80:
            // Lower-casing keeps an ASCII prefix in place, byte for byte.
            if (x >= 65 && x <= 90 ? x | 0x20 : x) != y { return false }
        case (nil, _?), (_?, nil):
            // Different lengths: only lower-casing beyond ASCII could make them equal.
            return (name.utf8.contains { $0 >= 0x80 } || lowered.utf8.contains { $0 >= 0x80 }) && name.lowercased() == lowered
        default:
            return name.lowercased() == lowered
        }
    }
}

extension String {
    /// `lowercased()`, without a new string when the name is already lower-case ASCII (the common
    /// case for table and column names, looked up once per row of a big migration).
    package var lowercasedName: String {
        utf8.contains { $0 >= 0x80 || ($0 >= 65 && $0 <= 90) } ? lowercased() : self
    }

    /// Whether `self` and `other` name the same table or column: `lowercased()` of each is the
    /// same, found without copies when both are ASCII.
    package func isSameName(as other: String) -> Bool {
        if self == other { return true }
        var a = utf8.makeIterator(), b = other.utf8.makeIterator()
        while true {
            switch (a.next(), b.next()) {
            case (nil, nil): return true
            case let (x?, y?) where x < 0x80 && y < 0x80:
                // Lower-casing keeps an ASCII prefix in place, byte for byte.
                if (x >= 65 && x <= 90 ? x | 0x20 : x) != (y >= 65 && y <= 90 ? y | 0x20 : y) { return false }
            case (nil, _?), (_?, nil):
                // Different lengths: only lower-casing beyond ASCII could make them equal.
                return (utf8.contains { $0 >= 0x80 } || other.utf8.contains { $0 >= 0x80 }) && lowercased() == other.lowercased()
            default:
                return lowercased() == other.lowercased()
            }
        }
    }
}
