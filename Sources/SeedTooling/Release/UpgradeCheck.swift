import Foundation
public import SeedRuntime

extension UpgradeChecker {
    /// Checks each old seed against `fresh` (`seedkit check-upgrade`), once every key the
    /// migrations' updates and deletes name is known to match a row.
    ///
    /// A key that matches no row of the old seeds, the fresh build or any migration's inserts
    /// and renames is likely a typo, which `migrate` would record as applied: refused before any
    /// seed is migrated, each such key named (``unmatchedKeys(_:fresh:)``).
    ///
    /// - Parameters:
    ///   - oldSeeds: the seeds earlier releases shipped (only read).
    ///   - fresh: a seed built from the current fixtures.
    /// - Returns: each seed's outcome, in the order given.
    /// - Throws: ``SeedError``: invalid data naming each key no seed holds; a store's error,
    ///   naming the store, when one cannot be read.
    public func run(_ oldSeeds: [String], fresh: URL) throws(SeedError) -> [Outcome] {
        let unmatched: [Diagnostic]
        do { unmatched = try unmatchedKeys(oldSeeds, fresh: fresh) } catch let error as SeedError {
            throw error
        } catch { throw SeedError(databaseError: error) }
        if !unmatched.isEmpty { throw SeedError(.invalidData, unmatched) }
        do { return try check(oldSeeds, fresh: fresh) } catch let error as SeedError {
            throw error
        } catch { throw SeedError(databaseError: error) }
    }
}
