import Foundation
import GRDB
public import SeedRuntime

/// `seedkit init [DIR] [--coredata MODEL-OR-STORE [--template STORE]]` (docs/reference.md#starting-a-project):
/// the scaffold chosen from what `--coredata` names, every input checked before anything is
/// written, the files written, and the report of what was written and what to do next.
///
/// ```swift
/// let report = try ProjectInit.run(directory: "app", coredata: nil, template: nil)
/// report.written.map(\.path)   // ["app/seeds/seedkit.yml", "app/seeds/schema.sql", …]
/// ```
public enum ProjectInit {
    /// Writes the project's layout into `directory` (created if missing).
    ///
    /// - Parameters:
    ///   - directory: the project folder, as the user named it (`.` for the current one).
    ///   - coredata: a Core Data model (`.xcdatamodeld`, `.xcdatamodel`), or a store that
    ///     keeps its model (`Z_MODELCACHE`, every SwiftData store), or nil for the plain layout.
    ///   - template: with a model, the empty store the app creates with it.
    /// - Returns: each file written with what it is for, and the next steps.
    /// - Throws: ``SeedError``: configuration when `directory` is a file, the model or store
    ///   does not exist, has no entities or keeps no model, the template is not a whole Core
    ///   Data store, or a file it would write exists; nothing is written then.
    public static func run(directory: String, coredata: String?, template: String?) throws(SeedError) -> InitReport {
        let root = URL(fileURLWithPath: directory).standardizedFileURL
        let shown = directory == "." ? "" : directory
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw SeedError(.configuration, file: directory, "is a file, not a folder; nothing was written")
        }
        let fromStore = coredata.map(isSQLiteFile) ?? false
        let scaffold: ProjectScaffold
        if let coredata, fromStore {
            // A store that carries its model (a SwiftData store, or any Core Data store since iOS 5).
            if template != nil {
                throw SeedError(
                    .configuration, file: coredata,
                    "is a store: init --coredata STORE makes the template from it, so --template has nothing to do; nothing was written"
                )
            }
            _ = try readTemplate(coredata)
            guard let model = try CoreDataModel.loadCache(store: URL(fileURLWithPath: coredata), shown: coredata)
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
                throw SeedError(.configuration, file: model.file, "the model has no entities; nothing was written")
            }
            let templateData = try template.map { path throws(SeedError) in try readTemplate(path) }
            let modelPath = ProjectScaffold.relativePath(modelURL.path, from: root.appendingPathComponent("seeds").path)
            scaffold = .coreData(model: model, modelPath: modelPath, template: templateData)
        } else {
            scaffold = .plain()
        }
        let written = try scaffold.write(into: root, shown: shown)
        var next: [String] = []
        if !shown.isEmpty { next.append("cd \(shellWord(directory))") }
        if fromStore {
            next += [
                "check each entity's key in seeds/seedkit.yml (the fixtures in seeds/data/ hold the store's rows)",
                "a store that tracks persistent history (every SwiftData store) gets one history transaction by the author seedkit",
                "per build and migrate (seedkit help core-data-refusals says what is refused; --without-history writes none)",
            ]
        } else if coredata != nil {
            if template == nil {
                next.append(
                    "copy the empty store your app creates with this model to seeds/empty.sqlite (run the app once, let it quit)"
                )
            }
            next.append(
                "add rows to the fixtures in seeds/data/ (refs hold the related object's key), check each entity's key in seeds/seedkit.yml"
            )
        } else {
            next.append("edit seeds/schema.sql and seeds/data/items.csv (and seedkit.yml's tables) for your own data")
        }
        // The seed's name as the manifest's output gives it (a store's extension for a project made from one).
        let seed = scaffold.seed
        // Shipped seeds keep its extension (.sqlite when it has none: seeds/releases/* would match the README there).
        let shippedExtension = (seed as NSString).pathExtension.isEmpty ? "sqlite" : (seed as NSString).pathExtension
        let release = "seeds/releases/1.0." + shippedExtension
        let shipped = "seeds/releases/*." + shippedExtension
        next += [
            "seedkit build                         # writes \(seed), the seed your app bundles",
            "cp \(seed) \(release)   # when you ship release 1.0",
            "seedkit new-migration NAME --from \(release)   # after editing the fixtures for the next release",
            "seedkit check-upgrade \(shipped)   # every shipped seed upgrades to a fresh build",
        ]
        // The CI workflow installs seedkit through the app's package; a project in none names a Git URL.
        if written.contains(where: { $0.path.hasSuffix(".github/workflows/seedkit.yml") }),
            !ProjectScaffold.isInSwiftPackage(root)
        {
            next.append(
                "set SEEDKIT_GIT_URL in .github/workflows/seedkit.yml: this folder is in no Swift package, so CI installs seedkit from that Git URL"
            )
        }
        return InitReport(
            folder: directory,
            written: written.map { .init(path: ProjectScaffold.display($0.path, in: shown), purpose: $0.purpose) },
            next: next)
    }

    /// The template's bytes, once it is known to be a Core Data store with nothing left in a `-wal`.
    static func readTemplate(_ path: String) throws(SeedError) -> Data {
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
    static func isSQLiteFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let handle = FileHandle(forReadingAtPath: path)
        else { return false }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        return header == Data("SQLite format 3\0".utf8)
    }

    /// `text` as one word for a shell: as it is when it is safe, otherwise single-quoted.
    static func shellWord(_ text: String) -> String {
        let safe = text.unicodeScalars.allSatisfy {
            $0.isASCII
                && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._/-+".unicodeScalars.contains($0))
        }
        return safe && !text.isEmpty ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
