import Foundation
import GRDB
import SeedTestSupport
import Testing

// The release, the simulated user and the oracle: what docs/releases.md says `migrate` makes of
// them, computed on rows with identities (never by reading what seedkit wrote).
extension ReleasePairPropertyTests {
    struct Release {
        var rows: Rows
        /// `--rename` hints (the renamed row keeps its identity).
        var hints: [String] = []
        var hinted: Set<Int> = []
        /// Keys changed without a hint: a delete and an insert.
        var unhinted = 0
    }

    struct User {
        /// A seed row's identity → column → the user's value.
        var edits: [Int: [String: String]] = [:]
        var added: Rows
    }

    /// Fresh keys: a prefix no generated key has, and a counter, so no two collide, NOCASE or not.
    struct Keys {
        var prefix: String
        var base: Int64
        var counter = 0

        mutating func next(_ table: Table, _ random: inout SeededRandom) -> String {
            if table.keyKind == .join { return "" }  // a many-to-many's key is its two refs
            counter += 1
            if table.keyKind == .integer { return String(base + Int64(counter)) }
            return "\(prefix)\(counter)" + random.pick(["", "Zeta", "é", "x,y", "q\"t", "a=b"])
        }
    }

    static func newValue(_ type: String, unlike old: [String], _ random: inout SeededRandom) -> String {
        while true {
            let value: String
            switch type {
            case "INTEGER": value = String(Int64(random.next() % 2_000_000) - 1_000_000)
            case "REAL": value = String(format: "%.2f", Double(random.next() % 100_000) / 7)
            default:
                // Text that reads as a number stays text, in a TEXT column and an untyped one alike.
                value =
                    random.pick(BuildPropertyTests.words + ["007", "1.5", "12", "-3", "1e3", "true"])
                    + (random.next() % 2 == 0 ? "" : " \(random.next() % 100)")
            }
            if !old.contains(value) { return value }
        }
    }

    static func makeRelease(_ tables: [Table], _ old: Rows, _ random: inout SeededRandom, ids: inout Int) -> Release {
        var release = Release(rows: old)
        var keys = Keys(prefix: "r", base: 2_000_000)
        var redirect: [Int: Int] = [:]
        for (index, table) in tables.enumerated() {
            var deleted = Set<Int>()
            for row in release.rows[index].indices {
                var current = release.rows[index][row]
                if random.next() % 8 == 0 {
                    deleted.insert(current.id)
                    continue
                }
                if !table.values.isEmpty && random.next() % 3 == 0 {
                    let value = random.pick(table.values)
                    let was = current.values[value.column] ?? ""
                    current.values[value.column] =
                        !was.isEmpty && random.next() % 6 == 0 ? "" : newValue(value.type, unlike: [was], &random)
                }
                let changeable = table.refs.filter { !BuildPropertyTests.keyRefs(table).contains($0.column) }
                if !changeable.isEmpty && random.next() % 5 == 0 {
                    let ref = random.pick(changeable)
                    let parents = release.rows[ref.parent]
                    if ref.nullable && (parents.isEmpty || random.next() % 3 == 0) {
                        current.refs[ref.column] = nil
                    } else if !parents.isEmpty {
                        current.refs[ref.column] = random.pick(parents).id
                    }
                }
                if BuildPropertyTests.keyRefs(table).isEmpty && random.next() % 8 == 0 {
                    let key = keys.next(table, &random)
                    if random.next() % 2 == 0 {
                        release.hints.append("\(table.name):\(hintPart(current.key))=\(hintPart(key))")
                        release.hinted.insert(current.id)
                    } else {
                        redirect[current.id] = ids
                        current.id = ids
                        ids += 1
                        release.unhinted += 1
                    }
                    current.key = key
                }
                release.rows[index][row] = current
            }
            release.rows[index].removeAll { deleted.contains($0.id) }
        }
        // Inserts, refs to any row of the release.
        for (index, table) in tables.enumerated() {
            for _ in 0..<Int(random.next() % 3) {
                var row = Row(id: ids, key: keys.next(table, &random))
                var complete = true
                for ref in table.refs {
                    let parents = release.rows[ref.parent]
                    if parents.isEmpty || (ref.nullable && random.next() % 4 == 0) {
                        complete = complete && ref.nullable
                        continue
                    }
                    row.refs[ref.column] = random.pick(parents).id
                }
                guard complete else { continue }
                // A link the old seed had is that row, not a new one (its key is the pair).
                if table.keyKind == .join
                    && (old[index] + release.rows[index]).contains(where: { pair($0) == pair(row) })
                {
                    continue
                }
                for value in table.values {
                    row.values[value.column] =
                        random.next() % 5 == 0 ? "" : newValue(value.type, unlike: [], &random)
                }
                ids += 1
                release.rows[index].append(row)
            }
        }
        // Refs to a row the release deleted: to its new identity (a key changed without a hint),
        // elsewhere, NULL, or the row goes too. A ref of the key changed is a new row.
        var changed = true
        while changed {
            changed = false
            let alive = Set(release.rows.flatMap { $0 }.map(\.id))
            for (index, table) in tables.enumerated() {
                var gone = Set<Int>()
                for row in release.rows[index].indices {
                    for ref in table.refs {
                        guard let target = release.rows[index][row].refs[ref.column], !alive.contains(target) else {
                            continue
                        }
                        changed = true
                        let partOfKey = BuildPropertyTests.keyRefs(table).contains(ref.column)
                        let parents = release.rows[ref.parent]
                        if let moved = redirect[target], alive.contains(moved) {
                            release.rows[index][row].refs[ref.column] = moved
                            if partOfKey {
                                redirect[release.rows[index][row].id] = ids
                                release.rows[index][row].id = ids
                                ids += 1
                            }
                        } else if partOfKey || (!ref.nullable && parents.isEmpty) {
                            gone.insert(release.rows[index][row].id)
                        } else if ref.nullable && (parents.isEmpty || random.next() % 2 == 0) {
                            release.rows[index][row].refs[ref.column] = nil
                        } else {
                            release.rows[index][row].refs[ref.column] = random.pick(parents).id
                        }
                    }
                }
                release.rows[index].removeAll { gone.contains($0.id) }
            }
        }
        // A many-to-many's links once refs moved: each pair once.
        for (index, table) in tables.enumerated() where table.keyKind == .join {
            var seen = Set<String>()
            release.rows[index].removeAll { !seen.insert(pair($0)).inserted }
        }
        return release
    }

    /// A many-to-many row's key: its two refs.
    static func pair(_ row: Row) -> String { "\(row.refs["lhs"] ?? -1)|\(row.refs["rhs"] ?? -1)" }

    /// A part of a `--rename` hint: quoted when it holds a comma, `=` or `"`.
    static func hintPart(_ key: String) -> String {
        guard key.contains(where: { $0 == "," || $0 == "=" || $0 == "\"" }) else { return key }
        return "\"" + key.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The columns whose value or ref differs, `key` for the key.
    static func changedColumns(_ old: Row, _ new: Row) -> Set<String> {
        var changed = Set<String>()
        if old.key != new.key { changed.insert("key") }
        for (column, value) in old.values where new.values[column] != value { changed.insert(column) }
        for column in Set(old.refs.keys).union(new.refs.keys) where old.refs[column] != new.refs[column] {
            changed.insert(column)
        }
        return changed
    }

    static func makeUserEdits(
        _ tables: [Table], _ old: Rows, _ release: Release, _ random: inout SeededRandom, ids: inout Int
    )
        -> User
    {
        var user = User(added: tables.map { _ in [] })
        let released = Dictionary(uniqueKeysWithValues: release.rows.flatMap { $0 }.map { ($0.id, $0) })
        let oldIDs = Set(old.flatMap { $0 }.map(\.id))
        var keys = Keys(prefix: "u", base: 3_000_000)
        for (index, table) in tables.enumerated() {
            for row in old[index] where !table.values.isEmpty && random.next() % 4 == 0 {
                let value = random.pick(table.values)
                // A row renamed by a hint keeps the user's edit only in a column the rename leaves alone
                // (otherwise the rename is the conflict, and its rows named by the new key go missing).
                if release.hinted.contains(row.id), let new = released[row.id],
                    changedColumns(row, new).contains(value.column)
                {
                    continue
                }
                let unlike = [row.values[value.column] ?? "", released[row.id]?.values[value.column] ?? ""]
                user.edits[row.id, default: [:]][value.column] = newValue(value.type, unlike: unlike, &random)
            }
            // Rows of their own: some with the key of a row the release inserts.
            let inserts = release.rows[index].filter { !oldIDs.contains($0.id) }
            var taken = Set<Int>()
            for _ in 0..<Int(random.next() % 3) {
                var row = Row(id: ids, key: keys.next(table, &random))
                if !inserts.isEmpty && random.next() % 2 == 0 {
                    let insert = random.pick(inserts)
                    let keyRefs = BuildPropertyTests.keyRefs(table)
                    guard !taken.contains(insert.id), keyRefs.allSatisfy({ oldIDs.contains(insert.refs[$0] ?? -1) })
                    else { continue }
                    taken.insert(insert.id)
                    row.key =
                        table.nocase && random.next() % 2 == 0
                        ? BuildPropertyTests.asciiUppercased(insert.key) : insert.key
                    for column in keyRefs { row.refs[column] = insert.refs[column] }
                }
                var complete = true
                for ref in table.refs where row.refs[ref.column] == nil {
                    let parents = old[ref.parent]
                    if parents.isEmpty || (ref.nullable && random.next() % 4 == 0) {
                        complete = complete && ref.nullable
                        continue
                    }
                    row.refs[ref.column] = random.pick(parents).id
                }
                guard complete else { continue }
                // A link of the user's own: one the old seed and the user's other rows do not have.
                if table.keyKind == .join && (old[index] + user.added[index]).contains(where: { pair($0) == pair(row) })
                {
                    continue
                }
                for value in table.values {
                    row.values[value.column] =
                        random.next() % 5 == 0 ? "" : newValue(value.type, unlike: [], &random)
                }
                ids += 1
                user.added[index].append(row)
            }
        }
        return user
    }

    /// Writes the user's edits into the store at `path`, by SQL.
    static func applyUserEdits(_ user: User, _ tables: [Table], _ old: Rows, to path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            var rowids: [Int: Int64] = [:]
            for (index, table) in tables.enumerated() {
                for row in old[index] {
                    if table.keyKind == .join {
                        rowids[row.id] = try Int64.fetchOne(
                            db, sql: "SELECT id FROM \(table.name) WHERE lhs = ? AND rhs = ?",
                            arguments: [rowids[row.refs["lhs"] ?? -1], rowids[row.refs["rhs"] ?? -1]])
                        continue
                    }
                    rowids[row.id] =
                        table.keyKind == .composite
                        ? try Int64.fetchOne(
                            db, sql: "SELECT id FROM \(table.name) WHERE parent = ? AND tag = ?",
                            arguments: [rowids[row.refs["parent"] ?? -1], row.key])
                        : try Int64.fetchOne(
                            db, sql: "SELECT id FROM \(table.name) WHERE \(BuildPropertyTests.keyColumn(table)) = ?",
                            arguments: [keyValue(table, row.key)])
                }
            }
            let byID = Dictionary(uniqueKeysWithValues: old.flatMap { $0 }.map { ($0.id, $0) })
            for (index, table) in tables.enumerated() {
                for row in old[index] {
                    for (column, value) in user.edits[row.id] ?? [:] {
                        let type = table.values.first { $0.column == column }?.type ?? ""
                        try db.execute(
                            sql: "UPDATE \(table.name) SET \(column) = ? WHERE id = ?",
                            arguments: [databaseValue(value, type: type), rowids[row.id]])
                    }
                }
                for row in user.added[index] {
                    var columns = [table.keyKind == .composite ? "tag" : BuildPropertyTests.keyColumn(table)]
                    var arguments: [(any DatabaseValueConvertible)?] = [
                        table.keyKind == .composite ? row.key : keyValue(table, row.key)
                    ]
                    if table.keyKind == .join {
                        columns = []
                        arguments = []
                    }
                    for ref in table.refs {
                        columns.append(ref.column)
                        arguments.append(row.refs[ref.column].flatMap { byID[$0] == nil ? nil : rowids[$0] })
                    }
                    for value in table.values {
                        columns.append(value.column)
                        arguments.append(databaseValue(row.values[value.column] ?? "", type: value.type))
                    }
                    try db.execute(
                        sql:
                            "INSERT INTO \(table.name) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                        arguments: StatementArguments(arguments))
                }
            }
        }
    }

    static func keyValue(_ table: Table, _ key: String) -> DatabaseValue {
        table.keyKind == .integer ? (Int64(key).map(\.databaseValue) ?? key.databaseValue) : key.databaseValue
    }

    /// A value as the user's SQL writes it: typed as the column, NULL for "".
    static func databaseValue(_ text: String, type: String) -> DatabaseValue {
        if text.isEmpty { return .null }
        switch type {
        case "INTEGER": return Int64(text).map(\.databaseValue) ?? text.databaseValue
        case "REAL": return Double(text).map(\.databaseValue) ?? text.databaseValue
        default: return text.databaseValue
        }
    }

    /// What the store must hold after `migrate`, and the rows its report must name, by
    /// docs/releases.md: an update applies where the row still holds what the old seed shipped in
    /// the columns it changes (otherwise the user's values stay: a conflict); a delete applies to
    /// a row as shipped (an edited one stays: a conflict) that no row refers to (otherwise it is
    /// denied); an insert whose key a row holds leaves that row as it is (already present).
    static func expectedOutcome(_ tables: [Table], old: Rows, release: Release, user: User)
        -> (rows: Rows, events: [String: Set<String>])
    {
        let released = Dictionary(uniqueKeysWithValues: release.rows.flatMap { $0 }.map { ($0.id, $0) })
        let shipped = Dictionary(uniqueKeysWithValues: old.flatMap { $0 }.map { ($0.id, $0) })
        let added = Dictionary(uniqueKeysWithValues: user.added.flatMap { $0 }.map { ($0.id, $0) })
        // A row as a migration names it: by its key in the release, else in the old seed; a composite's parent likewise.
        func name(_ index: Int, _ row: Row) -> String {
            let table = tables[index]
            func parent(_ column: String) -> String {
                row.refs[column].flatMap { released[$0] ?? shipped[$0] ?? added[$0] }?.key ?? "?"
            }
            switch table.keyKind {
            case .composite: return "\(table.name) \(parent("parent"))|\(row.key)"
            case .join: return "\(table.name) \(parent("lhs"))|\(parent("rhs"))"
            default: return "\(table.name) \(row.key)"
            }
        }
        func applying(_ edits: [String: String], to row: Row) -> Row {
            var row = row
            for (column, value) in edits { row.values[column] = value }
            return row
        }
        var events: [String: Set<String>] = [:]
        var rows: Rows = tables.map { _ in [] }
        var pending: [(table: Int, row: Row)] = []
        for index in tables.indices {
            for row in old[index] {
                let edits = user.edits[row.id] ?? [:]
                if let new = released[row.id] {
                    if !edits.isEmpty && !changedColumns(row, new).isDisjoint(with: edits.keys) {
                        events["conflict", default: []].insert(name(index, new))
                        rows[index].append(applying(edits, to: row))
                    } else {
                        rows[index].append(applying(edits, to: new))
                    }
                } else if !edits.isEmpty {
                    events["conflict", default: []].insert(name(index, row))
                    rows[index].append(applying(edits, to: row))
                } else {
                    pending.append((index, row))
                }
            }
            rows[index] += user.added[index]
        }
        var merged: [Int: Int] = [:]
        for (index, table) in tables.enumerated() {
            func sameKey(_ a: Row, _ b: Row) -> Bool {
                let keyRefs = BuildPropertyTests.keyRefs(table)
                guard !keyRefs.isEmpty else { return unique(table, a.key) == unique(table, b.key) }
                let parent = { (row: Row, column: String) in row.refs[column].map { merged[$0] ?? $0 } }
                return a.key == b.key && keyRefs.allSatisfy { parent(a, $0) == parent(b, $0) }
            }
            for new in release.rows[index] where shipped[new.id] == nil {
                if let holder = rows[index].first(where: { sameKey($0, new) }) {
                    merged[new.id] = holder.id
                    events["already-present", default: []].insert(name(index, new))
                } else {
                    rows[index].append(new)
                }
            }
        }
        // A delete is denied while any row left refers to the row (rows kept keep theirs).
        var changed = true
        while changed {
            changed = false
            let referenced = Set(rows.flatMap { $0 }.flatMap { $0.refs.values.map { merged[$0] ?? $0 } })
            for (position, candidate) in pending.enumerated().reversed() where referenced.contains(candidate.row.id) {
                rows[candidate.table].append(candidate.row)
                events["delete-denied", default: []].insert(name(candidate.table, candidate.row))
                pending.remove(at: position)
                changed = true
            }
        }
        for index in rows.indices {
            for row in rows[index].indices {
                for (column, target) in rows[index][row].refs {
                    rows[index][row].refs[column] = merged[target] ?? target
                }
            }
        }
        return (rows, events)
    }
}
