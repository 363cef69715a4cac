import Foundation
import GRDB
import SeedTestSupport
import Testing

/// Issue 35: the changed-properties masks (`ZCOLUMNS`) of a SwiftData entity with a composite
/// attribute and a one-to-many to itself, as Apple wrote them in ChefTime's store
/// (jdeda/iOS-ChefTime@aac1b60, `ChefTime/Resources/mock.store`: 78 `SDFolder` updates `0080`
/// for `recipes`, 3 `8000` for `parentFolder`; docs/swiftdata.md, "Composite attributes").
///
/// The store cannot be committed (no licence): Examples/SwiftDataStore/make-store.py `--folders`
/// writes one of the same shape (`ZFOLDER` column for column as `ZSDFOLDER`).
@Suite struct SwiftDataHistoryMaskTests {
    static let indian = "A0000000-0000-4000-8000-000000000001"
    static let curry = "A0000000-0000-4000-8000-000000000002"
    static let sauces = "A0000000-0000-4000-8000-000000000003"
    static let dal = "B0000000-0000-4000-8000-000000000001"

    /// The app's store: folders Indian (Curry inside it) and Sauces, a recipe Dal in Curry, no history yet.
    private func chefStore() throws -> TemporaryProject {
        let project = try swiftDataStore(editing: [
            ("if \"--folders\" in sys.argv:\n    sys.argv.remove(\"--folders\")\n", "if True:\n")
        ])
        func blob(_ uuid: String) -> String { "x'" + uuid.replacingOccurrences(of: "-", with: "") + "'" }
        try project.database("app.store").write { db in
            try db.execute(
                sql: """
                    INSERT INTO ZFOLDER (Z_PK, Z_ENT, Z_OPT, ZPARENTFOLDER, ZUSER, ZNAME, ZID) VALUES
                        (1, 3, 1, NULL, 'user', 'Indian', \(blob(Self.indian))),
                        (2, 3, 1, 1, 'user', 'Curry', \(blob(Self.curry))),
                        (3, 3, 1, NULL, 'user', 'Sauces', \(blob(Self.sauces)));
                    INSERT INTO ZRECIPE (Z_PK, Z_ENT, Z_OPT, ZPARENTFOLDER, ZNAME, ZID) VALUES (1, 4, 1, 2, 'Dal', \(blob(Self.dal)));
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 3 WHERE Z_ENT = 3;
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_ENT = 4;
                    """)
        }
        return project
    }

    private static let changes =
        "SELECT ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS FROM ACHANGE ORDER BY Z_PK"

    /// Adding a recipe to a folder was refused in a store with history (exit 3: `SDFolder` has a
    /// composite and a one-to-many to itself).
    ///
    /// Core Data records the folder's `recipes` changing, and the mask is Apple's for it: `0080`.
    @Test func addingARecipeRecordsItsFolderWithApplesMask() throws {
        let project = try chefStore()
        try project.write(
            "migrations/0001-vindaloo.yml",
            """
            insert:
              Recipe:
                - { id: B0000000-0000-4000-8000-000000000002, name: Vindaloo, parentFolder: \(Self.curry) }
            """)
        let migrate = try project.seedkit("migrate", "app.store")
        expectEqual(migrate.status, 0, "\(migrate)")
        try expectEqual(
            project.rows("app.store", "SELECT ZNAME, ZPARENTFOLDER FROM ZRECIPE ORDER BY Z_PK"),
            [
                "'Dal'|2", "'Vindaloo'|2",
            ])
        try expectEqual(project.rows("app.store", Self.changes), ["0|4|2|NULL", "1|3|2|X'0080'"])
    }

    /// Deleting a recipe updates its folder's `recipes`, as Apple's Tx 14–21 do: `0080`.
    @Test func deletingARecipeRecordsItsFolderWithApplesMask() throws {
        let project = try chefStore()
        try project.write(
            "migrations/0001-no-dal.yml",
            """
            delete:
              Recipe:
                - { key: \(Self.dal), from: { name: Dal } }
            """)
        let migrate = try project.seedkit("migrate", "app.store")
        expectEqual(migrate.status, 0, "\(migrate)")
        try expectEqual(project.rows("app.store", "SELECT count(*) FROM ZRECIPE"), ["0"])
        try expectEqual(project.rows("app.store", Self.changes), ["1|3|2|X'0080'", "2|4|1|NULL"])
    }

    /// Moving a folder changes both parents' `folders`, a one-to-many to the entity itself, which
    /// ChefTime's rows place after `recipes` or nowhere: refused (exit 3), naming it, the store
    /// untouched.
    ///
    /// The moved folder's own update (`parentFolder`, `8000` as Apple's) is certain.
    @Test func movingAFolderIsRefusedNotGuessed() throws {
        let project = try chefStore()
        try project.write(
            "migrations/0001-move.yml",
            """
            update:
              Folder:
                - { key: \(Self.curry), from: { parentFolder: \(Self.indian) }, to: { parentFolder: \(Self.sauces) } }
            """)
        let before = try #require(project.read("app.store"))
        let migrate = try project.seedkit("migrate", "app.store")
        expectEqual(migrate.status, 3, "\(migrate)")
        #expect(
            migrate.stderr.contains(
                "cannot record the update of Folder in the store's persistent history: Folder.folders is a to-many relationship to Folder itself, and no real store shows whether it counts in the changed-properties mask (ZCOLUMNS)"
            ), "\(migrate)")
        expectEqual(project.read("app.store"), before)
        let without = try project.seedkit("migrate", "app.store", "--without-history")
        expectEqual(without.status, 0, "\(without)")
        try expectEqual(project.rows("app.store", "SELECT ZPARENTFOLDER FROM ZFOLDER WHERE Z_PK = 2"), ["3"])
    }

    /// Renaming a folder changes an attribute of an entity whose composite's elements no store
    /// places among its attributes: still refused (exit 3), naming why, the store untouched;
    /// `--without-history` writes it.
    @Test func renamingAFolderIsRefusedNotGuessed() throws {
        let project = try chefStore()
        try project.write(
            "migrations/0001-rename.yml",
            """
            update:
              Folder:
                - { key: \(Self.indian), from: { name: Indian }, to: { name: South Asian } }
            """)
        let before = try #require(project.read("app.store"))
        let migrate = try project.seedkit("migrate", "app.store")
        expectEqual(migrate.status, 3, "\(migrate)")
        #expect(
            migrate.stderr.contains(
                "cannot record the update of Folder in the store's persistent history: where Folder.name counts in the changed-properties mask (ZCOLUMNS) depends on how the elements of Folder's composite attribute folderType (a Codable enum or struct) count among its attributes"
            ), "\(migrate)")
        #expect(migrate.stderr.contains("--without-history"), "\(migrate)")
        expectEqual(project.read("app.store"), before)
        let without = try project.seedkit("migrate", "app.store", "--without-history")
        expectEqual(without.status, 0, "\(without)")
        try expectEqual(project.rows("app.store", "SELECT ZNAME FROM ZFOLDER WHERE Z_PK = 1"), ["'South Asian'"])
        try expectEqual(project.rows("app.store", "SELECT count(*) FROM ACHANGE"), ["0"])
    }

    /// pegase: a migration with several updates history cannot record named only the first
    /// (the run stopped there).
    ///
    /// Every refusal is named, once each (exit 3, the store untouched): Indian's and Sauces'
    /// `folders` for the move, Curry's `name` for the rename.
    @Test func everyRefusalOfAMigrationIsNamed() throws {
        let project = try chefStore()
        try project.write(
            "migrations/0001-move-and-rename.yml",
            """
            update:
              Folder:
                - { key: \(Self.curry), from: { parentFolder: \(Self.indian), name: Curry }, to: { parentFolder: \(Self.sauces), name: Curries } }
            """)
        let before = try #require(project.read("app.store"))
        let migrate = try project.seedkit("migrate", "app.store")
        expectEqual(migrate.status, 3, "\(migrate)")
        let refusals = migrate.stderrLines.filter { $0.contains("cannot record the update of Folder") }
        expectEqual(refusals.count, 2, "\(migrate)")
        #expect(
            migrate.stderr.contains(
                "Folder.folders is a to-many relationship to Folder itself, and no real store shows whether it counts in the changed-properties mask (ZCOLUMNS)"
            ), "\(migrate)")
        #expect(
            migrate.stderr.contains(
                "where Folder.name counts in the changed-properties mask (ZCOLUMNS) depends on how the elements of Folder's composite attribute folderType"
            ), "\(migrate)")
        expectEqual(project.read("app.store"), before)
    }
}
