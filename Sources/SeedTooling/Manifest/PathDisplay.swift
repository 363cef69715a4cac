import Foundation
import SeedRuntime

/// How messages name the files seedkit reads.
public enum PathDisplay {
    /// Absolute paths instead of paths shortened under the current directory (`--absolute-paths`:
    /// SeedkitPlugin passes it, since Xcode and SwiftPM attribute a build command's
    /// `file:line:col: error:` lines by absolute path, whatever folder the command runs in).
    ///
    /// Kept per run when the run is an ``Invocation`` (commands run in-process, by the tests).
    public static var absolute: Bool {
        get { Invocation.current?.absolutePaths ?? processAbsolute }
        set {
            if let invocation = Invocation.current {
                invocation.absolutePaths = newValue
            } else {
                processAbsolute = newValue
            }
        }
    }
    nonisolated(unsafe) private static var processAbsolute = false
}

/// A path as short as it can be said from the current directory (absolute under ``PathDisplay/absolute``).
func displayPath(_ url: URL) -> String {
    let path = url.standardizedFileURL.path
    if PathDisplay.absolute { return path }
    let current = FileManager.default.currentDirectoryPath
    if path.hasPrefix(current + "/") { return String(path.dropFirst(current.count + 1)) }
    return path
}

extension Manifest {
    /// A path the manifest names: relative paths are taken from the manifest's folder, absolute
    /// ones (and `~/…`) as they are.
    static func resolve(_ path: String, in directory: URL) -> URL {
        let expanded = (path as NSString).expandingTildeInPath
        return expanded.hasPrefix("/") ? URL(fileURLWithPath: expanded) : directory.appendingPathComponent(path)
    }
}
