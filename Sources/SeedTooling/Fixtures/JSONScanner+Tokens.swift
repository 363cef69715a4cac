import Foundation
import SeedRuntime

// MARK: - Between a record's tokens

extension JSONScanner {
    /// ``skipWhitespace()`` inlined for the spaces between a record's tokens, where none or one
    /// space is usual (a call into the scanner's module per token cost the reader a tenth of
    /// its time); a line break, which the scanner counts, is left to the scanner.
    @inline(__always) mutating func skipSpaces() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): position += 1
            case UInt8(ascii: "\n"):
                skipWhitespace()
                return
            default: return
            }
        }
    }

    /// A string without escapes or control characters, at its opening quote: the range of its
    /// bytes, and the scanner past its closing quote.
    ///
    /// Nil, with nothing consumed, for any other string, or one not wholly in the bytes:
    /// ``scanString(into:)`` reads (or refuses) those.
    @inline(__always) mutating func plainString() -> Range<Int>? {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
        var index = position + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { position = index + 1 }
                return (position + 1)..<index
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    /// ``peek()``, inlined.
    @inline(__always) var next: UInt8? { position < bytes.count ? bytes[position] : nil }
}
