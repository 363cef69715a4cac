import Foundation
import GRDB
import SeedTestSupport
import Testing

/// Issue 35: a required Transformable attribute (ChefTime's `SDRecipe.imageData`, an archived
/// `[Data]`) stopped `init --coredata STORE` → `build`: the fixture left it out, and the build said
/// it is required.
///
/// seedkit now carries the bytes a store holds (base64 in fixtures and migrations) and checks that
/// they are an archive NSKeyedArchiver wrote (docs/core-data.md, "Transformable attributes").
@Suite struct SwiftDataTransformableTests {
    /// The archive of an empty JSON array as Foundation's NSKeyedArchiver writes it (what each of
    /// ChefTime's 109 imageData values is), made with plistlib.
    private static func archive(_ payload: String = "[]") throws -> Data {
        let script = """
            import plistlib, sys
            sys.stdout.write(plistlib.dumps({"$version": 100000, "$archiver": "NSKeyedArchiver",
                "$top": {"root": plistlib.UID(1)}, "$objects": ["$null", sys.argv[1].encode()]},
                fmt=plistlib.FMT_BINARY, sort_keys=False).hex())
            """
        let made = try run(
            Python3.executable, Python3.arguments(["-c", script, payload]),
            in: URL(fileURLWithPath: NSTemporaryDirectory()))
        expectEqual(made.status, 0, "\(made)")
        var bytes: [UInt8] = []
        var hex = Substring(made.stdout)
        while hex.count >= 2 {
            bytes.append(UInt8(hex.prefix(2), radix: 16) ?? 0)
            hex = hex.dropFirst(2)
        }
        return Data(bytes)
    }

    /// The example's store with a required Transformable `Book.cover` (a BLOB column, as
    /// ChefTime's ZIMAGEDATA), author A, and book T whose cover is an archive.
    private func store() throws -> (TemporaryProject, Data) {
        let project = try swiftDataStore(editing: [
            (
                #"("published", 900, "NSDate", None, True)],"#,
                #"("published", 900, "NSDate", None, True), ("cover", 1800, "NSData", None, False)],"#
            )
        ])
        let cover = try Self.archive()
        try project.database("app.store").write { db in
            try db.execute(
                sql: """
                    INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME, ZID) VALUES (1, 1, 1, 'A', x'11111111222233334444555555555555');
                    INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZID, ZPAGES, ZAUTHOR, ZCOVER) VALUES
                        (1, 2, 1, 'T', x'21111111222233334444555555555555', 5, 1, ?);
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_ENT IN (1, 2);
                    """, arguments: [cover])
        }
        return (project, cover)
    }

    @Test func initThenBuildCarriesATransformablesBytesAsTheStoreHoldsThem() throws {
        let (project, cover) = try store()
        let initialized = try project.seedkit("init", "--coredata", "app.store")
        expectEqual(initialized.status, 0, "\(initialized)")
        let fixture = try #require(project.read("seeds/data/Book.csv").map { String(decoding: $0, as: UTF8.self) })
        #expect(fixture.contains(cover.base64EncodedString()), "\(fixture)")
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        let seed = try DatabaseQueue(path: project.path("build/seed.store"))
        let written = try seed.read { db in try Data.fetchOne(db, sql: "SELECT ZCOVER FROM ZBOOK") }
        expectEqual(written, cover)
        // Every entity equal, as the app sees rows (by key, refs by the target's key).
        let diff = try project.seedkit("diff", "app.store", "build/seed.store", "--table", "Book", "--manifest", "none")
        expectEqual(diff.stdout, "Book: no differences\n", "\(diff)")
    }

    @Test func bytesThatAreNoArchiveAreRefusedInBuildAndMigrate() throws {
        let (project, cover) = try store()
        try expectEqual(project.seedkit("init", "--coredata", "app.store").status, 0)
        let notAnArchive = Data("hello".utf8).base64EncodedString()
        let fixture = try #require(project.read("seeds/data/Book.csv").map { String(decoding: $0, as: UTF8.self) })
        try project.write(
            "seeds/data/Book.csv", fixture.replacingOccurrences(of: cover.base64EncodedString(), with: notAnArchive))
        let build = try project.seedkit("build")
        expectEqual(build.status, 1, "\(build)")
        #expect(
            build.stderr.contains(
                "seeds/data/Book.csv:2:1: error: cover is a Transformable attribute and its value is not an archive: its bytes are not a binary property list (an archive starts with bplist00); give the bytes a store holds, in base64, as init --coredata writes them [1550]"
            ), "\(build)")

        // A migration: an archive goes in as it is given; anything else is not written.
        let other = try Self.archive("[\"x\"]")
        try project.write(
            "migrations/0001-covers.yml",
            """
            insert:
              Book:
                - { title: U, cover: \(other.base64EncodedString()) }
                - { title: V, cover: \(notAnArchive) }

            """)
        let migrate = try project.seedkit("migrate", "app.store", "--manifest", "none")
        expectEqual(migrate.status, 1, "\(migrate)")
        #expect(
            migrate.stderr.contains(
                "migrations/0001-covers.yml:4: error: Book: cover is a Transformable attribute and its value is not an archive: its bytes are not a binary property list (an archive starts with bplist00); give the bytes a store holds, in base64, as init --coredata writes them [1550]"
            ), "\(migrate)")
        try expectEqual(project.rows("app.store", "SELECT count(*) FROM ZBOOK"), ["1"])
        try project.write(
            "migrations/0001-covers.yml",
            "insert:\n  Book:\n    - { title: U, cover: \(other.base64EncodedString()) }\n")
        let applied = try project.seedkit("migrate", "app.store", "--manifest", "none")
        expectEqual(applied.status, 0, "\(applied)")
        let stored = try project.database("app.store").read { db in
            try Data.fetchOne(db, sql: "SELECT ZCOVER FROM ZBOOK WHERE ZTITLE = 'U'")
        }
        expectEqual(stored, other)
    }
}
