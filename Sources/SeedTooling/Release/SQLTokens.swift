import Foundation
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
            scalar.value >= 0x80 || scalar == "_" || scalar == "$" || (scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar)))
        }
        while index < characters.count {
            let character = characters[index]
            if character.properties.isWhitespace { spaced = true; index += 1; continue }
            if character == "-", index + 1 < characters.count, characters[index + 1] == "-" {
                while index < characters.count, characters[index] != "\n" { index += 1 }
                spaced = true
                continue
            }
            if character == "/", index + 1 < characters.count, characters[index + 1] == "*" {
                index += 2
                while index < characters.count, !(characters[index] == "*" && index + 1 < characters.count && characters[index + 1] == "/") { index += 1 }
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
                        if close != "]", end + 1 < characters.count, characters[end + 1] == close { end += 2; continue }
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
    /// after `(` or `,` or before `)` or `,`. Two texts that differ only in spacing and comments
    /// render the same.
    static func render<S: Sequence>(_ tokens: S) -> String where S.Element == Token {
        var result = ""
        var previous: Token?
        for token in tokens {
            if let last = previous, token.spaced, !last.isSymbol("("), !last.isSymbol(","), !token.isSymbol(")"), !token.isSymbol(",") { result += " " }
            result += token.text
            previous = token
        }
        return result
    }

    static func unquote(_ name: String) -> String {
        guard let first = name.first, "\"`[".contains(first), name.count >= 2 else { return name }
        let inner = String(name.dropFirst().dropLast())
        return first == "[" ? inner : inner.replacingOccurrences(of: String(first) + String(first), with: String(first))
    }
}
