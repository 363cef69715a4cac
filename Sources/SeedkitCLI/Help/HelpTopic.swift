import Foundation

/// A section of the user documentation the installed binary can show, `seedkit help manifest`,
/// where a message would otherwise point to a file of the repository that an installed user does
/// not have.
///
/// The text is the section as docs/ has it (HelpTopic+Reference.swift and its siblings are
/// generated from docs/ by HelpTopicTests, which fails when they differ), shown with links reduced
/// to their words.
package struct HelpTopic: Sendable {
    /// What is typed after `seedkit help`.
    package var name: String
    /// The file under docs/ the section is taken from.
    package var document: String
    /// The section's heading there, without its `#`s.
    package var heading: String

    /// Every topic, in the order `seedkit help` lists them.
    package static let all: [HelpTopic] = [
        HelpTopic(name: "manifest", document: "reference.md", heading: "The manifest (`seeds/seedkit.yml`)"),
        HelpTopic(name: "fixtures", document: "reference.md", heading: "Fixtures"),
        HelpTopic(name: "formats", document: "reference.md", heading: "Output formats"),
        HelpTopic(name: "comparisons", document: "reference.md", heading: "How seedkit compares text and names"),
        HelpTopic(name: "exit-codes", document: "reference.md", heading: "Exit codes"),
        HelpTopic(name: "error-codes", document: "reference.md", heading: "Error codes"),
        HelpTopic(name: "migrations", document: "releases.md", heading: "Migration files"),
        HelpTopic(name: "renames", document: "releases.md", heading: "Renames in a release"),
        HelpTopic(name: "core-data-refusals", document: "swiftdata.md", heading: "What stays refused"),
    ]

    package static func named(_ name: String) -> HelpTopic? { all.first { $0.name == name } }

    /// The section as docs/ has it (markdown), or nil when the generated texts lack it.
    package var markdown: String? { Self.sections[document]?[heading] }

    /// The section for a terminal: `[words](target)` links as their words, HTML comments left out.
    package var text: String {
        guard let markdown else { return "" }
        var lines: [String] = []
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("<!--") && line.hasSuffix("-->") { continue }
            lines.append(Self.withoutLinks(String(line)))
        }
        return lines.joined(separator: "\n")
    }

    /// The generated sections, by document and heading.
    static var sections: [String: [String: String]] {
        ["reference.md": referenceSections, "releases.md": releasesSections, "swiftdata.md": swiftDataSections]
    }

    /// `[words](target)` as `words`; brackets not followed by a parenthesis stay as they are.
    package static func withoutLinks(_ line: String) -> String {
        guard line.contains("](") else { return line }
        var result = ""
        var rest = Substring(line)
        while let open = rest.firstIndex(of: "[") {
            guard let close = rest[open...].firstIndex(of: "]"),
                rest.index(after: close) < rest.endIndex, rest[rest.index(after: close)] == "(",
                let end = rest[close...].firstIndex(of: ")")
            else {
                result += rest[...open]
                rest = rest[rest.index(after: open)...]
                continue
            }
            result += rest[..<open] + rest[rest.index(after: open)..<close]
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }
}
