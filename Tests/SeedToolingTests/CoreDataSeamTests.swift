import Foundation
import SeedTestSupport
import Testing

/// Core Data's bookkeeping — `Z_PK`, `Z_ENT`, `Z_OPT`, `Z_PRIMARYKEY`, `Z_METADATA`, order keys,
/// entity-type columns, join and history tables, `Z` names built by hand — is read and written
/// by the Core Data dialect only (Sources/SeedRuntime/Store/CoreDataDialect*.swift,
/// CoreDataJoins.swift, CoreDataModelFacts.swift).
///
/// Anywhere else in Sources it would be a second implementation that can drift from the dialect's
/// (issue 24). SeedTestSupport's fixtures and comments may name it.
@Suite struct CoreDataSeamTests {
    /// What spells Core Data bookkeeping, as SQL or as names.
    static let patterns: [(String, String)] = [
        (
            "bookkeeping column or table",
            #"(?i)\bZ_(PK|ENT|OPT|MAX|PRIMARYKEY|METADATA|FOK|NAME|SUPER|VERSION|UUID|PLIST)\b"#
        ),
        ("join table or column", #"\bZ_[0-9]"#),
        ("entity-type column", #"\bZ[0-9]+_[A-Z]"#),
        ("history table", #"\b(ATRANSACTION|ACHANGE|ATRANSACTIONSTRING)\b"#),
        ("Z name built by hand", #""Z"\s*\+|"Z_"\s*\+|hasPrefix\("Z_?"\)"#),
    ]

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func isDialect(_ path: String) -> Bool {
        let name = (path as NSString).lastPathComponent
        if path.hasPrefix("Sources/SeedTestSupport/") { return true }
        // docs/ sections, generated as string literals for `seedkit help TOPIC` (HelpTopicTests): prose, not code.
        if path.hasPrefix("Sources/SeedkitCLI/Help/HelpTopic+") { return true }
        guard path.hasPrefix("Sources/SeedRuntime/Store/") else { return false }
        return (name.hasPrefix("CoreDataDialect") && name.hasSuffix(".swift")) || name == "CoreDataJoins.swift"
            || name == "CoreDataModelFacts.swift"
    }

    /// `line` without its `//` comment (a `//` inside a string literal on the line is kept).
    static func code(_ line: String) -> String {
        var inString = false
        var escaped = false
        var previous: Character = " "
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            if inString {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                }
            } else if character == "\"" {
                inString = true
            } else if character == "/" && previous == "/" {
                return String(line[..<line.index(before: index)])
            }
            previous = character
            index = line.index(after: index)
        }
        return line
    }

    /// Every place in `text` (a Swift file's contents) that spells Core Data bookkeeping, as `line: what`.
    static func findings(in text: String) throws -> [(line: Int, what: String)] {
        let patterns = try Self.patterns.map { ($0.0, try NSRegularExpression(pattern: $0.1)) }
        var result: [(line: Int, what: String)] = []
        var inBlockComment = false
        for (number, line) in text.components(separatedBy: "\n").enumerated() {
            var line = line
            if inBlockComment {
                guard let end = line.range(of: "*/") else { continue }
                line = String(line[end.upperBound...])
                inBlockComment = false
            }
            if let start = line.range(of: "/*"), !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                if let end = line.range(of: "*/", range: start.upperBound..<line.endIndex) {
                    line.removeSubrange(start.lowerBound..<end.upperBound)
                } else {
                    line = String(line[..<start.lowerBound])
                    inBlockComment = true
                }
            }
            let code = code(line)
            let range = NSRange(code.startIndex..., in: code)
            for (what, pattern) in patterns {
                guard let match = pattern.firstMatch(in: code, range: range), let found = Range(match.range, in: code)
                else { continue }
                result.append((number + 1, "\(what) '\(code[found])'"))
            }
        }
        return result
    }

    @Test func coreDataBookkeepingIsSpelledOnlyByTheDialect() throws {
        let sources = Self.packageRoot.appendingPathComponent("Sources")
        let enumerator = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var problems: [String] = []
        var files = 0
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            let path = String(
                url.standardizedFileURL.path.dropFirst(Self.packageRoot.standardizedFileURL.path.count + 1))
            files += 1
            guard !Self.isDialect(path) else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            for finding in try Self.findings(in: text) {
                problems.append(
                    "\(path):\(finding.line): \(finding.what): Core Data bookkeeping outside the dialect (Sources/SeedRuntime/Store/CoreDataDialect*.swift); add a dialect method and call it"
                )
            }
        }
        #expect(files > 50, "found only \(files) Swift files under \(sources.path)")
        #expect(problems.isEmpty, Comment(rawValue: "\(problems.count) place(s):\n" + problems.joined(separator: "\n")))
    }

    @Test func theGuardSeesSQLAndNamesButNotComments() throws {
        let text = """
            // SELECT Z_PK FROM ZBOOK: a comment
            let a = "SELECT Z_PK FROM t" // trailing
            let b = "Z" + name.uppercased()
            /// `Z_ENT` in a doc comment
            let c = "https://example.com/Z_OPT"
            let d = \"""
                UPDATE Z_PRIMARYKEY SET Z_MAX = 1
                \"""
            let e = column.hasPrefix("Z_")
            let f = "Z1_BOOK"
            let g = "Z_12TAGS"
            /* Z_METADATA */ let h = 1
            let i = current["z_pk"]
            """
        let lines = try Self.findings(in: text).map(\.line)
        expectEqual(Set(lines), [2, 3, 5, 7, 9, 10, 11, 13])
    }
}
