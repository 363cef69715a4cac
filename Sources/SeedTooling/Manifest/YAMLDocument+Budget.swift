import Foundation
import SeedRuntime

extension YAMLDocument {
    /// Where and why a document is refused.
    struct Problem {
        var line: Int
        var column: Int
        var message: String
    }

    static func aliasBudgetProblem(_ line: Int, _ column: Int) -> Problem {
        Problem(
            line: line, column: column,
            message:
                "aliases (*name) repeat more than \(aliasBudget) values in all; write the values out instead (seedkit refuses to expand more)"
        )
    }

    static func tooDeepProblem(_ line: Int, _ column: Int) -> Problem {
        Problem(
            line: line, column: column,
            message:
                "lists and maps nest more than \(JSONScanner.maximumDepth) levels deep here; seedkit reads at most \(JSONScanner.maximumDepth)"
        )
    }

    /// For a document refused for its syntax, an undefined alias or a duplicate key: whether its
    /// aliases would repeat more than ``aliasBudget`` values if each `*` were a letter (each alias
    /// a plain scalar in its place, its anchor's size counted there).
    ///
    /// Such a document is refused as an alias bomb first, as the reader that came before this one
    /// did (it measured aliases on that neutral text before reading the real one).
    static func budgetProblem(_ text: String) -> Problem? {
        guard text.utf8.contains(UInt8(ascii: "*")) else { return nil }
        var neutral = Array(text.utf8)
        var stars = Set<Int>()
        var line = 1
        var column = 1
        for index in neutral.indices {
            let byte = neutral[index]
            if byte == UInt8(ascii: "*") {
                stars.insert(line << 24 | column)
                neutral[index] = UInt8(ascii: "A")
            }
            if byte == UInt8(ascii: "\n")
                || (byte == UInt8(ascii: "\r")
                    && (index + 1 == neutral.count || neutral[index + 1] != UInt8(ascii: "\n")))
            {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        if case .document(_, let budget, _) = EventReader.read(
            String(decoding: neutral, as: UTF8.self), aliasScalars: stars)
        {
            return budget
        }
        return nil
    }

    /// Where `key` is written as a key again after its first use at `first` (block or flow style).
    static func secondOccurrence(
        of key: String, afterLine firstLine: Int, column firstColumn: Int, in text: String
    ) -> (line: Int, column: Int)? {
        guard !key.isEmpty else { return nil }
        // "\r\n" is one Character, not "\n": split on both, as libyaml counts lines.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (index, line) in lines.enumerated() where index + 1 >= firstLine {
            var characters = Array(line)
            if index + 1 == firstLine {
                // Skip the first use itself.
                let skip = min(characters.count, max(0, firstColumn - 1 + key.count))
                characters = Array(repeating: " ", count: skip) + characters.dropFirst(skip)
            }
            let keyCharacters = Array(key)
            var start = 0
            while start + keyCharacters.count <= characters.count {
                defer { start += 1 }
                guard Array(characters[start..<(start + keyCharacters.count)]) == keyCharacters else { continue }
                let before = start == 0 ? " " : characters[start - 1]
                guard " \t{,-?\"'".contains(before) else { continue }
                var after = start + keyCharacters.count
                if after < characters.count, characters[after] == "\"" || characters[after] == "'" { after += 1 }
                while after < characters.count, characters[after] == " " { after += 1 }
                if after < characters.count, characters[after] == ":" { return (index + 1, start + 1) }
            }
        }
        return nil
    }

    /// What makes two mapping keys the same key: the text of a scalar and the structure of a list
    /// or map, with their tags (`!!int 1` and `1` differ; `a`, `"a"` and `!!str a` do not).
}
