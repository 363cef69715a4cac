/// UTF-8 validity, with an ASCII fast path: seed text is mostly ASCII.
package enum UTF8Validation {
    /// Whether `bytes` is well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
    package static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index < bytes.count {
            if bytes[index] < 0x80 {
                index += 1
                continue
            }
            guard let length = sequenceLength(bytes, at: index) else { return false }
            index += length
        }
        return true
    }

    /// The length of the well-formed multi-byte sequence at `index` (no overlong, no surrogate,
    /// nothing above U+10FFFF); nil when the bytes there are not one.
    static func sequenceLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int? {
        let lead = bytes[index]
        let length: Int
        let minimum: UInt32
        var scalar: UInt32
        switch lead {
        case 0xC2...0xDF:
            length = 2
            minimum = 0x80
            scalar = UInt32(lead & 0x1F)
        case 0xE0...0xEF:
            length = 3
            minimum = 0x800
            scalar = UInt32(lead & 0x0F)
        case 0xF0...0xF4:
            length = 4
            minimum = 0x10000
            scalar = UInt32(lead & 0x07)
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { return nil }
            scalar = scalar << 6 | UInt32(byte & 0x3F)
        }
        guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else { return nil }
        return length
    }
}

extension UTF8Validation {
    /// Why `bytes` are not UTF-8 text that seedkit reads, with the 1-based line where it shows;
    /// nil when they are.
    ///
    /// A UTF-16 or UTF-32 file is named as such (by its byte order mark, or by the NUL bytes that
    /// every ASCII character of it has), rather than read as text with NULs in it.
    ///
    /// - Parameter bytes: the whole file, or the start of it (for fixtures, which are read as a stream).
    /// - Returns: the line and what is wrong there, or nil for text seedkit reads.
    package static func textProblem(_ bytes: UnsafeRawBufferPointer) -> (line: Int, message: String)? {
        // UTF-8 without a NUL (nearly every file) has neither problem: no byte order mark (0xFE
        // and 0xFF are never UTF-8), no NUL, valid UTF-8. Told in one pass, 8 ASCII bytes at a
        // time, it costs a fraction of the two passes below, which a big migration's first rows
        // waited for; they run only to say what the problem is.
        if isUTF8WithoutNUL(bytes) { return nil }
        if let problem = wideEncodingProblem(bytes) { return problem }
        guard !isValid(bytes) else { return nil }
        var start = 0
        var line = 1
        // The first line that is not UTF-8, for the message.
        for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "\n") {
            if !isValid(UnsafeRawBufferPointer(rebasing: bytes[start..<index])) { break }
            start = index + 1
            line += 1
        }
        return (line, "not UTF-8: save the file as UTF-8")
    }

    /// Whether `bytes` are well-formed UTF-8 (as ``isValid(_:)`` says) with no NUL byte: runs of
    /// ASCII are checked 8 bytes at a time.
    package static func isUTF8WithoutNUL(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        let high: UInt64 = 0x8080_8080_8080_8080
        let ones: UInt64 = 0x0101_0101_0101_0101
        var index = 0
        while index < count {
            if index + 8 <= count {
                let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                // No byte past ASCII (a high bit), and no zero byte (which sets its high bit in (word - ones) & ~word).
                if word & high == 0 && (word &- ones) & ~word & high == 0 {
                    index += 8
                    continue
                }
            }
            let lead = bytes[index]
            if lead == 0 { return false }
            if lead < 0x80 {
                index += 1
                continue
            }
            guard let length = sequenceLength(bytes, at: index) else { return false }
            index += length
        }
        return true
    }

    /// The part of ``textProblem(_:)`` that the start of a file can tell: a UTF-16/32 byte order
    /// mark, or NUL bytes.
    package static func wideEncodingProblem(_ bytes: UnsafeRawBufferPointer) -> (line: Int, message: String)? {
        if bytes.count >= 2, (bytes[0] == 0xFF && bytes[1] == 0xFE) || (bytes[0] == 0xFE && bytes[1] == 0xFF) {
            return (1, "not UTF-8: the file starts with a UTF-16 byte order mark; save it as UTF-8")
        }
        var line = 1
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0 {
                return (line, "not UTF-8 text: the file has NUL bytes (UTF-16?); save it as UTF-8")
            }
            if byte == UInt8(ascii: "\n") { line += 1 }
            index += 1
        }
        return nil
    }
}
