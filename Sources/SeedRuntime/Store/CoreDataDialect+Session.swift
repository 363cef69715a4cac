import Foundation
import GRDB

extension CoreDataDialect {
    /// Rows inserted by one run, by table and `Z_PK`; and the run's changes for persistent history.
    final class Session: @unchecked Sendable {
        let lock = NSLock()
        var rows: Set<String> = []
        /// By `Z_ENT#Z_PK`, merged as one Core Data save merges an object's changes.
        var changes: [String: CoreDataHistory.Change] = [:]

        func insert(_ table: String, _ key: Int64) {
            lock.withLock { _ = rows.insert("\(table)#\(key)") }
        }

        func contains(_ table: String, _ key: Int64) -> Bool {
            lock.withLock { rows.contains("\(table)#\(key)") }
        }

        /// Rows whose `Z_OPT` this run moved on already.
        var bumped: Set<String> = []

        /// Whether a change of this row moves its `Z_OPT` on: one save bumps an object once, however
        /// many of its properties and relationships change, and never one it inserts (saved at 1).
        func bumps(_ table: String, _ key: Int64) -> Bool {
            let id = "\(table)#\(key)"
            return lock.withLock { !rows.contains(id) && bumped.insert(id).inserted }
        }

        /// Records a change of a row.
        ///
        /// One save records one change per object: an object inserted and then changed is an
        /// insert; inserted and then deleted, nothing; updated more than once, one update of every
        /// property that changed; updated and then deleted, a delete.
        func record(_ change: CoreDataHistory.Change) {
            let id = "\(change.entity)#\(change.primaryKey)"
            lock.withLock {
                guard var existing = changes[id] else {
                    changes[id] = change
                    return
                }
                switch (existing.kind, change.kind) {
                case (.insert, .delete): changes[id] = nil
                case (.insert, _), (.delete, _): break
                case (.update, .update):
                    existing.changed.formUnion(change.changed)
                    changes[id] = existing
                case (.update, _): changes[id] = change
                }
            }
        }

        /// The changes recorded, by entity number and key.
        func recorded() -> [CoreDataHistory.Change] {
            lock.withLock { changes.values.sorted { ($0.entity, $0.primaryKey) < ($1.entity, $1.primaryKey) } }
        }
    }
}
