import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// Issue 33: published data as it is.
///
/// Real files are read as their publishers ship them, and the schema is read through SQLite, never
/// by splitting SQL text.
@Suite struct PublishedDataTests {
    /// A project with one table `t` whose schema is `schema` and whose fixture is `data/t.csv`.
    private func project(
        schema: String, csv: String = "a,b\nx,y\n", manifestTable: String = "    file: data/t.csv\n    key: a\n"
    ) throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/seedkit.yml", "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  t:\n" + manifestTable)
        try project.write("seeds/schema.sql", schema)
        try project.write("seeds/data/t.csv", csv)
        return project
    }

    // MARK: - The schema is read through SQLite

    static let commented =
        "CREATE TABLE t (\n  a TEXT PRIMARY KEY,  -- x, y\n  b TEXT /* c, d */ NOT NULL, \"c\" INTEGER CHECK (c IN (1, 2)), -- trailing, comment\n  CHECK (a <> b)\n);\n"

    @Test func aCommentHoldingACommaChangesNothingDiffSees() throws {
        let project = try project(schema: Self.commented, csv: "a,b,c\nx,y,1\n")
        let build = try project.seedkit("build")
        try #require(build.status == 0, "\(build)")
        // Against the same table written without comments (not the seed with itself), and its row read by SQL.
        let plain = try self.project(
            schema:
                "CREATE TABLE t (a TEXT PRIMARY KEY, b TEXT NOT NULL, c INTEGER CHECK (c IN (1, 2)), CHECK (a <> b));\n",
            csv: "a,b,c\nx,y,1\n")
        try #require(try plain.seedkit("build").status == 0)
        let rows = try project.database("build/seed.sqlite").read { db in
            try Row.fetchAll(db, sql: "SELECT a, b, c, typeof(c) AS type FROM t")
        }
        expectEqual(rows, [["a": "x", "b": "y", "c": 1, "type": "integer"]])
        let diff = try project.seedkit("diff", "build/seed.sqlite", plain.path("build/seed.sqlite"), "--exit-code")
        expectEqual(diff.status, 0, "\(diff)")
        #expect(!diff.stdout.contains("schema"), "\(diff)")
        #expect(!diff.stdout.contains("--"), "\(diff)")
    }

    @Test func aCommentedSchemaShipsAndPassesCheckUpgradeWithNoSchemaStep() throws {
        let project = try project(schema: Self.commented, csv: "a,b,c\nx,y,1\n")
        let release = try project.seedkit("build", "--output", "seeds/releases/1.0.sqlite")
        try #require(release.status == 0, "\(release)")
        try project.write("seeds/data/t.csv", "a,b,c\nx,y,1\nz,w,2\n")
        let generated = try project.seedkit("new-migration", "more", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(generated.status, 0, "\(generated)")
        expectEqual(project.listing("migrations"), ["0001-more.yml"], "\(generated)")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
        #expect(!check.stdout.contains("DIVERGES"), "\(check)")
    }

    @Test func aQuotedNameAndACommentDoNotMakeAColumnDiffer() throws {
        // The same table written two ways: SQLite reads the same columns, types and constraints.
        let one = try project(
            schema:
                "CREATE TABLE t (a TEXT PRIMARY KEY, b TEXT NOT NULL CHECK (b <> ''), UNIQUE (a, b));\nCREATE INDEX ib ON t(b);\n"
        )
        try #require(try one.seedkit("build").status == 0)
        let two = try project(
            schema:
                "CREATE TABLE \"t\" (\n  \"a\" TEXT PRIMARY KEY, -- the key, it is text\n  [b] TEXT NOT NULL CHECK (\"b\" <> ''), /* both */ UNIQUE (\"a\", `b`)\n);\nCREATE INDEX \"ib\" ON \"t\" (\"b\");\n"
        )
        try #require(try two.seedkit("build").status == 0)
        let diff = try one.seedkit("diff", "build/seed.sqlite", two.path("build/seed.sqlite"), "--exit-code")
        expectEqual(diff.status, 0, "\(diff)")
        #expect(!diff.stdout.contains("schema"), "\(diff)")
    }

    @Test func aNewColumnAfterACommentIsAddedWithItsDefinition() throws {
        let project = try project(schema: "CREATE TABLE t (\n  a TEXT PRIMARY KEY, -- key, text\n  b TEXT\n);\n")
        try #require(try project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status == 0)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE t (\n  a TEXT PRIMARY KEY, -- key, text\n  b TEXT, -- b, too\n  c INTEGER DEFAULT 7 -- new, with a default\n);\n"
        )
        try project.write("seeds/data/t.csv", "a,b,c\nx,y,7\n")
        let generated = try project.seedkit("new-migration", "column", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(generated.status, 0, "\(generated)")
        let files = project.listing("migrations")
        let name = try #require(files.first { $0.hasSuffix(".sql") }, "\(files)")
        let sql = String(decoding: try #require(project.read("migrations/\(name)")), as: UTF8.self)
        #expect(sql.contains("ADD COLUMN c INTEGER DEFAULT 7;"), "\(sql)")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
    }

    // MARK: - One fixture format, decided once; reading options

    /// The first lines of IANA's zone1970.tab (tzdata 2025b) as published: `#` comments, the
    /// header only inside a comment, tab-separated, rows of 3 or 4 fields.
    static let zoneTab =
        "# tzdb timezone descriptions\n#\n# This file is in the public domain.\n#\n#country-\n#codes\tcoordinates\tTZ\tcomments\nAD\t+4230+00131\tEurope/Andorra\nAE,OM,RE,SC,TF\t+2518+05518\tAsia/Dubai\tCrozet\nAF\t+3431+06912\tAsia/Kabul\nAQ\t-6617+11031\tAntarctica/Casey\tCasey\nAR\t-3436-05827\tAmerica/Argentina/Buenos_Aires\tBuenos Aires (BA, CF)\n"

    private func zones(_ options: String, file: String = "data/zone1970.tab") throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  zones:\n    file: \(file)\n    key: tz\n"
                + options)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE zones (tz TEXT PRIMARY KEY, codes TEXT NOT NULL, coordinates TEXT NOT NULL, comments TEXT);\n"
        )
        try project.write("seeds/\(file)", Self.zoneTab)
        return project
    }

    @Test func zone1970TabBuildsAsPublished() throws {
        let project = try zones(
            "    comment: \"#\"\n    header: [codes, coordinates, tz, comments]\n    ragged: true\n")
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        let rows = try project.rows(
            "build/seed.sqlite", "SELECT tz, codes, coordinates, comments FROM zones ORDER BY rowid")
        expectEqual(
            rows,
            [
                "'Europe/Andorra'|'AD'|'+4230+00131'|NULL",
                "'Asia/Dubai'|'AE,OM,RE,SC,TF'|'+2518+05518'|'Crozet'",
                "'Asia/Kabul'|'AF'|'+3431+06912'|NULL",
                "'Antarctica/Casey'|'AQ'|'-6617+11031'|'Casey'",
                "'America/Argentina/Buenos_Aires'|'AR'|'-3436-05827'|'Buenos Aires (BA, CF)'",
            ])
    }

    @Test func aShortRowWithoutRaggedSaysWhereAndHowToReadIt() throws {
        let project = try zones("    comment: \"#\"\n    header: [codes, coordinates, tz, comments]\n")
        let build = try project.seedkit("build")
        expectEqual(build.status, 1, "\(build)")
        #expect(
            build.stderr.contains(
                "seeds/data/zone1970.tab:7:4: error: expected 4 fields (as in the manifest's header:), found 3; if the publisher leaves trailing fields out, ragged: true in the manifest reads them as NULL"
            ), "\(build)")
        #expect(!project.exists("build/seed.sqlite"))
    }

    @Test func aLongerRowStaysAnErrorUnderRagged() throws {
        let project = try zones("    comment: \"#\"\n    header: [codes, coordinates, tz]\n    ragged: true\n")
        let build = try project.seedkit("build")
        expectEqual(build.status, 1, "\(build)")
        #expect(
            build.stderr.contains(
                "seeds/data/zone1970.tab:8:4: error: expected 3 fields (as in the manifest's header:), found 4"),
            "\(build)")
    }

    @Test func tsvSplitsOnTabsAndKeepsQuotesAsText() throws {
        let project = try project(
            schema: "CREATE TABLE t (a TEXT PRIMARY KEY, b TEXT);\n", csv: "",
            manifestTable: "    file: data/t.txt\n    format: tsv\n    key: a\n")
        try project.write("seeds/data/t.txt", "a\tb\n\"x\"\ty, z\n")
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        try expectEqual(project.rows("build/seed.sqlite", "SELECT a, b FROM t"), ["'\"x\"'|'y, z'"])
    }

    @Test func anUnknownExtensionWithoutFormatIsAManifestErrorAtItsLine() throws {
        let project = try project(schema: "CREATE TABLE t (a TEXT PRIMARY KEY, b TEXT);\n")
        try #require(try project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status == 0)
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  t:\n    file: data/t.txt\n    key: a\n")
        try project.write("seeds/data/t.txt", "[]")
        for command in [
            ["build"], ["new-migration", "x", "--from", "seeds/releases/1.0.sqlite"],
            ["check-upgrade", "seeds/releases/1.0.sqlite"],
        ] {
            let result = try project.seedkit(command)
            expectEqual(result.status, 2, "\(command) \(result)")
            #expect(
                result.stderr.contains(
                    "seeds/seedkit.yml:5:11: error: data/t.txt has the extension '.txt', which names no fixture format: name the format with format: csv, tsv, json or jsonl"
                ), "\(command) \(result)")
        }
    }

    @Test func nullsAndDelimiterReadAPublishersCSV() throws {
        let project = try project(
            schema: "CREATE TABLE t (a TEXT PRIMARY KEY, b INTEGER, c TEXT);\n", csv: "a;b;c\nx;-;\ny;2;\"\"\nz;3;-\n",
            manifestTable: "    file: data/t.csv\n    key: a\n    delimiter: \";\"\n    nulls: [\"-\"]\n")
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        // Only "-" is NULL now: the empty unquoted field is the empty string, "" too.
        try expectEqual(
            project.rows("build/seed.sqlite", "SELECT a, b, c FROM t ORDER BY a"),
            [
                "'x'|NULL|''", "'y'|2|''", "'z'|3|NULL",
            ])
    }

    @Test func badReadingOptionsAreManifestErrorsAtTheirLine() throws {
        let cases: [(String, String)] = [
            ("    format: xml\n", "seeds/seedkit.yml:7:13: error: format must be one of csv, tsv, json, jsonl"),
            ("    delimiter: \";;\"\n", "seeds/seedkit.yml:7:16: error: delimiter must be one ASCII character"),
            ("    ragged: yes please\n", "seeds/seedkit.yml:7:13: error: ragged must be true or false"),
            ("    header: []\n", "seeds/seedkit.yml:7:13: error: header must be a list of the file's field names"),
            ("    nulls: \"-\"\n", "seeds/seedkit.yml:7:12: error: nulls must be a list of the fields read as NULL"),
            ("    comment: \"\"\n", "seeds/seedkit.yml:7:14: error: comment must be the text comment lines start with"),
        ]
        for (option, message) in cases {
            let project = try project(
                schema: "CREATE TABLE t (a TEXT PRIMARY KEY, b TEXT);\n",
                manifestTable: "    file: data/t.csv\n    key: a\n" + option)
            let build = try project.seedkit("build")
            expectEqual(build.status, 2, "\(option) \(build)")
            #expect(build.stderr.contains(message), "\(option) \(build)")
        }
    }

    @Test func ubuntuCSVWithShorterOlderRowsBuildsUnderRagged() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  releases:\n    file: data/ubuntu.csv\n    key: series\n    ragged: true\n    columns: { eol_server: eol-server, eol_esm: eol-esm, eol_legacy: eol-legacy }\n"
        )
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE releases (series TEXT PRIMARY KEY, version TEXT NOT NULL, codename TEXT NOT NULL, created DATE, release DATE, eol DATE, eol_server DATE, eol_esm DATE, eol_legacy DATE);\n"
        )
        try project.write(
            "seeds/data/ubuntu.csv",
            "version,codename,series,created,release,eol,eol-server,eol-esm,eol-legacy\n4.10,Warty Warthog,warty,2004-03-05,2004-10-20,2006-04-30\n6.06 LTS,Dapper Drake,dapper,2005-10-12,2006-06-01,2009-07-14,2011-06-01\n26.04 LTS,Resolute Raccoon,resolute,2025-10-09,2026-04-23,2031-05-29,2031-05-29,2036-04-23,2038-04-27\n"
        )
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        try expectEqual(
            project.rows("build/seed.sqlite", "SELECT series, eol_server, eol_legacy FROM releases ORDER BY rowid"),
            ["'warty'|NULL|NULL", "'dapper'|'2011-06-01'|NULL", "'resolute'|'2031-05-29'|'2038-04-27'"])
    }

    // MARK: - Field paths and nested JSON

    /// Two records of a countries list as restcountries publishes it: names nested, translations nested deeper.
    static let countriesJSON = #"""
        [
          {"name": {"common": "Norway", "official": "Kingdom of Norway", "nativeName": {"nno": {"common": "Noreg"}}},
           "cca2": "NO", "altSpellings": ["NO", "Norge", "Noreg"], "translations": {"fra": {"common": "Norv\u00e8ge"}}},
          {"name": {"common": "Peru", "official": "Republic of Peru"},
           "cca2": "PE", "altSpellings": ["PE", "Rep\u00fablica del Per\u00fa"], "translations": {"fra": {"common": "P\u00e9rou"}}}
        ]
        """#

    private func countries(_ columns: String, json: String = PublishedDataTests.countriesJSON) throws
        -> TemporaryProject
    {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  countries:\n    file: data/countries.json\n    key: code\n    columns: \(columns)\n"
        )
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE countries (code TEXT PRIMARY KEY, common_name TEXT NOT NULL, official_name TEXT, alt_spellings TEXT, translations TEXT);\n"
        )
        try project.write("seeds/data/countries.json", json)
        return project
    }

    @Test func aJSONPointerReadsANestedField() throws {
        let project = try countries(
            "{ code: cca2, common_name: /name/common, official_name: /name/official, alt_spellings: altSpellings, translations: translations }"
        )
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        try expectEqual(
            project.rows(
                "build/seed.sqlite", "SELECT code, common_name, official_name FROM countries ORDER BY code"),
            [
                "'NO'|'Norway'|'Kingdom of Norway'", "'PE'|'Peru'|'Republic of Peru'",
            ])
    }

    @Test func aPointerIntoAnArrayAndDeeperObjects() throws {
        let project = try countries(
            "{ code: cca2, common_name: /name/common, official_name: /name/nativeName/nno/common, alt_spellings: /altSpellings/1 }\n    ignore: [translations]"
        )
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        try expectEqual(
            project.rows(
                "build/seed.sqlite", "SELECT code, official_name, alt_spellings FROM countries ORDER BY code"),
            [
                "'NO'|'Noreg'|'Norge'", "'PE'|NULL|'República del Perú'",
            ])
    }

    @Test func aPathNoRecordHoldsIsOneErrorNamingItAndTheTable() throws {
        let project = try countries(
            "{ code: cca2, common_name: /name/commn }\n    ignore: [altSpellings, translations]")
        let build = try project.seedkit("build")
        expectEqual(build.status, 1, "\(build)")
        expectEqual(
            build.stderr,
            "seeds/seedkit.yml:7:41: error: columns: common_name: /name/commn: no record of seeds/data/countries.json holds this path (2 records read), so table countries would get no common_name from it; check the path against a record [2020]\n",
            "\(build)")
        #expect(!project.exists("build/seed.sqlite"))
    }

    @Test func aPointerIsRefusedForACSVFixtureAndWhenMalformed() throws {
        let project = try project(
            schema: "CREATE TABLE t (a TEXT PRIMARY KEY, b TEXT);\n",
            manifestTable: "    file: data/t.csv\n    key: a\n    columns: { b: /x/y }\n")
        let csv = try project.seedkit("build")
        expectEqual(csv.status, 2, "\(csv)")
        #expect(
            csv.stderr.contains(
                "seeds/seedkit.yml:7:19: error: columns: 'b' is a JSON Pointer, which reads a JSON record; data/t.csv is read as csv"
            ), "\(csv)")
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\ntables:\n  t:\n    file: data/t.json\n    key: a\n    columns: { b: /x~2 }\n")
        let bad = try project.seedkit("build")
        expectEqual(bad.status, 2, "\(bad)")
        #expect(
            bad.stderr.contains("seeds/seedkit.yml:6:19: error: columns: 'b': '/x~2' is not a JSON Pointer"), "\(bad)")
    }

    @Test func nestedJSONIsStoredCanonicalSoAReindentedSourceBuildsTheSameSeed() throws {
        let columns = "{ code: cca2, common_name: /name/common, alt_spellings: altSpellings }\n    ignore: [name]"
        let project = try countries(columns)
        try #require(try project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status == 0)
        try expectEqual(
            project.rows("seeds/releases/1.0.sqlite", "SELECT translations FROM countries ORDER BY code"),
            [
                "'{\"fra\":{\"common\":\"Norvège\"}}'", "'{\"fra\":{\"common\":\"Pérou\"}}'",
            ])
        try expectEqual(
            project.rows("seeds/releases/1.0.sqlite", "SELECT alt_spellings = json(alt_spellings) FROM countries"),
            ["1", "1"])
        // The publisher re-indents the file and writes its strings without escapes (and "/" escaped).
        let reindented =
            "[{\"name\":{\"common\":\"Norway\",\"official\":\"Kingdom of Norway\",\"nativeName\":{\"nno\":{ \"common\":\"Noreg\"}}},\n\"cca2\":\"NO\",\"altSpellings\":[ \"NO\" ,\n\t\"Norge\",\"Noreg\" ],\"translations\":{ \"fra\" : { \"common\" : \"Norvège\" } }},\n{\"name\":{\"common\":\"Peru\",\n \"official\":\"Republic of Peru\"},\"cca2\":\"PE\",\"altSpellings\":[\"PE\",\"República del Perú\"],\"translations\":{\"fra\":{\"common\":\"P\\u00e9rou\"}}}]\n"
        try project.write("seeds/data/countries.json", reindented)
        try #require(try project.seedkit("build").status == 0)
        expectEqual(project.sha256("build/seed.sqlite"), project.sha256("seeds/releases/1.0.sqlite"))
        let update = try project.seedkit("new-migration", "reindented", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(update.status, 0, "\(update)")
        #expect(update.stdout.contains("no migration needed, nothing written"), "\(update)")
    }

    // MARK: - Derived tables: sources and query

    /// Lines of ISO 4217's codes-all.csv as published (one row per country × currency; withdrawn
    /// currencies marked by a date; `-` for "not applicable" in the minor unit).
    static let codesAll = """
        Entity,Currency,AlphabeticCode,NumericCode,MinorUnit,WithdrawalDate
        AFGHANISTAN,Afghani,AFN,971,2,
        ÅLAND ISLANDS,Euro,EUR,978,2,
        ALBANIA,Lek,ALL,008,2,
        ANTARCTICA,No universal currency,,,,
        FRANCE,Euro,EUR,978,2,
        INTERNATIONAL MONETARY FUND (IMF),SDR (Special Drawing Right),XDR,960,-,
        AFGHANISTAN,Afghani,AFA,004,,2003-01
        FRANCE,French Franc,FRF,250,,1999-01

        """

    private func currencies(
        _ codes: String = PublishedDataTests.codesAll,
        currencyQuery: String =
            "SELECT DISTINCT AlphabeticCode AS code, Currency AS name, MinorUnit AS minor_unit FROM codes WHERE WithdrawalDate IS NULL AND AlphabeticCode IS NOT NULL ORDER BY code"
    ) throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/seedkit.yml",
            """
            schema: schema.sql
            output: ../build/seed.sqlite
            sources:
              codes: { file: data/codes-all.csv, nulls: ["", "-"] }
            tables:
              currency:
                query: \(currencyQuery)
                key: code
                rules:
                  minor_unit: { min: 0, max: 4 }
              country_currency:
                query: SELECT Entity AS country, AlphabeticCode AS currency FROM codes WHERE WithdrawalDate IS NULL AND AlphabeticCode IS NOT NULL ORDER BY 1, 2
                key: [country, currency]
                refs: { currency: currency.code }

            """)
        try project.write(
            "seeds/schema.sql",
            """
            CREATE TABLE currency (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL, minor_unit INTEGER);
            CREATE TABLE country_currency (country TEXT NOT NULL, currency INTEGER NOT NULL REFERENCES currency(id), PRIMARY KEY (country, currency));

            """)
        try project.write("seeds/data/codes-all.csv", codes)
        return project
    }

    @Test func aQueryOverASourceBuildsTablesTheFileDoesNotHaveAsSuch() throws {
        let project = try currencies()
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        try expectEqual(
            project.rows("build/seed.sqlite", "SELECT code, name, minor_unit FROM currency ORDER BY code"),
            [
                "'AFN'|'Afghani'|2", "'ALL'|'Lek'|2", "'EUR'|'Euro'|2", "'XDR'|'SDR (Special Drawing Right)'|NULL",
            ])
        try expectEqual(
            project.rows(
                "build/seed.sqlite",
                "SELECT country, c.code FROM country_currency JOIN currency c ON c.id = currency ORDER BY 1, 2"),
            [
                "'AFGHANISTAN'|'AFN'", "'ALBANIA'|'ALL'", "'FRANCE'|'EUR'",
                "'INTERNATIONAL MONETARY FUND (IMF)'|'XDR'", "'ÅLAND ISLANDS'|'EUR'",
            ])
        // The source itself is never in the seed.
        try expectEqual(
            project.rows("build/seed.sqlite", "SELECT count(*) FROM sqlite_master WHERE name = 'codes'"), ["0"])
    }

    @Test func aQueryRowGoesThroughConversionAndRulesAndItsErrorNamesTheTableAndRow() throws {
        let project = try currencies(
            PublishedDataTests.codesAll.replacingOccurrences(
                of: "ALBANIA,Lek,ALL,008,2,", with: "ALBANIA,Lek,ALL,008,two,"
            ).replacingOccurrences(of: "AFGHANISTAN,Afghani,AFN,971,2,", with: "AFGHANISTAN,Afghani,AFN,971,7,"))
        let build = try project.seedkit("build")
        expectEqual(build.status, 1, "\(build)")
        #expect(
            build.stderr.contains(
                "seeds/seedkit.yml (query of currency):2:3: error: minor_unit: 'two' is not an integer (the column is INTEGER) (the query's row 2: code 'ALL') [2010]"
            ), "\(build)")
        #expect(
            build.stderr.contains(
                "seeds/seedkit.yml (query of currency):1:3: error: minor_unit 7 is greater than the maximum 4 (the query's row 1: code 'AFN') [1610]"
            ), "\(build)")
        #expect(!project.exists("build/seed.sqlite"))
    }

    @Test func aDuplicateKeyNamesBothRowsInAQueryAndBothLinesInAFile() throws {
        let project = try currencies(
            currencyQuery:
                "SELECT AlphabeticCode AS code, Currency AS name, MinorUnit AS minor_unit FROM codes WHERE AlphabeticCode IS NOT NULL ORDER BY code"
        )
        let build = try project.seedkit("build")
        expectEqual(build.status, 1, "\(build)")
        #expect(
            build.stderr.contains(
                "seeds/seedkit.yml (query of currency):5:1: error: duplicate key code 'EUR': row 4 of the query has the same (the query's row 5: code 'EUR') [2040]"
            ), "\(build)")
        let file = try self.project(
            schema: "CREATE TABLE t (a TEXT PRIMARY KEY, b TEXT);\n", csv: "a,b\nx,1\ny,2\nz,3\ny,4\n")
        let fileBuild = try file.seedkit("build")
        expectEqual(
            fileBuild.stderr, "seeds/data/t.csv:5:1: error: duplicate key a 'y': line 3 has the same [2040]\n",
            "\(fileBuild)")
    }

    @Test func aJSONSourceIsATableOfItsTopLevelFieldsWithNestedValuesAsJSON() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/seedkit.yml",
            """
            schema: schema.sql
            output: ../build/seed.sqlite
            sources:
              world: { file: data/countries.json }
              zones: { file: data/zone1970.tab, comment: "#", header: [codes, coordinates, tz, comments], ragged: true }
            tables:
              countries:
                query: SELECT cca2 AS code, json_extract(name, '$.common') AS name, json_extract(altSpellings, '$[1]') AS spelling, (SELECT count(*) FROM zones WHERE ',' || codes || ',' LIKE '%,' || cca2 || ',%') AS zones FROM world ORDER BY cca2
                key: code

            """)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE countries (code TEXT PRIMARY KEY, name TEXT NOT NULL, spelling TEXT, zones INTEGER NOT NULL);\n"
        )
        try project.write("seeds/data/countries.json", PublishedDataTests.countriesJSON)
        try project.write(
            "seeds/data/zone1970.tab",
            PublishedDataTests.zoneTab.replacingOccurrences(of: "AF\t+3431", with: "NO\t+3431"))
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        try expectEqual(
            project.rows("build/seed.sqlite", "SELECT code, name, spelling, zones FROM countries ORDER BY code"),
            ["'NO'|'Norway'|'Norge'|1", "'PE'|'Peru'|'República del Perú'|0"])
        try expectEqual(
            project.rows("build/seed.sqlite", "SELECT count(*) FROM sqlite_master WHERE name IN ('world', 'zones')"),
            ["0"])
    }

    @Test func aQueryThatDoesNotPrepareIsAManifestErrorWithSQLitesMessage() throws {
        let project = try currencies(currencyQuery: "SELECT AlphabeticCod AS code FROM codes")
        let build = try project.seedkit("build")
        expectEqual(build.status, 2, "\(build)")
        expectEqual(
            build.stderr,
            "seeds/seedkit.yml:7:12: error: the query of table currency does not prepare: no such column: AlphabeticCod [2100]\n",
            "\(build)")
    }

    /// A query that prepares but fails on a row (json_extract of text that is not JSON): the rows
    /// are read as the build steps the query, so the failure comes mid-read.
    ///
    /// It is the same manifest error as before, and no seed is written.
    @Test func aQueryThatFailsOnARowIsAManifestErrorAndWritesNoSeed() throws {
        let project = try currencies(
            currencyQuery: "SELECT AlphabeticCode AS code, json_extract(Currency, '$.x') AS name FROM codes")
        let build = try project.seedkit("build")
        expectEqual(build.status, 2, "\(build)")
        expectEqual(
            build.stderr, "seeds/seedkit.yml (query of currency): error: the query failed: malformed JSON [2100]\n",
            "\(build)")
        #expect(!project.exists("build/seed.sqlite"))
    }

    @Test func aDerivedTableReleasesLikeAFixture() throws {
        let project = try currencies()
        try #require(try project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status == 0)
        // The next publication: Lek's name corrected, XDR gone, a new country with the Euro.
        try project.write(
            "seeds/data/codes-all.csv",
            PublishedDataTests.codesAll
                .replacingOccurrences(of: "ALBANIA,Lek,ALL", with: "ALBANIA,Lek (new),ALL")
                .replacingOccurrences(
                    of: "INTERNATIONAL MONETARY FUND (IMF),SDR (Special Drawing Right),XDR,960,-,\n", with: ""
                )
                .replacingOccurrences(
                    of: "FRANCE,Euro,EUR,978,2,\n", with: "FRANCE,Euro,EUR,978,2,\nCROATIA,Euro,EUR,978,2,\n"))
        let generated = try project.seedkit("new-migration", "next", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(generated.status, 0, "\(generated)")
        expectEqual(generated.stdout, "wrote migrations/0001-next.yml: 1 insert, 1 update, 2 deletes\n", "\(generated)")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
        #expect(check.stdout.contains("converges with a fresh build"), "\(check)")
    }

    // MARK: - Releases on real data

    /// A project whose one table `countries (code, name, region)` is keyed by name, released as 1.0.
    private func countryRelease(_ csv: String) throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  countries:\n    file: data/countries.csv\n    key: name\n"
        )
        try project.write(
            "seeds/schema.sql", "CREATE TABLE countries (name TEXT PRIMARY KEY, code TEXT NOT NULL, region TEXT);\n")
        try project.write("seeds/data/countries.csv", csv)
        let release = try project.seedkit("build", "--output", "seeds/releases/1.0.sqlite")
        guard release.status == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(release)"])
        }
        return project
    }

    @Test func aRenameKeyIsReadAsTheFixtureReadsItTrailingNoBreakSpaceIncluded() throws {
        // A real ISO 4217 currency name whose only change was a dropped trailing U+00A0.
        let project = try countryRelease("name,code,region\nBoliviano\u{00A0},BOB,Americas\nLek,ALL,Europe\n")
        try project.write("seeds/data/countries.csv", "name,code,region\nBoliviano,BOB,Americas\nLek,ALL,Europe\n")
        let result = try project.seedkit(
            "new-migration", "nbsp", "--from", "seeds/releases/1.0.sqlite", "--rename",
            "countries:Boliviano\u{00A0}=Boliviano")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(
            result.stdout,
            "wrote migrations/0001-nbsp.yml: 0 inserts, 1 update (1 rename), 0 deletes\n  rename countries 'Boliviano\u{00A0}' → 'Boliviano' (--rename)\n",
            "\(result)")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
    }

    @Test func aHintForAKeyAnExistingMigrationDeletedSaysWhichSeedLacksIt() throws {
        let project = try countryRelease("name,code,region\nMacedonia,MK,Europe\nNorway,NO,Europe\n")
        try project.write("seeds/data/countries.csv", "name,code,region\nNorway,NO,Europe\n")
        try #require(try project.seedkit("new-migration", "drop", "--from", "seeds/releases/1.0.sqlite").status == 0)
        try project.write("seeds/data/countries.csv", "name,code,region\nNorth Macedonia,MK,Europe\nNorway,NO,Europe\n")
        let result = try project.seedkit(
            "new-migration", "rename", "--from", "seeds/releases/1.0.sqlite", "--rename",
            "countries:Macedonia=North Macedonia")
        expectEqual(result.status, 2, "\(result)")
        #expect(
            result.stderr.contains(
                "--rename 'countries:Macedonia=North Macedonia': the old seed has countries 'Macedonia', but the old seed with the existing migrations applied (0001-drop) does not: one of them deleted or renamed it"
            ), "\(result)")
        #expect(!result.stderr.contains("no row of countries"), "\(result)")
    }

    @Test func aDeleteAndAnInsertThatMatchOnTheOtherColumnsAreListedAsALikelyRename() throws {
        let project = try countryRelease("name,code,region\nMacedonia,MK,Europe\nNorway,NO,Europe\nPeru,PE,Americas\n")
        try project.write(
            "seeds/data/countries.csv",
            "name,code,region\nNorth Macedonia,MK,Europe\nNorway,NO,Europe\nTürkiye,TR,Asia\n")
        let result = try project.seedkit("new-migration", "release 2", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(
            result.stdout,
            """
            wrote migrations/0001-release-2.yml: 2 inserts, 0 updates, 2 deletes
              likely rename countries 'Macedonia' → 'North Macedonia' (every other column matches): written as a delete and an insert; if it is one row renamed, run again with --rename 'countries:Macedonia=North Macedonia'

            """, "\(result)")
        // Passing the line it gives makes it a rename.
        try project.remove("migrations/0001-release-2.yml")
        let again = try project.seedkit(
            "new-migration", "release 2", "--from", "seeds/releases/1.0.sqlite", "--rename",
            "countries:Macedonia=North Macedonia")
        expectEqual(
            again.stdout,
            "wrote migrations/0001-release-2.yml: 1 insert, 1 update (1 rename), 1 delete\n  rename countries 'Macedonia' → 'North Macedonia' (--rename)\n",
            "\(again)")
    }

    // MARK: - Reading options on random files

    /// Random publisher-style files (CSV with a random delimiter or TSV; comment and blank lines;
    /// LF or CRLF; a header in the file or in the manifest; nulls; ragged rows): every row is stored
    /// with exactly the values the file says, NULL where `nulls:` or a missing field says.
    @Test func randomPublishedFilesReadAsTheirOptionsSay() throws {
        var random = SeededRandom(defaultSeed: 33)
        let alphabet: [String] = ["a", "b", "z", " ", "é", "\"", ",", ";", "|", "-", "#", "\u{00A0}"]
        for round in 0..<12 {
            let tsv = random.next() % 2 == 0
            let delimiter = tsv ? "\t" : random.pick([",", ";", "|"])
            let comment = random.pick(["#", "//", "%%"])
            let nulls: [String]? = random.pick([nil, ["", "-"], ["-"], ["NA", ""]])
            let inManifest = random.next() % 2 == 0
            let newline = random.pick(["\n", "\r\n"])
            let width = 2 + Int(random.next() % 4)
            let names = ["k"] + (1..<width).map { "c\($0)" }
            func field(_ text: String) -> String {
                guard !tsv, text.contains(where: { $0 == "\"" || String($0) == delimiter }) else { return text }
                return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            }
            var lines: [String] = ["\(comment) published file \(round), with \(delimiter) and \"quotes\""]
            if !inManifest { lines.append(names.joined(separator: delimiter)) }
            var expected: [String] = []
            for row in 0..<(1 + Int(random.next() % 12)) {
                var values: [String?] = ["k\(row)"]
                var written: [String] = ["k\(row)"]
                let kept = 1 + Int(random.next() % UInt64(width))  // ragged: the rest are left out
                for _ in 1..<kept {
                    var text = (0..<Int(random.next() % 5)).map { _ in random.pick(alphabet) }.joined()
                    // TSV has no quoting, and none is needed
                    if tsv { text = text.replacingOccurrences(of: "\"", with: "'") }
                    if random.next() % 5 == 0 { text = random.pick(["", "-", "NA"]) }
                    written.append(field(text))
                    let unquoted = !written[written.count - 1].hasPrefix("\"")
                    values.append(unquoted && (nulls ?? [""]).contains(text) ? nil : text)
                }
                values += Array(repeating: nil, count: width - kept)
                lines.append(written.joined(separator: delimiter))
                if random.next() % 4 == 0 {
                    lines.append(random.next() % 2 == 0 ? "" : "\(comment)\(delimiter)not a row")
                }
                expected.append(
                    values.map { $0.map { "'\($0.replacingOccurrences(of: "'", with: "''"))'" } ?? "NULL" }.joined(
                        separator: "|"))
            }
            let project = try TemporaryProject(bookStore: false)
            var options = "    comment: \"\(comment)\"\n    ragged: true\n"
            if tsv {
                options += "    format: tsv\n"
            } else {
                options += "    format: csv\n    delimiter: \"\(delimiter)\"\n"
            }
            if let nulls { options += "    nulls: [\(nulls.map { "\"\($0)\"" }.joined(separator: ", "))]\n" }
            if inManifest { options += "    header: [\(names.joined(separator: ", "))]\n" }
            try project.write(
                "seeds/seedkit.yml",
                "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  t:\n    file: data/t.txt\n    key: k\n"
                    + options)
            try project.write(
                "seeds/schema.sql",
                "CREATE TABLE t (\(names.map { "\($0) TEXT" }.joined(separator: ", ")), PRIMARY KEY (k));\n")
            try project.write("seeds/data/t.txt", lines.joined(separator: newline) + newline)
            let build = try project.seedkit("build")
            try #require(
                build.status == 0, "seed \(random.seed) round \(round)\n\(lines.joined(separator: "\n"))\n\(build)")
            let select =
                "SELECT " + names.map { "quote(\($0))" }.joined(separator: " || '|' || ") + " FROM t ORDER BY rowid"
            let stored = try project.database("build/seed.sqlite").read { db in try String.fetchAll(db, sql: select) }
            expectEqual(stored, expected, "seed \(random.seed) round \(round)\n\(lines.joined(separator: "\n"))")
        }
    }
}
