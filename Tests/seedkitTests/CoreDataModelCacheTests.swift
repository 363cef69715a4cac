import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// Issue 21, item 1: a manifest without model: builds into a template whose Z_MODELCACHE holds
/// the model, and a model: that disagrees with that cache is refused naming what differs.
///
/// The template is a real store Core Data wrote (Tests/SeedToolingTests/Fixtures/RealStores).
private let realStores = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("SeedToolingTests/Fixtures/RealStores/wibosco-CoreDataMigrationRevised-Example")

@Suite struct CoreDataModelCacheTests {
    /// Post (12 rows) ↔ Section (14 rows), as the app left the store; no model file in the project.
    private func project(model: String? = nil) throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/template.sqlite",
            try Data(contentsOf: realStores.appendingPathComponent("CoreDataMigration_Example_3.sqlite")))
        try project.write(
            "seeds/seedkit.yml",
            (model.map { "model: \($0)\n" } ?? "") + """
                template: template.sqlite
                output: ../seed.sqlite
                tables:
                  Post: { file: data/posts.csv, key: postID }
                  Section: { file: data/sections.csv, key: title, refs: { post: Post.postID } }

                """)
        try project.write("seeds/data/posts.csv", "postID,hexColor\nseed-1,FF0000\n")
        try project.write("seeds/data/sections.csv", "title,body,post\nIntro,Hello,seed-1\nOutro,Bye,seed-1\n")
        return project
    }

    @Test func aTemplateWithAModelCacheNeedsNoModelFile() throws {
        let project = try project()
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 0, "\(build)")
        try expectEqual(
            project.rows(
                "seed.sqlite", "SELECT Z_PK, Z_ENT, Z_OPT, ZPOSTID, ZHEXCOLOR FROM ZPOST WHERE ZPOSTID = 'seed-1'"),
            [
                "13|1|1|'seed-1'|'FF0000'"
            ])
        // index (Integer 16) defaults to 0 in the model: the cache's default fills the column left out.
        try expectEqual(
            project.rows(
                "seed.sqlite",
                "SELECT Z_PK, Z_ENT, Z_OPT, ZTITLE, ZINDEX, ZPOST FROM ZSECTION WHERE Z_PK > 14 ORDER BY Z_PK"),
            ["15|2|1|'Intro'|0|13", "16|2|1|'Outro'|0|13"])
        try expectEqual(
            project.rows("seed.sqlite", "SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT"),
            [
                "'Post'|13", "'Section'|16",
            ])
    }

    @Test func aModelThatDisagreesWithTheTemplatesCacheIsRefusedNamingWhatDiffers() throws {
        let project = try project(model: "Model.xcdatamodel")
        try project.write(
            "seeds/Model.xcdatamodel/contents",
            """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Post" representedClassName="Post" syncable="YES">
                    <attribute name="date" optional="YES" attributeType="Date"/>
                    <attribute name="hexColor" optional="YES" attributeType="String"/>
                    <attribute name="postID" optional="YES" attributeType="String"/>
                    <relationship name="sections" toMany="YES" deletionRule="Cascade" destinationEntity="Section" inverseName="post" inverseEntity="Section"/>
                </entity>
                <entity name="Section" representedClassName="Section" syncable="YES">
                    <attribute name="body" optional="YES" attributeType="String"/>
                    <attribute name="index" optional="YES" attributeType="Integer 32" defaultValueString="0"/>
                    <attribute name="title" optional="YES" attributeType="String"/>
                    <relationship name="post" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Post" inverseName="sections" inverseEntity="Post"/>
                </entity>
            </model>
            """)
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 2, "\(build)")
        #expect(
            build.stderr.contains(
                "entity Section: attribute index: type Integer 32 in model: Model.xcdatamodel, Integer 16 in the template's Z_MODELCACHE"
            ), "\(build)")
        #expect(!project.exists("seed.sqlite"))
    }
}
