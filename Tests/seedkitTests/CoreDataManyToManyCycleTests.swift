import Foundation
import SeedTestSupport
import Testing

/// A cycle of rows that name each other through a many-to-many relationship: the relationship
/// is left out of the first row inserted, and its join rows written once the other row is in.
@Suite struct CoreDataManyToManyCycleTests {
    @Test func rowsThatListEachOtherInAManyToManyRelationshipAreInsertedThenLinked() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.writeCoreDataProject(
            model: "Library.xcdatamodel",
            entities: """
                <entity name="Book" representedClassName="Book" syncable="YES">
                    <attribute name="title" attributeType="String"/>
                    <relationship name="related" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="relatedBy" inverseEntity="Book"/>
                    <relationship name="relatedBy" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="related" inverseEntity="Book"/>
                </entity>
                """,
            tables: """
                    CREATE TABLE ZBOOK (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR);
                    CREATE TABLE Z_1RELATED (Z_1RELATED INTEGER, Z_1RELATEDBY INTEGER, PRIMARY KEY (Z_1RELATED, Z_1RELATEDBY));
                """, entityNames: ["Book"])
        try project.write(
            "seeds/seedkit.yml",
            "model: Library.xcdatamodel\ntemplate: empty.sqlite\noutput: ../seed.sqlite\ntables:\n  Book: { file: data/books.csv, key: title, refs: { related: Book.title } }\n"
        )
        try project.write("seeds/data/books.csv", "title,related\nEmma,\n")
        try expectEqual(project.seedkit("build", "--migrations", "none").status, 0)
        try project.write(
            "migrations/0001-pair.yml",
            "insert:\n  Book:\n    - { title: Odes, related: [Verses, Emma] }\n    - { title: Verses, related: [Odes] }\n"
        )
        let migrate = try project.seedkit("migrate", "seed.sqlite")
        expectEqual(migrate.status, 0, "\(migrate)")
        #expect(migrate.stdout.contains("applied 0001-pair: 2 inserted"), "\(migrate)")
        let links = try project.rows(
            "seed.sqlite",
            "SELECT o.ZTITLE || ' → ' || m.ZTITLE FROM Z_1RELATED j JOIN ZBOOK o ON o.Z_PK = j.Z_1RELATEDBY JOIN ZBOOK m ON m.Z_PK = j.Z_1RELATED ORDER BY 1"
        )
        expectEqual(links, ["'Odes → Emma'", "'Odes → Verses'", "'Verses → Odes'"], "\(links)")
    }
}
