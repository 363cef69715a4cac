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
