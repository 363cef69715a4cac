import Foundation
import GRDBSQLite
import SeedRuntime

/// SQL text cut into tokens as SQLite's tokenizer cuts it: comments (`-- …` to the end of the
/// line, `/* … */`) and whitespace separate tokens and are dropped; a string literal or a quoted
/// name (`"…"`, `` `…` ``, `[…]`) is one token, commas and parentheses inside it included.
///
/// seedkit reads a schema through SQLite's pragmas (docs/reference.md: "The schema is read
/// through SQLite"); the text is only cut where no pragma tells (a CHECK clause, the definition a
/// new column is added with), and then by tokens, so a comment never changes what it sees.
struct SQLTokens {
    struct Token: Equatable {
        enum Kind: Equatable { case word, quotedName, string, symbol }
        var kind: Kind
        /// As written, quotes included.
        var text: String
        /// Whether whitespace or a comment came before it.
        var spaced: Bool

        /// A name without its quotes (doubled quotes undone); a word as it is.
        var name: String { kind == .quotedName ? SQLTokens.unquote(text) : text }
        func isSymbol(_ symbol: String) -> Bool { kind == .symbol && text == symbol }
        /// Whether it is the keyword `word` (ASCII case folded, as SQLite reads keywords).
        func isKeyword(_ word: String) -> Bool { kind == .word && text.uppercasedName == word }
    }

    var tokens: [Token]

    init(_ sql: String) {
        var tokens: [Token] = []
        let characters = Array(sql.unicodeScalars)
        var index = 0
        var spaced = false
        func isWord(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value >= 0x80 || scalar == "_" || scalar == "$"
                || (scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar)))
        }
        while index < characters.count {
            let character = characters[index]
            if character.properties.isWhitespace {
                spaced = true
                index += 1
                continue
            }
            if character == "-", index + 1 < characters.count, characters[index + 1] == "-" {
                while index < characters.count, characters[index] != "\n" { index += 1 }
                spaced = true
                continue
            }
            if character == "/", index + 1 < characters.count, characters[index + 1] == "*" {
                index += 2
                while index < characters.count,
                    !(characters[index] == "*" && index + 1 < characters.count && characters[index + 1] == "/")
                { index += 1 }
                index = min(index + 2, characters.count)
                spaced = true
                continue
            }
            var end = index + 1
            let kind: Token.Kind
            if character == "'" || character == "\"" || character == "`" || character == "[" {
                let close: Unicode.Scalar = character == "[" ? "]" : character
                while end < characters.count {
                    if characters[end] == close {
                        // A doubled quote inside is one quote.
                        if close != "]", end + 1 < characters.count, characters[end + 1] == close {
                            end += 2
                            continue
                        }
                        end += 1
                        break
                    }
                    end += 1
                }
                kind = character == "'" ? .string : .quotedName
            } else if isWord(character) {
                while end < characters.count, isWord(characters[end]) { end += 1 }
                kind = .word
            } else {
                kind = .symbol
            }
            var text = ""
            text.unicodeScalars.append(contentsOf: characters[index..<min(end, characters.count)])
            tokens.append(Token(kind: kind, text: text, spaced: spaced))
            spaced = false
            index = end
        }
        self.tokens = tokens
    }

    /// The tokens as one line: one space where the source had whitespace or a comment, none
    /// after `(` or `,` or before `)` or `,` (nor before `(` when `tight`, for comparing).
    ///
    /// Two texts that differ only in spacing and comments render the same.
    static func render<S: Sequence>(_ tokens: S, tight: Bool = false) -> String where S.Element == Token {
        var result = ""
        var previous: Token?
        for token in tokens {
            if let last = previous, token.spaced, !last.isSymbol("("), !last.isSymbol(","), !token.isSymbol(")"),
                !token.isSymbol(","), !(tight && token.isSymbol("("))
            {
                result += " "
            }
            result += token.text
            previous = token
        }
        return result
    }

    /// ``render(_:)`` for comparing: a quoted name that SQLite reads the same without its quotes
    /// (a plain identifier that is no keyword: `"a"`, `[a]`, `` `a` ``) is written without them,
    /// and no space comes before `(`, so `UNIQUE ("a", b)`, `UNIQUE (a, b)` and `UNIQUE(a,b)` compare equal.
    static func canonical<S: Sequence>(_ tokens: S) -> String where S.Element == Token {
        render(
            tokens.map { token in
                guard token.kind == .quotedName, token.text.first != "'" else { return token }
                let name = token.name
                guard let first = name.unicodeScalars.first,
                    first == "_" || (first.isASCII && CharacterSet.letters.contains(first)),
                    name.unicodeScalars.allSatisfy({
                        $0 == "_" || ($0.isASCII && CharacterSet.alphanumerics.contains($0))
                    }),
                    sqlite3_keyword_check(name, Int32(name.utf8.count)) == 0
                else { return token }
                return Token(kind: .word, text: name, spaced: token.spaced)
            }, tight: true)
    }

    static func unquote(_ name: String) -> String {
        guard let first = name.first, "\"`[".contains(first), name.count >= 2 else { return name }
        let inner = String(name.dropFirst().dropLast())
        return first == "[" ? inner : inner.replacingOccurrences(of: String(first) + String(first), with: String(first))
    }
}
