/// What happened to one row of a migration.
public struct RowEvent: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case inserted, updated, deleted
        /// An insert whose key the store already has (from the seed or the user).
        case alreadyPresent = "already-present"
        /// An update whose `to` values the row already holds.
        case upToDate = "up-to-date"
        /// An update or delete of a row the store does not have (the user deleted it).
        case missing
        /// The user changed the row: their values stay.
        case conflict
        /// A delete of a row something still references (1600).
        case deleteDenied = "delete-denied"
        /// A SQL migration ran.
        case sql
    }

    public var kind: Kind
    public var table: String
    /// The row's natural key, rendered.
    public var key: String
    public var detail: String
    public var file: String
    public var line: Int
}

/// One migration as applied (or as it would be, in a dry run).
public struct MigrationOutcome: Sendable, Equatable {
    public var number: Int
    public var name: String
    public var file: String
    public var events: [RowEvent]

    /// `0001-add-fourth-book`.
    public var id: String { Migration.id(number: number, name: name) }

    /// How many events of `kind` there were.
    public func count(_ kind: RowEvent.Kind) -> Int { events.filter { $0.kind == kind }.count }
}

/// What a migration run did.
public struct MigrationReport: Sendable, Equatable {
    /// The migrations applied, in order. Empty when the store was up to date.
    public var migrations: [MigrationOutcome]
    /// Whether nothing was written (``SeedMigrator/dryRun(_:options:)``).
    public var dryRun: Bool

    public init(migrations: [MigrationOutcome], dryRun: Bool) {
        self.migrations = migrations
        self.dryRun = dryRun
    }

    /// Conflicts and denied deletes, the events a person should look at.
    public var attention: [RowEvent] { migrations.flatMap(\.events).filter { $0.kind == .conflict || $0.kind == .deleteDenied } }
}

/// A migration's state in a store, as `seedkit status` shows it.
public enum MigrationState: Sendable, Equatable {
    /// Applied by a migration run.
    case applied(LedgerEntry, Migration)
    /// Contained in the seed the store was installed from.
    case fromSeed(LedgerEntry, Migration)
    /// Not yet applied.
    case pending(Migration)
    /// Applied, but its file changed since (refused).
    case changed(LedgerEntry, Migration)
    /// Applied, but no file has its number (the store is newer than these migrations; refused).
    case missing(LedgerEntry)

    public var number: Int {
        switch self {
        case .applied(let entry, _), .fromSeed(let entry, _), .changed(let entry, _), .missing(let entry): return entry.number
        case .pending(let migration): return migration.number
        }
    }

    /// `applied`, `from-seed`, `pending`, `changed`, `missing`.
    public var label: String {
        switch self {
        case .applied: return "applied"
        case .fromSeed: return "from-seed"
        case .pending: return "pending"
        case .changed: return "changed"
        case .missing: return "missing"
        }
    }
}
