import Foundation
import SeedRuntime

/// What a failed write to a store the user named left there, said in seedkit's terms.
public enum StoreWriteFailure {
    /// A write past the file-size limit failed the run's transaction, which SQLite rolled back:
    /// SQLite's "disk I/O error" is said with what it means for the store (`migrate`: the
    /// migrations were rolled back, nothing was written).
    ///
    /// Any other error is returned as it is.
    public static func rolledBack(_ error: any Error, store: String) -> any Error {
        let mapped = (error as? SeedError)?.about(store: store) ?? SeedError(databaseError: error, file: store)
        guard mapped.kind == .io else { return error }
        return SeedError(
            mapped.kind,
            mapped.diagnostics.map { diagnostic in
                var diagnostic = diagnostic
                if !diagnostic.message.contains("nothing was written") && !diagnostic.message.contains("not migrated") {
                    diagnostic.message += "; the migrations were rolled back: nothing was written"
                }
                return diagnostic
            })
    }
}
