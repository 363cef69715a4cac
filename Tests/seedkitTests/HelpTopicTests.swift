import Foundation
import SeedTestSupport
import SeedkitCLI
import Testing

/// `seedkit help TOPIC` shows a section of docs/ as the installed binary has it: the generated
/// HelpTopic+*.swift files must hold each topic's section exactly as docs/ has it now.
///
/// With SEEDKIT_WRITE_HELP_TOPICS=1 this test writes them instead
/// (`SEEDKIT_WRITE_HELP_TOPICS=1 swift test --filter HelpTopicTests`), after a docs/ edit.
private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The section of `markdown` under `heading` (a heading line outside code blocks, without its
/// `#`s), up to the next heading of its level or above; nil when no heading says so.
private func docSection(_ markdown: String, heading: String) -> String? {
    let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var inCode = false
    var headings: [(line: Int, level: Int, title: String)] = []
    for (number, line) in lines.enumerated() {
        if line.hasPrefix("```") { inCode.toggle() }
        guard !inCode, line.hasPrefix("#") else { continue }
        let level = line.prefix { $0 == "#" }.count
        guard line.dropFirst(level).hasPrefix(" ") else { continue }
        headings.append((number, level, String(line.dropFirst(level + 1))))
    }
    guard let start = headings.first(where: { $0.title == heading }) else { return nil }
    let end = headings.first { $0.line > start.line && $0.level <= start.level }?.line ?? lines.count
    var section = Array(lines[start.line..<end])
    while section.last?.isEmpty == true { section.removeLast() }
    return section.joined(separator: "\n")
}

/// The Swift file that holds `document`'s topics, as the generator writes it.
private func generatedTopics(document: String, property: String, sections: [(heading: String, text: String)]) -> String
{
    var out = "// Generated from docs/\(document) by Tests/seedkitTests/HelpTopicTests.swift: do not edit; after\n"
    out += "// an edit of docs/, SEEDKIT_WRITE_HELP_TOPICS=1 swift test --filter HelpTopicTests writes it again.\n"
    out += "extension HelpTopic {\n    static let \(property): [String: String] = [\n"
    // swift-format wants a trailing comma after the last entry unless there is only one.
    for (index, (heading, text)) in sections.enumerated() {
        let comma = sections.count == 1 && index == 0 ? "" : ","
        let indented = text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : "        " + $0 }.joined(separator: "\n")
        out += "        #\"\"\"\n        \(heading)\n        \"\"\"#: #\"\"\"\n\(indented)\n        \"\"\"#\(comma)\n"
    }
    return out + "    ]\n}\n"
}

private let files = [
    ("reference.md", "referenceSections", "HelpTopic+Reference.swift"),
    ("releases.md", "releasesSections", "HelpTopic+Releases.swift"),
    ("swiftdata.md", "swiftDataSections", "HelpTopic+SwiftData.swift"),
]

@Test func theGeneratedTopicsAreTheSectionsOfDocsAsTheyAreNow() throws {
    let write = ProcessInfo.processInfo.environment["SEEDKIT_WRITE_HELP_TOPICS"] == "1"
    #expect(Set(HelpTopic.all.map(\.document)) == Set(files.map(\.0)), "a topic's document has no generated file")
    for (document, property, file) in files {
        let markdown = try String(contentsOf: root.appendingPathComponent("docs/\(document)"), encoding: .utf8)
        var sections: [(heading: String, text: String)] = []
        for topic in HelpTopic.all where topic.document == document {
            let section = try #require(
                docSection(markdown, heading: topic.heading),
                "docs/\(document) has no heading '\(topic.heading)' (topic \(topic.name))")
            sections.append((topic.heading, section))
        }
        let expected = generatedTopics(document: document, property: property, sections: sections)
        let path = root.appendingPathComponent("Sources/SeedkitCLI/Help/\(file)")
        if write {
            try expected.write(to: path, atomically: true, encoding: .utf8)
            continue
        }
        let actual = try String(contentsOf: path, encoding: .utf8)
        #expect(
            actual == expected,
            "Sources/SeedkitCLI/Help/\(file) is not docs/\(document) as it is now: SEEDKIT_WRITE_HELP_TOPICS=1 swift test --filter HelpTopicTests"
        )
        for topic in HelpTopic.all where topic.document == document {
            expectEqual(topic.markdown, sections.first { $0.heading == topic.heading }?.text)
        }
    }
}

@Test(arguments: HelpTopic.all.map(\.name))
func helpTopicShowsItsSectionWithLinksAsWords(name: String) throws {
    let project = try TemporaryProject()
    let help = try project.seedkit("help", name)
    expectEqual(help.status, 0)
    expectEqual(help.stderr, "")
    let topic = try #require(HelpTopic.named(name))
    #expect(help.stdout.hasPrefix("#"), "\(help.stdout.prefix(200))")
    #expect(help.stdout.contains(topic.heading))
    #expect(!help.stdout.contains("]("), "a link left as markdown: \(help.stdout)")
    #expect(!help.stdout.contains("<!--"))
    #expect(help.stdout.split(separator: "\n").count > 3)
}

@Test func rootHelpListsTheTopicsAndAnUnknownTopicNamesThem() throws {
    let project = try TemporaryProject()
    let help = try project.seedkit("--help")
    // ArgumentParser wraps the discussion at the terminal's width.
    let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(words.contains("seedkit help TOPIC: " + HelpTopic.all.map(\.name).joined(separator: ", ")), "\(words)")
    let unknown = try project.seedkit("help", "manifset")
    expectEqual(unknown.status, 2)
    #expect(unknown.stderr.contains("no help topic 'manifset'; did you mean 'manifest'?"), "\(unknown.stderr)")
    #expect(unknown.stderr.contains("the topics: manifest, fixtures"), "\(unknown.stderr)")
}

@Test func linksBecomeTheirWords() {
    expectEqual(HelpTopic.withoutLinks("see [the tour](tour.md#a) and [x] y (z)"), "see the tour and [x] y (z)")
    expectEqual(HelpTopic.withoutLinks("[a](b)[c](d)"), "ac")
    expectEqual(HelpTopic.withoutLinks("[unclosed](b"), "[unclosed](b")
}
