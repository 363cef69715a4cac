import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import SeedTooling
import Testing

/// Each subdivision as `code<parent@country`, in code order.
func subdivisionTree(_ project: TemporaryProject, _ store: String = "user.sqlite") throws -> [String] {
    try project.database(store).read { db in
        try String.fetchAll(
            db,
            sql: """
                SELECT s.code || '<' || coalesce(p.code, '') || '@' || c.alpha_2
                FROM subdivisions s LEFT JOIN subdivisions p ON p.id = s.parent_id JOIN countries c ON c.id = s.country_id
                ORDER BY s.code
                """)
    }
}

/// Refs in migrations resolve in any order (docs/releases.md, "Refs resolve in any order"): seedkit orders the inserts, not the author.
@Suite struct MigrateDependencyOrderTests {
    static let childrenFirst = """
        insert:
          subdivisions:
            - { code: NO-1804, name: Bodø, type: Municipality, country_id: "NO", parent_id: NO-18 }
            - { code: NO-18, name: Nordland, type: County, country_id: "NO", parent_id: NO-99 }
            - { code: XK-01, name: Pristina, type: Region, country_id: XK }
            - { code: NO-99, name: Nord, type: Region, country_id: "NO" }
          countries:
            - { alpha_2: XK, name: Kosovo }

        """

    @Test func childrenListedBeforeTheirParentsAreInsertedWithTheirRefs() throws {
        let project = try IsoCodes.projectWithUserStore()
        try project.write("migrations/0001-nordland.yml", Self.childrenFirst)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(
            result.stdout,
            """
            applied 0001-nordland: 5 inserted
              inserted        subdivisions 'NO-1804'
              inserted        subdivisions 'NO-18'
              inserted        subdivisions 'XK-01'
              inserted        subdivisions 'NO-99'
              inserted        countries 'Kosovo'
            user.sqlite: 1 migration applied

            """)
        expectEqual(result.stderr, "")
        try expectEqual(
            subdivisionTree(project),
            [
                "NO-03<@NO", "NO-0301<NO-03@NO", "NO-18<NO-99@NO", "NO-1804<NO-18@NO", "NO-50<@NO", "NO-99<@NO",
                "TR-06<@TR", "XK-01<@XK",
            ])
        let bytes = try #require(project.read("user.sqlite"))
        let again = try project.seedkit("migrate", "user.sqlite")
        expectEqual(again.stdout, "user.sqlite is up to date: no pending migrations\n")
        expectEqual(project.read("user.sqlite"), bytes)
    }

    @Test func aRefMayNameARowALaterMigrationOfTheRunInserts() throws {
        let project = try IsoCodes.projectWithUserStore()
        try project.write(
            "migrations/0001-nordland.yml",
            "insert:\n  subdivisions:\n    - { code: NO-18, name: Nordland, type: County, country_id: \"NO\", parent_id: NO-99 }\n"
        )
        try project.write(
            "migrations/0002-nord.yml",
            "insert:\n  subdivisions:\n    - { code: NO-99, name: Nord, type: Region, country_id: \"NO\" }\n")
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(
            result.stdout,
            """
            applied 0001-nordland: 1 inserted
              inserted        subdivisions 'NO-18'
            applied 0002-nord: 1 inserted
              inserted        subdivisions 'NO-99'
            user.sqlite: 2 migrations applied

            """)
        #expect(try subdivisionTree(project).contains("NO-18<NO-99@NO"))
    }

    @Test func aCycleThroughANullableRefIsInsertedThenLinked() throws {
        let project = try IsoCodes.projectWithUserStore()
        try project.write(
            "migrations/0001-loop.yml",
            """
            insert:
              subdivisions:
                - { code: NO-71, name: A, type: County, country_id: "NO", parent_id: NO-72 }
                - { code: NO-72, name: B, type: County, country_id: "NO", parent_id: NO-71 }

            """)
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        #expect(result.stdout.contains("applied 0001-loop: 2 inserted\n"), "\(result)")
        let tree = try subdivisionTree(project)
        #expect(tree.contains("NO-71<NO-72@NO") && tree.contains("NO-72<NO-71@NO"), "\(tree)")
    }

    @Test func aCycleOfNotNullRefsIsAnErrorNamingTheRows() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/seedkit.yml",
            """
            schema: schema.sql
            output: ../build/seed.sqlite
            tables:
              people:
                file: data/people.csv
                key: name
                refs: { partner_id: people.name }

            """)
        try project.write(
            "seeds/schema.sql",
            "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, partner_id INTEGER NOT NULL REFERENCES people(id));\n"
        )
        try project.write("seeds/data/people.csv", "name,partner_id\n")
        try expectEqual(project.seedkit("build", "--migrations", "none").status, 0)
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("user.sqlite"))
        try project.write(
            "migrations/0001-couple.yml",
            """
            insert:
              people:
                - { name: Ann, partner_id: Bob }
                - { name: Bob, partner_id: Ann }
                - { name: Cy, partner_id: Ann }

            """)
        let bytes = try #require(project.read("user.sqlite"))
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderr,
            """
            migrations/0001-couple.yml:3: error: people 'Ann' and people 'Bob' reference each other through NOT NULL refs (people 'Ann'.partner_id → 'Bob', people 'Bob'.partner_id → 'Ann'), so none of them can be inserted first; break the cycle, or make one of the refs nullable [2030]

            """)
        expectEqual(project.read("user.sqlite"), bytes)
    }

    @Test func theAppRuntimeResolvesTheSameOrderWithoutAManifest() throws {
        let project = try IsoCodes.projectWithUserStore()
        try project.write(
            "app/migrations/0001-nordland.json",
            """
            {"insert": {"subdivisions": [
              {"code": "NO-1804", "name": "Bodø", "type": "Municipality", "country_id": "NO", "parent_id": "NO-18"},
              {"code": "NO-18", "name": "Nordland", "type": "County", "country_id": "NO", "parent_id": "NO-99"},
              {"code": "XK-01", "name": "Pristina", "type": "Region", "country_id": "XK"},
              {"code": "NO-99", "name": "Nord", "type": "Region", "country_id": "NO"}],
             "countries": [{"alpha_2": "XK", "name": "Kosovo"}]}}
            """)
        let installer = SeedInstaller(
            store: project.url("user.sqlite"), seed: project.url("build/seed.sqlite"),
            migrations: try MigrationDirectory.load(project.url("app/migrations")))
        let outcome = try installer.prepareStore()
        guard case .migrated(let report) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        expectEqual(
            report.migrations.flatMap(\.events).map { "\($0.kind.rawValue) \($0.table) \($0.keyDescription)" },
            [
                "inserted subdivisions 'NO-1804'", "inserted subdivisions 'NO-18'", "inserted subdivisions 'XK-01'",
                "inserted subdivisions 'NO-99'", "inserted countries 'Kosovo'",
            ])
        #expect(try subdivisionTree(project).contains("NO-1804<NO-18@NO"))
        #expect(try subdivisionTree(project).contains("XK-01<@XK"))
    }
}

/// A ref to a key nobody provides is the author's typo; a ref to a row the user deleted is a conflict.
@Suite struct MigrateUnknownReferenceTests {
    @Test func aRefToAKeyNoFixtureAndNoMigrationProvidesIsAnError() throws {
        let project = try IsoCodes.projectWithUserStore()
        try project.write(
            "migrations/0001-typo.yml",
            """
            insert:
              subdivisions:
                - { code: NO-42, name: Agder, type: County, country_id: NX }
                - { code: NO-4201, name: Arendal, type: Municipality, country_id: "NO", parent_id: NO-42 }

            """)
        let bytes = try #require(project.read("user.sqlite"))
        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 1, "\(result)")
        expectEqual(
            result.stderr,
            """
            migrations/0001-typo.yml:3: error: subdivisions 'NO-42': country_id 'NX' matches no countries.alpha_2 in the fixtures, the store or any migration; nothing was written [2030]

            """)
        expectEqual(project.read("user.sqlite"), bytes)
    }

    @Test func aParentTheUserDeletedIsAConflictNamingBothKeys() throws {
        let project = try IsoCodes.projectWithUserStore()
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "DELETE FROM subdivisions WHERE code IN ('NO-0301', 'NO-03')")
        }
        try project.write(
            "migrations/0001-oslo.yml",
            """
            insert:
              subdivisions:
                - { code: NO-0302, name: Frogner, type: Municipality, country_id: "NO", parent_id: NO-03 }
                - { code: NO-5001, name: Trondheim, type: Municipality, country_id: "NO", parent_id: NO-50 }

            """)
        let bytes = try #require(project.read("user.sqlite"))
        let failing = try project.seedkit("migrate", "user.sqlite", "--on-conflict", "fail")
        expectEqual(failing.status, 1, "\(failing)")
        expectEqual(
            failing.stderr,
            """
            migrations/0001-oslo.yml:3: error: conflict on subdivisions 'NO-0302': parent_id 'NO-03' matches no subdivisions.code in the store (the user deleted it?); --on-conflict fail: nothing was written [2050]

            """)
        expectEqual(project.read("user.sqlite"), bytes)

        let result = try project.seedkit("migrate", "user.sqlite")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(
            result.stdout,
            """
            applied 0001-oslo: 1 inserted, 1 conflict
              conflict        subdivisions 'NO-0302': parent_id 'NO-03' matches no subdivisions.code in the store (the user deleted it?); row not inserted
              inserted        subdivisions 'NO-5001'
            user.sqlite: 1 migration applied

            """)
        expectEqual(
            result.stderr,
            """
            migrations/0001-oslo.yml:3: warning: conflict on subdivisions 'NO-0302': parent_id 'NO-03' matches no subdivisions.code in the store (the user deleted it?); row not inserted [2050]

            """)
        try expectEqual(subdivisionTree(project), ["NO-50<@NO", "NO-5001<NO-50@NO", "TR-06<@TR"])
    }

    @Test func theRuntimeReportNamesTheChildAndTheMissingParent() throws {
        let project = try IsoCodes.projectWithUserStore()
        try project.database("user.sqlite").write { db in
            try db.execute(sql: "DELETE FROM subdivisions WHERE code IN ('NO-0301', 'NO-03')")
        }
        try project.write(
            "app/migrations/0001-oslo.json",
            #"{"insert": {"subdivisions": [{"code": "NO-0302", "name": "Frogner", "type": "Municipality", "country_id": "NO", "parent_id": "NO-03"}]}}"#
        )
        let migrations = try MigrationDirectory.load(project.url("app/migrations"))
        let report = try SeedMigrator(migrations: migrations).migrate(
            try DatabaseQueue(path: project.path("user.sqlite")))
        expectEqual(
            report.attention.map { "\($0.kind.rawValue) \($0.table) \($0.keyDescription): \($0.detail)" },
            [
                "conflict subdivisions 'NO-0302': parent_id 'NO-03' matches no subdivisions.code in the store (the user deleted it?); row not inserted"
            ])
    }
}
