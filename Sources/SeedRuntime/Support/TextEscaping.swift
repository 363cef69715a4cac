import Foundation

// What people read is escaped; what programs read is exact (docs/reference.md, "How seedkit
// compares text and names"). A store someone handed you may hold text that a terminal acts on
// (`\u{1B}]0;…\u{7}` sets its title, `\r\u{1B}[K` erases the line a report just printed): human
// output shows such characters as escapes. JSON output is escaped by its encoder instead.

extension String {
    /// The text with every character a terminal acts on written as an escape: NUL as `\0`,
    /// `\r`, `\t` (and `\n` unless `keepingNewlines`) as themselves, other C0 controls and DEL
    /// as `\xNN`, C1 controls, line and paragraph separators and bidirectional overrides as
    /// `\uNNNN`.
    ///
    /// Text without them is returned as is (no copy).
    package func escapingControls(keepingNewlines: Bool = false) -> String {
        guard unicodeScalars.contains(where: { Self.needsEscape($0, keepingNewlines: keepingNewlines) }) else {
            return self
        }
        var out = ""
        out.reserveCapacity(utf8.count + 8)
        for scalar in unicodeScalars {
            guard Self.needsEscape(scalar, keepingNewlines: keepingNewlines) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            out += Self.escape(scalar)
        }
        return out
    }

    /// The text with every scalar beyond ASCII written as `\uNNNN` (`\U00NNNNNN` beyond the
    /// BMP), and controls escaped as ``escapingControls(keepingNewlines:)`` does: how two texts
    /// that differ in their bytes but look alike (`Caf\u00E9` and `Cafe\u0301`) are told apart.
    package var escapingNonASCII: String {
        var out = ""
        for scalar in unicodeScalars {
            if scalar.value < 0x80 {
                if Self.needsEscape(scalar, keepingNewlines: false) {
                    out += Self.escape(scalar)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            } else if scalar.value <= 0xFFFF {
                out += "\\u" + Self.hex(scalar.value, width: 4)
            } else {
                out += "\\U" + Self.hex(scalar.value, width: 8)
            }
        }
        return out
    }

    /// Two texts as people should see them side by side: escaped (``escapingControls(keepingNewlines:)``),
    /// and when their bytes differ but they would still print alike (Unicode canonical
    /// equivalence: NFC and NFD), with every non-ASCII scalar written out (``escapingNonASCII``).
    package static func distinguishing(_ a: String, _ b: String) -> (String, String) {
        let shownA = a.escapingControls()
        let shownB = b.escapingControls()
        guard shownA == shownB, !sameBytes(a, b) else { return (shownA, shownB) }
        return (a.escapingNonASCII, b.escapingNonASCII)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, keepingNewlines: Bool) -> Bool {
        switch scalar.value {
        case 0x0A: return !keepingNewlines
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x00: return "\\0"
        case 0x09: return "\\t"
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x01...0x1F, 0x7F: return "\\x" + hex(scalar.value, width: 2, uppercase: false)
        default: return "\\u" + hex(scalar.value, width: 4)
        }
    }

    private static func hex(_ value: UInt32, width: Int, uppercase: Bool = true) -> String {
        let digits = String(value, radix: 16, uppercase: uppercase)
        return String(repeating: "0", count: Swift.max(0, width - digits.count)) + digits
    }
}

extension String {
    /// The text as a dictionary key that is equal for equal bytes only: Swift's `String` equality
    /// and hashing are Unicode canonical equivalence (`Caf\u{E9}` equals `Cafe\u{301}`), SQLite's
    /// BINARY collation is bytes.
    ///
    /// The key is ASCII (a backslash doubled, every other non-ASCII scalar as `\u{…}`), for which
    /// the two agree; ASCII text without a backslash is its own key.
    package var exactKey: String {
        guard utf8.contains(where: { $0 >= 0x80 || $0 == 0x5C }) else { return self }
        var out = ""
        for scalar in unicodeScalars {
            if scalar == "\\" {
                out += "\\\\"
            } else if scalar.isASCII {
                out.unicodeScalars.append(scalar)
            } else {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return out
    }
}

extension String {
    /// Text as SQLite holds it, read from its bytes: decoded as UTF-8, and where the bytes are
    /// not UTF-8 (SQLite stores what it is given; it never checks), each byte that is not part
    /// of a well-formed sequence written as `\xNN`, as reports write control characters, rather
    /// than replaced by U+FFFD: two texts that differ only in such bytes read, compare and print
    /// apart (docs/reference.md, "How seedkit compares text and names").
    ///
    /// Valid UTF-8 (nearly all text) is decoded once, as `String(decoding:as:)` does.
    package init(storedText bytes: UnsafeRawBufferPointer) {
        if let valid = String(validating: bytes, as: UTF8.self) {
            self = valid
            return
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 {
                out.append(byte)
                index += 1
            } else if let length = UTF8Validation.sequenceLength(bytes, at: index) {
                out.append(contentsOf: bytes[index..<index + length])
                index += length
            } else {
                let digits = Array("0123456789ABCDEF".utf8)
                out += [0x5C, 0x78, digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]  // \xNN
                index += 1
            }
        }
        self = String(decoding: out, as: UTF8.self)
    }
}

/// Whether two lists of texts are the same bytes, element by element (not `==`, which is
/// canonical equivalence; see ``Swift/String/exactKey``).
package func sameBytes(_ a: [String], _ b: [String]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { sameBytes($0, $1) }
}

/// Whether two texts are the same UTF-8 bytes, as SQLite's BINARY collation compares them (not
/// `==`, which is Unicode canonical equivalence).
///
/// One `memcmp` for native strings, which keep their bytes contiguous: as fast as `==` on ASCII (a
/// big migration compares values per row).
@inline(__always)
package func sameBytes(_ a: String, _ b: String) -> Bool {
    let compared = a.utf8.withContiguousStorageIfAvailable { x in
        b.utf8.withContiguousStorageIfAvailable { y -> Bool in
            guard x.count == y.count else { return false }
            guard let p = x.baseAddress, let q = y.baseAddress else { return true }  // both empty
            return memcmp(p, q, x.count) == 0
        }
    }
    if let compared, let result = compared { return result }
    return a.utf8.elementsEqual(b.utf8)
}
