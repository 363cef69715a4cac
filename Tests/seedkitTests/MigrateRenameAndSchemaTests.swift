import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import SeedTooling
import Testing

/// `migrate` reports every problem of the migrations in one run, as `build` does.
@Suite struct MigrateAllErrorsTests {
    @Test func everyValidationErrorOfTheRunIsReportedAndRowsFailingRulesStillTakePart() throws {
        let project = try IsoCodes.projectWithUserStore()
        try project.write(
            "migrations/0001-new.yml",
            """
            insert:
              countries:
                - { alpha_2: XA, name: A country whose name is far too long to fit }
                - { alpha_2: XA, name: Another country whose name is also too long }
              subdivisions:
                - { code: XA-01, name: One, type: Shire, country_id: XA }
                - { code: bad, name: Two, type: County, country_id: XA }

            """)
        try project.write(
            "migrations/0002-more.yml",
            """
            insert:
              subdivisions:
                - { code: NO-77, name: Three, type: County, country_id: "NO", parent_id: NO-78 }
              planets:
                - { name: Mars }

            """)
        let bytes = try #require(project.read("user.sqlite"))
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 2, "\(result)")
        expectEqual(
            result.stderr,
            """
            migrations/0001-new.yml:3: error: countries: name 'A country whose name is far too long to …' is 43 characters long, longer than the maximum 40 [1660]
            migrations/0001-new.yml:4: error: countries: name 'Another country whose name is also too l…' is 43 characters long, longer than the maximum 40 [1660]
            migrations/0001-new.yml:4: error: cannot insert 'Another country whose name is also too long' into countries: UNIQUE constraint failed: countries.alpha_2 [2040]
            migrations/0001-new.yml:6: error: subdivisions: type 'Shire' is not one of County, Municipality, Province, Region [1550]
            migrations/0001-new.yml:7: error: subdivisions: code 'bad' does not match the pattern ^[A-Z]{2}-[0-9A-Z]{1,4}$ [1680]
            migrations/0002-more.yml: error: unknown table 'planets': the store has countries, subdivisions [2100]
            migrations/0002-more.yml:3: error: subdivisions 'NO-77': parent_id 'NO-78' matches no subdivisions.code in the fixtures, the store or any migration; nothing was written [2030]

            """)
        expectEqual(project.read("user.sqlite"), bytes)
    }
}

/// An update may change key columns: the row keeps its identity and what refers to it (docs/releases.md, "Renames").
@Suite struct MigrateRenameTests {
    static let turkiye = """
        update:
          countries:
            - key: Turkey
              from: { name: Turkey, official_name: Republic of Turkey }
              to: { name: Türkiye, official_name: Republic of Türkiye }

        """

    private func country(_ project: TemporaryProject, _ store: String = "user.sqlite") throws -> [String] {
        try project.database(store).read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT id || ' ' || alpha_2 || ' ' || name || ' / ' || coalesce(official_name, '') FROM countries ORDER BY id"
            )
        }
    }

    @Test func renamingAKeyKeepsTheRowItsIdAndTheRowsThatReferToIt() throws {
        let project = try IsoCodes.projectWithUserStore()
        let before = try country(project)
        expectEqual(before, ["1 NO Norway / Kingdom of Norway", "2 TR Turkey / Republic of Turkey"])
        try project.write("migrations/0001-turkiye.yml", Self.turkiye)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(result.stdout.contains("applied 0001-turkiye: 1 updated\n"), "\(result)")
        expectEqual(result.stderr, "")
        try expectEqual(country(project), ["1 NO Norway / Kingdom of Norway", "2 TR Türkiye / Republic of Türkiye"])
        let ankara = try project.database("user.sqlite").read { db in
            try String.fetchOne(
                db,
                sql: "SELECT c.name FROM subdivisions s JOIN countries c ON c.id = s.country_id WHERE s.code = 'TR-06'")
        }
        expectEqual(ankara, "Türkiye")

        // The same rename again (a later migration, or a store that already has it) is up to date.
        try project.write("migrations/0002-turkiye-again.yml", Self.turkiye)
        let bytes = try #require(project.read("user.sqlite"))
        let again = try project.seedkit("migrate", "user.sqlite", "--dry-run")
        expectEqual(again.status, 0, "\(again)")
        #expect(
            again.stdout.contains("up-to-date      countries 'Turkey': already up to date (renamed to 'Türkiye')"),
            "\(again)")
        expectEqual(project.read("user.sqlite"), bytes)
    }

    @Test func aRenameOfARowTheUserChangedIsAConflict() throws {
        let project = try IsoCodes.projectWithUserStore()
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "UPDATE countries SET official_name = 'Türkiye Cumhuriyeti' WHERE name = 'Turkey'")
        }
        try project.write("migrations/0001-turkiye.yml", Self.turkiye)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(
            result.stderr,
            """
            migrations/0001-turkiye.yml:3: warning: conflict on countries 'Turkey': changed in the store (official_name is 'Türkiye Cumhuriyeti', expected 'Republic of Turkey'); the store's values are kept [2050]

            """)
        try expectEqual(country(project), ["1 NO Norway / Kingdom of Norway", "2 TR Turkey / Türkiye Cumhuriyeti"])
    }

    @Test func aRenameToAKeyAnotherRowHasIsAConflictNotADuplicate() throws {
        let project = try IsoCodes.projectWithUserStore()
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "INSERT INTO countries (alpha_2, name) VALUES ('XT', 'Türkiye')")
        }
        try project.write("migrations/0001-turkiye.yml", Self.turkiye)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(
            result.stderr,
            """
            migrations/0001-turkiye.yml:3: warning: conflict on countries 'Turkey': the new key 'Türkiye' is already taken by another row; not renamed [2050]

            """)
        try expectEqual(
            country(project),
            [
                "1 NO Norway / Kingdom of Norway", "2 TR Turkey / Republic of Turkey", "3 XT Türkiye / ",
            ])
    }

    @Test func rowsThatStoreTheRenamedValueFollowIt() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/seedkit.yml",
            """
            schema: schema.sql
            output: ../build/seed.sqlite
            tables:
              countries: { file: data/countries.csv, key: name }
              cities: { file: data/cities.csv, key: name, refs: { country: countries.name } }

            """)
        try project.write(
            "seeds/schema.sql",
            """
            CREATE TABLE countries (name TEXT PRIMARY KEY NOT NULL, alpha_2 TEXT NOT NULL);
            CREATE TABLE cities (name TEXT PRIMARY KEY NOT NULL, country TEXT NOT NULL REFERENCES countries(name));

            """)
        try project.write("seeds/data/countries.csv", "name,alpha_2\nTurkey,TR\nNorway,NO\n")
        try project.write("seeds/data/cities.csv", "name,country\nAnkara,Turkey\nIstanbul,Turkey\nOslo,Norway\n")
        try expectEqual(project.seedkit("build", "--migrations", "none").status, 0)
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("user.sqlite"))
        try project.write(
            "migrations/0001-turkiye.yml",
            "update:\n  countries:\n    - { key: Turkey, from: { name: Turkey }, to: { name: Türkiye } }\n")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        let cities = try project.database("user.sqlite").read { db in
            try String.fetchAll(db, sql: "SELECT name || '/' || country FROM cities ORDER BY name")
        }
        expectEqual(cities, ["Ankara/Türkiye", "Istanbul/Türkiye", "Oslo/Norway"])
        try expectEqual(project.seedkit("verify", "user.sqlite").status, 0)
    }
}

/// Schema steps run in the same ordered history and transaction as data steps.
@Suite struct MigrateSchemaStepTests {
    static let addCapital = "ALTER TABLE countries ADD COLUMN capital TEXT;\n"
    static let capitals = """
        update:
          countries:
            - { key: Norway, from: { capital: null }, to: { capital: Oslo } }
        insert:
          countries:
            - { alpha_2: XK, name: Kosovo, capital: Pristina }

        """

    private func capitals(_ project: TemporaryProject) throws -> [String] {
        try project.database("user.sqlite").read { db in
            try String.fetchAll(db, sql: "SELECT name || '=' || coalesce(capital, '-') FROM countries ORDER BY id")
        }
    }

    @Test func aDataMigrationUsesAColumnAnEarlierSQLStepOfTheRunAdded() throws {
        for manifest in ["seeds/seedkit.yml", "none"] {
            let project = try IsoCodes.projectWithUserStore()
            try project.write(
                "seeds/schema.sql",
                IsoCodes.schema.replacingOccurrences(
                    of: "official_name TEXT\n", with: "official_name TEXT,\n    capital TEXT\n"))
            try project.write("migrations/0001-add-capital.sql", Self.addCapital)
            try project.write("migrations/0002-capitals.yml", Self.capitals)
            let result = try project.seedkit("migrate", "user.sqlite", "--manifest", manifest)
            expectEqual(result.status, 0, "\(manifest): \(result)")
            try expectEqual(capitals(project), ["Norway=Oslo", "Turkey=-", "Kosovo=Pristina"], "\(manifest)")
        }
    }

    @Test func aRowWaitingForItsParentGetsItFromALaterSQLStep() throws {
        let project = try IsoCodes.projectWithUserStore()
        try project.write(
            "migrations/0001-nordland.yml",
            "insert:\n  subdivisions:\n    - { code: NO-18, name: Nordland, type: County, country_id: NO, parent_id: NO-99 }\n"
        )
        try project.write(
            "migrations/0002-nord.sql",
            "INSERT INTO subdivisions (code, name, type, country_id) SELECT 'NO-99', 'Nord', 'Region', id FROM countries WHERE alpha_2 = 'NO';\n"
        )
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(
            result.stdout.contains("applied 0001-nordland: 1 inserted\n  inserted        subdivisions 'NO-18'\n"),
            "\(result)")
        #expect(try subdivisionTree(project).contains("NO-18<NO-99@NO"))
    }

    @Test func aFailingDataStepAfterASchemaStepLeavesTheStoreAsItWas() throws {
        let project = try IsoCodes.projectWithUserStore()
        try project.write("migrations/0001-add-capital.sql", Self.addCapital)
        try project.write(
            "migrations/0002-capitals.yml",
            Self.capitals.replacingOccurrences(of: "capital: Pristina", with: "capitol: Pristina"))
        let bytes = try #require(project.read("user.sqlite"))
        let result = try project.seedkit("migrate", "user.sqlite", "--manifest", "none")
        expectEqual(result.status, 2, "\(result)")
        #expect(
            result.stderr.contains("migrations/0002-capitals.yml:6: error: countries has no column 'capitol'"),
            "\(result)")
        expectEqual(project.read("user.sqlite"), bytes, "the ALTER TABLE was rolled back with the rest")
    }

    @Test func theAppRuntimeAppliesASchemaStepThenTheDataThatNeedsIt() throws {
        let project = try IsoCodes.projectWithUserStore()
        // The new release: schema with the column and a new table, its seed built with both migrations.
        try project.write(
            "seeds/schema.sql",
            IsoCodes.schema.replacingOccurrences(
                of: "official_name TEXT\n", with: "official_name TEXT,\n    capital TEXT\n")
                + "CREATE TABLE currencies (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, country_id INTEGER REFERENCES countries(id));\n"
        )
        try project.write(
            "seeds/seedkit.yml",
            IsoCodes.manifest
                + "  currencies:\n    file: data/currencies.csv\n    key: code\n    refs: { country_id: countries.alpha_2 }\n"
        )
        try project.write("seeds/data/currencies.csv", "code,country_id\nNOK,NO\n")
        try project.write(
            "migrations/0001-add-capital.sql",
            Self.addCapital
                + "CREATE TABLE currencies (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, country_id INTEGER REFERENCES countries(id));\n"
        )
        try project.write(
            "migrations/0002-capitals.yml", Self.capitals + "  currencies:\n    - { code: NOK, country_id: \"NO\" }\n")
        try expectEqual(project.seedkit("export-migrations", "app/migrations").status, 0)
        try project.write(
            "seeds/data/countries.csv",
            "alpha_2,name,official_name,capital\nNO,Norway,Kingdom of Norway,Oslo\nTR,Turkey,Republic of Turkey,\nXK,Kosovo,,Pristina\n"
        )
        let build = try project.seedkit("build", "--output", "app/seed.sqlite")
        expectEqual(build.status, 0, "\(build)")
        let installer = SeedInstaller(
            store: project.url("user.sqlite"), seed: project.url("app/seed.sqlite"),
            migrations: try MigrationDirectory.load(project.url("app/migrations")))
        let outcome = try installer.prepareStore()
        guard case .migrated(let report) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        expectEqual(report.migrations.map(\.id), ["0001-add-capital", "0002-capitals"])
        try expectEqual(capitals(project), ["Norway=Oslo", "Turkey=-", "Kosovo=Pristina"])
        let nok = try project.database("user.sqlite").read { db in
            try String.fetchOne(
                db,
                sql:
                    "SELECT c.alpha_2 FROM currencies JOIN countries c ON c.id = currencies.country_id WHERE code = 'NOK'"
            )
        }
        expectEqual(nok, "NO", "the new table's ref resolved through the seed's catalog")
    }
}
