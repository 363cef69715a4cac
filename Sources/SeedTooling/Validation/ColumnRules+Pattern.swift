import Foundation

extension ColumnRules {
    /// A `pattern` rule: a regular expression the whole value must match, with the meaning of
    /// ICU's `matches()` — what Core Data's regularExpressionString (an NSPredicate MATCHES)
    /// checks.
    ///
    /// `^(a|ab)$`-style patterns match "ab": any way of matching the whole value counts, not only
    /// the first match ICU would find.
    ///
    /// Patterns in the regular subset (``PatternSyntax``) run on ``PatternMatcher`` over the
    /// value's UTF-8 bytes; the rest run on NSRegularExpression. Both give the same answers on
    /// the subset (`PatternMatcherDifferentialTests`).
    public final class Pattern: @unchecked Sendable {
        /// The pattern as the manifest or model writes it.
        public let source: String
        /// The pattern as NSRegularExpression compiled it: validates the source, and matches
        /// what ``matcher`` can't.
        private let regex: NSRegularExpression
        /// Whether ``regex`` is the whole-value form `(?:source)\z`, or the source as written
        /// (for sources a wrapper could change: `\Q` quoting, or the `x` flag's `#` comments).
        private let wrapped: Bool
        private let matcher: PatternMatcher?
        private let lock = NSLock()

        /// Compiles `source`, refusing one NSRegularExpression does not accept.
        ///
        /// - Throws: NSRegularExpression's error for a pattern it cannot compile.
        public init(_ source: String) throws {
            self.source = source
            let plain = try NSRegularExpression(pattern: source)
            if !source.contains("\\Q"), !Self.maySetCommentFlag(source),
                let whole = try? NSRegularExpression(pattern: "(?:\(source))\\z")
            {
                regex = whole
                wrapped = true
                matcher = PatternMatcher(source)
            } else {
                // ICU refuses the wrapped form of a few sources it accepts alone; those keep
                // NSRegularExpression's first match (which must span the value) throughout.
                regex = plain
                wrapped = false
                matcher = nil
            }
        }

        /// Whether `source` may turn on the `x` flag inline (`(?x)`, `(?ix:`…), under which a `#`
        /// comment could swallow a wrapper's closing parenthesis.
        private static func maySetCommentFlag(_ source: String) -> Bool {
            let scalars = Array(source.unicodeScalars)
            for index in scalars.indices
            where scalars[index] == "(" && index + 1 < scalars.count && scalars[index + 1] == "?" {
                var next = index + 2
                while next < scalars.count, scalars[next].properties.isAlphabetic || scalars[next] == "-" {
                    if scalars[next] == "x" { return true }
                    next += 1
                }
            }
            return false
        }

        /// Whether a compiled matcher runs this pattern (rather than NSRegularExpression).
        var isCompiled: Bool { matcher != nil }

        /// Whether `text` matches the pattern as a whole (any way of matching all of it counts).
        public func matchesWhole(_ text: String) -> Bool {
            if let matcher {
                var text = text
                if let matched = text.withUTF8({ matcher.matches(utf8: UnsafeRawBufferPointer($0)) }) { return matched }
            }
            return regexMatchesWhole(text)
        }

        /// The answer for UTF-8 `bytes` without building a String; nil when only NSRegularExpression can tell.
        func quicklyMatches(_ bytes: UnsafeRawBufferPointer) -> Bool? {
            matcher?.matches(utf8: bytes)
        }

        /// What NSRegularExpression says, whatever the subset (the differential tests' reference).
        func regexMatchesWhole(_ text: String) -> Bool {
            let range = NSRange(text.startIndex..., in: text)
            lock.lock()
            defer { lock.unlock() }
            guard let match = regex.firstMatch(in: text, options: [.anchored], range: range) else { return false }
            return wrapped || match.range == range
        }
    }
}
