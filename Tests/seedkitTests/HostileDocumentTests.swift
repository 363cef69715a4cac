import Foundation
import SeedRuntime
import SeedTestSupport
import Testing

/// The SHA-256 of a file's bytes, to show that a command left a store exactly as it was.
func sha256(of project: TemporaryProject, _ path: String) -> String {
    SHA256.hex(project.read(path) ?? Data())
}

/// Runs seedkit with at most 4 GB of address space and 60 seconds (exit 124 past them), so that
/// a regression to unbounded growth fails the test instead of exhausting the machine.
func runSeedkitBounded(_ arguments: [String], in directory: URL) throws -> CommandResult {
    try run(
        URL(fileURLWithPath: "/bin/sh"),
        ["-c", "ulimit -v 4194304; exec timeout -s KILL 60 \"$0\" \"$@\"", seedkitBinary.path] + arguments,
        in: directory)
}

/// Hostile manifests and migrations (issue 14): deep nesting, alias bombs, duplicate keys,
/// bad syntax, other encodings.
///
/// Each is refused with exit 2, one line saying where and why, and the store untouched.
@Suite struct HostileDocumentTests {
    /// Runs `arguments` on the user store of `project` and checks the exit code, the first line
    /// of stderr, and that the store's bytes did not change.
    private func expectRefusal(
        _ project: TemporaryProject, _ arguments: [String], status: Int32 = 2, _ message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = sha256(of: project, "user.sqlite")
        let started = Date()
        let result = try runSeedkitBounded(arguments, in: project.root)
        #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
        #expect(
            result.stderr.split(separator: "\n").first.map(String.init) == message, "\(result)",
            sourceLocation: sourceLocation)
        #expect(!result.stderr.contains("\0"), "no raw NUL bytes in messages", sourceLocation: sourceLocation)
        #expect(sha256(of: project, "user.sqlite") == before, "the store is unchanged", sourceLocation: sourceLocation)
        #expect(Date().timeIntervalSince(started) < 30, "answers promptly", sourceLocation: sourceLocation)
    }

    @Test func aJSONMigrationNested50000DeepIsRefusedNotACrash() throws {
        let project = try TemporaryProject.withUserStore()
        try project.write(
            "migrations/0002-deep.json", String(repeating: "[", count: 50_000) + String(repeating: "]", count: 50_000))
        for command in ["status", "migrate"] {
            try expectRefusal(
                project, [command, "user.sqlite"],
                "migrations/0002-deep.json:1:257: error: JSON: arrays and objects nest more than 256 levels deep here; seedkit reads at most 256 [2100]"
            )
        }
    }

    @Test func nestingUpToTheLimitIsRead() throws {
        var bytes = Array((String(repeating: "[", count: 256) + String(repeating: "]", count: 256)).utf8)
        let node = try bytes.withUnsafeMutableBytes { try JSONScanner.parseDocument(UnsafeRawBufferPointer($0)) }
        expectEqual(node.jsonText.count, 512)
        var deeper = Array((String(repeating: "[", count: 257) + String(repeating: "]", count: 257)).utf8)
        #expect(
            throws: JSONScanError.syntax(
                line: 1, column: 257,
                message: "arrays and objects nest more than 256 levels deep here; seedkit reads at most 256")
        ) {
            try deeper.withUnsafeMutableBytes { try JSONScanner.parseDocument(UnsafeRawBufferPointer($0)) }
        }
    }

    @Test func aDeeplyNestedYAMLMigrationIsRefusedInPlainWords() throws {
        let project = try TemporaryProject.withUserStore()
        // Block style: seedkit's own limit.
        let block = "insert:\n" + (1...300).map { String(repeating: "  ", count: $0) + "k:\n" }.joined()
        try project.write("migrations/0002-deep.yml", block)
        try expectRefusal(
            project, ["migrate", "user.sqlite"],
            "migrations/0002-deep.yml:257:513: error: YAML: lists and maps nest more than 256 levels deep here; seedkit reads at most 256 [2100]"
        )
        // Flow style past libyaml's own limit (1000): the same words, not libyaml's internals.
        try project.write(
            "migrations/0002-deep.yml", String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000))
        let result = try runSeedkitBounded(["status", "user.sqlite"], in: project.root)
        expectEqual(result.status, 2)
        #expect(
            result.stderr.contains(
                "error: YAML: lists and maps nest more than 256 levels deep here; seedkit reads at most 256 [2100]"),
            "\(result)")
        #expect(!result.stderr.contains("yaml_set_max_nest_level"), "\(result)")
    }

    /// Nine levels of nine aliases: 387 million values if expanded.
    private func aliasBomb(then tail: String) -> String {
        var lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
        var previous = "a"
        for name in ["b", "c", "d", "e", "f", "g", "h", "i"] {
            lines.append(
                "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ", ") + "]")
            previous = name
        }
        return lines.joined(separator: "\n") + "\n" + tail
    }

    @Test func aYAMLAliasBombInAMigrationIsRefusedBeforeItGrows() throws {
        let project = try TemporaryProject.withUserStore()
        try project.write("migrations/0002-bomb.yml", aliasBomb(then: "insert: { books: [] }\n"))
        try expectRefusal(
            project, ["migrate", "user.sqlite"],
            "migrations/0002-bomb.yml:5:8: error: YAML: aliases (*name) repeat more than 10000 values in all; write the values out instead (seedkit refuses to expand more) [2100]"
        )
        // As a mapping key, where the YAML library would hash the expansion value by value.
        try project.write("migrations/0002-bomb.yml", aliasBomb(then: "k: { *i : 1 }\n"))
        let result = try runSeedkitBounded(["status", "user.sqlite"], in: project.root)
        expectEqual(result.status, 2, "\(result)")
        #expect(result.stderr.contains("repeat more than 10000 values"), "\(result)")
    }

    /// Alias bombs as keys in a file that does not parse: seedkit's first reader skipped its alias
    /// measure then and hashed each key value by value (it ran until killed).
    @Test func aliasBombKeysInAMigrationThatDoesNotParseAreRefusedPromptly() throws {
        let project = try TemporaryProject.withUserStore()
        let keys =
            "k: {" + ["i", "h", "g", "f", "e", "d", "c", "b", "a"].map { "*\($0) : 1" }.joined(separator: ", ") + "}\n"
        try project.write("migrations/0002-bomb.yml", aliasBomb(then: keys + "x: [\n"))
        try expectRefusal(
            project, ["migrate", "user.sqlite"],
            "migrations/0002-bomb.yml:12:1: error: YAML: did not find expected node content (while parsing a flow node) [2100]"
        )
    }

    @Test func aYAMLAliasBombInTheManifestIsRefused() throws {
        let project = try TemporaryProject()
        try project.write("seeds/seedkit.yml", aliasBomb(then: BookStore.manifest))
        let result = try runSeedkitBounded(["build"], in: project.root)
        expectEqual(result.status, 2, "\(result)")
        expectEqual(
            result.stderr,
            "seeds/seedkit.yml:5:8: error: YAML: aliases (*name) repeat more than 10000 values in all; write the values out instead (seedkit refuses to expand more) [2100]\n",
            "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
    }

    @Test func smallAliasesStillWork() throws {
        let project = try TemporaryProject.withUserStore()
        try project.write(
            "migrations/0002-alias.yml",
            """
            insert:
              books:
                - &book { title: Aliased, price: 3, category_id: Fiction }
                - *book

            """)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(result.stdout.contains("inserted        books 'Aliased'"), "\(result)")
        #expect(result.stdout.contains("already-present books 'Aliased'"), "\(result)")
    }

    @Test func aDuplicateYAMLKeySaysWhichKeyAndWhere() throws {
        let project = try TemporaryProject.withUserStore()
        try project.write("migrations/0002-twice.yml", "insert:\n  books: []\ninsert:\n  books: []\n")
        try expectRefusal(
            project, ["migrate", "user.sqlite"],
            "migrations/0002-twice.yml:3:1: error: YAML: key 'insert' appears twice in the same map (first at line 1); keep one [2100]"
        )
        let manifest = try TemporaryProject()
        try manifest.write(
            "seeds/seedkit.yml",
            BookStore.manifest.replacingOccurrences(of: "    key: title\n", with: "    key: title\n    key: price\n"))
        let result = try manifest.seedkit("build")
        expectEqual(result.status, 2)
        expectEqual(
            result.stderr,
            "seeds/seedkit.yml:12:5: error: YAML: key 'key' appears twice in the same map (first at line 11); keep one [2100]\n",
            "\(result)")
    }

    @Test func yamlSyntaxErrorsHaveTheConfigurationCodeAndLineAndColumn() throws {
        let project = try TemporaryProject.withUserStore()
        try project.write(
            "migrations/0002-broken.yml", "insert:\n  books:\n    - { title: A, price: 1, category_id: Fiction\n")
        try expectRefusal(
            project, ["migrate", "user.sqlite"],
            "migrations/0002-broken.yml:4:1: error: YAML: did not find expected ',' or '}' (while parsing a flow mapping that starts at line 3) [2100]"
        )
    }

    @Test func jsonTrailingGarbageIsReportedWhereItIs() throws {
        let project = try TemporaryProject.withUserStore()
        try project.write("migrations/0002-tail.json", "{\"insert\": {\"books\": []}}\n  x\n")
        try expectRefusal(
            project, ["migrate", "user.sqlite"],
            "migrations/0002-tail.json:2:3: error: JSON: unexpected 'x' after the document [2100]")
        // In a JSON fixture, the column counts from the start of the line, in characters.
        let fixture = try TemporaryProject()
        try fixture.write(
            "seeds/seedkit.yml", BookStore.manifest.replacingOccurrences(of: "data/books.csv", with: "data/books.json"))
        try fixture.write(
            "seeds/data/books.json", "[{\"title\": \"Café\", \"price\": 1, \"category_id\": \"Fiction\"}] x\n")
        let result = try fixture.seedkit("build")
        expectEqual(result.status, 1)
        expectEqual(
            result.stderr, "seeds/data/books.json:1:59: error: JSON: unexpected 'x' after the array [2001]\n",
            "\(result)")
    }

    @Test func utf16FilesAreNamedAsSuchNotPrintedWithNULs() throws {
        let project = try TemporaryProject.withUserStore()
        let utf16 = { (text: String) in Data(text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }) }
        try project.write("migrations/0002-wide.yml", utf16("insert: { books: [] }\n"))
        try expectRefusal(
            project, ["migrate", "user.sqlite"],
            "migrations/0002-wide.yml:1: error: not UTF-8 text: the file has NUL bytes (UTF-16?); save it as UTF-8 [2002]"
        )
        try project.remove("migrations/0002-wide.yml")
        try project.write("migrations/0002-wide.json", Data([0xFF, 0xFE]) + utf16("{}"))
        try expectRefusal(
            project, ["status", "user.sqlite"],
            "migrations/0002-wide.json:1: error: not UTF-8: the file starts with a UTF-16 byte order mark; save it as UTF-8 [2002]"
        )
        try project.remove("migrations/0002-wide.json")
        try project.write("migrations/0002-wide.sql", utf16("DELETE FROM books;"))
        try expectRefusal(
            project, ["migrate", "user.sqlite"],
            "migrations/0002-wide.sql:1: error: not UTF-8 text: the file has NUL bytes (UTF-16?); save it as UTF-8 [2002]"
        )
        try project.remove("migrations/0002-wide.sql")

        let seed = sha256(of: project, "build/seed.sqlite")
        try project.write("seeds/seedkit.yml", utf16(BookStore.manifest))
        var result = try project.seedkit("build")
        expectEqual(result.status, 2)
        expectEqual(
            result.stderr,
            "seeds/seedkit.yml:1: error: not UTF-8 text: the file has NUL bytes (UTF-16?); save it as UTF-8 [2002]\n",
            "\(result)")
        try project.write("seeds/seedkit.yml", BookStore.manifest)
        try project.write("seeds/data/books.csv", utf16(BookStore.books))
        result = try project.seedkit("build")
        expectEqual(result.status, 1)
        expectEqual(
            result.stderr,
            "seeds/data/books.csv:1: error: not UTF-8 text: the file has NUL bytes (UTF-16?); save it as UTF-8 [2002]\n",
            "\(result)")
        expectEqual(sha256(of: project, "build/seed.sqlite"), seed, "the earlier output is untouched")
    }
}
