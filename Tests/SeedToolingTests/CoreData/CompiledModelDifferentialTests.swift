import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

@testable import SeedTooling

/// The model a real store keeps in `Z_MODELCACHE`, decoded by seedkit, against the XML model the
/// same repository commits: they must agree fact by fact.
///
/// Fixtures/RealStores/README.md says where each store and model comes from.
private let realStores = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/RealStores")

/// Each real store with the model version that wrote it (named alike in its repository).
private let pairs: [(store: String, model: String)] = [
    (
        "jeffreybergier-CoreDataMigrationTests/Example_v1.0.0.sqlite",
        "jeffreybergier-CoreDataMigrationTests/Model.xcdatamodeld/v1.0.0.xcdatamodel"
    ),
    (
        "jeffreybergier-CoreDataMigrationTests/Example_v1.1.0.sqlite",
        "jeffreybergier-CoreDataMigrationTests/Model.xcdatamodeld/v1.1.0.xcdatamodel"
    ),
    (
        "jeffreybergier-CoreDataMigrationTests/Example_v1.1.2.sqlite",
        "jeffreybergier-CoreDataMigrationTests/Model.xcdatamodeld/v1.1.2.xcdatamodel"
    ),
    (
        "jeffreybergier-CoreDataMigrationTests/Example_v1.2.0.sqlite",
        "jeffreybergier-CoreDataMigrationTests/Model.xcdatamodeld/v1.2.0.xcdatamodel"
    ),
    (
        "jeffreybergier-CoreDataMigrationTests/Example_v2.0.0.sqlite",
        "jeffreybergier-CoreDataMigrationTests/Model.xcdatamodeld/v2.0.0.xcdatamodel"
    ),
    (
        "wibosco-CoreDataMigration-Example/CoreDataMigration_Example_1.sqlite",
        "wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example.xcdatamodel"
    ),
    (
        "wibosco-CoreDataMigration-Example/CoreDataMigration_Example_2.sqlite",
        "wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example 2.xcdatamodel"
    ),
    (
        "wibosco-CoreDataMigrationRevised-Example/CoreDataMigration_Example_1.sqlite",
        "wibosco-CoreDataMigrationRevised-Example/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example.xcdatamodel"
    ),
    (
        "wibosco-CoreDataMigrationRevised-Example/CoreDataMigration_Example_2.sqlite",
        "wibosco-CoreDataMigrationRevised-Example/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example 2.xcdatamodel"
    ),
    (
        "wibosco-CoreDataMigrationRevised-Example/CoreDataMigration_Example_3.sqlite",
        "wibosco-CoreDataMigrationRevised-Example/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example 3.xcdatamodel"
    ),
    ("objcio-core-data/Moody.moody", "objcio-core-data/Moody.xcdatamodeld/Moody.xcdatamodel"),
    ("objcio-core-data/Moody 2.moody", "objcio-core-data/Moody.xcdatamodeld/Moody 2.xcdatamodel"),
    ("objcio-core-data/Moody 3.moody", "objcio-core-data/Moody.xcdatamodeld/Moody 3.xcdatamodel"),
    ("objcio-core-data/Moody 4.moody", "objcio-core-data/Moody.xcdatamodeld/Moody 4.xcdatamodel"),
    ("objcio-core-data/Moody 5.moody", "objcio-core-data/Moody.xcdatamodeld/Moody 5.xcdatamodel"),
    (
        "bignerdranch-CoreDataStack/TestModel.sqlite",
        "bignerdranch-CoreDataStack/Sample.xcdatamodeld/TestModel.xcdatamodel"
    ),
]

@Suite struct CompiledModelDifferentialTests {
    @Test(arguments: pairs.map(\.store))
    func theStoresCacheIsTheModelFile(store: String) throws {
        let model = try #require(pairs.first { $0.store == store }?.model)
        let xml = try CoreDataModel.load(realStores.appendingPathComponent(model), shown: model)
        let cache = try #require(
            try CoreDataModel.loadCache(store: realStores.appendingPathComponent(store), shown: store),
            "\(store) has no Z_MODELCACHE")
        // Read without leaving anything beside the fixture (a WAL-mode store would get -wal, -shm).
        #expect(!FileManager.default.fileExists(atPath: realStores.appendingPathComponent(store).path + "-wal"))
        // Fact by fact, so a failure names what differs.
        expectEqual(xml.differences(fromCache: cache), [], "\(store) against \(model)")
        expectEqual(xml.entities.map(\.name).sorted(), cache.entities.map(\.name))
        for entity in xml.entities {
            let cached = try #require(cache.entity(entity.name))
            expectEqual(entity.attributes.map(\.name).sorted(), cached.attributes.map(\.name), "entity \(entity.name)")
            expectEqual(
                entity.relationships.map(\.name).sorted(), cached.relationships.map(\.name), "entity \(entity.name)")
            for attribute in entity.attributes {
                let other = try #require(cached.attributes.first { $0.name == attribute.name })
                expectEqual(attribute.type, other.type, "entity \(entity.name): attribute \(attribute.name)")
                expectEqual(attribute.optional, other.optional, "entity \(entity.name): attribute \(attribute.name)")
            }
        }
    }

    /// A model version the store was not written with: the differences are named, one per fact.
    @Test func aDisagreementNamesEachFactThatDiffers() throws {
        let store = "wibosco-CoreDataMigrationRevised-Example/CoreDataMigration_Example_3.sqlite"
        let cache = try #require(
            try CoreDataModel.loadCache(store: realStores.appendingPathComponent(store), shown: store))
        let v4 = try CoreDataModel.load(
            realStores.appendingPathComponent(
                "wibosco-CoreDataMigrationRevised-Example/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example 4.xcdatamodel"
            ), shown: "v4")
        expectEqual(
            v4.differences(fromCache: cache),
            [
                "entity Post: attribute softDeleted: in the model file, not in the store's cache",
                "entity Post: relationship sections: deletion rule 'Nullify' in the model file, 'Cascade' in the store's cache",
            ])
        var changed = v4
        changed.entities[0].attributes[0].type = "Float"
        expectEqual(
            changed.differences(fromCache: cache).first,
            "entity Post: attribute date: type Float in the model file, Date in the store's cache")
    }

    /// A real disagreement: CoreDataStack's repository keeps TestModel.sqlite beside the model's
    /// current version, TestModel 2, which adds Publisher; the store was written by TestModel.
    @Test func aRealStoreAndTheModelsCurrentVersionDisagree() throws {
        let store = "bignerdranch-CoreDataStack/TestModel.sqlite"
        let cache = try #require(
            try CoreDataModel.loadCache(store: realStores.appendingPathComponent(store), shown: store))
        let current = try CoreDataModel.load(
            realStores.appendingPathComponent("bignerdranch-CoreDataStack/Sample.xcdatamodeld/TestModel 2.xcdatamodel"),
            shown: "TestModel 2")
        let differences = current.differences(fromCache: cache)
        #expect(differences.contains("entity Publisher: in the model file, not in the store's cache"), "\(differences)")
        #expect(
            !differences.isEmpty && differences.allSatisfy { $0.contains("Publisher") || $0.contains("publisher") },
            "\(differences)")
    }

    /// Inheritance as real caches hold it: Moody's abstract GeographicRegion (its sub-entities'
    /// archives repeat its properties).
    @Test func parentsComeFromTheCache() throws {
        let moody = try #require(
            try CoreDataModel.loadCache(
                store: realStores.appendingPathComponent("objcio-core-data/Moody.moody"), shown: "Moody"))
        #expect(moody.entity("GeographicRegion")?.isAbstract == true)
        #expect(moody.entity("Country")?.parent == "GeographicRegion")
        #expect(moody.entity("Country")?.attributes.map(\.name) == [])
        #expect(moody.flattened("Country")?.attributes.map(\.name).contains("numericISO3166Code") == true)
    }

    /// Renamed attributes: the cache keeps the earlier name as the renaming identifier.
    @Test func renamingIdentifiersComeFromTheCache() throws {
        let store = "jeffreybergier-CoreDataMigrationTests/Example_v2.0.0.sqlite"
        let cache = try #require(
            try CoreDataModel.loadCache(store: realStores.appendingPathComponent(store), shown: store))
        let attribute = try #require(cache.entity("BasicEntity")?.attributes.first)
        expectEqual(attribute.name, "v2_0_0_name")
        expectEqual(attribute.renamingIdentifier, "v1_2_0_name")
        #expect(attribute.type == "String" && attribute.optional)
    }

    @Test func aCacheThatDoesNotInflateOrDecodeIsAClearError() throws {
        let notDeflate = Data([0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: SeedError.self) { try CoreDataModel.cache(notDeflate, file: "store.sqlite") }
        do { _ = try CoreDataModel.cache(notDeflate, file: "store.sqlite") } catch {
            #expect("\(error)".contains("does not inflate as raw DEFLATE"), "\(error)")
        }
        // Inflates, but to something that is not a keyed archive.
        let store = "jeffreybergier-CoreDataMigrationTests/Example_v1.0.0.sqlite"
        let content = try cacheContent(store)
        do {
            _ = try CoreDataModel.cache(content.prefix(content.count / 2), file: store)
            Issue.record("a truncated cache decoded")
        } catch {
            #expect("\(error)".contains("does not inflate"), "\(error)")
        }
        do {
            _ = try CoreDataModel.compiled(Data("bplist00 not really".utf8), file: "x")
            Issue.record("decoded")
        } catch {
            #expect("\(error)".contains("property list"), "\(error)")
        }
    }

    @Test func aTemplateThatIsNotADatabaseIsAConfigurationErrorNamingIt() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("seedkit-\(UUID().uuidString).sqlite")
        try Data("not a database, just text long enough to be read as a header".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            _ = try CoreDataModel.loadCache(store: file, shown: "template.sqlite")
            Issue.record("read a model from text")
        } catch {
            expectEqual(error.kind, .configuration)
            #expect(
                "\(error)".hasPrefix("template.sqlite: error: cannot read the store's model cache (Z_MODELCACHE): "),
                "\(error)")
        }
    }

    private func cacheContent(_ store: String) throws -> Data {
        let queue = try StoreAccess.openReadOnly(realStores.appendingPathComponent(store).path)
        return try #require(try queue.read { try Data.fetchOne($0, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE") })
    }
}

/// A compiled model as an app bundle ships it (`.mom`, or a `.momd` folder naming its current
/// version): the same keyed archive a store's cache holds, not compressed.
///
/// The `.mom` here is a real store's cache, inflated (wibosco's Revised store 3, MIT).
@Suite struct CompiledModelFileTests {
    private let store = "wibosco-CoreDataMigrationRevised-Example/CoreDataMigration_Example_3.sqlite"
    private let xml =
        "wibosco-CoreDataMigrationRevised-Example/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example 3.xcdatamodel"

    private func mom() throws -> Data {
        let queue = try StoreAccess.openReadOnly(realStores.appendingPathComponent(store).path)
        let content = try #require(try queue.read { try Data.fetchOne($0, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE") })
        return try inflateRaw(content)
    }

    @Test func aMomIsTheModelItsStoreWasWrittenWith() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("seedkit-\(UUID().uuidString).mom")
        try mom().write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let model = try CoreDataModel.load(file, shown: "Model.mom")
        let written = try CoreDataModel.load(realStores.appendingPathComponent(xml), shown: "v3")
        expectEqual(written.differences(fromCache: model), [])
        expectEqual(model.entities.map(\.name), ["Post", "Section"])
    }

    @Test func aMomdReadsItsCurrentVersion() throws {
        let momd = FileManager.default.temporaryDirectory.appendingPathComponent("seedkit-\(UUID().uuidString).momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: momd) }
        try mom().write(to: momd.appendingPathComponent("Model 2.mom"))
        try Data("not a model".utf8).write(to: momd.appendingPathComponent("Model.mom"))
        let info = try PropertyListSerialization.data(
            fromPropertyList: ["NSManagedObjectModel_CurrentVersionName": "Model 2"], format: .xml, options: 0)
        try info.write(to: momd.appendingPathComponent("VersionInfo.plist"))
        let model = try CoreDataModel.load(momd, shown: "Model.momd")
        expectEqual(model.entities.map(\.name), ["Post", "Section"])
        // The other version is not a model: named, with what is wrong.
        try PropertyListSerialization.data(
            fromPropertyList: ["NSManagedObjectModel_CurrentVersionName": "Model"], format: .xml, options: 0
        )
        .write(to: momd.appendingPathComponent("VersionInfo.plist"))
        #expect { try CoreDataModel.load(momd, shown: "Model.momd") } throws: {
            "\($0)".contains("Model.mom") && "\($0)".contains("not a compiled Core Data model")
        }
    }
}
