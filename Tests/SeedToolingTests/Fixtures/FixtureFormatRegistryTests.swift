import Foundation
import SeedRuntime
import SeedTestSupport
import Testing

@testable import SeedTooling

/// The registry of fixture formats (FixtureFormat.swift): every format, as the registry lists
/// them, answers every capability, and the manifest takes an option only for a format that can
/// read it.
///
/// Nothing here names a format: a new one is tested by being registered.
@Suite struct FixtureFormatRegistryTests {
    typealias Format = ReadingOptions.Format

    @Test func everyFormatIsSelectedByItsNameAndEachOfItsExtensions() {
        var owners: [String: Format] = [:]
        for format in Format.allCases {
            expectEqual(Format(rawValue: format.rawValue), format)
            #expect(!format.extensions.isEmpty, "\(format) has no extension")
            #expect(!format.displayName.isEmpty, "\(format) has no name for messages")
            for ext in format.extensions {
                expectEqual(ext, ext.lowercased(), "\(format)")
                expectEqual(Format(extension: ext), format)
                expectEqual(Format(extension: ext.uppercased()), format)
                #expect(owners.updateValue(format, forKey: ext) == nil, ".\(ext) names two formats")
            }
        }
        expectEqual(Format(extension: "txt"), nil)
    }

    /// Each capability, by name, for each format: the table the test log shows, and the rules
    /// that tie capabilities together.
    @Test func everyFormatAnswersEveryCapability() {
        let names = Mirror(reflecting: Format.csv.capabilities).children.compactMap(\.label)
        #expect(names.count >= 9, "\(names)")
        for format in Format.allCases {
            let capabilities = format.capabilities
            let answers = Mirror(reflecting: capabilities).children
            expectEqual(answers.compactMap(\.label), names, "\(format) answers each capability")
            print("\(format.rawValue): " + answers.map { "\($0.label ?? "?")=\($0.value)" }.joined(separator: " "))
            // Records are either delimited lines or records that name their fields.
            expectEqual(capabilities.isDelimited, !capabilities.recordsNameTheirFields, "\(format)")
            if capabilities.takesDelimiter || capabilities.quotes {
                #expect(capabilities.isDelimited, "\(format): delimiter: and quoting are for delimited files")
            }
            if capabilities.supportsPointers || capabilities.supportsRoot || capabilities.valuesNest {
                #expect(capabilities.recordsNameTheirFields, "\(format): pointers and root: read named records")
            }
            expectEqual(ReadingOptions(format: format).quoting, capabilities.quotes, "\(format)")
            if let delimiter = capabilities.delimiter {
                expectEqual(ReadingOptions(format: format).delimiter, delimiter, "\(format)")
            }
        }
    }

    /// A table option for one capability, and the manifest's refusal when the format lacks it.
    struct Option: Sendable, CustomStringConvertible {
        var yaml: String
        var refusal: String
        var allowed: @Sendable (Format) -> Bool
        var description: String { yaml }
    }

    static let options: [Option] = [
        Option(yaml: "root: /items", refusal: "root: points into a JSON document", allowed: { $0.supportsRoot }),
        Option(yaml: "columns: { b: /x/y }", refusal: "is a JSON Pointer", allowed: { $0.supportsPointers }),
        Option(yaml: "comment: \"#\"", refusal: "comment: is for CSV and TSV files", allowed: { $0.isDelimited }),
        Option(yaml: "ragged: true", refusal: "ragged: is for CSV and TSV files", allowed: { $0.isDelimited }),
        Option(yaml: "delimiter: \";\"", refusal: "delimiter: is for", allowed: { $0.takesDelimiter }),
    ]

    @Test(arguments: options) func theManifestTakesAnOptionOnlyForAFormatThatCanReadIt(_ option: Option) throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write("seeds/schema.sql", "CREATE TABLE t (a TEXT PRIMARY KEY, b TEXT);\n")
        for format in Format.allCases {
            for named in [true, false] {
                // By `format:` on a file with another extension, and by the extension alone.
                let file = named ? "data/t.txt" : "data/t.\(format.extensions[0])"
                let formatLine = named ? "    format: \(format.rawValue)\n" : ""
                try project.write(
                    "seeds/seedkit.yml",
                    "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  t:\n    file: \(file)\n    key: a\n"
                        + formatLine + "    \(option.yaml)\n")
                do {
                    let manifest = try project.manifest()
                    expectEqual(manifest.tables.first?.reading.format, format)
                    #expect(option.allowed(format), "\(format) \(file): \(option) should be refused")
                } catch {
                    #expect(!option.allowed(format), "\(format) \(file): \(option): \(error)")
                    #expect(String(describing: error).contains(option.refusal), "\(format): \(error)")
                    #expect(String(describing: error).contains("seeds/seedkit.yml:"), "\(error)")
                }
            }
        }
    }

    /// The manifest's messages list the registry's formats and extensions, whatever they are.
    @Test func anUnknownFormatOrExtensionIsRefusedNamingEveryRegisteredOne() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write("seeds/schema.sql", "CREATE TABLE t (a TEXT PRIMARY KEY);\n")
        for table in ["    file: data/t.csv\n    format: xml\n", "    file: data/t.xml\n"] {
            try project.write(
                "seeds/seedkit.yml", "schema: schema.sql\ntables:\n  t:\n" + table + "    key: a\n")
            do {
                _ = try project.manifest()
                Issue.record("\(table) is no format")
            } catch {
                for format in Format.allCases {
                    #expect(String(describing: error).contains(format.rawValue), "\(format): \(error)")
                    if !table.contains("format:") {
                        for ext in format.extensions {
                            #expect(String(describing: error).contains(".\(ext)"), "\(ext): \(error)")
                        }
                    }
                }
            }
        }
    }
}
