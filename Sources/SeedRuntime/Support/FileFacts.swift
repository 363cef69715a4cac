import Foundation

/// What a path names, read through its symlinks (`stat`, not `lstat`): a store reached through
/// a link is the file it points at, its size and kind included (docs/reference.md).
package enum FileFacts {
    /// The kind of file `path` names, once its links are followed; nil when there is none.
    package enum Kind: Equatable {
        case regular, directory, fifo, characterDevice, blockDevice, socket, other

        /// How a message names it: `a FIFO (named pipe)`.
        package var described: String {
            switch self {
            case .regular: return "a regular file"
            case .directory: return "a folder"
            case .fifo: return "a FIFO (named pipe)"
            case .characterDevice: return "a character device"
            case .blockDevice: return "a block device"
            case .socket: return "a socket"
            case .other: return "not a regular file"
            }
        }
    }

    /// The size in bytes of the file `path` names through its links; nil when it can't be read.
    package static func size(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    /// Refuses, as a configuration error, a path that names something other than a regular file or
    /// a folder (a FIFO, a device, a socket): reading it would block, or read what is not a file.
    ///
    /// Nothing there passes (the caller says what is missing, as it always did).
    ///
    /// - Parameters:
    ///   - path: the path to check.
    ///   - shown: the path as messages name it.
    ///   - what: what seedkit reads there, for the message (`the fixture`, `the manifest`).
    /// - Throws: ``SeedError`` (configuration) naming what is there instead of a file.
    package static func refuseSpecial(_ path: String, shown: String, what: String) throws(SeedError) {
        guard let kind = kind(path), kind != .regular, kind != .directory else { return }
        throw SeedError(
            .configuration, file: shown,
            "this is \(kind.described), not a file: seedkit reads \(what) only from a regular file")
    }

    /// Whether `path` is a symbolic link that leads to no file (dangling, or a loop).
    package static func isBrokenLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK && kind(path) == nil
    }

    /// The kind of the file `path` names through its links; nil when there is none.
    package static func kind(_ path: String) -> Kind? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFIFO: return .fifo
        case S_IFCHR: return .characterDevice
        case S_IFBLK: return .blockDevice
        case S_IFSOCK: return .socket
        default: return .other
        }
    }
}
