import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

@Suite struct NewMigrationTests {
    @Test func numbersAndSlugsAndNeverOverwrites() throws {
        let project = try TemporaryProject()
        let first = try project.seedkit("new-migration", "Fix the Prices!! (2027)")
        expectEqual(first.status, 0)
        expectEqual(first.stdout, "wrote migrations/0002-fix-the-prices-2027.yml: an empty scaffold\n")
        let scaffold = try #require(project.read("migrations/0002-fix-the-prices-2027.yml"))
        let second = try project.seedkit("new-migration", "Fix the Prices!! (2027)")
        expectEqual(second.stdout, "wrote migrations/0003-fix-the-prices-2027.yml: an empty scaffold\n")
        expectEqual(project.read("migrations/0002-fix-the-prices-2027.yml"), scaffold, "the first file is untouched")
        // The scaffold is a valid migration that changes nothing.
        try expectEqual(project.seedkit("build").status, 0)
        try expectEqual(project.seedkit("migrate", "build/seed.sqlite").status, 0)
        try expectEqual(project.seedkit("new-migration", "!!!").status, 2)
    }

    /// The scaffold's examples are the project's own: its last keyed table (refs show best) and
    /// that table's first fixture row, not the BookStore's books; uncommented, they run.
    @Test func theScaffoldShowsTheProjectsOwnTableAndRow() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE countries (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE);\nCREATE TABLE cities (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, population INTEGER, country_id INTEGER REFERENCES countries(id));\n"
        )
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  countries: { file: data/countries.csv, key: code }\n  cities:\n    file: data/cities.json\n    key: name\n    refs: { country_id: countries.code }\n"
        )
        try project.write("seeds/data/countries.csv", "code\nNO\nSE\n")
        try project.write(
            "seeds/data/cities.json",
            #"[{"name": "Tromsø", "population": 77000, "country_id": "NO"}, {"name": "Kiruna", "population": 23000, "country_id": "SE"}]"#
        )
        let result = try project.seedkit("new-migration", "more cities")
        expectEqual(result.status, 0, "\(result)")
        let scaffold = String(decoding: try #require(project.read("migrations/0001-more-cities.yml")), as: UTF8.self)
        expectEqual(
            scaffold,
            #"""
            # 0001-more-cities: describe the data change here.
            # insert: rows added when their key is missing (refs by natural key); here the first
            # row of seeds/data/cities.json, which a new row would give under a new key
            #   cities:
            #     - { name: "Tromsø", population: 77000, country_id: "NO" }
            # update: values changed only where the user has not changed them (`from`: what the
            # last release shipped; `to`: the new values)
            #   cities:
            #     - key: "Tromsø"
            #       from: { population: 77000 }
            #       to: { population: 77000 }
            # delete: rows removed when they still hold `from` and nothing refers to them
            #   cities:
            #     - key: "Tromsø"
            #       from: { population: 77000 }
            insert:
            update:
            delete:

            """#)
        // Uncommented, with a new value, the update runs on a store of the seed built before it.
        try project.remove("migrations/0001-more-cities.yml")
        try expectEqual(project.seedkit("build", "--output", "user.sqlite").status, 0)
        try project.write(
            "migrations/0001-more-cities.yml",
            "update:\n  cities:\n"
                + scaffold.split(separator: "\n").drop { !$0.hasPrefix("# update:") }.dropFirst(3).prefix(3).map {
                    String($0.dropFirst(2))
                }.joined(separator: "\n").replacingOccurrences(
                    of: "to: { population: 77000 }", with: "to: { population: 78000 }") + "\n")
        let migrate = try project.seedkit("migrate", "user.sqlite")
        expectEqual(migrate.status, 0, "\(migrate)")
        #expect(migrate.stdout.hasPrefix("applied 0001-more-cities: 1 updated\n"), "\(migrate)")
        try expectEqual(project.rows("user.sqlite", "SELECT population FROM cities WHERE name = 'Tromsø'"), ["78000"])
    }

    @Test func writesTheBookStoreUpdateFromTheOldSeed() throws {
        let project = try TemporaryProject.withRelease()
        try project.write("seeds/data/categories.csv", "name\nFiction\nBiography\nPoetry\n")
        try project.write(
            "seeds/data/books.csv",
            "title,price,category_id\nThe first book,11,Fiction\nThe second book,15,Fiction\nThe fourth book,12,Biography\nVerses,7,Poetry\n"
        )
        let result = try project.seedkit("new-migration", "release 1.1", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(result.stdout, "wrote migrations/0001-release-1-1.yml: 3 inserts, 1 update, 1 delete\n")
        let yaml = String(decoding: try #require(project.read("migrations/0001-release-1-1.yml")), as: UTF8.self)
        expectEqual(
            yaml,
            """
            # 0001-release-1-1: generated by seedkit new-migration from seeds/releases/1.0.sqlite
            insert:
              categories:
                - { name: "Poetry" }
              books:
                - { title: "The fourth book", price: 12.0, category_id: "Biography" }
                - { title: "Verses", price: 7.0, category_id: "Poetry" }
            update:
              books:
                - key: "The first book"
                  from: { price: 10.0 }
                  to: { price: 11.0 }
            delete:
              books:
                - key: "The third book"
                  from: { price: 10.0, category_id: "Biography" }

            """)
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
        #expect(check.stdout.contains("converges with a fresh build"))
        #expect(check.stdout.contains("ok: user edit books 'The first book'.price = 12.0 kept"))
        #expect(check.stdout.contains("ok: user row books 'The fourth book'.price = 13.0 kept"))
        // Nothing left to cover: a second --from writes nothing.
        let again = try project.seedkit("new-migration", "again", "--from", "seeds/releases/1.0.sqlite")
        #expect(again.stdout.contains("no migration needed, nothing written"))
        #expect(!project.exists("migrations/0002-again.yml"))
    }
}

@Suite struct CheckUpgradeTests {
    @Test func aHandBrokenMigrationFailsNamingTheRow() throws {
        let project = try TemporaryProject.withRelease()
        try project.write(
            "seeds/data/books.csv",
            "title,price,category_id\nThe first book,11,Fiction\nThe second book,15,Fiction\nThe third book,10,Biography\n"
        )
        try expectEqual(project.seedkit("new-migration", "reprice", "--from", "seeds/releases/1.0.sqlite").status, 0)
        let path = "migrations/0001-reprice.yml"
        let good = String(decoding: try #require(project.read(path)), as: UTF8.self)
        try project.write(path, good.replacingOccurrences(of: "to: { price: 11.0 }", with: "to: { price: 12.0 }"))
        let result = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(result.status, 1)
        #expect(
            result.stdout.contains(
                "seeds/releases/1.0.sqlite: applied 0001-reprice; DIVERGES from a fresh build\n  books 'The first book'.price: got 12.0, expected 11.0\n"
            ), "\(result)")
        #expect(result.stdout.hasSuffix("1 of 1 old seeds do not converge\n"))
    }

    @Test func theBookStoreFixturesMustHoldWhatTheMigrationsAdd() throws {
        // The seed records 0001 as contained; fixtures without the fourth book would leave new installs without it.
        let project = try TemporaryProject.withRelease()
        try project.write("migrations/0001-add-fourth-book.yml", BookStore.fourthBook)
        let result = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(result.status, 1)
        #expect(result.stdout.contains("books 'The fourth book': got a row, expected no row"))
        try project.write("seeds/data/books.csv", BookStore.books + "The fourth book,12,Biography\n")
        try expectEqual(project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite").status, 0)
    }

    @Test(.tags(.slow)) func randomChangesAcrossTwoRelatedTablesRoundTrip() throws {
        var rng = SeededRandom(seed: 20_261_122)
        let project = try TemporaryProject()
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write(
            "seeds/schema.sql",
            """
            CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, country TEXT);
            CREATE TABLE editions (
                id INTEGER PRIMARY KEY,
                author_id INTEGER NOT NULL REFERENCES authors(id),
                title TEXT NOT NULL, year INTEGER NOT NULL, price REAL, note TEXT,
                UNIQUE (title, year)
            );
            """)
        try project.write(
            "seeds/seedkit.yml",
            """
            schema: schema.sql
            output: ../build/seed.sqlite
            tables:
              authors: { file: data/authors.jsonl, key: name }
              editions:
                file: data/editions.jsonl
                key: [title, year]
                refs: { author_id: authors.name }

            """)
        let words = ["Ærø", "naïve", "日本語", "Zoë", "plain", "O'Brien", "a, b", "quote\"d", "🙂", "x"]
        func word() -> String { words[Int(rng.next() % UInt64(words.count))] }
        var authors: [String: String?] = [:]  // name → country
        for index in 0..<120 { authors["\(word()) \(index)"] = rng.next() % 4 == 0 ? nil : word() }
        var editions: [String: (author: String, price: Double?, note: String?)] = [:]  // "title|year"
        let names = { authors.keys.sorted() }
        for index in 0..<500 {
            let list = names()
            editions["\(word()) \(index)|\(1900 + Int(rng.next() % 120))"] = (
                list[Int(rng.next() % UInt64(list.count))], rng.next() % 5 == 0 ? nil : Double(rng.next() % 5000) / 100,
                rng.next() % 3 == 0 ? nil : word()
            )
        }
        func write() throws {
            func line(_ object: [String: Any]) throws -> String {
                String(
                    decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
            }
            try project.write(
                "seeds/data/authors.jsonl",
                try authors.keys.sorted().map { try line(["name": $0, "country": authors[$0]! ?? NSNull()]) }.joined(
                    separator: "\n") + "\n")
            try project.write(
                "seeds/data/editions.jsonl",
                try editions.keys.sorted().map { key in
                    let parts = key.split(separator: "|")
                    let value = editions[key]!
                    return try line([
                        "title": String(parts[0]), "year": Int(parts[1])!, "author_id": value.author,
                        "price": value.price ?? NSNull(), "note": value.note ?? NSNull(),
                    ])
                }.joined(separator: "\n") + "\n")
        }
        try write()
        let old = try project.seedkit("build", "--output", "seeds/releases/1.0.sqlite")
        expectEqual(old.status, 0, "\(old)")

        // Hundreds of random changes: inserts, updates (values, NULLs, refs), deletes, on both tables.
        for key in editions.keys.sorted() where rng.next() % 8 == 0 { editions[key] = nil }
        for key in editions.keys.sorted() where rng.next() % 5 == 0 {
            var value = editions[key]!
            switch rng.next() % 3 {
            case 0: value.price = rng.next() % 2 == 0 ? nil : Double(rng.next() % 9000) / 100
            case 1: value.note = rng.next() % 2 == 0 ? nil : word() + " " + word()
            default: value.author = names()[Int(rng.next() % UInt64(authors.count))]
            }
            editions[key] = value
        }
        for index in 0..<50 { authors["new \(word()) \(index)"] = word() }
        for index in 0..<150 {
            let list = names()
            editions["new \(word()) \(index)|\(2000 + index)"] = (
                list[Int(rng.next() % UInt64(list.count))], Double(index), nil
            )
        }
        for name in names() where rng.next() % 6 == 0 { authors[name] = .some(rng.next() % 2 == 0 ? nil : word()) }
        let referenced = Set(editions.values.map(\.author))
        for name in names() where !referenced.contains(name) && rng.next() % 2 == 0 { authors[name] = nil }
        try write()

        let generated = try project.seedkit("new-migration", "random changes", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(generated.status, 0, "\(generated)")
        // One line in CI's log: the counts, and how many likely renames it listed (one line each).
        let lines = generated.stdout.split(separator: "\n")
        print(
            "random round trip:", lines.first ?? "",
            "(\(lines.filter { $0.hasPrefix("  likely rename ") }.count) likely renames listed)")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite", "--format", "json")
        expectEqual(check.status, 0, "\(generated.stdout)\n\(check)")
        let outcomes = try #require(try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [[String: Any]])
        #expect(outcomes.first?["passed"] as? Bool == true)
        let kept: [String] = outcomes.first?["keptEdits"] as? [String] ?? []
        let lost: [String] = outcomes.first?["lostEdits"] as? [String] ?? ["?"]
        #expect(kept.count > 10, "user edits were simulated and kept")
        #expect(lost.isEmpty)
    }
}

@Suite struct ReleaseDependencyOrderTests {
    @Test func newMigrationInsertsParentsFirstAcrossTablesAndWithinASelfReference() throws {
        // Subdivisions are listed before countries: the migration must still insert the country first.
        let project = try isoProject(
            subdivisions: "code,name,country_id,parent_id\nNO-03,Oslo,NO,\n", countriesFirst: false)
        try expectEqual(project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status, 0)
        try project.write("seeds/data/countries.csv", "alpha_2,name\nAZ,Azerbaijan\nNO,Norway\nSE,Sweden\n")
        // NO-10 sorts before its new parent NO-99; SE-A1 before its parent SE-AB, which is in a new country.
        try project.write(
            "seeds/data/subdivisions.csv",
            "code,name,country_id,parent_id\nNO-03,Oslo,NO,\nNO-10,Agder,NO,NO-99\nNO-99,Region,NO,\nSE-A1,Inner,SE,SE-AB\nSE-AB,Stockholm,SE,\nNO-11,Rogaland,NO,NO-99\n"
        )
        let result = try project.seedkit("new-migration", "release 1.1", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(result.stdout, "wrote migrations/0001-release-1-1.yml: 6 inserts, 0 updates, 0 deletes\n")
        let yaml = String(decoding: try #require(project.read("migrations/0001-release-1-1.yml")), as: UTF8.self)
        expectEqual(
            yaml,
            """
            # 0001-release-1-1: generated by seedkit new-migration from seeds/releases/1.0.sqlite
            insert:
              countries:
                - { alpha_2: "SE", name: "Sweden" }
              subdivisions:
                - { code: "NO-99", name: "Region", country_id: "NO", parent_id: null }
                - { code: "NO-10", name: "Agder", country_id: "NO", parent_id: "NO-99" }
                - { code: "NO-11", name: "Rogaland", country_id: "NO", parent_id: "NO-99" }
                - { code: "SE-AB", name: "Stockholm", country_id: "SE", parent_id: null }
                - { code: "SE-A1", name: "Inner", country_id: "SE", parent_id: "SE-AB" }

            """)
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
        #expect(check.stdout.contains("converges with a fresh build"))
    }

    @Test(.tags(.slow)) func newMigrationOrdersASelfReferenceChainDeeperThanAThreadStack() throws {
        // 20,000 levels, keys sorted deepest first: a recursive walk from the first row crashed (SIGSEGV at 10,000 in a debug build).
        let project = try TemporaryProject()
        try project.remove("migrations/0001-add-fourth-book.yml")
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE nodes (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, parent_id INTEGER REFERENCES nodes(id));\n"
        )
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  nodes: { file: data/nodes.csv, key: code, refs: { parent_id: nodes.code } }\n"
        )
        try project.write("seeds/data/nodes.csv", "code,parent_id\n")
        try expectEqual(project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status, 0)
        let depth = 20_000
        func code(_ level: Int) -> String { String(format: "C%06d", depth - 1 - level) }
        try project.write(
            "seeds/data/nodes.csv",
            "code,parent_id\n" + (0..<depth).map { "\(code($0)),\($0 == 0 ? "" : code($0 - 1))\n" }.joined())
        // The binary, on its main thread: a stack overflow is what this test looks for.
        let result = try project.seedkitProcess("new-migration", "deep", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(result.status, 0, "\(result.status) \(result.stderr)")
        expectEqual(result.stdout, "wrote migrations/0001-deep.yml: 20000 inserts, 0 updates, 0 deletes\n")
        let lines = String(decoding: try #require(project.read("migrations/0001-deep.yml")), as: UTF8.self).split(
            separator: "\n")
        expectEqual(lines.count, 3 + depth)
        expectEqual(lines.dropFirst(3).first, "    - { code: \"C019999\", parent_id: null }")
        expectEqual(lines.dropFirst(4).first, "    - { code: \"C019998\", parent_id: \"C019999\" }")
        expectEqual(lines.last, "    - { code: \"C000000\", parent_id: \"C000001\" }")
    }

    @Test func newMigrationDeletesChildrenBeforeTheirParents() throws {
        let project = try isoProject(
            subdivisions:
                "code,name,country_id,parent_id\nNO-10,Agder,NO,NO-99\nNO-99,Region,NO,\nNO-98,Other,NO,NO-99\n")
        try expectEqual(project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status, 0)
        try project.write("seeds/data/subdivisions.csv", "code,name,country_id,parent_id\n")
        let result = try project.seedkit("new-migration", "drop region", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(result.status, 0, "\(result)")
        let yaml = String(decoding: try #require(project.read("migrations/0001-drop-region.yml")), as: UTF8.self)
        expectEqual(
            yaml,
            """
            # 0001-drop-region: generated by seedkit new-migration from seeds/releases/1.0.sqlite
            delete:
              subdivisions:
                - key: "NO-98"
                  from: { name: "Other", country_id: "NO", parent_id: "NO-99" }
                - key: "NO-10"
                  from: { name: "Agder", country_id: "NO", parent_id: "NO-99" }
                - key: "NO-99"
                  from: { name: "Region", country_id: "NO", parent_id: null }

            """)
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
    }
}

@Suite struct ReleaseUnknownReferenceTests {
    @Test func aRefToAKeyNoFixtureAndNoMigrationProvidesFailsBuildAndCheckUpgrade() throws {
        let project = try isoProject(subdivisions: "code,name,country_id,parent_id\nAZ-NX,Naxçıvan,AZ,\n")
        try expectEqual(project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status, 0)
        let release = try #require(project.read("seeds/releases/1.0.sqlite"))
        // The fixtures hold what the migrations add; only the typo 'NX' and 'AZ-XX' are wrong.
        try project.write("seeds/data/countries.csv", "alpha_2,name\nAZ,Azerbaijan\nNO,Norway\nSE,Sweden\n")
        try project.write(
            "seeds/data/subdivisions.csv",
            "code,name,country_id,parent_id\nAZ-NX,Naxçıvan,AZ,\nNO-49,Parent,SE,\nNO-50,Child,NO,NO-49\n")
        try project.write(
            "migrations/0001-typo.yml",
            """
            insert:
              subdivisions:
                - { code: "NO-50", name: "Child", country_id: "NO", parent_id: "NO-49" }
                - { code: "NO-51", name: "Typo", country_id: "NX" }
              countries:
                - { alpha_2: "SE", name: "Sweden" }
            update:
              subdivisions:
                - key: "AZ-NX"
                  from: { parent_id: null }
                  to: { parent_id: "AZ-XX" }

            """)
        // NO-49 comes in a later migration of the same release: not an error.
        try project.write(
            "migrations/0002-parent.yml",
            "insert:\n  subdivisions:\n    - { code: \"NO-49\", name: \"Parent\", country_id: \"SE\" }\n")
        let expected = """
            migrations/0001-typo.yml:4: error: subdivisions 'NO-51': country_id 'NX' matches no countries.alpha_2 in the fixtures or in any migration's inserts [2030]
            migrations/0001-typo.yml:9: error: subdivisions 'AZ-NX': parent_id 'AZ-XX' matches no subdivisions.code in the fixtures or in any migration's inserts [2030]

            """
        let build = try project.seedkit("build")
        expectEqual(build.status, 1)
        expectEqual(build.stderr, expected, "\(build)")
        #expect(!project.exists("build/seed.sqlite"))
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 1)
        expectEqual(check.stderr, expected, "\(check)")
        expectEqual(project.read("seeds/releases/1.0.sqlite"), release, "the old seed is only read")
        // Fixed: the release builds and converges.
        try project.remove("migrations/0002-parent.yml")
        try project.write(
            "migrations/0001-typo.yml",
            """
            insert:
              countries:
                - { alpha_2: "SE", name: "Sweden" }
              subdivisions:
                - { code: "NO-49", name: "Parent", country_id: "SE" }
                - { code: "NO-50", name: "Child", country_id: "NO", parent_id: "NO-49" }

            """)
        try expectEqual(project.seedkit("build").status, 0)
        let fixed = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(fixed.status, 0, "\(fixed)")
    }
}

@Suite struct ReleaseSQLProvidedKeyTests {
    @Test func aKeyOnlyASQLMigrationInsertedIsAConflictWhenTheUserDeletedItNotATypo() throws {
        let project = try IsoCodes.projectWithUserStore()
        // Sweden arrives by a SQL migration only (no fixture row, no declarative insert).
        try project.write(
            "migrations/0001-sweden.sql",
            "-- Sweden\nINSERT INTO \"countries\" (alpha_2, name) VALUES ('SE', 'Sweden');\n")
        try expectEqual(project.seedkit("migrate", "user.sqlite").status, 0)
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "DELETE FROM countries WHERE alpha_2 = 'SE'")
        }
        try project.write(
            "migrations/0002-stockholm.yml",
            "insert:\n  subdivisions:\n    - { code: SE-AB, name: Stockholm, type: County, country_id: SE }\n")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(
            result.stderr,
            "migrations/0002-stockholm.yml:3: warning: conflict on subdivisions 'SE-AB': country_id 'SE' matches no countries.alpha_2 in the store (the user deleted it?); row not inserted [2050]\n",
            "\(result)")
        let status = try project.seedkit("status", "user.sqlite")
        #expect(status.stdout.contains("0002-stockholm"), "\(status)")
        #expect(!status.stdout.contains("pending"), "\(status)")
        // A ref to a table no SQL migration writes is still a typo.
        try project.write(
            "migrations/0003-typo.yml",
            "insert:\n  subdivisions:\n    - { code: NO-98, name: Typo, type: County, country_id: NO, parent_id: NO-XX }\n"
        )
        let before = try #require(project.read("user.sqlite"))
        let typo = try project.seedkit("migrate", "user.sqlite")
        expectEqual(typo.status, 1, "\(typo)")
        expectEqual(
            typo.stderr,
            "migrations/0003-typo.yml:3: error: subdivisions 'NO-98': parent_id 'NO-XX' matches no subdivisions.code in the fixtures, the store or any migration; nothing was written [2030]\n",
            "\(typo)")
        expectEqual(project.read("user.sqlite"), before)
    }
}

/// A currencies project (iso-codes' shape) with release 1.0 kept in seeds/releases.
private func currenciesProject() throws -> TemporaryProject {
    let project = try TemporaryProject()
    try project.remove("migrations/0001-add-fourth-book.yml")
    try project.write(
        "seeds/schema.sql",
        "CREATE TABLE currencies (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL);\n")
    try project.write(
        "seeds/seedkit.yml",
        "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  currencies: { file: data/currencies.csv, key: code }\n"
    )
    try project.write("seeds/data/currencies.csv", "code,name\nEUR,Euro\nNOK,Norwegian krone\n")
    try expectEqual(project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status, 0)
    return project
}

@Suite struct ReleaseSchemaChangeTests {
    @Test func newMigrationWritesASchemaStepBeforeTheDataStep() throws {
        let project = try currenciesProject()
        try project.write(
            "seeds/schema.sql",
            """
            CREATE TABLE currencies (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL, symbol TEXT);
            CREATE INDEX currencies_name ON currencies (name);
            CREATE TABLE rates (id INTEGER PRIMARY KEY, currency_id INTEGER NOT NULL REFERENCES currencies(id), day TEXT NOT NULL, rate REAL, UNIQUE (currency_id, day));

            """)
        try project.write(
            "seeds/seedkit.yml",
            """
            schema: schema.sql
            output: ../build/seed.sqlite
            tables:
              currencies: { file: data/currencies.csv, key: code }
              rates: { file: data/rates.csv, key: [currency_id, day], refs: { currency_id: currencies.code } }

            """)
        try project.write("seeds/data/currencies.csv", "code,name,symbol\nEUR,Euro,€\nNOK,Norwegian krone,kr\n")
        try project.write("seeds/data/rates.csv", "currency_id,day,rate\nNOK,2026-11-20,0.085\n")
        // Before: "no migration needed", then check-upgrade died with a bare SQLite error (exit 4).
        let result = try project.seedkit("new-migration", "add symbol", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(
            result.stdout,
            """
            wrote migrations/0001-add-symbol-schema.sql: 1 new table, 1 new column, 1 new index
            wrote migrations/0002-add-symbol.yml: 1 insert, 2 updates, 0 deletes

            """)
        expectEqual(
            String(decoding: try #require(project.read("migrations/0001-add-symbol-schema.sql")), as: UTF8.self),
            """
            -- 0001-add-symbol-schema: generated by seedkit new-migration from seeds/releases/1.0.sqlite
            -- new column currencies.symbol
            ALTER TABLE "currencies" ADD COLUMN symbol TEXT;

            -- new table rates
            CREATE TABLE rates (id INTEGER PRIMARY KEY, currency_id INTEGER NOT NULL REFERENCES currencies(id), day TEXT NOT NULL, rate REAL, UNIQUE (currency_id, day));

            -- new index currencies_name
            CREATE INDEX currencies_name ON currencies (name);

            """)
        expectEqual(
            String(decoding: try #require(project.read("migrations/0002-add-symbol.yml")), as: UTF8.self),
            """
            # 0002-add-symbol: generated by seedkit new-migration from seeds/releases/1.0.sqlite
            insert:
              rates:
                - { currency_id: "NOK", day: "2026-11-20", rate: 0.085 }
            update:
              currencies:
                - key: "EUR"
                  from: { symbol: null }
                  to: { symbol: "€" }
                - key: "NOK"
                  from: { symbol: null }
                  to: { symbol: "kr" }

            """)
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
        #expect(
            check.stdout.hasPrefix(
                "seeds/releases/1.0.sqlite: applied 0001-add-symbol-schema, 0002-add-symbol; converges with a fresh build\n"
            ), "\(check)")
        // A user's store: the schema step and the data step apply in one run; the user's own row stays.
        try FileManager.default.copyItem(
            atPath: project.path("seeds/releases/1.0.sqlite"), toPath: project.path("user.sqlite"))
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "INSERT INTO currencies (code, name) VALUES ('XTS', 'Test currency')")
        }
        let migrate = try project.seedkit("migrate", "user.sqlite")
        expectEqual(migrate.status, 0, "\(migrate)")
        let rows = try project.database("user.sqlite").read { db in
            try String.fetchAll(db, sql: "SELECT code || ':' || ifnull(symbol, '-') FROM currencies ORDER BY code")
        }
        expectEqual(rows, ["EUR:€", "NOK:kr", "XTS:-"])
    }

    @Test func aChangedColumnIsRebuiltKeepingEveryRow() throws {
        let project = try currenciesProject()
        // name gets a CHECK and a default; a column is added in the middle: ADD COLUMN can't, the rebuild can.
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE currencies (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, minor INTEGER NOT NULL DEFAULT 2, name TEXT NOT NULL CHECK (length(name) > 0));\n"
        )
        try project.write("seeds/data/currencies.csv", "code,minor,name\nEUR,2,Euro\nNOK,2,Norwegian krone\n")
        let result = try project.seedkit("new-migration", "minor units", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(result.stdout, "wrote migrations/0001-minor-units-schema.sql: 1 rebuilt table\n")
        expectEqual(
            String(decoding: try #require(project.read("migrations/0001-minor-units-schema.sql")), as: UTF8.self),
            """
            -- 0001-minor-units-schema: generated by seedkit new-migration from seeds/releases/1.0.sqlite
            -- rebuilt table currencies (new column minor; name TEXT NOT NULL → TEXT NOT NULL CHECK (length(name) > 0)): SQLite's table rebuild, rows kept
            PRAGMA defer_foreign_keys = ON;
            CREATE TABLE "_seedkit_new_currencies" (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, minor INTEGER NOT NULL DEFAULT 2, name TEXT NOT NULL CHECK (length(name) > 0));
            INSERT INTO "_seedkit_new_currencies" ("id", "code", "name") SELECT "id", "code", "name" FROM "currencies";
            DROP TABLE "currencies";
            ALTER TABLE "_seedkit_new_currencies" RENAME TO "currencies";

            """)
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
        #expect(check.stdout.contains("converges with a fresh build"))
    }

    @Test func aDroppedColumnOrTableIsRefusedNamingIt() throws {
        let project = try currenciesProject()
        try project.write(
            "seeds/schema.sql", "CREATE TABLE currencies (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE);\n")
        try project.write("seeds/data/currencies.csv", "code\nEUR\nNOK\n")
        let result = try project.seedkit("new-migration", "drop name", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(result.status, 2)
        expectEqual(
            result.stderr,
            "seeds/releases/1.0.sqlite: error: column currencies.name is in the old seed but not in the schema: users' stores may hold data in it, so seedkit does not drop it; if that is really meant, write the step yourself as a .sql migration [2100]\n"
        )
        expectEqual(project.listing("migrations"), [])
    }

    @Test func checkUpgradeNamesTheSeedTheMigrationAndTheStatementWhenAStepFails() throws {
        let project = try currenciesProject()
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE currencies (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL, symbol TEXT);\n"
        )
        try project.write("seeds/data/currencies.csv", "code,name,symbol\nEUR,Euro,€\nNOK,Norwegian krone,kr\n")
        // The data step alone: the old seed has no symbol column.
        try project.write(
            "migrations/0001-symbols.yml",
            "update:\n  currencies:\n    - key: EUR\n      from: { symbol: null }\n      to: { symbol: \"€\" }\n")
        let missing = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(missing.status, 1, "\(missing)")
        #expect(
            missing.stdout.hasPrefix(
                "seeds/releases/1.0.sqlite: the migrations do not apply; DIVERGES from a fresh build\n  migrations/0001-symbols.yml:"
            ), "\(missing)")
        #expect(missing.stdout.contains("symbol"))
        #expect(missing.stdout.hasSuffix("1 of 1 old seeds do not converge\n"))
        // A SQL step with a typo: the statement is named.
        try project.remove("migrations/0001-symbols.yml")
        try project.write(
            "migrations/0001-symbols.sql",
            "ALTER TABLE currencies ADD COLUMN symbol TEXT;\nUPDATE currencies\n   SET symbl = '€' WHERE code = 'EUR';\n"
        )
        let typo = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(typo.status, 1, "\(typo)")
        expectEqual(
            typo.stdout,
            """
            seeds/releases/1.0.sqlite: the migrations do not apply; DIVERGES from a fresh build
              migrations/0001-symbols.sql:2:1: error: SQL migration failed: no such column: symbl; nothing was written [1550]; statement: UPDATE currencies SET symbl = '€' WHERE code = 'EUR';
            1 of 1 old seeds do not converge

            """)
        // A schema that differs from the fresh build's is a divergence, not only rows.
        try project.write(
            "migrations/0001-symbols.sql",
            "ALTER TABLE currencies ADD COLUMN symbol VARCHAR(3);\nUPDATE currencies SET symbol = '€' WHERE code = 'EUR';\nUPDATE currencies SET symbol = 'kr' WHERE code = 'NOK';\n"
        )
        let differs = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(differs.status, 1)
        #expect(
            differs.stdout.hasPrefix(
                """
                seeds/releases/1.0.sqlite: applied 0001-symbols; DIVERGES from a fresh build
                  schema: column currencies.symbol is VARCHAR(3) in the upgraded seed, TEXT in a fresh build

                """), "\(differs)")
    }

    @Test func diffReportsTheSchemaThenRowsOfTheSharedColumns() throws {
        let project = try currenciesProject()
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE currencies (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL, symbol TEXT);\nCREATE INDEX currencies_name ON currencies (name);\n"
        )
        try project.write("seeds/data/currencies.csv", "code,name,symbol\nEUR,Euro,€\nNOK,Norwegian krone,kr\n")
        try expectEqual(project.seedkit("build").status, 0)
        let result = try project.seedkit("diff", "seeds/releases/1.0.sqlite", "build/seed.sqlite", "--exit-code")
        expectEqual(result.status, 1)
        expectEqual(
            result.stdout,
            """
            table currencies: column symbol only in build/seed.sqlite
            schema: index currencies_name only in build/seed.sqlite
            currencies: no differences in the columns both have

            """, "\(result)")
    }
}

@Suite struct ReleasePropertyTests {
    /// Random releases over three related tables — countries, subdivisions with a self-reference
    /// (roots and their children), currencies — with a random schema change each time (a new
    /// column with values, a new table with rows, a new index): `new-migration --from` writes the
    /// schema and data steps, `check-upgrade` converges, and the simulated user's rows and edits survive.
    ///
    /// Each release also renames a country (told apart by the id its fixture gives, or by a
    /// `--rename` hint), a subdivision with children and one with a parent, and a currency (hints):
    /// the refs to them follow, and the simulated user's edits of them and rows referring to them
    /// survive.
    @Test(.tags(.slow)) func randomReleasesOverThreeRelatedTablesWithSchemaChangesAndRenamesConverge() throws {
        let seed = ProcessInfo.processInfo.environment["SEEDKIT_TEST_SEED"].flatMap(UInt64.init) ?? 20_261_123
        var rng = SeededRandom(seed: seed)
        let words = ["Ærø", "naïve", "日本語", "Zoë", "plain", "O'Brien", "a, b", "quote\"d", "x"]
        for round in 0..<5 {
            let project = try TemporaryProject()
            try project.remove("migrations/0001-add-fourth-book.yml")
            let baseSchema = """
                CREATE TABLE countries (id INTEGER PRIMARY KEY, alpha_2 TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
                CREATE TABLE subdivisions (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
                    country_id INTEGER NOT NULL REFERENCES countries(id), parent_id INTEGER REFERENCES subdivisions(id), note TEXT);
                CREATE TABLE currencies (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL, country_id INTEGER REFERENCES countries(id)
                """
            let manifest = """
                schema: schema.sql
                output: ../build/seed.sqlite
                tables:
                  subdivisions:
                    file: data/subdivisions.csv
                    key: code
                    refs: { country_id: countries.alpha_2, parent_id: subdivisions.code }
                  countries: { file: data/countries.csv, key: alpha_2 }
                  currencies: { file: data/currencies.csv, key: code, refs: { country_id: countries.alpha_2 } }

                """
            var countries: [String: String] = [:]
            var countryIDs: [String: Int] = [:]
            for index in 0..<8 {
                countries[String(format: "C%02d", index)] = rng.pick(words)
                countryIDs[String(format: "C%02d", index)] = 100 + index
            }
            var subdivisions: [String: (name: String, country: String, parent: String?, note: String?)] = [:]
            var roots: [String] = []
            for index in 0..<12 {
                let code = "S\(index)"
                subdivisions[code] = (rng.pick(words), rng.pick(countries.keys.sorted()), nil, nil)
                roots.append(code)
            }
            for index in 0..<30 {
                subdivisions["S\(index)-\(index % 7)"] = (
                    rng.pick(words), rng.pick(countries.keys.sorted()), rng.pick(roots),
                    rng.next() % 3 == 0 ? rng.pick(words) : nil
                )
            }
            var currencies: [String: (name: String, country: String?, symbol: String?)] = [:]
            for index in 0..<10 {
                currencies[String(format: "K%02d", index)] = (
                    rng.pick(words), rng.next() % 4 == 0 ? nil : rng.pick(countries.keys.sorted()), nil
                )
            }
            var extraColumn = false
            var languages: [String: String]? = nil
            func csv(_ fields: [String?]) -> String {
                fields.map { field in
                    guard let field else { return "" }
                    return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                }.joined(separator: ",")
            }
            func write(index: Bool) throws {
                var schema = baseSchema + (extraColumn ? ", symbol TEXT);\n" : ");\n")
                if languages != nil {
                    schema +=
                        "CREATE TABLE languages (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL);\n"
                }
                if index { schema += "CREATE INDEX subdivisions_name ON subdivisions (name);\n" }
                try project.write("seeds/schema.sql", schema)
                try project.write(
                    "seeds/seedkit.yml",
                    manifest + (languages != nil ? "  languages: { file: data/languages.csv, key: code }\n" : ""))
                // The fixture gives each country its id: a renamed country keeps it.
                try project.write(
                    "seeds/data/countries.csv",
                    "id,alpha_2,name\n"
                        + countries.keys.sorted().map { "\(countryIDs[$0] ?? 0)," + csv([$0, countries[$0]]) + "\n" }
                        .joined())
                // Children before their parents in the file, on purpose: the build resolves forward refs.
                try project.write(
                    "seeds/data/subdivisions.csv",
                    "code,name,country_id,parent_id,note\n"
                        + subdivisions.keys.sorted().reversed().map { code in
                            let row = subdivisions[code]!
                            return csv([code, row.name, row.country, row.parent, row.note]) + "\n"
                        }.joined())
                try project.write(
                    "seeds/data/currencies.csv",
                    "code,name,country_id" + (extraColumn ? ",symbol" : "") + "\n"
                        + currencies.keys.sorted().map { code in
                            let row = currencies[code]!
                            return csv([code, row.name, row.country] + (extraColumn ? [row.symbol] : [])) + "\n"
                        }.joined())
                if let languages {
                    try project.write(
                        "seeds/data/languages.csv",
                        "code,name\n" + languages.keys.sorted().map { csv([$0, languages[$0]]) + "\n" }.joined())
                }
            }
            try write(index: false)
            let old = try project.seedkit("build", "--output", "seeds/releases/1.0.sqlite")
            expectEqual(old.status, 0, "\(old)")

            // The release: a schema change, then random data changes on all three tables.
            let change = round % 3
            if change == 0 {
                extraColumn = true
                for code in currencies.keys.sorted() where rng.next() % 2 == 0 {
                    currencies[code]?.symbol = rng.pick(words)
                }
            }
            if change == 1 { languages = ["en": "English", "nb": "Norsk bokmål", "az": "Azərbaycan"] }
            // Renames, with the refs to them following.
            var hints: [String] = []
            let oldCountry = rng.pick(countries.keys.sorted())
            let newCountry = "R\(round)"
            countries[newCountry] = countries.removeValue(forKey: oldCountry)
            countryIDs[newCountry] = countryIDs.removeValue(forKey: oldCountry)
            for code in subdivisions.keys.sorted() where subdivisions[code]?.country == oldCountry {
                subdivisions[code]?.country = newCountry
            }
            for code in currencies.keys.sorted() where currencies[code]?.country == oldCountry {
                currencies[code]?.country = newCountry
            }
            // odd rounds: by the fixture's id alone
            if round % 2 == 0 { hints.append("countries:\(oldCountry)=\(newCountry)") }
            func renameSubdivision(_ old: String, _ new: String) {
                subdivisions[new] = subdivisions.removeValue(forKey: old)
                for code in subdivisions.keys.sorted() where subdivisions[code]?.parent == old {
                    subdivisions[code]?.parent = new
                }
                roots = roots.map { $0 == old ? new : $0 }
                hints.append("subdivisions:\(old)=\(new)")
            }
            let parents = Set(subdivisions.values.compactMap(\.parent))
            let renamedRoot = rng.pick(roots.filter(parents.contains))
            let renamedChild = rng.pick(subdivisions.keys.sorted().filter { subdivisions[$0]?.parent != nil })
            renameSubdivision(renamedRoot, "R\(round)-\(renamedRoot)")
            renameSubdivision(renamedChild, "R\(round)-\(renamedChild)")
            let oldCurrency = rng.pick(currencies.keys.sorted())
            currencies["KR\(round)"] = currencies.removeValue(forKey: oldCurrency)
            hints.append("currencies:\(oldCurrency)=KR\(round)")
            let renamed: Set<String> = ["R\(round)-\(renamedRoot)", "R\(round)-\(renamedChild)", "KR\(round)"]
            for index in 0..<3 {
                countries["N\(round)\(index)"] = rng.pick(words)
                countryIDs["N\(round)\(index)"] = 200 + 10 * round + index
            }
            for code in countries.keys.sorted() where rng.next() % 5 == 0 { countries[code] = rng.pick(words) }
            for index in 0..<4 {
                let code = "Z\(index)"
                subdivisions[code] = (rng.pick(words), rng.pick(countries.keys.sorted()), nil, nil)
                roots.append(code)
            }
            for index in 0..<10 {
                subdivisions["Z\(index)-new"] = (
                    rng.pick(words), rng.pick(countries.keys.sorted()), rng.pick(roots), nil
                )
            }
            for code in subdivisions.keys.sorted() where subdivisions[code]?.parent != nil && rng.next() % 4 == 0 {
                switch rng.next() % 3 {
                case 0: subdivisions[code]?.parent = rng.pick(roots)
                case 1:
                    let note = subdivisions[code]?.note
                    subdivisions[code]?.note = note == nil ? rng.pick(words) : nil  // NULL → value and back
                default: subdivisions[code]?.name = rng.pick(words) + " " + rng.pick(words)
                }
            }
            for code in subdivisions.keys.sorted()
            where subdivisions[code]?.parent != nil && !renamed.contains(code) && rng.next() % 6 == 0 {
                subdivisions[code] = nil
            }
            let stillParents = Set(subdivisions.values.compactMap(\.parent))
            for code in roots
            where !stillParents.contains(code) && !renamed.contains(code) && subdivisions[code] != nil
                && rng.next() % 2 == 0
            {
                subdivisions[code] = nil
                roots.removeAll { $0 == code }
            }
            for code in currencies.keys.sorted() where rng.next() % 4 == 0 {
                currencies[code]?.country = rng.next() % 2 == 0 ? nil : rng.pick(countries.keys.sorted())
            }
            for code in currencies.keys.sorted() where !renamed.contains(code) && rng.next() % 8 == 0 {
                currencies[code] = nil
            }
            currencies["KN\(round)"] = (
                rng.pick(words), rng.pick(countries.keys.sorted()), extraColumn ? rng.pick(words) : nil
            )
            try write(index: change == 2)

            let generated = try project.seedkit(
                ["new-migration", "release \(round)", "--from", "seeds/releases/1.0.sqlite"]
                    + hints.flatMap { ["--rename", $0] })
            expectEqual(generated.status, 0, "seed \(seed) round \(round): \(generated)")
            #expect(generated.stdout.contains(" (4 renames), "), "seed \(seed) round \(round): \(generated.stdout)")
            #expect(
                generated.stdout.contains("-schema.sql: "),
                "seed \(seed) round \(round): a schema step: \(generated.stdout)")
            let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite", "--format", "json")
            expectEqual(check.status, 0, "seed \(seed) round \(round): \(generated.stdout)\n\(check)")
            let outcomes = try #require(
                try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [[String: Any]])
            #expect(outcomes.first?["passed"] as? Bool == true)
            let keptEdits = (outcomes.first?["keptEdits"] as? [String]) ?? []
            #expect(keptEdits.count > 5, "user edits were simulated and kept")
            #expect(
                keptEdits.contains { $0.contains("still refers to the renamed") },
                "seed \(seed) round \(round): \(keptEdits)")
            let lostEdits: [String] = (outcomes.first?["lostEdits"] as? [String]) ?? ["?"]
            #expect(lostEdits.isEmpty, "seed \(seed) round \(round): \(check.stdout)")
            // Nothing left to cover: a second --from writes nothing.
            let again = try project.seedkit("new-migration", "again", "--from", "seeds/releases/1.0.sqlite")
            #expect(
                again.stdout.contains("no migration needed, nothing written"), "seed \(seed) round \(round): \(again)")
        }
    }
}

@Suite struct CheckUpgradeSimulatedUserTests {
    @Test func theSimulatedUserEditsDeletedRowsFillsNullsAndRefersToDeletedRows() throws {
        let project = try currenciesProject()
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE currencies (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL, note TEXT);\nCREATE TABLE coins (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, currency_id INTEGER REFERENCES currencies(id), value REAL);\n"
        )
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  currencies: { file: data/currencies.csv, key: code }\n  coins: { file: data/coins.csv, key: name, refs: { currency_id: currencies.code } }\n"
        )
        try project.write(
            "seeds/data/currencies.csv", "code,name,note\nEUR,Euro,\nNOK,Norwegian krone,\nDEM,Mark,\nXEU,ECU,old\n")
        try project.write("seeds/data/coins.csv", "name,currency_id,value\nEuro cent,EUR,0.01\n")
        try expectEqual(project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status, 0)
        // The release fills in a note (NULL → value) and retires two currencies.
        try project.write("seeds/data/currencies.csv", "code,name,note\nEUR,Euro,since 1999\nNOK,Norwegian krone,\n")
        try expectEqual(project.seedkit("new-migration", "retire", "--from", "seeds/releases/1.0.sqlite").status, 0)
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
        expectEqual(
            check.stdout,
            """
            seeds/releases/1.0.sqlite: applied 0001-retire; converges with a fresh build
              currencies: 3 rows the release touched as in a fresh build (1 updated, 2 deleted)
              ok: user edit currencies 'EUR'.note = "since 1999 (edited by the user)" kept
              ok: user edit currencies 'XEU'.name = "ECU (edited by the user)" kept
              ok: user row coins 'Euro cent (added by the user)'.value = 1.01 kept
              ok: user row currencies 'EUR (added by the user)'.name = "Euro (edited by the user)" kept
              ok: seed row currencies 'DEM', which a user row refers to, kept (its delete denied)
            1 old seed converges

            """, "\(check)")
    }
}
