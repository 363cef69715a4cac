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
}
