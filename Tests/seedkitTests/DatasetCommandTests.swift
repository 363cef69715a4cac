import Foundation
import GRDB
import SeedTestSupport
import Testing

/// Real datasets as they come: JSON documents that wrap their array (`root:`), and fields
/// named otherwise than the columns, or not stored at all (`columns:`, `ignore:`).
@Suite struct DatasetCommandTests {
    private static let schema =
        "CREATE TABLE countries (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL);\n"

    /// A project with one `countries` table read from `file` with the manifest lines `options`.
    private func project(file: String, _ contents: String, options: String) throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write("seeds/schema.sql", Self.schema)
        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n  countries:\n    file: data/\(file)\n    key: code\n\(options)"
        )
        try project.write("seeds/data/\(file)", contents)
        return project
    }

    private func rows(_ project: TemporaryProject) throws -> [String] {
        try project.database("build/seed.sqlite").read { db in
            try Row.fetchAll(db, sql: "SELECT id, code, name FROM countries ORDER BY id").map {
                "\($0[0] as Int)|\($0[1] as String)|\($0[2] as String)"
            }
        }
    }

    private static let isoCountries = """
        {"3166-1": [
          {"alpha_2": "FR", "alpha_3": "FRA", "name": "France"},
          {"alpha_2": "NO", "alpha_3": "NOR", "name": "Norway"}
        ]}

        """

    // MARK: - root:

    @Test func rootPointsAtTheArrayInsideAWrappedDocument() throws {
        let project = try project(
            file: "iso.json", Self.isoCountries,
            options: "    root: /3166-1\n    columns: { code: alpha_2 }\n    ignore: [alpha_3]\n")
        let result = try project.seedkit("build", "--migrations", "none")
        expectEqual(result.status, 0, "\(result)")
        #expect(result.stdout.contains("  countries          2 rows"), "\(result)")
        try expectEqual(rows(project), ["1|FR|France", "2|NO|Norway"])
    }

    @Test func aWrappedDocumentWithoutRootSaysWhatItFoundAndSuggestsRoot() throws {
        let project = try project(
            file: "iso.json", Self.isoCountries, options: "    columns: { code: alpha_2 }\n    ignore: [alpha_3]\n")
        let result = try project.seedkit("build", "--migrations", "none")
        expectEqual(result.status, 1)
        expectEqual(
            result.stderr,
            "seeds/data/iso.json:1: error: expected an array of objects, found an object with keys 3166-1; point at the array with root: /3166-1 in the manifest [2001]\n",
            "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
    }

    @Test func rootStepsOverValuesBeforeAndAfterTheArrayAndEscapesKeys() throws {
        // A sibling larger than the reader's 1 MB chunk before the array, keys with '/' and '~', an index, and keys after.
        let big = "[" + (0..<40_000).map { "{\"n\": \($0), \"s\": \"x]}\\\"[{\"}" }.joined(separator: ",") + "]"
        let document = """
            {"meta": {"version": "4.17", "skip": \(big)},
             "a/b": [{"c~d": [{"code": "FR", "name": "France"}, {"code": "NO", "name": "Norway"}]}],
             "after": {"more": [1, 2, {"x": null}]}}

            """
        let project = try project(file: "nested.json", document, options: "    root: /a~1b/0/c~0d\n")
        let result = try project.seedkit("build", "--migrations", "none")
        expectEqual(result.status, 0, "\(result)")
        try expectEqual(rows(project), ["1|FR|France", "2|NO|Norway"])
    }

    @Test func rootThatFindsNoArrayNamesWhatIsThere() throws {
        let missing = try project(file: "iso.json", Self.isoCountries, options: "    root: /3166-2\n")
        let result = try missing.seedkit("build", "--migrations", "none")
        expectEqual(result.status, 1)
        expectEqual(
            result.stderr,
            "seeds/data/iso.json:1: error: root /3166-2: the object at the top has no key '3166-2' (it has 3166-1) [2001]\n",
            "\(result)")

        let notArray = try project(
            file: "doc.json", "{\"data\": {\"countries\": [{\"code\": \"FR\", \"name\": \"France\"}], \"count\": 1}}",
            options: "    root: /data\n")
        let second = try notArray.seedkit("build", "--migrations", "none")
        expectEqual(second.status, 1)
        expectEqual(
            second.stderr,
            "seeds/data/doc.json:1: error: root /data is an object with keys countries, count, not an array of objects; point at the array with root: /data/countries in the manifest [2001]\n",
            "\(second)")

        let scalar = try project(file: "doc.json", "[\"FR\", \"NO\"]", options: "    root: /1\n")
        let third = try scalar.seedkit("build", "--migrations", "none")
        expectEqual(third.status, 1)
        expectEqual(
            third.stderr, "seeds/data/doc.json:1: error: root /1 is a string, not an array of objects [2001]\n",
            "\(third)")
    }

    @Test func theDocumentAroundTheArrayMustBeWellFormed() throws {
        let trailing = try project(
            file: "doc.json", "{\"rows\": [{\"code\": \"FR\", \"name\": \"France\"}], \"x\": [1}\n",
            options: "    root: /rows\n")
        let result = try trailing.seedkit("build", "--migrations", "none")
        expectEqual(result.status, 1)
        expectEqual(result.stderr, "seeds/data/doc.json:1:53: error: JSON: unexpected '}' [2001]\n", "\(result)")
        #expect(!trailing.exists("build/seed.sqlite"))

        let cut = try project(
            file: "doc.json", "{\"rows\": [{\"code\": \"FR\", \"name\": \"France\"}], \"x\": [1,\n",
            options: "    root: /rows\n")
        let second = try cut.seedkit("build", "--migrations", "none")
        expectEqual(second.status, 1)
        expectEqual(
            second.stderr,
            "seeds/data/doc.json:2: error: unexpected end of file: the document around root /rows is not closed [2001]\n",
            "\(second)")
    }

    @Test func rootIsCheckedInTheManifest() throws {
        let project = try project(file: "iso.json", Self.isoCountries, options: "    root: 3166-1\n")
        let result = try project.seedkit("build", "--migrations", "none")
        expectEqual(result.status, 2)
        expectEqual(
            result.stderr,
            "seeds/seedkit.yml:7:11: error: root must be a JSON Pointer to the array of records, like /3166-1 (RFC 6901: '/' before each key; ~0 stands for ~ and ~1 for / in a key) [2100]\n",
            "\(result)")

        try project.write(
            "seeds/seedkit.yml", "schema: schema.sql\ntables:\n  countries:\n    file: data/c.csv\n    root: /rows\n")
        try project.write("seeds/data/c.csv", "code,name\nFR,France\n")
        let csv = try project.seedkit("build", "--migrations", "none")
        expectEqual(csv.status, 2)
        expectEqual(
            csv.stderr,
            "seeds/seedkit.yml:5:11: error: root: points into a JSON document (format json); data/c.csv is read as csv [2100]\n",
            "\(csv)")
    }

    // MARK: - columns: and ignore:

    @Test func csvFieldsMapOntoColumnsAndIgnoredFieldsAreDropped() throws {
        let project = try project(
            file: "c.csv", "alpha_2,alpha_3,name\nFR,FRA,France\nNO,NOR,Norway\n",
            options: "    columns: { code: alpha_2 }\n    ignore: [alpha_3]\n")
        let result = try project.seedkit("build", "--migrations", "none")
        expectEqual(result.status, 0, "\(result)")
        try expectEqual(rows(project), ["1|FR|France", "2|NO|Norway"])
    }

    @Test func errorsInMappedFieldsPointAtTheFixturesField() throws {
        let options =
            "    columns: { code: alpha_2 }\n    ignore: [alpha_3]\n    rules:\n      code: { pattern: \"^[A-Z]{2}$\" }\n"
        let csv = try project(
            file: "c.csv", "alpha_3,alpha_2,name\nFRA,FR,France\nNOR,nor,Norway\nXXX,FR,Again\n", options: options)
        let result = try csv.seedkit("build", "--migrations", "none")
        expectEqual(result.status, 1)
        expectEqual(
            result.stderr,
            """
            seeds/data/c.csv:3:2: error: alpha_2 'nor' does not match the pattern ^[A-Z]{2}$ [1680]
            seeds/data/c.csv:4:2: error: duplicate key alpha_2 'FR': line 2 has the same [2040]

            """, "\(result)")

        let json = try project(
            file: "c.json", "[{\"alpha_3\": \"FRA\", \"alpha_2\": 7, \"name\": \"France\"}]",
            options: "    columns: { code: alpha_2, name: alpha_3 }\n")
        let second = try json.seedkit("build", "--migrations", "none")
        expectEqual(second.status, 1)
        expectEqual(
            second.stderr,
            "seeds/data/c.json:1:3: error: key 'name' is not read: column name is filled from 'alpha_3' (columns:); list 'name' under ignore: to skip it [2020]\n",
            "\(second)")
    }

    @Test func unknownFieldsStayErrorsAndSayHowToMapOrIgnoreThem() throws {
        let csv = try project(
            file: "c.csv", "alpha_2,alpha_3,name\nFR,FRA,France\n", options: "    columns: { code: alpha_2 }\n")
        let result = try csv.seedkit("build", "--migrations", "none")
        expectEqual(result.status, 1)
        expectEqual(
            result.stderr,
            "seeds/data/c.csv:1:2: error: column 'alpha_3' names no column of table countries (it has id, code, name); map it with columns: or skip it with ignore: [2020]\n",
            "\(result)")

        let json = try project(
            file: "c.jsonl", "{\"code\": \"FR\", \"name\": \"France\", \"flag\": \"x\"}\n", options: "")
        let second = try json.seedkit("build", "--migrations", "none")
        expectEqual(second.status, 1)
        expectEqual(
            second.stderr,
            "seeds/data/c.jsonl:1:3: error: key 'flag' names no column of table countries (it has id, code, name); map it with columns: or skip it with ignore: [2020]\n",
            "\(second)")
    }

    @Test func theMappingIsCheckedAtItsManifestLines() throws {
        let project = try project(
            file: "c.csv", "alpha_2,name\nFR,France\n", options: "    columns: { code: alpha_2, name: alpha_2 }\n")
        let twice = try project.seedkit("build", "--migrations", "none")
        expectEqual(twice.status, 2)
        expectEqual(
            twice.stderr,
            "seeds/seedkit.yml:7:37: error: field 'alpha_2' is mapped twice (to code and to name); a field fills one column [2100]\n",
            "\(twice)")

        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\ntables:\n  countries:\n    file: data/c.csv\n    columns: { code: alpha_2 }\n    ignore: [flag, alpha_2]\n"
        )
        let both = try project.seedkit("build", "--migrations", "none")
        expectEqual(both.status, 2)
        expectEqual(
            both.stderr,
            "seeds/seedkit.yml:6:20: error: field 'alpha_2' is both ignored and mapped (columns: code: alpha_2); drop one [2100]\n",
            "\(both)")

        try project.write(
            "seeds/seedkit.yml",
            "schema: schema.sql\noutput: out.sqlite\ntables:\n  countries:\n    file: data/c.csv\n    columns: { kode: alpha_2 }\n"
        )
        let unknown = try project.seedkit("build", "--migrations", "none")
        expectEqual(unknown.status, 2)
        expectEqual(
            unknown.stderr,
            "seeds/seedkit.yml:6:16: error: table countries has no column 'kode' (it has id, code, name) [2100]\n",
            "\(unknown)")
    }

    @Test func newMigrationFromAMappedProjectWritesColumnNames() throws {
        let project = try project(
            file: "iso.json", Self.isoCountries,
            options: "    root: /3166-1\n    columns: { code: alpha_2 }\n    ignore: [alpha_3]\n")
        try expectEqual(project.seedkit("build", "--migrations", "none").status, 0)
        try FileManager.default.copyItem(
            atPath: project.path("build/seed.sqlite"), toPath: project.path("seeds/1.0.sqlite"))
        try project.write(
            "seeds/data/iso.json",
            Self.isoCountries.replacingOccurrences(
                of: "\"Norway\"}",
                with: "\"Norway\"},\n  {\"alpha_2\": \"SE\", \"alpha_3\": \"SWE\", \"name\": \"Sweden\"}"))
        let result = try project.seedkit("new-migration", "add sweden", "--from", "seeds/1.0.sqlite")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(
            String(decoding: try #require(project.read("migrations/0001-add-sweden.yml")), as: UTF8.self),
            """
            # 0001-add-sweden: generated by seedkit new-migration from seeds/1.0.sqlite
            insert:
              countries:
                - { code: "SE", name: "Sweden" }

            """)
    }
}

/// The repository's iso-codes example (Examples/IsoCodes): wrapped JSON, mapped and ignored fields, a self-reference.
@Suite struct IsoCodesExampleTests {
    private static let example: URL = {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return root.appendingPathComponent("Examples/IsoCodes")
    }()

    @Test func theExampleBuildsWithParentsResolvedByCode() throws {
        // The parents as iso-codes publishes them: by the part after the country, or by the whole code.
        let published = try String(
            contentsOf: Self.example.appendingPathComponent("seeds/data/iso_3166-2.json"), encoding: .utf8)
        #expect(published.contains("\"parent\": \"ARA\"") && published.contains("\"parent\": \"GB-ENG\""))
        let project = try TemporaryProject(bookStore: false)
        let result = try project.seedkit(
            "build", "--manifest", Self.example.appendingPathComponent("seeds/seedkit.yml").path,
            "--migrations", Self.example.appendingPathComponent("migrations").path, "--output", "seed.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(result.stdout.contains("  countries            3 rows\n  subdivisions         6 rows\n"), "\(result)")
        let rows = try project.database("seed.sqlite").read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT s.code, s.name, p.code FROM subdivisions s LEFT JOIN subdivisions p ON p.id = s.parent_id ORDER BY s.id"
            )
            .map { "\($0[0] as String)|\($0[1] as String)|\($0[2] as String? ?? "-")" }
        }
        expectEqual(
            rows,
            [
                "FR-ARA|Auvergne-Rhône-Alpes|-", "FR-01|Ain|FR-ARA", "FR-69|Rhône|FR-ARA", "GB-ENG|England|-",
                "GB-LND|London, City of|GB-ENG", "NO-50|Trøndelag|-",
            ])
        let countries = try project.database("seed.sqlite").read { db in
            try Row.fetchAll(db, sql: "SELECT code, name, official_name FROM countries ORDER BY id").map {
                "\($0[0] as String)|\($0[1] as String)|\($0[2] as String)"
            }
        }
        expectEqual(
            countries,
            [
                "FR|France|French Republic", "GB|United Kingdom|United Kingdom of Great Britain and Northern Ireland",
                "NO|Norway|Kingdom of Norway",
            ])
    }
}

/// Refs are shown by the parent's natural key in every report; `--raw` and JSON's `id` give the value stored.
@Suite struct RefsByKeyCommandTests {
    /// Subdivisions that name their parent by code (`parent_id: subdivisions.code`), built, and copied to `user.sqlite`.
    private func project() throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE subdivisions (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL, parent_id INTEGER REFERENCES subdivisions(id));\n"
        )
        try project.write(
            "seeds/seedkit.yml",
            """
            schema: schema.sql
            output: ../build/seed.sqlite
            tables:
              subdivisions:
                file: data/subdivisions.csv
                key: code
                columns: { parent_id: parent }
                refs: { parent_id: subdivisions.code }

            """)
        try project.write(
            "seeds/data/subdivisions.csv",
            "code,name,parent\nFR-ARA,Auvergne-Rhône-Alpes,\nFR-01,Ain,FR-ARA\nGB-ENG,England,\nNO-50,Trøndelag,\n")
        let build = try project.seedkit("build", "--migrations", "none")
        guard build.status == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(build)"])
        }
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("user.sqlite"))
        try project.write(
            "migrations/0001-reparent.yml",
            """
            update:
              subdivisions:
                - key: NO-50
                  from: { parent_id: null }
                  to: { parent_id: GB-ENG }
                - key: FR-01
                  from: { parent_id: GB-ENG }
                  to: { parent_id: NO-50 }

            """)
        return project
    }

    private static let report = """
          updated         subdivisions 'NO-50': parent_id NULL → 'GB-ENG'
          conflict        subdivisions 'FR-01': changed in the store (parent_id is 'FR-ARA', expected 'GB-ENG'); the store's values are kept

        """

    @Test func migrateAndDryRunShowRefChangesByTheParentsKey() throws {
        let project = try project()
        let dryRun = try project.seedkit("migrate", "user.sqlite", "--dry-run")
        expectEqual(dryRun.status, 0, "\(dryRun)")
        expectEqual(
            dryRun.stdout,
            "would apply 0001-reparent: 1 updated, 1 conflict\n" + Self.report
                + "dry run: nothing was written to user.sqlite\n", "\(dryRun)")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(
            result.stdout,
            "applied 0001-reparent: 1 updated, 1 conflict\n" + Self.report
                + "user.sqlite: 1 migration applied\n", "\(result)")
        expectEqual(
            result.stderr,
            "migrations/0001-reparent.yml:6: warning: conflict on subdivisions 'FR-01': changed in the store (parent_id is 'FR-ARA', expected 'GB-ENG'); the store's values are kept [2050]\n"
        )
    }

    @Test func withoutAManifestTheSeedsRecordedRefsNameTheParents() throws {
        let project = try project()
        try project.remove("seeds/seedkit.yml")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(
            result.stdout,
            "applied 0001-reparent: 1 updated, 1 conflict\n" + Self.report
                + "user.sqlite: 1 migration applied\n", "\(result)")
    }

    @Test func migrateJSONCarriesTheKeyAndTheIdOfEveryRef() throws {
        let project = try project()
        let result = try project.seedkit("migrate", "user.sqlite", "--format", "json")
        expectEqual(result.status, 0, "\(result)")
        #expect(
            result.stdout.contains(
                """
                          "changes": [
                            {
                              "column": "parent_id",
                              "old": {
                                "key": "GB-ENG",
                                "id": 3
                              },
                              "new": {
                                "key": "NO-50",
                                "id": 4
                              },
                              "kept": {
                                "key": "FR-ARA",
                                "id": 1
                              }
                            }
                          ],
                """), "\(result.stdout)")
        #expect(
            result.stdout.contains(
                """
                              "column": "parent_id",
                              "old": null,
                              "new": {
                                "key": "GB-ENG",
                                "id": 3
                              },
                """), "\(result.stdout)")
    }

    @Test func inspectShowsRefsByKeyAndRawShowsWhatIsStored() throws {
        let project = try project()
        let expected = """
            id  code    name                  parent_id
            --  ------  --------------------  ---------
            1   FR-ARA  Auvergne-Rhône-Alpes  NULL
            2   FR-01   Ain                   FR-ARA
            3   GB-ENG  England               NULL
            4   NO-50   Trøndelag             NULL

            """
        try expectEqual(project.seedkit("inspect", "user.sqlite", "subdivisions").stdout, expected)
        try expectEqual(
            project.seedkit("inspect", "user.sqlite", "subdivisions", "--raw", "--format", "csv").stdout,
            "id,code,name,parent_id\r\n1,FR-ARA,Auvergne-Rhône-Alpes,\r\n2,FR-01,Ain,1\r\n3,GB-ENG,England,\r\n4,NO-50,Trøndelag,\r\n"
        )
        let json = try project.seedkit(
            "inspect", "user.sqlite", "subdivisions", "--format", "json", "--where", "code LIKE 'FR%'", "--columns",
            "code,parent_id")
        expectEqual(
            json.stdout,
            """
            {
              "columns": [
                "code",
                "parent_id"
              ],
              "rows": [
                {
                  "code": "FR-ARA",
                  "parent_id": null
                },
                {
                  "code": "FR-01",
                  "parent_id": {
                    "key": "FR-ARA",
                    "id": 1
                  }
                }
              ],
              "omitted": 0
            }

            """, "\(json)")
        // Without a manifest, the refs the seed recorded; a ref no parent row has is shown as stored.
        try project.remove("seeds/seedkit.yml")
        try project.database("user.sqlite").writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "UPDATE subdivisions SET parent_id = 99 WHERE code = 'NO-50'")
        }
        try expectEqual(
            project.seedkit("inspect", "user.sqlite", "subdivisions", "--format", "csv").stdout,
            "id,code,name,parent_id\r\n1,FR-ARA,Auvergne-Rhône-Alpes,\r\n2,FR-01,Ain,FR-ARA\r\n3,GB-ENG,England,\r\n4,NO-50,Trøndelag,99\r\n"
        )
    }

    @Test func diffShowsRefsByKeyAndItsJSONGivesEachStoresId() throws {
        let project = try project()
        try expectEqual(project.seedkit("migrate", "user.sqlite").status, 0)
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "UPDATE subdivisions SET parent_id = 3 WHERE code = 'FR-01'")
        }
        let human = try project.seedkit("diff", "build/seed.sqlite", "user.sqlite")
        expectEqual(
            human.stdout,
            """
            subdivisions: 0 added, 0 removed, 2 changed (by code)
              ~ 'FR-01': parent_id 'FR-ARA' → 'GB-ENG'
              ~ 'NO-50': parent_id NULL → 'GB-ENG'

            """, "\(human)")
        let json = try project.seedkit("diff", "build/seed.sqlite", "user.sqlite", "--format", "json")
        #expect(
            json.stdout.contains(
                """
                          "key": [
                            "FR-01"
                          ],
                          "columns": [
                            {
                              "column": "parent_id",
                              "old": {
                                "key": "FR-ARA",
                                "id": 1
                              },
                              "new": {
                                "key": "GB-ENG",
                                "id": 3
                              }
                            }
                          ]
                """), "\(json.stdout)")
        #expect(
            json.stdout.contains(
                """
                              "column": "parent_id",
                              "old": null,
                              "new": {
                                "key": "GB-ENG",
                                "id": 3
                              }
                """), "\(json.stdout)")
    }

    @Test func verifyChecksARefsRulesOnTheParentsKeyAsTheBuildDid() throws {
        let project = try project()
        try project.write(
            "seeds/seedkit.yml",
            String(decoding: try #require(project.read("seeds/seedkit.yml")), as: UTF8.self)
                + "    rules:\n      parent_id: { pattern: \"^[A-Z]{2}-[A-Z]{3}$\" }\n")
        try expectEqual(
            project.seedkit("build", "--migrations", "none").status, 0, "the fixture's parent FR-ARA passes")
        let ok = try project.seedkit("verify", "user.sqlite")
        expectEqual(
            ok.stdout, "user.sqlite: ok (integrity_check with CHECK constraints, foreign keys, rules and checks)\n",
            "\(ok)")
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "UPDATE subdivisions SET parent_id = 2 WHERE code = 'NO-50'")
        }
        let bad = try project.seedkit("verify", "user.sqlite")
        expectEqual(bad.status, 1)
        expectEqual(
            bad.stdout,
            "user.sqlite: subdivisions[NO-50].parent_id: parent_id 'FR-01' does not match the pattern ^[A-Z]{2}-[A-Z]{3}$ [1680]\nuser.sqlite: 1 problem\n",
            "\(bad)")
    }
}

/// A natural key that holds a ref: verify names the row by the parent's key, not its id.
@Suite struct RefInKeyVerifyTests {
    @Test func verifyNamesARowWhoseKeyHoldsARefByTheParentsKey() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            """
            CREATE TABLE countries (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE);
            CREATE TABLE subdivisions (id INTEGER PRIMARY KEY, country_id INTEGER NOT NULL REFERENCES countries(id), code TEXT NOT NULL,
                                       parent_id INTEGER REFERENCES subdivisions(id), name TEXT, UNIQUE (country_id, code));

            """)
        try project.write(
            "seeds/seedkit.yml",
            """
            schema: schema.sql
            output: ../build/seed.sqlite
            tables:
              countries: { file: data/countries.csv, key: code }
              subdivisions:
                file: data/subdivisions.csv
                key: [country_id, code]
                refs: { country_id: countries.code }
                rules:
                  name: { min_length: 2 }

            """)
        try project.write("seeds/data/countries.csv", "code\nFR\nNO\n")
        try project.write(
            "seeds/data/subdivisions.csv", "country_id,code,name\nNO,50,Trøndelag\nFR,ARA,Auvergne-Rhône-Alpes\n")
        try expectEqual(project.seedkit("build", "--migrations", "none").status, 0)
        try project.database("build/seed.sqlite").writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "UPDATE subdivisions SET parent_id = 99, name = 'T' WHERE code = '50'")
        }
        let result = try project.seedkit("verify", "build/seed.sqlite")
        expectEqual(result.status, 1)
        expectEqual(
            result.stdout,
            """
            build/seed.sqlite: subdivisions[NO, 50]: references a missing row of subdivisions [2030]
            build/seed.sqlite: subdivisions[NO, 50].name: name 'T' is 1 characters long, shorter than the minimum 2 [1670]
            build/seed.sqlite: 2 problems

            """, "\(result)")
    }
}
