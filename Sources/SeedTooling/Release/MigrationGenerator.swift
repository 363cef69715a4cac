import Foundation
import GRDB
import SeedRuntime

/// Writes the migration that brings a store built from an old seed to the current fixtures
/// (`seedkit new-migration NAME --from OLD_SEED`).
///
/// Compares the old seed with a fresh build by each table's natural key, refs as natural keys:
/// new keys become `insert` (parents first), changed columns `update` with `from` and `to`,
/// removed keys `delete` with `from` (children first). Every update and delete carries `from`,
/// so applying it never overwrites what a user changed.
public struct MigrationGenerator: Sendable {
    /// The project's manifest: each table's key and refs, which the migration names rows by.
    public var manifest: Manifest

    /// A generator of migrations for `manifest`'s tables.
    public init(manifest: Manifest) { self.manifest = manifest }

    /// The next migration's file name: `0002-fix-prices.yml`.
    public static func fileName(number: Int, name: String) -> String {
        Migration.id(number: number, name: slug(name)) + "." + MigrationGrammar.FileFormat.yaml.fileExtension
    }

    /// `Fix the Prices!` → `fix-the-prices`.
    public static func slug(_ name: String) -> String {
        var words: [String] = []
        var word = ""
        for character in name.lowercased() {
            if character.isLetter || character.isNumber {
                word.append(character)
            } else if !word.isEmpty {
                words.append(word)
                word = ""
            }
        }
        if !word.isEmpty { words.append(word) }
        return words.joined(separator: "-")
    }

    /// An empty migration with commented examples: rows of the project's own tables when
    /// `manifest` gives one with a key and a readable fixture (the last such table in the
    /// manifest's order, whose refs show best), else of the BookStore example.
    public static func scaffold(id: String, manifest: Manifest? = nil) -> String {
        if let manifest, let example = scaffold(id: id, from: manifest) { return example }
        return """
            # \(id): describe the data change here.
            # insert: rows added when their key is missing (refs by natural key)
            #   books:
            #     - { title: "The fifth book", price: 14, category_id: "Fiction" }
            # update: values changed only where the user has not changed them
            #   books:
            #     - key: "The first book"
            #       from: { price: 10 }
            #       to: { price: 11 }
            # delete: rows removed when they still hold `from` and nothing refers to them
            #   books:
            #     - key: "The third book"
            #       from: { price: 10 }
            \(emptySections)

            """
    }

    /// `insert:`, `update:`, `delete:`: each section of the format, empty, one a line.
    private static var emptySections: String { MigrationGrammar.sections.map { $0.name + ":" }.joined(separator: "\n") }

    private static func scaffold(id: String, from manifest: Manifest) -> String? {
        let index = ReleaseKeyIndex(manifest: manifest, migrations: [])
        for config in manifest.tables.reversed() where !config.key.isEmpty {
            guard let record = index.firstRecord(config), !record.isEmpty else { continue }
            func value(_ field: String) -> InputValue? {
                record.first { $0.field.isSameName(as: config.mapping.field(for: field)) }?.value
            }
            let keyValues = config.key.compactMap(value)
            guard keyValues.count == config.key.count else { continue }
            let key =
                keyValues.count == 1 ? yaml(keyValues[0]) : "[" + keyValues.map(yaml).joined(separator: ", ") + "]"
            let table = name(config.name)
            let row = "{ " + record.map { "\(name($0.field)): \(yaml($0.value))" }.joined(separator: ", ") + " }"
            // A value to show in `from`/`to`: the first field that is not part of the key.
            let keyFields = Set(config.key.map { config.mapping.field(for: $0).lowercasedName })
            let other = record.first { !keyFields.contains($0.field.lowercasedName) && $0.value != .null }
            let from = other.map { "{ \(name($0.field)): \(yaml($0.value)) }" } ?? "{}"
            return """
                # \(id): describe the data change here.
                # insert: rows added when their key is missing (refs by natural key); here the first
                # row of \(config.displayFile), which a new row would give under a new key
                #   \(table):
                #     - \(row)
                # update: values changed only where the user has not changed them (`from`: what the
                # last release shipped; `to`: the new values)
                #   \(table):
                #     - key: \(key)
                #       from: \(from)
                #       to: \(from)
                # delete: rows removed when they still hold `from` and nothing refers to them
                #   \(table):
                #     - key: \(key)
                #       from: \(from)
                \(emptySections)

                """
        }
        return nil
    }

    /// A fixture value as a YAML flow scalar: text as a double-quoted (JSON) string, nested JSON as it is.
    private static func yaml(_ value: InputValue) -> String {
        switch value {
        case .string(let text): return DocNode.quote(text)
        case .json(let text): return text
        default: return value.description
        }
    }

    /// The schema step from `old` to `current` (two seeds), nil when their schemas agree;
    /// messages name them `oldName` and `currentName`.
    ///
    /// - throws: ``SeedError`` for a change seedkit will not write (see ``SchemaStep``), and for
    ///   any schema change of a Core Data store (Core Data migrates its schema itself).
    public static func schemaStep(
        old: DatabaseQueue, current: DatabaseQueue, oldName: String, currentName: String = "the fresh build",
        coreData: Bool
    ) throws -> SchemaStep? {
        let before = try old.read { db in try SchemaSnapshot.read(db) }
        let after = try current.read { db in try SchemaSnapshot.read(db) }
        let differences = before.differences(from: after, this: oldName, that: currentName)
        guard !differences.isEmpty else { return nil }
        if coreData {
            throw SeedError(
                .configuration,
                differences.map {
                    Diagnostic(
                        file: oldName, code: .configuration,
                        message:
                            "\($0): a Core Data store's schema is the model's, and Core Data migrates it (a new model version); seedkit writes no schema step for it"
                    )
                })
        }
        return try SchemaStep.make(from: before, to: after, oldName: oldName)
    }

    /// What ``generate(old:current:header:renames:)`` wrote.
    public struct Generated: Sendable {
        /// The migration file's text, header included.
        public var yaml: String
        public var inserts = 0, updates = 0, deletes = 0
        /// Of the updates, how many change a key (renames).
        public var renames = 0
        /// Each rename and how seedkit told it from a delete plus an insert, for the author to
        /// check (`countries 'Turkey' → 'Türkiye' (same id in both seeds)`).
        public var renamePairs: [String] = []
        /// Deleted and inserted rows of one table that match on most other columns: likely the
        /// same row renamed, each with the `--rename` that says so (written as a delete and an insert).
        public var likelyRenames: [String] = []

        /// `3 inserts, 2 updates (1 rename), 0 deletes`.
        public var summary: String {
            func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
            return
                "\(count(inserts, "insert")), \(count(updates, "update"))\(renames > 0 ? " (\(count(renames, "rename")))" : ""), \(count(deletes, "delete"))"
        }
    }

    /// The YAML of the migration from `old` to `current` (two seeds); nil when they hold the same data.
    ///
    /// A row whose key changed is a rename (an update of its key columns, which keeps the row
    /// and what refers to it) when `renames` names it, or when its table has an id the
    /// fixtures give that both seeds agree on (see ``identityRenames``); otherwise it is a
    /// delete of the old key and an insert of the new one. Rows whose refs only follow a
    /// renamed parent are not updated.
    ///
    /// - Parameters:
    ///   - old: the old seed with the existing migrations applied (where existing users are).
    ///   - current: the fresh build of the fixtures.
    ///   - header: the comment the file starts with (what generated it, from which seed).
    ///   - hints: the `--rename` hints: rows whose key changed that are these rows renamed.
    ///   - original: the old seed as shipped when `old` is it with `appliedMigrations` applied (for messages).
    ///   - appliedMigrations: the migrations applied to `original` to make `old`, by id (for messages).
    /// - Returns: the migration and what it holds; nil when the seeds hold the same data.
    /// - Throws: ``SeedError`` (configuration) for a hint that names no table, or a key the
    ///   old seed lacks, the fresh build lacks, or both have; a database error when a seed cannot be read.
    public func generate(
        old: DatabaseQueue, current: DatabaseQueue, header: String, renames hints: [RenameHint] = [],
        original: DatabaseQueue? = nil, appliedMigrations: [String] = []
    ) throws -> Generated? {
        let (tables, semantics) = try current.read { db in try SemanticRows.make(manifest, in: db) }
        var keys: [String: [String]] = [:]
        for table in tables { keys[table.spec.name] = table.keyColumns }
        let diff = try StoreDiff.compare(
            old, current, keys: keys, tables: tables.map(\.spec.name), semantics: semantics)
        var changes: [String: StoreDiff.TableDiff] = [:]
        for table in diff.tables { changes[table.table] = table }
        var problems: [Diagnostic] = []
        for hint in hints where !tables.contains(where: { $0.written.name.isSameName(as: hint.table) }) {
            problems.append(
                Diagnostic(
                    code: .configuration, message: "--rename '\(hint.text)': the manifest has no table '\(hint.table)'")
            )
        }
        var follow = Follow()
        var renamedRows:
            [String: [(
                key: [SQLValue], old: [(column: String, value: SQLValue)], new: [(column: String, value: SQLValue)]
            )]] =
                [:]
        var plainRows: [String: [(key: [SQLValue], columns: [(column: String, old: SQLValue, new: SQLValue)])]] = [:]
        var renameLines: [String: [String]] = [:]
        var updateLines: [String: [String]] = [:]
        var generated = Generated(yaml: header)
        var likely: [LikelyRename] = []
        for table in Self.parentsFirst(tables) {
            var change = changes[table.spec.name] ?? StoreDiff.TableDiff(table: table.spec.name, key: table.keyColumns)
            // Renames: named by a hint, or by an id both seeds agree on.
            var pairs: [(old: [SQLValue], new: [SQLValue])] = []
            for hint in hints where hint.table.isSameName(as: table.written.name) {
                switch try Self.resolve(
                    hint, table: table, change: change, old: old, current: current, original: original,
                    appliedMigrations: appliedMigrations)
                {
                case .success(let pair): pairs.append(pair)
                case .failure(let problem): problems.append(problem)
                }
            }
            let hinted = pairs.count
            if manifest.model == nil {
                pairs += try identityRenames(table: table, change: change, excluding: pairs, old: old, current: current)
            }
            let identified = pairs.count
            pairs += collatedRenames(table: table, change: change, excluding: pairs)
            for (index, pair) in pairs.enumerated() {
                func shown(_ key: [SQLValue]) -> String {
                    key.count == 1
                        ? RowEvent.describe(key[0]) : "(" + key.map(RowEvent.describe).joined(separator: ", ") + ")"
                }
                var (oldText, newText) = (shown(pair.old), shown(pair.new))
                // Keys that differ in their bytes but print alike (NFC and NFD): show their scalars.
                if oldText == newText, pair.old.count == 1, case .text(let a) = pair.old[0],
                    case .text(let b) = pair.new[0]
                {
                    (oldText, newText) = ("'" + a.escapingNonASCII + "'", "'" + b.escapingNonASCII + "'")
                }
                generated.renamePairs.append(
                    "\(table.written.name) \(oldText) → \(newText) (\(index < hinted ? "--rename" : index < identified ? "same id in both seeds" : "one key under its collation"))"
                )
            }
            if !pairs.isEmpty {
                let renamedOld = Set(pairs.map { Follow.id($0.old) })
                let renamedNew = Set(pairs.map { Follow.id($0.new) })
                change.removed.removeAll { renamedOld.contains(Follow.id($0.key)) }
                change.added.removeAll { renamedNew.contains(Follow.id($0.key)) }
            }
            var renamed:
                [(key: [SQLValue], old: [(column: String, value: SQLValue)], new: [(column: String, value: SQLValue)])] =
                    []
            for pair in pairs {
                guard let oldRow = try old.read({ db in try table.row(db, key: pair.old) }),
                    let newRow = try current.read({ db in try table.row(db, key: pair.new) })
                else { continue }
                renamed.append((pair.old, oldRow, newRow))
                follow.record(table: table, old: oldRow, new: newRow)
            }
            // Rows whose key holds a ref to a renamed parent: the same row under the followed key
            // (none without a rename so far: every key reads as it is).
            let added = follow.isEmpty ? [] : Set(change.added.map { Follow.id($0.key) })
            var moved: [(old: [SQLValue], key: [SQLValue], columns: [(column: String, old: SQLValue, new: SQLValue)])] =
                []
            if !follow.isEmpty {
                change.removed.removeAll { row in
                    let key = row.key
                    let followed = follow.key(key, table: table)
                    guard Follow.id(followed) != Follow.id(key), added.contains(Follow.id(followed)) else {
                        return false
                    }
                    moved.append((key, followed, []))
                    return true
                }
            }
            if !moved.isEmpty {
                let movedKeys = Set(moved.map { Follow.id($0.key) })
                change.added.removeAll { movedKeys.contains(Follow.id($0.key)) }
            }
            for index in moved.indices {
                guard let oldRow = try old.read({ db in try table.row(db, key: moved[index].old) }),
                    let newRow = try current.read({ db in try table.row(db, key: moved[index].key) })
                else { continue }
                moved[index].columns = zip(oldRow, newRow).map { (column: $0.column, old: $0.value, new: $1.value) }
            }
            renamedRows[table.spec.name] = renamed
            plainRows[table.spec.name] =
                moved.map { (key: $0.key, columns: $0.columns) }
                + change.changed.map {
                    (key: $0.key, columns: $0.columns.map { (column: $0.column, old: $0.old, new: $0.new) })
                }
            changes[table.spec.name] = change
            likely += try likelyRenames(table: table, change: change, old: old, current: current)
        }
        if !problems.isEmpty { throw SeedError(.configuration, problems) }
        generated.likelyRenames = Self.withParentRenames(likely, tables: tables, changes: changes).map(\.line)
        // The updates in the order they run (parents first, each table's renames first), each
        // ref named by the key its row holds when the update runs: a `from` as the row reads once
        // the renames before it are applied, a ref to a row whose rename is still to come (or
        // to the row itself) by that row's old key. Tables that refer to each other put one's
        // updates before the other's renames.
        var applied = Follow()
        var pending: [Pending] = Self.parentsFirst(tables).flatMap { table in
            (renamedRows[table.spec.name] ?? []).map { Pending(table: table.spec.name, old: $0.old, new: $0.new) }
        }
        for table in Self.parentsFirst(tables) {
            let renamed = renamedRows[table.spec.name] ?? []
            var lines: [String] = []
            for row in Self.selfReferencesFirst(renamed.map(\.new), table: table) {
                guard let rename = renamed.first(where: { $0.new.map(\.value) == row.map(\.value) }) else { continue }
                let columns = zip(rename.old, rename.new).map { (column: $0.column, old: $0.value, new: $1.value) }
                let text = update(
                    table, key: follow.key(rename.key, table: table), columns: columns, follow: follow,
                    applied: applied, pending: pending)
                applied.record(table: table, old: rename.old, new: rename.new)
                pending.removeAll {
                    $0.table == table.spec.name && $0.new.map(\.value) == rename.new.map(\.value)
                }
                guard let text else { continue }
                lines.append(text)
                generated.renames += 1
            }
            renameLines[table.spec.name] = lines
            updateLines[table.spec.name] = (plainRows[table.spec.name] ?? []).compactMap { row in
                update(table, key: row.key, columns: row.columns, follow: follow, applied: applied, pending: pending)
            }
        }

        var inserts: [String] = []
        var updates: [String] = []
        var deletes: [String] = []
        let ordered = Self.parentsFirst(tables)
        for table in ordered {
            guard let changes = changes[table.spec.name], !changes.added.isEmpty else { continue }
            // The added rows, each with its many-to-many relationships as lists of the related
            // rows' keys, read from the fresh build in one transaction.
            let lines = try current.read { db in
                let rows = try table.rows(db, keys: changes.added.map(\.key)).compactMap { $0 }
                let lists = try manyToManyLists(table, in: db)
                return try Self.selfReferencesFirst(rows, table: table).map { row in
                    let links = try lists.read(db, key: row.prefix(table.keyColumns.count).map(\.value), in: table)
                    return "    - "
                        + Self.map(
                            yaml: row.map {
                                (table.writtenName($0.column), table.writtenValue($0.value, column: $0.column).yaml)
                            }
                                + links.map { ($0.name, $0.yaml) })
                }
            }
            inserts.append("  \(Self.name(table.written.name)):\n" + lines.joined(separator: "\n"))
            generated.inserts += lines.count
        }
        // Parents first, and a table's renames first: an update's `from` holds refs as they read
        // once the parents' renames are applied.
        for table in ordered {
            let rows = (renameLines[table.spec.name] ?? []) + (updateLines[table.spec.name] ?? [])
            if !rows.isEmpty {
                updates.append("  \(Self.name(table.written.name)):\n" + rows.joined(separator: "\n"))
                generated.updates += rows.count
            }
        }
        for table in ordered.reversed() {
            guard let changes = changes[table.spec.name], !changes.removed.isEmpty else { continue }
            // Every removed row in one read, by one statement.
            let removed = try old.read { db in try table.rows(db, keys: changes.removed.map(\.key)) }.compactMap {
                row in row?.map { ($0.column, follow.value($0.value, column: $0.column, table: table)) }
            }
            // Children before their parents.
            let rows = Self.selfReferencesFirst(removed, table: table).reversed().map { row in
                let key = table.keyColumns.map { column in row.first { $0.column == column }?.value ?? .null }
                let from = row.filter { !table.keyColumns.contains($0.column) }.map {
                    (table.writtenName($0.column), table.writtenValue($0.value, column: $0.column))
                }
                return Self.item(key: Self.key(table.writtenKeyColumns, key), from: Self.map(from))
            }
            deletes.append("  \(Self.name(table.written.name)):\n" + rows.joined(separator: "\n"))
            generated.deletes += rows.count
        }
        guard generated.inserts + generated.updates + generated.deletes > 0 else { return nil }
        for (kind, tables) in [(DataChanges.Operation.Kind.insert, inserts), (.update, updates), (.delete, deletes)]
        where !tables.isEmpty {
            generated.yaml += kind.name + ":\n" + tables.joined(separator: "\n") + "\n"
        }
        return generated
    }

    /// The deletes and inserts of `table` that are likely one row renamed: a deleted row and an
    /// inserted one whose other columns (not the key) are equal in all or most (more than half),
    /// each inserted row paired once, best match first.
    ///
    /// Skipped for very many of both.
    private func likelyRenames(
        table: SemanticRows, change: StoreDiff.TableDiff, old: DatabaseQueue, current: DatabaseQueue
    ) throws -> [LikelyRename] {
        guard !change.removed.isEmpty, !change.added.isEmpty, change.removed.count * change.added.count <= 250_000
        else { return [] }
        let keyColumns = Set(table.keyColumns.map { $0.lowercasedName })
        func others(_ row: [(column: String, value: SQLValue)]) -> [(column: String, value: SQLValue)] {
            row.filter { !keyColumns.contains($0.column.lowercasedName) }
        }
        let removedKeys = change.removed.map(\.key)
        let addedKeys = change.added.map(\.key)
        let removed = try old.read { db in try table.rows(db, keys: removedKeys) }.enumerated().compactMap {
            index, row in row.map { (key: removedKeys[index], row: others($0)) }
        }
        let added = try current.read { db in try table.rows(db, keys: addedKeys) }.enumerated().compactMap {
            index, row in row.map { (key: addedKeys[index], row: others($0)) }
        }
        var used = Set<Int>()
        var lines: [LikelyRename] = []
        for gone in removed where !gone.row.isEmpty {
            var best: (index: Int, matches: Int)?
            for (index, candidate) in added.enumerated() where !used.contains(index) {
                let matches = gone.row.filter { column in
                    candidate.row.first { $0.column == column.column }.map { $0.value.isSame(as: column.value) } == true
                }.count
                if matches * 2 > gone.row.count, matches > (best?.matches ?? 0) { best = (index, matches) }
            }
            guard let best else { continue }
            used.insert(best.index)
            let how =
                best.matches == gone.row.count
                ? "every other column matches" : "\(best.matches) of \(gone.row.count) other columns match"
            lines.append(LikelyRename(table: table, old: gone.key, new: added[best.index].key, how: how))
        }
        return lines
    }

    /// One update's YAML: the columns whose value changes (a ref that only follows a renamed
    /// parent does not), `from` as the row reads once the parents' renames are applied; nil
    /// when nothing is left to change.
    ///
    /// Given `applied` (the renames done when this update runs) and `pending` (those still to
    /// come, a rename's own included), its refs name the key the referenced row holds then, in
    /// `from` and in `to`: a row renamed later (or the row itself, renamed by this update) by its
    /// old key, which resolves to the row, and the ref follows its rename.
    private func update(
        _ table: SemanticRows, key: [SQLValue], columns: [(column: String, old: SQLValue, new: SQLValue)],
        follow: Follow, applied: Follow, pending: [Pending]
    ) -> String? {
        let changed = columns.compactMap { column -> (column: String, old: SQLValue, new: SQLValue)? in
            let old = follow.value(column.old, column: column.column, table: table)
            guard old != column.new else { return nil }
            guard let reference = table.reference(column.column) else { return (column.column, old, column.new) }
            // The key the referenced row holds when this update runs: its old key if its rename is still to come.
            var new = column.new
            for rename in pending where rename.table.isSameName(as: reference.table) {
                guard
                    let index = rename.new.firstIndex(where: {
                        $0.column.isSameName(as: reference.column) && Follow.id($0.value) == Follow.id(column.new)
                    })
                else { continue }
                new = rename.old[index].value
            }
            return (column.column, applied.value(column.old, column: column.column, table: table), new)
        }
        guard !changed.isEmpty else { return nil }
        return Self.item(
            key: Self.key(table.writtenKeyColumns, key),
            from: Self.map(
                changed.map { (table.writtenName($0.column), table.writtenValue($0.old, column: $0.column)) }),
            to: Self.map(changed.map { (table.writtenName($0.column), table.writtenValue($0.new, column: $0.column)) }))
    }

    /// A rename not applied yet where an update runs: its table, and the row's old and new values.
    struct Pending {
        var table: String
        var old: [(column: String, value: SQLValue)]
        var new: [(column: String, value: SQLValue)]
    }

    /// The tables in an order where each comes after the tables it refers to (the manifest's
    /// order where refs allow; tables that refer to each other keep it).
    static func parentsFirst(_ tables: [SemanticRows]) -> [SemanticRows] {
        var placed: [SemanticRows] = []
        var visiting: Set<String> = []
        func place(_ table: SemanticRows) {
            guard !placed.contains(where: { $0.spec.name == table.spec.name }), !visiting.contains(table.spec.name)
            else { return }
            visiting.insert(table.spec.name)
            for column in table.spec.refs.keys.sorted() {
                guard let parent = table.spec.refs[column], parent.table != table.spec.name,
                    let parentTable = tables.first(where: { $0.spec.name == parent.table })
                else { continue }
                place(parentTable)
            }
            placed.append(table)
        }
        for table in tables { place(table) }
        return placed
    }

    /// Rows of one table (refs as natural keys) reordered so that a row comes after the rows of
    /// the same table it refers to (a self-reference: a subdivision after its parent); otherwise
    /// in the given order.
    ///
    /// Rows in a cycle keep their order (`migrate` links them).
    static func selfReferencesFirst(_ rows: [[(column: String, value: SQLValue)]], table: SemanticRows) -> [[(
        column: String, value: SQLValue
    )]] {
        let selfRefs = table.spec.refs.filter { $0.value.table == table.spec.name }
        guard !selfRefs.isEmpty else { return rows }
        func value(_ row: [(column: String, value: SQLValue)], _ column: String) -> SQLValue? {
            row.first { $0.column.isSameName(as: column) }?.value
        }
        // Parent key column → (value → row index).
        var byKey: [String: [String: Int]] = [:]
        for reference in selfRefs.values {
            for (index, row) in rows.enumerated() {
                if let key = value(row, reference.column), key != .null {
                    byKey[reference.column, default: [:]][key.sqlLiteral.exactKey] = index
                }
            }
        }
        let references = selfRefs.sorted { $0.key < $1.key }
        func parents(_ index: Int) -> [Int] {
            references.compactMap { column, reference in
                guard let parentKey = value(rows[index], column), parentKey != .null,
                    let parent = byKey[reference.column]?[parentKey.sqlLiteral.exactKey], parent != index
                else { return nil }
                return parent
            }
        }
        // Depth first, parents before the row; a stack of its own, not recursion, so that a
        // chain as deep as there are rows cannot exhaust the thread's stack.
        var order: [Int] = []
        var state = [UInt8](repeating: 0, count: rows.count)  // 0 new, 1 visiting, 2 placed
        for start in rows.indices where state[start] == 0 {
            state[start] = 1
            var stack: [(index: Int, parents: [Int], next: Int)] = [(start, parents(start), 0)]
            while let top = stack.last {
                if top.next < top.parents.count {
                    stack[stack.count - 1].next += 1
                    let parent = top.parents[top.next]
                    if state[parent] == 0 {
                        state[parent] = 1
                        stack.append((parent, parents(parent), 0))
                    }
                } else {
                    state[top.index] = 2
                    order.append(top.index)
                    stack.removeLast()
                }
            }
        }
        return order.map { rows[$0] }
    }
}
