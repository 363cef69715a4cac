import Foundation
import GRDB
public import SeedRuntime

/// The files `seedkit init` writes: the project layout the README describes (`seeds/seedkit.yml`,
/// `seeds/schema.sql` or a Core Data model and template, fixtures in `seeds/data/`, `migrations/`,
/// `seeds/releases/`) and a GitHub Actions workflow that reports fixture errors as annotations.
///
/// ```swift
/// let scaffold = ProjectScaffold.plain()
/// try scaffold.write(into: root, shown: "")   // refuses, listing what is in the way, or writes it all
/// ```
public struct ProjectScaffold: Sendable {
    /// One file to write, its path relative to the project folder.
    public struct File: Sendable {
        /// The path relative to the project folder (`seeds/seedkit.yml`).
        public var path: String
        /// The bytes to write.
        public var contents: Data
        /// What the file is for, as `seedkit init` prints it.
        public var purpose: String
        /// Written only where none exists (`.gitignore`: a project's own is kept, never in the way).
        public var unlessPresent = false
    }

    /// The files, in the order they are written and listed.
    public var files: [File]

    /// The seed `build` writes, relative to the project: the manifest's `output`
    /// (`build/seed.store` for a project made from `app.store`), for the next steps `init` prints.
    public var seed = "build/seed.sqlite"

    /// The folder seedkit reads migrations from: it must not exist or be empty, since seedkit
    /// would read any file already there as one of its migrations.
    static let migrationsFolder = "migrations"

    /// The plain SQLite layout: a schema, one fixture with two rows, an empty migration history.
    public static func plain() -> ProjectScaffold {
        ProjectScaffold(
            files: [
                File(
                    path: "seeds/seedkit.yml", text: PlainTemplates.manifest,
                    purpose: "the manifest: tables, their fixtures, keys and rules"),
                File(
                    path: "seeds/schema.sql", text: PlainTemplates.schema,
                    purpose: "the seed's schema (the tables of your app's store)"),
                File(
                    path: "seeds/data/items.csv", text: PlainTemplates.items,
                    purpose: "the fixture of table items, one row per line"),
            ] + common)
    }

    /// The Core Data layout for `model`: a manifest naming it (as `modelPath`, relative to
    /// `seeds/`), one header-only fixture per concrete entity, keys from the model's uniqueness
    /// constraints, refs for to-one relationships whose destination has such a key; and the
    /// app's empty store as `seeds/empty.sqlite` when `template` is given.
    public static func coreData(model: CoreDataModel, modelPath: String, template: Data?) -> ProjectScaffold {
        let plan = CoreDataScaffold(model: model)
        var files = [
            File(
                path: "seeds/seedkit.yml", text: plan.manifest(modelPath: modelPath, hasTemplate: template != nil),
                purpose: "the manifest: the model, the template, one table per entity")
        ]
        if let template {
            files.append(
                File(
                    path: "seeds/empty.sqlite", contents: template,
                    purpose: "the template: your app's empty store, copied from --template (never changed)"))
        }
        for entity in plan.concreteEntities {
            files.append(
                File(
                    path: "seeds/data/\(entity.name).csv", text: plan.header(entity.name) + "\n",
                    purpose: "the fixture of entity \(entity.name) (header only: add one row per object)"))
        }
        return ProjectScaffold(files: files + common)
    }

    /// The Core Data layout for a store that carries its model (`Z_MODELCACHE`): a manifest
    /// without `model:`, the store with its rows taken out as the template (`seeds/` + the
    /// store's file name), and one fixture per concrete entity holding the store's rows.
    ///
    /// - throws: ``SeedError`` when the store cannot be read or copied.
    public static func coreData(model: CoreDataModel, store path: String, shown: String) throws(SeedError)
        -> ProjectScaffold
    {
        var export = CoreDataStoreExport(model: model)
        let queue = try StoreAccess.openReadOnly(path)
        defer { try? queue.close() }
        do { try queue.read { db in try export.read(db) } } catch let error as SeedError { throw error } catch {
            throw SeedError(
                .configuration, file: shown,
                "cannot read the store's rows: \((error as? DatabaseError)?.message ?? "\(error)"); nothing was written"
            )
        }
        // The export's plan: it knows, from the store's rows, which column names a row in refs.
        let plan = export.plan
        let template = (path as NSString).lastPathComponent
        var files = [
            File(
                path: "seeds/seedkit.yml",
                text: plan.manifest(
                    modelPath: "", hasTemplate: true, store: (template, (shown as NSString).lastPathComponent)),
                purpose: "the manifest: the template, one table per entity (the model is the template's)")
        ]
        files.append(
            File(
                path: "seeds/\(template)", contents: try CoreDataStoreExport.emptiedTemplate(path),
                purpose: "the template: \(shown) with its rows taken out (never changed by build)"))
        let unfilled = plan.emptied
        for entity in plan.concreteEntities where !unfilled.contains(entity.name) {
            let rows = export.rowCounts[entity.name] ?? 0
            let notes = export.notes[entity.name].map { " (" + $0.joined(separator: "; ") + ")" } ?? ""
            files.append(
                File(
                    path: "seeds/data/\(entity.name).csv",
                    text: export.fixtures[entity.name] ?? plan.header(entity.name) + "\n",
                    purpose:
                        "the fixture of entity \(entity.name): the store's \(rows) row\(rows == 1 ? "" : "s")\(notes)"))
        }
        var scaffold = ProjectScaffold(files: files + common)
        scaffold.seed = "build/" + CoreDataScaffold.seedName(template: template)
        return scaffold
    }

    /// Files both layouts have: the migrations folder, the shipped seeds' folder, CI.
    private static var common: [File] {
        [
            File(
                path: "migrations/README.md", text: PlainTemplates.migrationsReadme,
                purpose: "numbered data updates go here (seedkit new-migration)"),
            File(
                path: "seeds/releases/README.md", text: PlainTemplates.releasesReadme,
                purpose: "the seeds you ship are kept here, for check-upgrade"),
            File(
                path: ".github/workflows/seedkit.yml", text: PlainTemplates.workflow,
                purpose: "CI: fixture errors as annotations (--format github), shipped seeds must upgrade"),
            File(
                path: ".gitignore", contents: Data(PlainTemplates.gitignore.utf8),
                purpose: "keeps build/ (the seed build writes) and SwiftPM's .build/ out of git",
                unlessPresent: true),
        ]
    }

    /// What is in the way under `root`: a file to write that exists (of any kind, a dangling
    /// symbolic link included), a folder to create that is a file, a `migrations/` that holds
    /// files.
    ///
    /// Each path as the scaffold names it, with why. Nothing may be written unless this is empty.
    public func obstacles(in root: URL) -> [(path: String, problem: String)] {
        var found: [(path: String, problem: String)] = []
        var folders: [String] = []
        for file in files {
            var parts = file.path.split(separator: "/").map(String.init)
            parts.removeLast()
            for index in parts.indices {
                let folder = parts[...index].joined(separator: "/")
                if !folders.contains(folder) { folders.append(folder) }
            }
        }
        for folder in folders {
            var status = stat()
            guard lstat(root.appendingPathComponent(folder).path, &status) == 0 else { continue }
            if status.st_mode & S_IFMT != S_IFDIR {
                found.append((folder, "already exists and is not a folder"))
            } else if folder == Self.migrationsFolder,
                let names = try? FileManager.default.contentsOfDirectory(
                    atPath: root.appendingPathComponent(folder).path), !names.isEmpty
            {
                found.append((folder, "already holds files, which seedkit would read as its migrations"))
            }
        }
        for file in files where !file.unlessPresent {
            var status = stat()
            if lstat(root.appendingPathComponent(file.path).path, &status) == 0 {
                found.append((file.path, "already exists"))
            }
        }
        return found
    }

    /// Writes every file under `root` (created if missing), refusing first if anything is in
    /// the way; a file that cannot be written removes the ones written before it.
    ///
    /// - Parameters:
    ///   - root: the project folder.
    ///   - shown: how `root` is shown in messages (`""` for the current folder).
    /// - throws: ``SeedError`` (configuration) listing every path in the way, nothing written;
    ///   (I/O) when a file cannot be written, nothing left behind.
    /// - returns: the files written: all of them, but an ``File/unlessPresent`` one that was there.
    @discardableResult
    public func write(into root: URL, shown: String) throws(SeedError) -> [File] {
        let obstacles = obstacles(in: root)
        guard obstacles.isEmpty else {
            throw SeedError(
                .configuration,
                obstacles.map { obstacle in
                    Diagnostic(
                        file: Self.display(obstacle.path, in: shown), code: .configuration,
                        message: obstacle.problem + "; seedkit init never overwrites anything, so nothing was written")
                })
        }
        var written: [URL] = []
        var createdFolders: [URL] = []
        var done: [File] = []
        do {
            for file in files {
                let target = root.appendingPathComponent(file.path)
                var status = stat()
                if file.unlessPresent, lstat(target.path, &status) == 0 { continue }
                for folder in Self.missingFolders(above: target) {
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
                    createdFolders.append(folder)
                }
                // O_EXCL: never replace a file that appeared since the check.
                let descriptor = open(target.path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
                guard descriptor >= 0 else {
                    throw SeedError(
                        .io, file: Self.display(file.path, in: shown),
                        "cannot create: \(String(cString: strerror(errno))); nothing was written")
                }
                written.append(target)
                let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
                try handle.write(contentsOf: file.contents)
                try handle.close()
                done.append(file)
            }
        } catch {
            for url in written.reversed() { unlink(url.path) }
            for folder in createdFolders.reversed() { rmdir(folder.path) }
            if let error = error as? SeedError { throw error }
            throw SeedError(
                .io, file: shown.isEmpty ? "." : shown,
                "cannot write the project: \(error.localizedDescription); nothing was written")
        }
        return done
    }

    /// `path` as the user sees it: under `shown` unless that is the current folder.
    public static func display(_ path: String, in shown: String) -> String {
        shown.isEmpty || shown == "." ? path : (shown as NSString).appendingPathComponent(path)
    }

    /// The folders above `target` that do not exist yet (`root` and its parents included), outermost first.
    private static func missingFolders(above target: URL) -> [URL] {
        var missing: [URL] = []
        var folder = target.deletingLastPathComponent().standardizedFileURL
        while folder.path != "/" && !FileManager.default.fileExists(atPath: folder.path) {
            missing.insert(folder, at: 0)
            folder = folder.deletingLastPathComponent()
        }
        return missing
    }

    /// `path` written relative to `base` (both absolute), with `..` where needed; `path` itself
    /// when they share nothing but `/`.
    public static func relativePath(_ path: String, from base: String) -> String {
        let target = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        let start = URL(fileURLWithPath: base).standardizedFileURL.pathComponents
        var common = 0
        while common < min(target.count, start.count), target[common] == start[common] { common += 1 }
        guard common > 1 else { return URL(fileURLWithPath: path).standardizedFileURL.path }
        let parts = Array(repeating: "..", count: start.count - common) + target[common...]
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }

    /// Whether `folder` or a folder above it holds a `Package.swift`: the CI workflow then gets
    /// seedkit through the package, otherwise from the Git URL it is given.
    public static func isInSwiftPackage(_ folder: URL) -> Bool {
        var current = folder.standardizedFileURL
        while true {
            if FileManager.default.fileExists(atPath: current.appendingPathComponent("Package.swift").path) {
                return true
            }
            let parent = current.deletingLastPathComponent()
            if parent.path == current.path { return false }
            current = parent
        }
    }
}

extension ProjectScaffold.File {
    init(path: String, text: String, purpose: String) {
        self.init(path: path, contents: Data(text.utf8), purpose: purpose)
    }
}
