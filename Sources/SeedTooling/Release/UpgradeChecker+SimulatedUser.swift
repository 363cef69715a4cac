import Foundation
import GRDB
import SeedRuntime

// The simulated user of `check-upgrade` (docs/reference.md, "What `check-upgrade` checks"): the
// rows, values and renames it makes up from a table's own rows, and how they are shown.
extension UpgradeChecker {
    /// Why ``userRow(in:db:)`` has no row for `table`, in words for the report.
    func whyNoUserRow(in table: SemanticRows, db: Database) throws -> String {
        if table.spec.key.isEmpty && CoreDataDialect.isStoreAssignedKey(table.keyColumns) {
            return
                "its rows are keyed by the primary key Core Data assigns: a user's own object cannot be found again by key"
        }
        if try table.firstRow(db) == nil { return "the old seed has no row of it to copy" }
        return
            "its key is made of refs only (or of values that cannot be varied): a user's row would take a seed row's key"
    }

    /// The kind of a value, for the report (`JSON`, `NULL`, …).
    static func kind(_ value: InputValue) -> String {
        switch value {
        case .null: return "NULL"
        case .json: return "JSON value"
        case .string: return "text"
        case .bool: return "boolean"
        case .integer, .real: return "number"
        }
    }

    /// A row a user might add to `table`: a copy of one of its rows under a new key, with a
    /// value of its own; nil when the table is empty or its key can't be varied.
    func userRow(in table: SemanticRows, db: Database) throws -> (
        DataChanges.RowValues, [InputValue], String, InputValue
    )? {
        // A Core Data entity without a natural key is keyed by Z_PK, which Core Data assigns from
        // Z_PRIMARYKEY.Z_MAX: a user's own object neither gets one from us nor is found again by it.
        if table.spec.key.isEmpty && CoreDataDialect.isStoreAssignedKey(table.keyColumns) { return nil }
        guard let first = try table.firstRow(db) else { return nil }
        var values = first.map { (column: table.writtenName($0.column), value: $0.value.inputValue) }
        var key: [InputValue] = []
        var varied = false
        for keyColumn in table.keyColumns {
            guard let index = values.firstIndex(where: { $0.column == table.writtenName(keyColumn) }) else {
                return nil
            }
            // A key part that is a ref keeps its parent; the other parts get values of the user's own.
            if table.written.refs[values[index].column] == nil {
                switch values[index].value {
                case .string(let text) where table.table.column(keyColumn)?.type == .uuid:
                    guard let flipped = Self.flippedUUID(text) else { break }
                    values[index].value = .string(flipped)
                    varied = true
                case .string(let text):
                    values[index].value = .string(text + " (added by the user)")
                    varied = true
                case .integer(let number):
                    values[index].value = .integer(number &+ 1_000_003)
                    varied = true
                default: break
                }
            }
            key.append(values[index].value)
        }
        guard varied else { return nil }
        let keyNames = Set(table.writtenKeyColumns)
        // An enum case's column holds only its case's name (docs/core-data.md, "Composite attributes"): no user edits it.
        let caseColumns = Set(
            manifest.model?.flattened(table.written.name)?.attributes.filter { $0.caseName != nil }.map(\.name) ?? [])
        guard
            let index = values.firstIndex(where: {
                !keyNames.contains($0.column) && table.written.refs[$0.column] == nil
                    && !caseColumns.contains($0.column) && Self.userValue($0.value) != nil
            }),
            let value = Self.userValue(values[index].value)
        else {
            // A table of keys and refs only: the user's row is its new key; it must come through, once.
            guard
                let keyIndex = values.firstIndex(where: {
                    keyNames.contains($0.column) && table.written.refs[$0.column] == nil
                })
            else { return nil }
            return (DataChanges.RowValues(values: values), key, values[keyIndex].column, values[keyIndex].value)
        }
        values[index].value = value
        return (DataChanges.RowValues(values: values), key, values[index].column, value)
    }

    /// A user row of a table that refers to `table`'s row `key`, and its ref column.
    func userChild(of table: SemanticRows, key: [InputValue], tables: [SemanticRows], db: Database) throws -> (
        SemanticRows, DataChanges.RowValues, [InputValue], String, InputValue, String
    )? {
        guard key.count == 1 else { return nil }
        for child in tables {
            guard
                let (column, reference) = child.written.refs.first(where: {
                    $0.value.table.isSameName(as: table.written.name)
                }),
                let (found, childKey, edited, value) = try userRow(in: child, db: db)
            else { continue }
            // The ref names the parent by the column it refers to (often, not always, the key).
            var target = key[0]
            if reference.column.lowercasedName != (table.writtenKeyColumns.first ?? "").lowercasedName {
                let wanted = table.storeName(reference.column).lowercasedName
                guard let parent = try table.row(db, key: key.map(Self.sqlValue), storedOnly: true),
                    let stored = parent.first(where: { $0.column.lowercasedName == wanted })?.value, stored != .null
                else { continue }
                target = stored.inputValue
            }
            var row = found
            guard let index = row.values.firstIndex(where: { $0.column.isSameName(as: column) }) else { continue }
            row.values[index].value = target
            // The ref may be part of the child's key (`[emoji, tag]`): the row is found under the parent it now names.
            let key = child.writtenKeyColumns.compactMap { name in
                row.values.first { $0.column.isSameName(as: name) }?.value
            }
            return (child, row, key.count == childKey.count ? key : childKey, edited, value, column)
        }
        return nil
    }

    /// A user row that refers to a row a release renames: after the upgrade it must refer to the renamed row.
    struct Following {
        var child: SemanticRows
        var childKey: [InputValue]
        var column: String
        var parent: SemanticRows
        var parentKey: [InputValue]
        /// What the child's ref reads after the rename.
        var expected: InputValue
    }

    /// The key an update gives its row when it changes key columns (a rename); nil otherwise.
    static func renamedKey(_ change: DataChanges.RowChange, _ table: SemanticRows) -> [InputValue]? {
        guard let key = keyValues(change.key, table) else { return nil }
        var renamed = false
        let newKey = zip(table.writtenKeyColumns, key).map { column, value in
            guard let new = change.to.values.first(where: { $0.column.isSameName(as: column) })?.value else {
                return value
            }
            if sqlValue(new) != sqlValue(value) { renamed = true }
            return new
        }
        return renamed ? newKey : nil
    }

    /// Before a rename: the user edits a column of the row the rename does not touch (the edit
    /// must survive, under the new key), and adds a row referring to it (it must refer to the
    /// renamed row after the upgrade).
    func simulateRename(
        _ change: DataChanges.RowChange, of table: SemanticRows, named name: String, newKey: [InputValue],
        tables: [SemanticRows], options: SeedMigrator.Options,
        db: Database,
        edits: inout [(table: SemanticRows, key: [InputValue], column: String, value: InputValue, insert: Bool)],
        following: inout [Following]
    ) throws {
        guard let key = Self.keyValues(change.key, table),
            let row = try table.row(db, key: key.map(Self.sqlValue), storedOnly: true)
        else { return }
        let touched = Set(change.to.values.map { $0.column.lowercasedName })
        let keyNames = Set(table.writtenKeyColumns.map { $0.lowercasedName })
        let values = row.map { (column: table.writtenName($0.column), value: $0.value.inputValue) }
        if let (column, value) = values.first(where: {
            !touched.contains($0.column.lowercasedName) && !keyNames.contains($0.column.lowercasedName)
                && table.written.refs[$0.column] == nil && Self.userValue($0.value) != nil
        }),
            let userValue = Self.userValue(value)
        {
            let edit = DataChanges(operations: [
                .update(
                    table: name,
                    changes: [
                        DataChanges.RowChange(
                            key: change.key, from: .init(values: [(column, value)]),
                            to: .init(values: [(column, userValue)]))
                    ])
            ])
            if try Self.attempt(db, edit, options) { edits.append((table, key, column, userValue, false)) }
        }
        if let (child, childRow, childKey, column, value, refColumn) = try userChild(
            of: table, key: key, tables: tables, db: db),
            let reference = child.written.refs[refColumn],
            try Self.attempt(
                db, DataChanges(operations: [.insert(table: child.written.name, rows: [childRow])]), options)
        {
            edits.append((child, childKey, column, value, true))
            // The value the rename gives the column the child refers to, or the one it refers to now.
            let expected =
                change.to.values.first { $0.column.isSameName(as: reference.column) }?.value ?? childRow[refColumn]
                ?? .null
            following.append(
                Following(
                    child: child, childKey: childKey, column: refColumn, parent: table, parentKey: newKey,
                    expected: expected))
        }
    }

    /// Applies one simulated edit in a savepoint; false (and nothing changed) when it does not apply.
    static func attempt(_ db: Database, _ changes: DataChanges, _ options: SeedMigrator.Options) throws -> Bool {
        try refusal(db, changes, options) == nil
    }

    /// As ``attempt(_:_:_:)``: nil when the change applied, else why not (the migrator's report
    /// of the row, or the store's error), for the report's "not checked" lines.
    static func refusal(_ db: Database, _ changes: DataChanges, _ options: SeedMigrator.Options) throws -> String? {
        var reason: String?
        var plain = options
        plain.validator = nil
        do {
            try db.inSavepoint {
                let events = try SeedMigrator.applyUnrecorded(changes, in: db, options: plain)
                if events.contains(where: { $0.kind == .updated || $0.kind == .inserted }) { return .commit }
                reason =
                    events.first.map { "the migrator reports it \($0.kind.rawValue): \($0.detail)" }
                    ?? "nothing applied"
                return .rollback
            }
        } catch {
            reason = (error as? SeedError)?.diagnostics.map(\.message).joined(separator: "; ") ?? "\(error)"
        }
        return reason
    }

    /// A value a user might have typed instead: a number one higher (two, if one higher is what
    /// the migration sets), text with a note, the other boolean.
    static func userValue(_ value: InputValue, avoiding target: InputValue? = nil) -> InputValue? {
        switch value {
        case .integer(let number):
            return .integer(
                target == .integer(number &+ 1) || target == .real(Double(number &+ 1)) ? number &+ 2 : number &+ 1)
        case .real(let number):
            return .real(
                target == .real(number + 1) || (Int64(exactly: number + 1).map { target == .integer($0) } ?? false)
                    ? number + 2 : number + 1)
        // Text that is a JSON object or array (a JSON column, as new-migration writes it) stays valid
        // JSON; a UUID stays a UUID (a UUID column holds 16 bytes, given as text).
        // A date stays a date, a day later (two, if one day later is what the migration sets).
        case .string(let text):
            if let later = dateEdited(text) {
                guard case .string(later)? = target else { return .string(later) }
                return .string(dateEdited(later) ?? later)
            }
            return .string(jsonEdited(text) ?? flippedUUID(text) ?? text + " (edited by the user)")
        case .bool(let flag): return .bool(!flag)
        case .json(let text): return jsonEdited(text).map { .json($0) }
        case .null: return nil
        }
    }

    /// The date `text` starts with (`1882-03-13`, `1882-03-13 10:00:00`, `1882-03-13T10:00:00Z`)
    /// a day later, the rest as it was; nil for text that is not a date: what a user of a date
    /// column types instead.
    static func dateEdited(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        let digits = [0, 1, 2, 3, 5, 6, 8, 9]
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[$0]) }),
            bytes.count == 10 || bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " ")
        else { return nil }
        func number(_ range: Range<Int>) -> Int {
            bytes[range].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(identifier: "UTC") else { return nil }
        calendar.timeZone = utc
        let day = DateComponents(year: number(0..<4), month: number(5..<7), day: number(8..<10))
        guard day.isValidDate(in: calendar), let date = calendar.date(from: day),
            let next = calendar.date(byAdding: .day, value: 1, to: date)
        else { return nil }
        let parts = calendar.dateComponents([.year, .month, .day], from: next)
        guard let year = parts.year, let month = parts.month, let newDay = parts.day, year < 10_000 else { return nil }
        func padded(_ value: Int, _ width: Int) -> String {
            String(repeating: "0", count: max(0, width - String(value).count)) + String(value)
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(newDay, 2))"
            + String(decoding: bytes[10...], as: UTF8.self)
    }

    /// Another UUID for the UUID `text` (nil for other text), each byte's bits flipped: what a
    /// user's own object would hold (docs/core-data.md, "Keys and UUIDs").
    static func flippedUUID(_ text: String) -> String? {
        guard let uuid = UUID(uuidString: text) else { return nil }
        let flipped = withUnsafeBytes(of: uuid.uuid) { $0.map { $0 ^ 0xFF } }
        return SQLValue.blob(flipped).uuidText
    }

    /// A JSON object or array (nil for any other text) with what a user might add: an object
    /// gains a member, an array an element.
    ///
    /// Still valid JSON, for a column that must hold it.
    static func jsonEdited(_ text: String) -> String? {
        let body = text.drop { $0.isWhitespace }
        guard body.hasPrefix("{") || body.hasPrefix("["),
            (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil
        else { return nil }
        let rest = body.dropFirst().drop { $0.isWhitespace }
        if body.hasPrefix("{") { return "{\"edited by the user\": true" + (rest.hasPrefix("}") ? "" : ", ") + rest }
        return "[\"edited by the user\"" + (rest.hasPrefix("]") ? "" : ", ") + rest
    }

    static func keyValues(_ key: DataChanges.Key, _ table: SemanticRows) -> [InputValue]? {
        switch key {
        case .single(let value): return [value]
        case .columns(let row):
            let values = table.writtenKeyColumns.compactMap { row[$0] }
            return values.count == table.keyColumns.count ? values : nil
        }
    }

    static func sqlValue(_ value: InputValue) -> SQLValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .integer(flag ? 1 : 0)
        case .integer(let number): return .integer(number)
        case .real(let number): return .real(number)
        case .string(let text), .json(let text): return .text(text)
        }
    }

    /// `values` as reports show them (text quoted and escaped); a single text that prints like
    /// `other` but differs in its bytes (NFC and NFD) with its scalars written out.
    static func show(_ values: [SQLValue], against other: SQLValue? = nil) -> String {
        if values.count == 1, case .text(let text)? = values.first, case .text(let otherText)? = other {
            return "'" + String.distinguishing(text, otherText).0 + "'"
        }
        return values.map { value in
            switch value {
            case .text(let text): return "'\(text.escapingControls())'"
            case .real(let number): return SQLValue.format(number)
            default: return value.description
            }
        }.joined(separator: ", ")
    }
}
