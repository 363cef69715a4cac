import Foundation

/// A JSON Pointer (RFC 6901): `/3166-1` names the value under the key `3166-1` of the
/// document's top-level object.
///
/// `~1` stands for `/` and `~0` for `~` inside a key; a token of digits indexes an array. The empty
/// pointer names the whole document.
public struct JSONPointer: Sendable, Equatable, CustomStringConvertible {
    /// The reference tokens, unescaped.
    public var tokens: [String]

    /// The pointer of `tokens`, unescaped (the empty list: the whole document).
    public init(tokens: [String]) { self.tokens = tokens }

    /// Parses `text`; nil when it is not a JSON Pointer (no leading `/`, or `~` not followed by 0 or 1).
    public init?(_ text: String) {
        guard !text.isEmpty else {
            tokens = []
            return
        }
        guard text.hasPrefix("/") else { return nil }
        var tokens: [String] = []
        for part in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var escaped = false
            for character in part {
                if escaped {
                    switch character {
                    case "0": token.append("~")
                    case "1": token.append("/")
                    default: return nil
                    }
                    escaped = false
                } else if character == "~" {
                    escaped = true
                } else {
                    token.append(character)
                }
            }
            if escaped { return nil }
            tokens.append(token)
        }
        self.tokens = tokens
    }

    /// The pointer as written, escapes included: `/a~1b` for the key `a/b`.
    public var description: String { tokens.map { "/" + Self.escape($0) }.joined() }

    /// This pointer followed by one more key.
    public func appending(_ token: String) -> JSONPointer { JSONPointer(tokens: tokens + [token]) }

    static func escape(_ token: String) -> String {
        token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    /// The array index a token names: digits without a leading zero (RFC 6901 §4), or nil.
    static func index(_ token: String) -> Int? {
        guard !token.isEmpty, token.allSatisfy({ $0.isASCII && $0.isNumber }), token == "0" || !token.hasPrefix("0")
        else { return nil }
        return Int(token)
    }
}
