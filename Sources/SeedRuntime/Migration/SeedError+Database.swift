import Foundation
import GRDB

/// An error that carries SQLite's error from a read (e.g., which of two stores failed), mapped by
/// ``SeedError/init(databaseError:file:store:)`` as the error it carries.
package protocol WrappedDatabaseError: Error {
    var databaseError: any Error { get }
}

extension SeedError {
    /// Maps a SQLite failure to the kind a caller acts on.
    ///
    /// - parameters:
    ///   - error: SQLite's error, or a ``SeedError`` or ``WrappedDatabaseError`` carrying one.
    ///   - file: the store as the caller names it, put on the diagnostic.
    ///   - store: the store's path on disk when it differs from `file` (or `file` is nil): a write
    ///     refused because its folder is read-only (SQLite creates the journal there) is told
    ///     apart from a read-only store by looking at the folder.
    package init(databaseError error: any Error, file: String? = nil, store: String? = nil) {
        // Already said in seedkit's terms (a refused store found while reading it): kept, put on `file`.
        if let error = error as? SeedError {
            self.init(
                error.kind,
                error.diagnostics.map { diagnostic in
                    var diagnostic = diagnostic
                    if diagnostic.file == nil { diagnostic.file = file }
                    return diagnostic
                })
            return
        }
        if let wrapped = error as? any WrappedDatabaseError {
            self.init(databaseError: wrapped.databaseError, file: file, store: store)
            return
        }
        guard let error = error as? DatabaseError else {
            self.init(.io, file: file, "\(error)")
            return
        }
        let message = error.message ?? "\(error)"
        if error.resultCode == .SQLITE_READONLY || error.resultCode == .SQLITE_CANTOPEN,
            let folder = Self.readOnlyFolder(of: store ?? file, error: error)
        {
            self.init(
                .io, file: file,
                "the folder \(folder) is read-only: SQLite needs to create a journal file beside the store to write it; make the folder writable or move the store; nothing was written"
            )
            return
        }
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            self.init(
                .io, file: file,
                "the store is locked by another connection and stayed locked for the whole busy timeout; try again when it is free (commands that write take --busy-timeout SECONDS to wait longer)"
            )
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            self.init(.refused, file: file, "not a SQLite database, or corrupt (\(message)); the file was not changed")
        case .SQLITE_READONLY:
            self.init(.io, file: file, "the store is read-only (\(message)); nothing was written")
        case .SQLITE_FULL:
            self.init(.io, file: file, "the disk is full (\(message)); nothing was written")
        case .SQLITE_CANTOPEN:
            self.init(.io, file: file, "cannot open the store (\(message))")
        case .SQLITE_CONSTRAINT:
            self.init(.invalidData, file: file, "\(message)")
        case .SQLITE_ERROR where message.hasPrefix("unsafe use of"):
            self.init(
                .refused, file: file,
                "the store's schema uses what SQLite allows only in stores it trusts (\(message)): seedkit reads stores with trusted_schema off, so their views and triggers can't call functions or virtual tables SQLite does not mark harmless; nothing was written"
            )
        case .SQLITE_INTERRUPT:
            self.init(
                .refused, file: file,
                "reading the store was stopped: it ran past seedkit's bound on reading a store (10 s plus 1 s per MB of the file; SEEDKIT_READ_LIMIT=SECONDS sets another), so a view or trigger of the store may never end (\(message)); nothing was written"
            )
        default:
            self.init(.io, file: file, "SQLite error \(error.resultCode.rawValue): \(message)")
        }
    }

    /// The store's folder, resolved, when SQLite's failure is the folder's: SQLite says so
    /// (`SQLITE_READONLY_DIRECTORY`), or the store itself is writable and its folder is not
    /// (SQLite reports the journal it could not create as read-only or as "unable to open").
    static func readOnlyFolder(of store: String?, error: DatabaseError) -> String? {
        guard let store, !store.hasPrefix("file:"), !store.isEmpty, store != ":memory:" else { return nil }
        let folder = URL(fileURLWithPath: store).deletingLastPathComponent().path
        let resolved =
            realpath(folder, nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            } ?? folder
        if error.extendedResultCode == .SQLITE_READONLY_DIRECTORY { return resolved }
        guard access(store, W_OK) == 0, access(folder, W_OK) != 0 else { return nil }
        return resolved
    }

    /// The same error said about `store`: a diagnostic without a file gets the store's name, and
    /// a refusal, which is always about the store, is put on the store (a migration file it
    /// names stays in its message).
    ///
    /// What commands and the app runtime report for a store.
    package func about(store: String) -> SeedError {
        SeedError(
            kind,
            diagnostics.map { diagnostic in
                var diagnostic = diagnostic
                if diagnostic.file == nil {
                    diagnostic.file = store
                } else if diagnostic.code == .storeRefused, let file = diagnostic.file, file != store {
                    if !diagnostic.message.contains(file) { diagnostic.message = "\(file): " + diagnostic.message }
                    diagnostic.file = store
                    diagnostic.line = 0
                    diagnostic.column = 0
                }
                return diagnostic
            })
    }
}
