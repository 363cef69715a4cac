import Foundation
import SeedRuntime
import SeedTooling
import Testing

/// Issue 42 (pegase's `Rubric.total`, `Transaction.solde`): a transient attribute is kept in memory
/// only.
///
/// It is no fixture column and takes no bit in a changed-properties mask (pegase's own history
/// records Transaction's `sousOperations` at bit 11, which it is only without `solde`).
@Suite struct TransientAttributeTests {
    @Test func aTransientAttributeIsNeitherAFixtureColumnNorAMaskProperty() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seedkit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = folder.appendingPathComponent("Shop.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Rubric" representedClassName="Rubric" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <attribute name="total" optional="YES" transient="YES" attributeType="Double" defaultValueString="0.0"/>
                    <attribute name="uuid" attributeType="UUID"/>
                </entity>
            </model>
            """.utf8
        ).write(to: model.appendingPathComponent("contents"))
        let loaded = try CoreDataModel.load(model, shown: "Shop.xcdatamodel")
        #expect(loaded.fixtureColumns("Rubric") == ["name", "uuid"])
        #expect(loaded.facts.history["Rubric"]?.properties.map(\.name) == ["name", "uuid"])
    }
}
