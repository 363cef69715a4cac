/// Reading a migration's document through the grammar: every reader's items go through these
/// (the streamed reader's rows excepted, which it reads as ``row(_:file:)`` does without a node),
/// and every refusal of a shape is thrown from here.
extension MigrationGrammar {
    /// The operations of a migration's document, in the order written: one per section and table.
    static func operations(of document: DocNode, file: String) throws(SeedError) -> [DataChanges.Operation] {
        // Before the format's shape, as a YAML file is refused when parsed: a key twice in a map.
        if let (again, firstLine) = repeatedKey(in: document) {
            throw SeedError(
                .configuration, file: file, line: again.line, column: again.column,
                repeatedKey(again.key, firstLine: firstLine))
        }
        guard let entries = document.entries else { throw fail(document, file, notAMap) }
        var operations: [DataChanges.Operation] = []
        for entry in entries {
            let section = try section(entry, file: file)
            if case .null = entry.node.value { continue }
            guard let tables = entry.node.entries else { throw fail(entry.node, file, notTables(section)) }
            for table in tables {
                guard let items = table.node.items else {
                    throw fail(table.node, file, notItems(section, table: table.key))
                }
                var rows: [DataChanges.RowValues] = []
                var changes: [DataChanges.RowChange] = []
                switch section.items {
                case .rows: for item in items { rows.append(try row(item, file: file)) }
                case .changes: for item in items { changes.append(try change(item, in: section, file: file)) }
                }
                operations.append(DataChanges.Operation(section.kind, table: table.key, rows: rows, changes: changes))
            }
        }
        return operations
    }

    /// The first key a map of `node` repeats, as a YAML file's parser finds it: in the first map
    /// to end (an inner one before the map holding it), the key first written first; its second
    /// occurrence, and the line of its first.
    ///
    /// No map of the format has a use for a key twice, and reading JSON would otherwise keep one of
    /// the two, silently (the first of a row's columns, the last of an update's `key`s).
    static func repeatedKey(in node: DocNode) -> (again: DocEntry, firstLine: Int)? {
        switch node.value {
        case .array(let items):
            for item in items { if let found = repeatedKey(in: item) { return found } }
            return nil
        case .object(let entries):
            for entry in entries { if let found = repeatedKey(in: entry.node) { return found } }
            return repeatedKey(among: entries)
        default:
            return nil
        }
    }

    /// The first key `entries` repeat (see ``repeatedKey(in:)``), of this map only.
    static func repeatedKey(among entries: [DocEntry]) -> (again: DocEntry, firstLine: Int)? {
        let count = entries.count
        guard count > 1 else { return nil }
        if count > 8 {
            // A wide map: a set says whether any key repeats; each compared with each only then.
            var seen = Set<String>(minimumCapacity: count)
            if entries.allSatisfy({ seen.insert($0.key).inserted }) { return nil }
        }
        // Index loops, no slices: every update of a 100,000-row file read as it streams comes here.
        for first in 0..<(count - 1) {
            for later in (first + 1)..<count where entries[later].key == entries[first].key {
                return (entries[later], entries[first].line)
            }
        }
        return nil
    }

    /// The section a top-level entry names, or the error refusing it (at the entry's key).
    static func section(_ entry: DocEntry, file: String) throws(SeedError) -> Section {
        guard let section = section(named: entry.key) else {
            throw SeedError(
                .configuration, file: file, line: entry.line, column: entry.column, unknownSection(entry.key))
        }
        return section
    }

    /// One item of a section of rows.
    static func row(_ item: DocNode, file: String) throws(SeedError) -> DataChanges.RowValues {
        try values(item, what: "a row to insert", file: file)
    }

    /// One item of a section of changes: its fields, each read as its kind says, each rule checked.
    static func change(_ item: DocNode, in section: Section, file: String) throws(SeedError) -> DataChanges.RowChange {
        guard let entries = item.entries else { throw fail(item, file, notAChange(section)) }
        var key: DataChanges.Key?
        var from = DataChanges.RowValues(values: [], line: item.line, file: file)
        var to = DataChanges.RowValues(values: [], line: item.line, file: file)
        // The line of each field given (no set: 100,000 updates are read here).
        var given: (key: Int?, expected: Int?, wanted: Int?) = (nil, nil, nil)
        for entry in entries {
            guard let field = section.field(named: entry.key) else {
                throw SeedError(
                    .configuration, file: file, line: entry.line, column: entry.column,
                    unknownField(entry.key, in: section))
            }
            // A field twice (the document reader meets it first; the streamed one, here).
            let first: Int? =
                switch field.kind {
                case .key: given.key
                case .expected: given.expected
                case .wanted: given.wanted
                }
            if let first {
                throw SeedError(
                    .configuration, file: file, line: entry.line, column: entry.column,
                    repeatedKey(entry.key, firstLine: first))
            }
            switch field.kind {
            case .key:
                key = try self.key(entry, file: file)
                given.key = entry.line
            case .expected:
                from = try values(entry.node, what: "'\(field.name)'", file: file)
                given.expected = entry.line
            case .wanted:
                to = try values(entry.node, what: "'\(field.name)'", file: file)
                given.wanted = entry.line
            }
        }
        for field in section.fields {
            let missing: Bool
            switch field.rule {
            case .optional: missing = false
            case .required, .requiredBecause:
                switch field.kind {
                case .key: missing = given.key == nil
                case .expected: missing = given.expected == nil
                case .wanted: missing = given.wanted == nil
                }
            case .nonEmpty:
                switch field.kind {
                case .key: missing = given.key == nil
                case .expected: missing = from.values.isEmpty
                case .wanted: missing = to.values.isEmpty
                }
            }
            if missing { throw fail(item, file, self.missing(field, in: section)) }
        }
        // A section with no key field has none of its items found by key: not one this format has.
        return DataChanges.RowChange(
            key: key ?? .columns(DataChanges.RowValues(values: [], line: item.line, file: file)), from: from, to: to,
            line: item.line)
    }

    /// A key: one value, or a map of column: value for a composite key.
    private static func key(_ entry: DocEntry, file: String) throws(SeedError) -> DataChanges.Key {
        if let entries = entry.node.entries {
            try refuseRepeatedKeys(entries, file: file)
            return .columns(
                DataChanges.RowValues(
                    values: entries.map { ($0.key, $0.node.inputValue) }, line: entry.line, file: file))
        }
        if entry.node.items != nil { throw fail(entry.node, file, keyIsAList) }
        return .single(entry.node.inputValue)
    }

    /// A map of column: value (`what` names it in the error).
    private static func values(_ node: DocNode, what: String, file: String) throws(SeedError) -> DataChanges.RowValues {
        guard let entries = node.entries else { throw fail(node, file, notValues(what)) }
        try refuseRepeatedKeys(entries, file: file)
        var row = DataChanges.RowValues(
            values: entries.map { ($0.key, $0.node.inputValue) }, line: node.line, file: file)
        row.positions = entries.map { ($0.node.line, $0.node.column) }
        return row
    }

    /// Refuses a key twice in a map of column: value, or in a value's own lists and maps (the
    /// document reader has refused them all before, in YAML's order; the streamed one meets them here).
    private static func refuseRepeatedKeys(_ entries: [DocEntry], file: String) throws(SeedError) {
        var found = repeatedKey(among: entries)
        for entry in entries where found == nil {
            switch entry.node.value {
            case .object, .array: found = repeatedKey(in: entry.node)
            default: continue
            }
        }
        if let (again, firstLine) = found {
            throw SeedError(
                .configuration, file: file, line: again.line, column: again.column,
                repeatedKey(again.key, firstLine: firstLine))
        }
    }

    private static func fail(_ node: DocNode, _ file: String, _ message: String) -> SeedError {
        SeedError(.configuration, file: file, line: node.line, column: node.column, message)
    }
}
