import Foundation
import GRDB
import SeedTestSupport
import Testing

/// Each bad input: the exit code, the exact first diagnostic, and no output written.
@Suite struct BuildBadInputTests {
    private func expectFailure(
        _ project: TemporaryProject, status: Int32, _ message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let result = try project.seedkit("build")
        #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
        #expect(
            result.stderr.split(separator: "\n").first.map(String.init) == message, "\(result)",
            sourceLocation: sourceLocation)
        #expect(!project.exists("build/seed.sqlite"), sourceLocation: sourceLocation)
    }

    @Test func unknownManifestKey() throws {
        let project = try TemporaryProject()
        try project.write(
            "seeds/seedkit.yml",
            BookStore.manifest.replacingOccurrences(of: "    file: data/books.csv", with: "    fil: data/books.csv"))
        try expectFailure(
            project, status: 2,
            "seeds/seedkit.yml:10:5: error: unknown key 'fil' in table 'books' (expected file, query, key, refs, rules, checks, root, columns, ignore, migrate_only, format, delimiter, comment, header, nulls, ragged) [2100]"
        )
    }

    /// A table whose fixture is refused whole (here a header field the table lacks) has no row in:
    /// every ref to it used to be reported as its own typo (`category_id 'Fiction' matches no
    /// categories.name`, one per row: 96 lines on a real SwiftData store's project for two
    /// refused fixtures).
    ///
    /// Now the refusal is said, and each table's refs to it once, counted.
    @Test func refsToATableWhoseFixtureIsRefusedAreSaidOnceNotRowByRow() throws {
        let project = try TemporaryProject()
        try project.write("seeds/data/categories.csv", "nam\nFiction\nBiography\n")
        let result = try project.seedkit("build", "--migrations", "none")
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderrLines,
            [
                "seeds/data/categories.csv:1: error: name is part of the natural key of categories, but the header has no such column [1570]",
                "seeds/data/categories.csv:1: error: name is required, but the header has no such column [1570]",
                "seeds/data/categories.csv:1:1: error: column 'nam' names no column of table categories (it has id, name); map it with columns: or skip it with ignore: [2020]",
                "seeds/data/books.csv: error: category_id: 3 refs to categories not checked: the fixture of categories was refused (its error above), so none of its rows is in [2030]",
            ], "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
        // A ref names its table as SQLite matches names (ASCII case folded): the same one line.
        try project.write(
            "seeds/seedkit.yml",
            BookStore.manifest.replacingOccurrences(
                of: "category_id: categories.name", with: "category_id: Categories.name"))
        let folded = try project.seedkit("build", "--migrations", "none")
        #expect(
            folded.stderrLines.last
                == result.stderrLines.last?.replacingOccurrences(of: "to categories", with: "to Categories")
                .replacingOccurrences(of: "fixture of categories", with: "fixture of Categories"), "\(folded)")
        expectEqual(folded.stderrLines.count, 4, "\(folded)")
    }

    /// The same for a migration's update whose key no fixture row has because the table's fixture
    /// was refused (issue 44: a header typo cascaded into "the key matches no row", one a key).
    @Test func migrationKeysOfATableWhoseFixtureIsRefusedAreCountedNotListed() throws {
        let project = try TemporaryProject()
        try project.write("seeds/data/books.csv", "titel,price,category_id\nThe first book,10,Fiction\n")
        try project.write(
            "migrations/0002-prices.yml",
            """
            update:
              books:
                - { key: The first book, from: { price: 10 }, to: { price: 11 } }
                - { key: The third book, from: { price: 10 }, to: { price: 12 } }

            """)
        let result = try project.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderrLines.suffix(2),
            [
                "seeds/data/books.csv:1:1: error: column 'titel' names no column of table books (it has id, title, price, category_id); map it with columns: or skip it with ignore: [2020]",
                "migrations/0002-prices.yml: error: 2 keys of books not checked: the fixture of books was refused (its error above), so none of its rows is in [2030]",
            ], "\(result)")
        #expect(!result.stderr.contains("the key matches no row"), "\(result)")
    }

    @Test func unknownTableAndColumnsInTheManifest() throws {
        let project = try TemporaryProject()
        try project.write(
            "seeds/seedkit.yml",
            BookStore.manifest
                .replacingOccurrences(of: "  categories:", with: "  categorys:")
                .replacingOccurrences(of: "price: { min", with: "prize: { min"))
        let result = try project.seedkit("build")
        expectEqual(result.status, 2)
        #expect(
            result.stderr.contains(
                "seeds/seedkit.yml:4:3: error: unknown table 'categorys': the schema has categories, books [2100]"),
            "\(result)")
        #expect(
            result.stderr.contains(
                "error: table books has no column 'prize' (it has id, title, price, category_id) [2100]"))
    }

    /// A ref to a table or column the schema lacks is reported where the ref is written, with what there is.
    @Test func aRefToAMissingTableOrColumnIsReportedWhereItIsWritten() throws {
        let project = try TemporaryProject()
        let ref = try #require(
            project.read("seeds/seedkit.yml").flatMap { String(data: $0, encoding: .utf8) }?.components(
                separatedBy: "\n"
            ).firstIndex { $0.contains("category_id: categories.name") })
        for (target, message) in [
            ("nope.name", "no table 'nope' (the schema has categories, books)"),
            ("categories.nope", "categories has no column 'nope' (it has id, name)"),
        ] {
            try project.write(
                "seeds/seedkit.yml",
                BookStore.manifest.replacingOccurrences(
                    of: "category_id: categories.name", with: "category_id: \(target)"))
            try expectFailure(
                project, status: 2,
                "seeds/seedkit.yml:\(ref + 1):20: error: ref books.category_id → \(target): \(message) [2100]")
        }
    }

    @Test func missingFixtureFileNamesThePath() throws {
        let project = try TemporaryProject()
        try project.remove("seeds/data/books.csv")
        try expectFailure(
            project, status: 2,
            "seeds/data/books.csv: error: the fixture for table books does not exist (manifest: seeds/seedkit.yml) [2100]"
        )
    }

    @Test func missingManifest() throws {
        let project = try TemporaryProject()
        try project.remove("seeds/seedkit.yml")
        try expectFailure(
            project, status: 2,
            "seeds/seedkit.yml: error: no manifest here: seedkit init writes one (seedkit help init), or pass --manifest PATH [2100]"
        )
    }

    @Test func emptyFixtureFile() throws {
        let project = try TemporaryProject()
        try project.write("seeds/data/books.csv", "")
        try expectFailure(
            project, status: 1,
            "seeds/data/books.csv:1:1: error: the file is empty: a CSV fixture starts with a header row of column names (or the manifest names them with header:) [2001]"
        )
    }

    @Test func aHeaderOnlyFixtureHasZeroRowsAndIsFine() throws {
        let project = try TemporaryProject()
        try project.write("seeds/data/books.csv", "title,price,category_id\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 0, "\(result)")
        #expect(result.stdout.contains("books              0 rows"))
    }

    @Test func tooManyAndTooFewFields() throws {
        let project = try TemporaryProject()
        try project.write("seeds/data/books.csv", "title,price,category_id\nA,1\nB,2,Fiction,extra\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 1)
        expectEqual(
            result.stderr,
            """
            seeds/data/books.csv:2:3: error: expected 3 fields (as in the header), found 2; if the publisher leaves trailing fields out, ragged: true in the manifest reads them as NULL [2001]
            seeds/data/books.csv:3:4: error: expected 3 fields (as in the header), found 4 [2001]

            """)
    }

    @Test func invalidUTF8() throws {
        let project = try TemporaryProject()
        try project.write(
            "seeds/data/books.csv", Data("title,price,category_id\nCaf".utf8) + Data([0xE9]) + Data(",1,Fiction\n".utf8)
        )
        try expectFailure(
            project, status: 1,
            "seeds/data/books.csv:2:1: error: field 1 is not valid UTF-8 (save the file as UTF-8) [2002]")
    }

    @Test func aHeaderNamingAColumnTheTableLacks() throws {
        let project = try TemporaryProject()
        try project.write("seeds/data/books.csv", "title,price,category_id,isbn\nA,1,Fiction,123\n")
        try expectFailure(
            project, status: 1,
            "seeds/data/books.csv:1:4: error: column 'isbn' names no column of table books (it has id, title, price, category_id); map it with columns: or skip it with ignore: [2020]"
        )
    }

    @Test func unterminatedQuoteAtEndOfFile() throws {
        let project = try TemporaryProject()
        try project.write("seeds/data/books.csv", "title,price,category_id\nA,1,Fiction\n\"B,2,Fiction\n")
        try expectFailure(
            project, status: 1,
            "seeds/data/books.csv:3:1: error: unterminated quoted field: the quote opened here is never closed [2001]")
    }

    @Test func schemaThatDoesNotRun() throws {
        let project = try TemporaryProject()
        try project.write("seeds/schema.sql", "CREATE TABLE books (;")
        let result = try project.seedkit("build")
        expectEqual(result.status, 2)
        #expect(result.stderr.hasPrefix("seeds/schema.sql: error: the schema does not run: "), "\(result)")
    }

    @Test func schemaConstraintsAreReportedAtTheFixtureLine() throws {
        let project = try TemporaryProject()
        try project.write(
            "seeds/schema.sql",
            BookStore.schema.replacingOccurrences(
                of: "price REAL NOT NULL,", with: "price REAL NOT NULL CHECK (price < 100),"))
        try project.write("seeds/data/books.csv", "title,price,category_id\nA,,Fiction\nB,500,Fiction\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 1)
        expectEqual(
            result.stderr,
            """
            seeds/data/books.csv:2:2: error: NOT NULL constraint failed: books.price (the schema requires a value) [1570]
            seeds/data/books.csv:3: error: CHECK constraint failed: price < 100 [1550]

            """)
    }
}

@Suite struct BuildTemplateTests {
    @Test func buildsIntoACopyOfATemplateStoreAndLeavesTheTemplateAlone() throws {
        let project = try TemporaryProject()
        let template = try project.database("seeds/empty.sqlite")
        try template.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: BookStore.schema)
            try db.execute(
                sql:
                    "CREATE TABLE app_settings (key TEXT PRIMARY KEY, value TEXT); INSERT INTO app_settings VALUES ('theme', 'dark')"
            )
        }
        try template.close()
        let before = try #require(project.read("seeds/empty.sqlite"))
        try project.write(
            "seeds/seedkit.yml",
            BookStore.manifest.replacingOccurrences(of: "schema: schema.sql", with: "template: empty.sqlite"))
        let result = try project.seedkit("build")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(project.read("seeds/empty.sqlite"), before, "the template is never changed")
        let db = try project.database("build/seed.sqlite")
        try expectEqual(db.read { db in try String.fetchOne(db, sql: "SELECT value FROM app_settings") }, "dark")
        try expectEqual(db.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM books") }, 3)
        let header = try #require(project.read("build/seed.sqlite"))
        expectEqual(
            header[header.startIndex + 18], 1, "the seed is in rollback-journal mode even though the template was WAL"
        )
    }
}

@Suite struct BuildInterruptionTests {
    @Test(arguments: [SIGINT, SIGTERM])
    func anInterruptedBuildLeavesNothingBehind(signalNumber: Int32) throws {
        let project = try TemporaryProject()
        try project.seedkit("build")
        let earlier = try #require(project.read("build/seed.sqlite"))
        var csv = "title,price,category_id\n"
        for index in 0..<300_000 { csv += "Book number \(index),\(index % 900),Fiction\n" }
        try project.write("seeds/data/books.csv", csv)
        let process = Process()
        process.executableURL = seedkitBinary
        process.arguments = ["build"]
        process.currentDirectoryURL = project.root
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait until the build is writing its temporary file, then interrupt it.
        let deadline = Date().addingTimeInterval(20)
        while !project.listing("build").contains(where: { $0.hasSuffix(".tmp") }) && process.isRunning
            && Date() < deadline
        { usleep(5_000) }
        #expect(process.isRunning, "the build was still running when interrupted")
        kill(process.processIdentifier, signalNumber)
        process.waitUntilExit()
        expectEqual(process.terminationStatus, 128 + signalNumber)
        expectEqual(project.listing("build"), ["seed.sqlite"], "no temporary file is left")
        expectEqual(project.read("build/seed.sqlite"), earlier, "the earlier output is untouched")
    }
}

/// A rowid column (INTEGER PRIMARY KEY) refuses anything but an integer inside SQLite itself: a
/// fixture value that does not convert is reported at its line like any other, not as SQLite's
/// "datatype mismatch" (exit 4, no location, every other problem of the build lost).
@Suite struct RowidValueTests {
    @Test func aRowidValueThatIsNotAnIntegerIsReportedAtItsLineWithTheBuildsOtherProblems() throws {
        let project = try TemporaryProject()
        try project.write(
            "seeds/data/books.csv",
            "id,title,price,category_id\n1.5,The first book,10,Fiction\n2,The second book,-1,Fiction\nabc,The third book,10,Biography\n"
        )
        let result = try project.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderrLines,
            [
                "seeds/data/books.csv:2:1: error: id: '1.5' is not an integer (the column is INTEGER) [2010]",
                "seeds/data/books.csv:3:3: error: price -1 is less than the minimum 0 [1620]",
                "seeds/data/books.csv:4:1: error: id: 'abc' is not an integer (the column is INTEGER) [2010]",
            ], "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
    }

    @Test func aJSONRowidValueThatIsNotAnIntegerIsReportedAtItsLine() throws {
        let project = try TemporaryProject()
        try project.write(
            "seeds/seedkit.yml", BookStore.manifest.replacingOccurrences(of: "data/books.csv", with: "data/books.jsonl")
        )
        try project.remove("seeds/data/books.csv")
        try project.write(
            "seeds/data/books.jsonl",
            """
            {"id": 1, "title": "The first book", "price": 10, "category_id": "Fiction"}
            {"id": "two", "title": "The second book", "price": 15, "category_id": "Fiction"}

            """)
        let result = try project.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderrLines.first,
            "seeds/data/books.jsonl:2:1: error: id: 'two' is not an integer (the column is INTEGER) [2010]",
            "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
    }
}

extension RowidValueTests {
    @Test func aRowWhoseRowidDidNotConvertStillHoldsItsKeySoRefsToItAreNotReportedAgain() throws {
        let project = try TemporaryProject()
        try project.write("seeds/data/categories.csv", "id,name\nx,Fiction\n2,Biography\n")
        let result = try project.seedkit("build")
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderrLines,
            [
                "seeds/data/categories.csv:2:1: error: id: 'x' is not an integer (the column is INTEGER) [2010]"
            ], "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
    }
}
