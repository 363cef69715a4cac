import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import SeedTooling
import Testing

private let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("Examples/SwiftDataStore")

/// The name-based UUID docs/swiftdata.md documents, computed independently of seedkit (Python's
/// hashlib): SHA-256 of `Entity.attribute`, then a 0 byte and each key part; the first 16 bytes,
/// version 8, RFC 9562 variant.
///
/// Upper-case hex, as `hex()` shows it.
private func documentedUUID(_ entity: String, _ attribute: String, key: [String]) throws -> String {
    let python = Process()
    python.executableURL = Python3.executable
    python.arguments =
        Python3.arguments([
            "-c",
            """
            import hashlib, sys
            data = sys.argv[1].encode() + b"".join(b"\\0" + part.encode() for part in sys.argv[2:])
            b = bytearray(hashlib.sha256(data).digest()[:16])
            b[6] = (b[6] & 0x0F) | 0x80
            b[8] = (b[8] & 0x3F) | 0x80
            print(b.hex().upper())
            """, "\(entity).\(attribute)",
        ]) + key
    let pipe = Pipe()
    python.standardOutput = pipe
    try python.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    python.waitUntilExit()
    expectEqual(python.terminationStatus, 0)
    return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// A SwiftData store as the app creates it (make-store.py), at `path` in `project`.
private func makeStore(_ project: TemporaryProject, _ path: String) throws {
    let python = Process()
    python.executableURL = Python3.executable
    python.arguments = Python3.arguments([example.appendingPathComponent("make-store.py").path, project.path(path)])
    try python.run()
    python.waitUntilExit()
    expectEqual(python.terminationStatus, 0)
}

@Suite struct RequiredAttributeTests {
    /// `let id = UUID()` left out of an inserted Book: the row's name-based UUID, the same on
    /// every store; no manifest (the model from Z_MODELCACHE).
    @Test func migrateGivesALeftOutGeneratedUUIDTheRowsNameBasedUUID() throws {
        let project = try TemporaryProject(bookStore: false)
        try makeStore(project, "default.store")
        try makeStore(project, "other.store")
        try project.write(
            "migrations/0001-add-flint.yml",
            "insert:\n  Book:\n    - { title: Flint }\n  Author:\n    - { name: Ann, id: 3F2504E0-4F89-41D3-9A0C-0305E82C3301 }\n"
        )
        let expected = try documentedUUID("Book", "id", key: ["Flint"])
        expectEqual(expected.count, 32)
        for store in ["default.store", "other.store"] {
            let result = try project.seedkit("migrate", store, "--migrations", "migrations")
            expectEqual(result.status, 0, "\(result)")
            #expect(result.stdout.contains("2 inserted"), "\(result)")
            #expect(!result.stdout.contains(expected) && !result.stderr.contains(expected), "no report noise")
            try expectEqual(
                project.rows(store, "SELECT Z_PK, ZTITLE, ZPAGES, hex(ZID) FROM ZBOOK"),
                [
                    "1|'Flint'|0|'\(expected)'"
                ])
            // An id the row gives is kept.
            try expectEqual(
                project.rows(store, "SELECT ZNAME, hex(ZID) FROM ZAUTHOR"),
                [
                    "'Ann'|'3F2504E04F8941D39A0C0305E82C3301'"
                ])
        }
        let again = try project.seedkit("migrate", "default.store", "--migrations", "migrations")
        expectEqual(again.status, 0, "\(again)")
        try expectEqual(
            project.rows("default.store", "SELECT Z_PK, ZTITLE, hex(ZID) FROM ZBOOK"), ["1|'Flint'|'\(expected)'"]
        )
        // The library computes the same.
        let bytes = CoreDataDialect.nameBasedUUID(entity: "Book", attribute: "id", key: [.text("Flint")])
        expectEqual(bytes.map { String(format: "%02X", $0) }.joined(), expected)
    }

    /// A generated UUID given null is generated too; an update that sets it to null is refused,
    /// at its line, and nothing is written.
    @Test func migrateRefusesAnUpdateThatClearsARequiredAttribute() throws {
        let project = try TemporaryProject(bookStore: false)
        try makeStore(project, "default.store")
        try project.write("migrations/0001-add-ann.yml", "insert:\n  Author:\n    - { name: Ann, id: null }\n")
        let fine = try project.seedkit("migrate", "default.store", "--migrations", "migrations")
        expectEqual(fine.status, 0, "\(fine)")
        let ann = try documentedUUID("Author", "id", key: ["Ann"])
        try expectEqual(project.rows("default.store", "SELECT ZNAME, hex(ZID) FROM ZAUTHOR"), ["'Ann'|'\(ann)'"])
        let before = project.sha256("default.store")
        try project.write(
            "migrations/0002-unset.yml",
            "update:\n  Author:\n    - { key: Ann, from: { id: \(ann.uuidText) }, to: { id: null } }\n")
        let unset = try project.seedkit("migrate", "default.store", "--migrations", "migrations")
        expectEqual(unset.status, 1, "\(unset)")
        #expect(
            unset.stderr.contains(
                "migrations/0002-unset.yml:3: error: Author 'Ann': not updated: Author.id is required by the model (non-optional) and the row gives no value"
            ), "\(unset)")
        expectEqual(project.sha256("default.store"), before)
    }

    /// An XML model: label is required (no default), count has one, token is an optional UUID.
    @Test func migrateNamesTheEntityTheKeyAndTheAttribute() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.writeCoreDataProject(
            model: "Shelf.xcdatamodel",
            entities: """
                <entity name="Thing" representedClassName="Thing" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <attribute name="label" attributeType="String"/>
                    <attribute name="id" attributeType="UUID" defaultValueString="3F2504E0-4F89-41D3-9A0C-0305E82C3301" usesScalarValueType="NO"/>
                    <attribute name="token" optional="YES" attributeType="UUID" defaultValueString="3F2504E0-4F89-41D3-9A0C-0305E82C3302" usesScalarValueType="NO"/>
                    <attribute name="count" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                </entity>
                """,
            tables:
                "CREATE TABLE ZTHING (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOUNT INTEGER, ZNAME VARCHAR, ZLABEL VARCHAR, ZID BLOB, ZTOKEN BLOB);",
            entityNames: ["Thing"])
        try project.write(
            "seeds/seedkit.yml",
            "model: Shelf.xcdatamodel\ntemplate: empty.sqlite\noutput: ../seed.sqlite\ntables:\n  Thing: { file: data/things.csv, key: name }\n"
        )
        try project.write("seeds/data/things.csv", "name,label\nA,first\n")
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 0, "\(build)")
        // The optional UUID stays NULL: only a non-optional one is generated.
        try expectEqual(
            project.rows("seed.sqlite", "SELECT ZNAME, ZLABEL, ZCOUNT, hex(ZID), ZTOKEN FROM ZTHING"),
            ["'A'|'first'|0|'\(try documentedUUID("Thing", "id", key: ["A"]))'|NULL"])
        try FileManager.default.copyItem(atPath: project.path("seed.sqlite"), toPath: project.path("app.sqlite"))
        try project.write("migrations/0001-things.yml", "insert:\n  Thing:\n    - { name: B }\n")
        let before = project.sha256("app.sqlite")
        let refused = try project.seedkit("migrate", "app.sqlite", "--migrations", "migrations")
        expectEqual(refused.status, 1, "\(refused)")
        #expect(
            refused.stderr.contains(
                "migrations/0001-things.yml:3: error: Thing 'B': not inserted: Thing.label is required by the model (non-optional) and the row gives no value"
            ), "\(refused)")
        #expect(!refused.stderr.contains("label is required but missing"), "said once: \(refused)")
        expectEqual(project.sha256("app.sqlite"), before)
        // Given null: the same, once.
        try project.write("migrations/0001-things.yml", "insert:\n  Thing:\n    - { name: B, label: null }\n")
        let null = try project.seedkit("migrate", "app.sqlite", "--migrations", "migrations")
        expectEqual(null.status, 1, "\(null)")
        expectEqual(null.stderr.components(separatedBy: "Thing.label is required").count, 2, "\(null)")
        expectEqual(project.sha256("app.sqlite"), before)
        try project.write("migrations/0001-things.yml", "insert:\n  Thing:\n    - { name: B, label: second }\n")
        let fine = try project.seedkit("migrate", "app.sqlite", "--migrations", "migrations")
        expectEqual(fine.status, 0, "\(fine)")
        try expectEqual(
            project.rows("app.sqlite", "SELECT ZNAME, hex(ZID), ZTOKEN FROM ZTHING ORDER BY Z_PK"),
            [
                "'A'|'\(try documentedUUID("Thing", "id", key: ["A"]))'|NULL",
                "'B'|'\(try documentedUUID("Thing", "id", key: ["B"]))'|NULL",
            ])
    }

    /// A non-optional to-one (`var shelf: Shelf`, no `?`): a row without it is a row the app
    /// cannot load, refused like a required attribute, in an insert and in an update clearing it.
    @Test func migrateRefusesARowWithoutARequiredToOne() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.writeCoreDataProject(
            model: "Shelf.xcdatamodel",
            entities: """
                <entity name="Shelf" representedClassName="Shelf" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <relationship name="things" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Thing" inverseName="shelf" inverseEntity="Thing"/>
                </entity>
                <entity name="Thing" representedClassName="Thing" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <relationship name="shelf" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf" inverseName="things" inverseEntity="Shelf"/>
                </entity>
                """,
            tables: """
                CREATE TABLE ZSHELF (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR);
                CREATE TABLE ZTHING (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSHELF INTEGER, ZNAME VARCHAR);
                """, entityNames: ["Shelf", "Thing"])
        try project.write(
            "seeds/seedkit.yml",
            """
            model: Shelf.xcdatamodel
            template: empty.sqlite
            output: ../seed.sqlite
            tables:
              Shelf: { file: data/shelves.csv, key: name }
              Thing: { file: data/things.csv, key: name, refs: { shelf: Shelf.name } }

            """)
        try project.write("seeds/data/shelves.csv", "name\nTop\n")
        try project.write("seeds/data/things.csv", "name,shelf\nA,Top\n")
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 0, "\(build)")
        try FileManager.default.copyItem(atPath: project.path("seed.sqlite"), toPath: project.path("app.sqlite"))
        let before = project.sha256("app.sqlite")
        try project.write("migrations/0001-things.yml", "insert:\n  Thing:\n    - { name: B }\n")
        let refused = try project.seedkit("migrate", "app.sqlite", "--migrations", "migrations", "--manifest", "none")
        expectEqual(refused.status, 1, "\(refused)")
        #expect(
            refused.stderr.contains(
                "migrations/0001-things.yml:3: error: Thing 'B': not inserted: Thing.shelf is required by the model (non-optional) and the row gives no value"
            ), "\(refused)")
        expectEqual(project.sha256("app.sqlite"), before)
        try project.write(
            "migrations/0001-things.yml",
            "update:\n  Thing:\n    - { key: A, from: { shelf: Top }, to: { shelf: null } }\n")
        let cleared = try project.seedkit("migrate", "app.sqlite", "--migrations", "migrations", "--manifest", "none")
        expectEqual(cleared.status, 1, "\(cleared)")
        #expect(
            cleared.stderr.contains(
                "Thing 'A': not updated: Thing.shelf is required by the model (non-optional) and the row gives no value"
            ), "\(cleared)")
        expectEqual(project.sha256("app.sqlite"), before)
        try project.write("migrations/0001-things.yml", "insert:\n  Thing:\n    - { name: B, shelf: Top }\n")
        let fine = try project.seedkit("migrate", "app.sqlite", "--migrations", "migrations", "--manifest", "none")
        expectEqual(fine.status, 0, "\(fine)")
        try expectEqual(
            project.rows("app.sqlite", "SELECT ZNAME, ZSHELF FROM ZTHING ORDER BY Z_PK"), ["'A'|1", "'B'|1"])
    }

    /// The example built with a Book whose id is left empty and one without the column at all:
    /// name-based UUIDs, and two builds are byte-identical.
    @Test func buildGivesAGeneratedUUIDDeterministically() throws {
        let project = try swiftDataProject()
        try project.write(
            "seeds/data/Book.csv",
            """
            title,id,pages,published,author
            The Dispossessed,,387,1974-05-01,Ursula K. Le Guin
            Invisible Cities,0E8F1C0A-1D52-4C6B-9F43-6A1E2B3C4D03,165,1972-11-01,Italo Calvino

            """)
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 0, "\(build)")
        try expectEqual(
            project.rows("build/seed.store", "SELECT ZTITLE, hex(ZID) FROM ZBOOK ORDER BY Z_PK"),
            [
                "'The Dispossessed'|'\(try documentedUUID("Book", "id", key: ["The Dispossessed"]))'",
                "'Invisible Cities'|'0E8F1C0A1D524C6B9F436A1E2B3C4D03'",
            ])
        let first = project.sha256("build/seed.store")
        try project.write("seeds/data/Author.csv", "name\nUrsula K. Le Guin\nItalo Calvino\n")
        let second = try project.seedkit("build", "--migrations", "none", "--output", "build/again.store")
        expectEqual(second.status, 0, "\(second)")
        try expectEqual(
            project.rows("build/again.store", "SELECT ZNAME, hex(ZID) FROM ZAUTHOR ORDER BY Z_PK"),
            [
                "'Ursula K. Le Guin'|'\(try documentedUUID("Author", "id", key: ["Ursula K. Le Guin"]))'",
                "'Italo Calvino'|'\(try documentedUUID("Author", "id", key: ["Italo Calvino"]))'",
            ])
        let third = try project.seedkit("build", "--migrations", "none", "--output", "build/third.store")
        expectEqual(third.status, 0, "\(third)")
        expectEqual(project.sha256("build/again.store"), project.sha256("build/third.store"))
        #expect(first != nil)
        // A required title left empty: the build fails at its line, and writes no seed.
        try project.write("seeds/data/Book.csv", "title,pages\n,3\n")
        let bad = try project.seedkit("build", "--migrations", "none", "--output", "build/bad.store")
        expectEqual(bad.status, 1, "\(bad)")
        #expect(!project.exists("build/bad.store"))
    }
}

extension String {
    /// `0E8F…` (32 hex digits) in the standard form `0E8F1C0A-1D52-…`.
    fileprivate var uuidText: String {
        let characters = Array(self)
        guard characters.count == 32 else { return self }
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }
}
