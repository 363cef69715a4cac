import Foundation
import SeedRuntime
import SeedTooling

/// A seed built from the current fixtures into a temporary file, removed when released.
final class FreshBuild {
    let url: URL
    /// Ctrl-C or SIGTERM while the fresh build exists removes it.
    private let interruption: Interruption

    /// Builds the fixtures into a new temporary file that Ctrl-C, SIGTERM or release removes.
    ///
    /// - Parameters:
    ///   - manifest: the project's manifest.
    ///   - migrations: the project's migrations, applied as `build` applies them.
    ///   - progress: the build's progress (``SeedBuilder/progress``), for a command's bar.
    /// - Throws: ``SeedError`` as ``FreshSeed/build(_:to:)`` throws it.
    init(
        manifest: Manifest, migrations: [Migration],
        progress: (@Sendable (_ table: String, _ rows: Int, _ bytesRead: Int, _ fileSize: Int) -> Void)? = nil
    ) throws(SeedError) {
        url = ProcessTemporaryFile.url(temporary: "fresh")
        ProcessTemporaryFile.removeStale(temporary: "fresh")
        interruption = Interruption(cleaning: url, SeedBuilder.temporaryURL(for: url))
        try FreshSeed.build(manifest: manifest, migrations: migrations, to: url, progress: progress)
    }

    deinit {
        interruption.stop()
        for suffix in ["", "-journal"] { unlink(url.path + suffix) }
    }
}
