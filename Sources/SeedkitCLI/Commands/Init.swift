import ArgumentParser
import Foundation
import GRDB
import SeedRuntime
import SeedTooling

extension SeedTool {
    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract:
                "Write a new project's layout: manifest, schema, a fixture, migrations/, seeds/releases/, a CI workflow.",
            discussion: """
                Writes seeds/seedkit.yml, seeds/schema.sql, seeds/data/items.csv, migrations/README.md, \
                seeds/releases/README.md and .github/workflows/seedkit.yml (seedkit build --format github, check-upgrade). \
                With --coredata MODEL: a manifest naming the model and one fixture per entity instead of the schema and \
                items.csv. With --coredata STORE (a Core Data or SwiftData store that keeps its model in Z_MODELCACHE): \
                a manifest without model:, keys from the entities' uniqueness constraints, fixtures holding the store's \
                rows (refs by the related entity's key), and the store with its rows taken out as template:. Never overwrites: when anything it would write exists, it lists every such path and writes \
                nothing (exit 2).
                """)

        @Argument(help: "The project folder (created if missing).")
        var directory: String = "."
        @Option(
            name: .long,
            help: ArgumentHelp(
                "Scaffold the Core Data form from this model (.xcdatamodeld or .xcdatamodel), or from a store that keeps its model (a SwiftData store): its rows become the fixtures, the store without them the template.",
                valueName: "model-or-store"))
        var coredata: String?
        @Option(
            name: .long,
            help: ArgumentHelp(
                "With --coredata: the empty store your app creates with the model, copied to seeds/empty.sqlite.",
                valueName: "store"))
        var template: String?

        func validate() throws {
            if template != nil && coredata == nil {
                throw ValidationError(
                    "--template goes with --coredata MODEL (a plain project's schema is seeds/schema.sql)")
            }
        }

        func run() throws {
            try reporting(.human) {
                let root = URL(fileURLWithPath: directory).standardizedFileURL
                let shown = directory == "." ? "" : directory
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), !isDirectory.boolValue
                {
                    throw SeedError(.configuration, file: directory, "is a file, not a folder; nothing was written")
                }
                let scaffold: ProjectScaffold
                if let coredata, Self.isSQLiteFile(coredata) {
                    // A store that carries its model (a SwiftData store, or any Core Data store since iOS 5).
                    if template != nil {
                        throw SeedError(
                            .configuration, file: coredata,
                            "is a store: init --coredata STORE makes the template from it, so --template has nothing to do; nothing was written"
                        )
                    }
                    _ = try Self.readTemplate(coredata)
                    guard
                        let model = try CoreDataModel.loadCache(store: URL(fileURLWithPath: coredata), shown: coredata)
                    else {
                        throw SeedError(
                            .configuration, file: coredata,
                            "the store keeps no model (no Z_MODELCACHE): pass the app's model instead, --coredata MODEL --template STORE; nothing was written"
                        )
                    }
                    guard !model.entities.isEmpty else {
                        throw SeedError(
                            .configuration, file: coredata, "the store's model has no entities; nothing was written")
                    }
                    scaffold = try .coreData(model: model, store: coredata, shown: coredata)
                } else if let coredata {
                    let modelURL = URL(fileURLWithPath: coredata).standardizedFileURL
                    guard FileManager.default.fileExists(atPath: modelURL.path) else {
                        throw SeedError(
                            .configuration, file: coredata,
                            "no such model (--coredata names an .xcdatamodeld or .xcdatamodel); nothing was written")
                    }
                    let model = try CoreDataModel.load(modelURL, shown: coredata)
                    guard !model.entities.isEmpty else {
                        throw SeedError(
                            .configuration, file: model.file, "the model has no entities; nothing was written")
                    }
                    let templateData = try template.map { path throws(SeedError) in try Self.readTemplate(path) }
                    let modelPath = ProjectScaffold.relativePath(
                        modelURL.path, from: root.appendingPathComponent("seeds").path)
                    scaffold = .coreData(model: model, modelPath: modelPath, template: templateData)
                } else {
                    scaffold = .plain()
                }
                let written = try scaffold.write(into: root, shown: shown)
                let width = written.map { ProjectScaffold.display($0.path, in: shown).count }.max() ?? 0
                for file in written {
                    let path = ProjectScaffold.display(file.path, in: shown)
                    print("wrote \(path)\(String(repeating: " ", count: width - path.count))  \(file.purpose)")
                }
                print("next:")
                if !shown.isEmpty { print("  cd \(Self.shellWord(directory))") }
                if let coredata, Self.isSQLiteFile(coredata) {
                    print(
                        "  check each entity's key in seeds/seedkit.yml (the fixtures in seeds/data/ hold the store's rows)"
                    )
                    print(
                        "  a store that tracks persistent history (every SwiftData store) gets one history transaction by the author seedkit"
                    )
                    print(
                        "  per build and migrate (seedkit help core-data-refusals says what is refused; --without-history writes none)"
                    )
                } else if coredata != nil {
                    if template == nil {
                        print(
                            "  copy the empty store your app creates with this model to seeds/empty.sqlite (run the app once, let it quit)"
                        )
                    }
                    print(
                        "  add rows to the fixtures in seeds/data/ (refs hold the related object's key), check each entity's key in seeds/seedkit.yml"
                    )
                } else {
                    print(
                        "  edit seeds/schema.sql and seeds/data/items.csv (and seedkit.yml's tables) for your own data")
                }
                // The seed's name as the manifest's output gives it (a store's extension for a project made from one).
                let seed = scaffold.seed
                // Shipped seeds keep its extension (.sqlite when it has none: seeds/releases/* would match the README there).
                let shippedExtension =
                    (seed as NSString).pathExtension.isEmpty ? "sqlite" : (seed as NSString).pathExtension
                let release = "seeds/releases/1.0." + shippedExtension
                let shipped = "seeds/releases/*." + shippedExtension
                print("  seedkit build                         # writes \(seed), the seed your app bundles")
                print("  cp \(seed) \(release)   # when you ship release 1.0")
                print(
                    "  seedkit new-migration NAME --from \(release)   # after editing the fixtures for the next release"
                )
                print("  seedkit check-upgrade \(shipped)   # every shipped seed upgrades to a fresh build")
                // The CI workflow installs seedkit through the app's package; a project in none names a Git URL.
                if written.contains(where: { $0.path.hasSuffix(".github/workflows/seedkit.yml") }),
                    !ProjectScaffold.isInSwiftPackage(root)
                {
                    print(
                        "  set SEEDKIT_GIT_URL in .github/workflows/seedkit.yml: this folder is in no Swift package, so CI installs seedkit from that Git URL"
                    )
                }
            }
        }

        /// The template's bytes, once it is known to be a Core Data store with nothing left in a `-wal`.
        private static func readTemplate(_ path: String) throws(SeedError) -> Data {
            try FileFacts.refuseSpecial(path, shown: path, what: "the template")
            guard let data = FileManager.default.contents(atPath: path) else {
                throw SeedError(
                    .configuration, file: path,
                    "cannot read the template (--template names the empty store your app creates); nothing was written")
            }
            if (FileFacts.size(path + "-wal") ?? 0) > 0 {
                throw SeedError(
                    .configuration, file: path,
                    "has a -wal file beside it, so the file alone is not the whole store: copy it again after the app has quit; nothing was written"
                )
            }
            let queue = try StoreAccess.openReadOnly(path)
            defer { try? queue.close() }
            let isCoreData: Bool
            do { isCoreData = try queue.read { db in try CoreDataDialect.isStore(db) } } catch {
                throw SeedError(
                    .configuration, file: path,
                    "not a SQLite store: \((error as? DatabaseError)?.message ?? "\(error)"); nothing was written")
            }
            guard isCoreData else {
                throw SeedError(
                    .configuration, file: path,
                    "not a Core Data store (no \(CoreDataDialect.storeTables)): --template names the empty store your app creates; nothing was written"
                )
            }
            return data
        }

        /// Whether `path` is a regular file that starts as SQLite databases do.
        private static func isSQLiteFile(_ path: String) -> Bool {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let handle = FileHandle(forReadingAtPath: path)
            else { return false }
            defer { try? handle.close() }
            let header = (try? handle.read(upToCount: 16)) ?? Data()
            return header == Data("SQLite format 3\0".utf8)
        }

        /// `text` as one word for a shell: as it is when it is safe, otherwise single-quoted.
        private static func shellWord(_ text: String) -> String {
            let safe = text.unicodeScalars.allSatisfy {
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._/-+".unicodeScalars.contains($0))
            }
            return safe && !text.isEmpty ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
    }
}
