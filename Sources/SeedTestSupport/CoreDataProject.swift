import Foundation
import GRDB
import SeedRuntime

extension TemporaryProject {
    /// Writes a small Core Data project: `seeds/<model>/contents` holding `entities` (the XML
    /// inside `<model>`), and `seeds/empty.sqlite` with `tables` plus Core Data's bookkeeping
    /// (`Z_PRIMARYKEY` numbering `entityNames` from 1, in order; a placeholder `Z_METADATA`).
    public func writeCoreDataProject(model: String, entities: String, tables: String, entityNames: [String]) throws {
        try write(
            "seeds/\(model)/contents",
            """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            \(entities)
            </model>
            """)
        try database("seeds/empty.sqlite").write { db in
            try db.execute(sql: tables)
            try db.execute(
                sql: """
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    INSERT INTO Z_METADATA VALUES (1, 'U', x'00');
                    """)
            for (index, name) in entityNames.enumerated() {
                try db.execute(sql: "INSERT INTO Z_PRIMARYKEY VALUES (?, ?, 0, 0)", arguments: [index + 1, name])
            }
        }
    }

    /// ``writeCoreDataProject(model:entities:tables:entityNames:)`` with `Z_PRIMARYKEY` given row
    /// by row (entity number, name, super-entity, max): a real store's numbering.
    public func writeCoreDataProject(
        model: String, entities: String, tables: String, primaryKeys: [(Int, String, Int, Int)]
    ) throws {
        try writeCoreDataProject(model: model, entities: entities, tables: tables, entityNames: [])
        try database("seeds/empty.sqlite").write { db in
            for (number, name, superEntity, max) in primaryKeys {
                try db.execute(
                    sql: "INSERT INTO Z_PRIMARYKEY VALUES (?, ?, ?, ?)", arguments: [number, name, superEntity, max])
            }
        }
    }

    /// The rows `sql` selects from the store at `path`, each as its values' SQL literals joined by `|`.
    public func rows(_ path: String, _ sql: String) throws -> [String] {
        try database(path).read { db in
            try Row.fetchAll(db, sql: sql).map { row in
                (0..<row.count).map { SQLValue.fromDatabaseValue(row[$0])?.sqlLiteral ?? "?" }.joined(separator: "|")
            }
        }
    }
}
