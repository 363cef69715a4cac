import Foundation
public import SeedRuntime

/// A build of the current fixtures into a temporary file, the seed `new-migration --from` and
/// `check-upgrade` compare old seeds with.
public enum FreshSeed {
    /// Builds `builder`'s fixtures into `url`, a file in the temporary folder.
    ///
    /// SQLite's message for a full disk names no file: an I/O error that names none is said to be
    /// about the fresh build, naming the temporary folder and `TMPDIR`, the setting that moves it.
    ///
    /// - Parameters:
    ///   - builder: the project's manifest and migrations, with any progress callback.
    ///   - url: where the fresh seed goes (the caller removes it).
    /// - Throws: ``SeedError`` as ``SeedBuilder/build(to:)`` throws it, an I/O error naming `url`.
    public static func build(_ builder: SeedBuilder, to url: URL) throws(SeedError) {
        do { _ = try builder.build(to: url) } catch let error where error.kind == .io {
            let folder = url.deletingLastPathComponent().path
            throw SeedError(
                error.kind,
                error.diagnostics.map { diagnostic in
                    var diagnostic = diagnostic
                    if diagnostic.file == nil {
                        diagnostic.file = url.path
                        diagnostic.message +=
                            " (a fresh build of the fixtures, in the temporary folder \(folder): set TMPDIR to use another)"
                    }
                    return diagnostic
                })
        }
    }

    /// Builds `manifest`'s fixtures with `migrations` into `url`, as `build` builds them.
    ///
    /// - Parameters:
    ///   - manifest: the project's manifest.
    ///   - migrations: the project's migrations, applied as `build` applies them.
    ///   - url: where the fresh seed goes (the caller removes it).
    ///   - progress: the build's progress (``SeedBuilder/progress``), for a command's bar.
    /// - Throws: ``SeedError`` as ``build(_:to:)`` throws it.
    public static func build(
        manifest: Manifest, migrations: [Migration], to url: URL,
        progress: (@Sendable (_ table: String, _ rows: Int, _ bytesRead: Int, _ fileSize: Int) -> Void)? = nil
    ) throws(SeedError) {
        var builder = SeedBuilder(manifest: manifest, migrations: migrations)
        builder.progress = progress
        try build(builder, to: url)
    }
}
