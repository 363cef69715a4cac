/// What happened to one row of a migration, as data an app can act on.
///
/// ```swift
/// for event in report.events where event.kind == .conflict {
///     for change in event.changes {
///         print(event.table, event.keyValue("title") ?? .null, change.column, "kept", change.kept ?? .null)
///     }
/// }
/// ```
public struct RowEvent: Sendable, Equatable {
    /// What the migration did with the row.
    public enum Kind: String, Sendable, CaseIterable {
        /// The row was inserted.
        case inserted
        /// The row held the migration's `from` values; it now holds its `to` values.
        case updated
        /// The row was unchanged and unreferenced; it was deleted.
        case deleted
        /// An insert whose key the store already has (from the seed or the user).
        case alreadyPresent = "already-present"
        /// An update whose `to` values the row already holds.
        case upToDate = "up-to-date"
        /// An update or delete of a row the store does not have (the user deleted it).
        case missing
        /// The user changed the row (or a row it needs is gone): the store's values are kept.
        case conflict
        /// A delete of a row something still references (1600).
        case deleteDenied = "delete-denied"
        /// A SQL migration changed rows of `table` (`detail`: `2 inserted, 1 updated`).
        case sql

        /// Whether the migration's change took effect for the row (inserted, updated, deleted, or
        /// already up to date): a report may only count those; it names every other row.
        public var isApplied: Bool { [.inserted, .updated, .deleted, .upToDate].contains(self) }
    }

    /// One column of a row's natural key and its value.
    public struct KeyValue: Sendable, Equatable {
        /// The key column, as the migration names it (an attribute, for Core Data).
        public var column: String
        /// The value as stored (a Core Data `UUID` attribute's 16 bytes in their text form, as a
        /// migration writes it); for a ref, the parent's id (see ``parent``).
        public var value: SQLValue
        /// For a ref column: the parent row, by its natural key.
        public var parent: Reference?

        /// A key column and its value.
        public init(column: String, value: SQLValue, parent: Reference? = nil) {
            self.column = column
            self.value = value
            self.parent = parent
        }
    }

    /// A row of another table, by one column of its natural key.
    public struct Reference: Sendable, Equatable {
        /// The parent table (an entity, for Core Data).
        public var table: String
        /// The parent's key column.
        public var column: String
        /// The parent's key value.
        public var value: SQLValue

        /// A parent row by its key.
        public init(table: String, column: String, value: SQLValue) {
            self.table = table
            self.column = column
            self.value = value
        }
    }

    /// One column an update wanted to change, or a conflict found changed.
    public struct ColumnChange: Sendable, Equatable {
        /// The column, as the migration names it.
        public var column: String
        /// The value the migration expected (its `from`: what the previous seed shipped); nil if it gave none.
        public var old: SQLValue?
        /// The value the migration wanted (its `to`); nil for a column it only checked, or for a delete.
        public var new: SQLValue?
        /// The value the store holds after the run: `new` for an update, the user's value for a conflict.
        public var kept: SQLValue?
        /// For a ref column: the parent rows `old`, `new` and `kept` name, by their natural key
        /// (nil for other columns, NULL values, and ids no parent row has).
        public var oldParent: Reference?
        /// The parent row `new` names (see ``oldParent``).
        public var newParent: Reference?
        /// The parent row `kept` names (see ``oldParent``).
        public var keptParent: Reference?

        /// A column's expected, wanted and kept values.
        public init(
            column: String, old: SQLValue?, new: SQLValue?, kept: SQLValue?,
            oldParent: Reference? = nil, newParent: Reference? = nil, keptParent: Reference? = nil
        ) {
            self.column = column
            self.old = old
            self.new = new
            self.kept = kept
            self.oldParent = oldParent
            self.newParent = newParent
            self.keptParent = keptParent
        }
    }

    /// What happened.
    public var kind: Kind
    /// The table, as the migration names it (an entity, for Core Data).
    ///
    /// Empty for ``Kind/sql``.
    public var table: String
    /// The row's natural key, column by column, in key order.
    ///
    /// Empty for ``Kind/sql``, and for a conflicting insert whose key could not be resolved.
    public var key: [KeyValue]
    /// For ``Kind/updated`` and ``Kind/conflict``: each column involved, with its expected, wanted and kept value.
    public var changes: [ColumnChange]
    /// Why, in words (`changed in the store (price is 13, expected 10); the store's values are kept`).
    public var detail: String
    /// The migration file.
    public var file: String
    /// The line in ``file`` of the row's entry; 0 when not known.
    public var line: Int

    /// An event, as the migrator reports it.
    public init(
        kind: Kind, table: String, key: [KeyValue], changes: [ColumnChange] = [], detail: String, file: String,
        line: Int
    ) {
        self.kind = kind
        self.table = table
        self.key = key
        self.changes = changes
        self.detail = detail
        self.file = file
        self.line = line
    }

    /// The value of one key column (case-insensitive), or nil.
    public func keyValue(_ column: String) -> SQLValue? {
        key.first { $0.column.isSameName(as: column) }?.value
    }

    /// The key as the CLI prints it: `'The fourth book'` for a one-column key, or
    /// `(book='Dune', number=2)`; a ref shows its parent's key.
    public var keyDescription: String { Self.describe(key: key) }

    /// See ``keyDescription``.
    package static func describe(key: [KeyValue]) -> String {
        func shown(_ part: KeyValue) -> String { describe(part.parent?.value ?? part.value) }
        if key.count == 1 { return shown(key[0]) }
        return "(" + key.map { "\($0.column)=\(shown($0))" }.joined(separator: ", ") + ")"
    }

    /// A value as reports show it; a ref by its parent's key (`'NO-50'`), not the id stored.
    package static func describe(_ value: SQLValue, parent: Reference?) -> String { describe(parent?.value ?? value) }

    /// A value as reports show it: text quoted, with what a terminal acts on escaped (`'\x1b[2J'`,
    /// `'abc\0def'`), whole reals without `.0`.
    package static func describe(_ value: SQLValue) -> String {
        switch value {
        case .text(let text): return "'\(text.escapingControls())'"
        case .real(let real) where real == real.rounded() && abs(real) < 1e15: return String(Int64(real))
        default: return value.description
        }
    }
}

/// One migration as applied (or as it would be, in a dry run).
public struct MigrationOutcome: Sendable, Equatable {
    /// The migration's number: `2` for `0002-release-1-2.json`.
    public var number: Int
    /// The name after the number: `release-1-2` (``Migration/name``).
    public var name: String
    /// The migration file.
    public var file: String
    /// What happened to each row, in the order of the file (with
    /// ``SeedMigrator/Options/eventsPerKind``, the first of each kind).
    public var events: [RowEvent]
    /// How many events of each kind ``events`` leaves out (``SeedMigrator/Options/eventsPerKind``); empty when it lists all.
    public var unlisted: [RowEvent.Kind: Int] = [:]
    /// For a SQL migration, the rows it inserted, updated or deleted (`sqlite3_total_changes`,
    /// triggers included); its events give them by table.
    ///
    /// Nil for declarative migrations.
    public var changedRows: Int?

    /// An outcome, as the migrator reports it.
    public init(number: Int, name: String, file: String, events: [RowEvent]) {
        self.number = number
        self.name = name
        self.file = file
        self.events = events
    }

    /// Number and name, as in the ledger, `seedkit status` and the file name: `0002-release-1-2` (``Migration/id``).
    public var id: String { Migration.id(number: number, name: name) }

    /// How many events of `kind` there were, listed or not.
    public func count(_ kind: RowEvent.Kind) -> Int {
        events.reduce(unlisted[kind, default: 0]) { $1.kind == kind ? $0 + 1 : $0 }
    }
}

/// What a migration run did.
public struct MigrationReport: Sendable, Equatable {
    /// The migrations applied, in order.
    ///
    /// Empty when the store was up to date.
    public var migrations: [MigrationOutcome]
    /// Whether nothing was written (``SeedMigrator/dryRun(_:options:)``).
    public var dryRun: Bool

    /// A report of `migrations`.
    public init(migrations: [MigrationOutcome], dryRun: Bool) {
        self.migrations = migrations
        self.dryRun = dryRun
    }

    /// Every row event of every migration, in order.
    public var events: [RowEvent] { migrations.flatMap(\.events) }

    /// Conflicts and denied deletes, the events a person should look at.
    public var attention: [RowEvent] {
        migrations.flatMap { $0.events.filter { $0.kind == .conflict || $0.kind == .deleteDenied } }
    }
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

    /// The migration's number.
    public var number: Int {
        switch self {
        case .applied(let entry, _), .fromSeed(let entry, _), .changed(let entry, _), .missing(let entry):
            return entry.number
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
