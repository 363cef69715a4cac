extension Migration {
    /// A JSON migration read straight from its bytes, row by row: each row is parsed, converted
    /// and hashed into the checksum, then dropped, so the document's tree is never built (for a
    /// 100,000-row migration the tree was most of the run's memory and a fifth of its time).
    ///
    /// Gives the same migration as ``make(fileName:file:document:)`` over the parsed document:
    /// the same rows with the same lines, the same canonical-JSON checksum. Returns nil for
    /// anything else (bad JSON, a shape the migration format refuses): the caller then reads the
    /// document whole, whose reader words every refusal of the format (``MigrationGrammar``).
    package static func streamed(fileName: String, file: String, json bytes: UnsafeRawBufferPointer) -> Migration? {
        guard let parts = parseFileName(fileName) else { return nil }
        var operations: [DataChanges.Operation] = []
        guard
            let checksum = readStreamed(
                file: file, json: bytes, chunkRows: .max,
                emit: { _, operation in
                    operations.append(operation)
                    return true
                })
        else { return nil }
        return Migration(
            number: parts.number, name: parts.name, file: file, checksum: checksum,
            body: .changes(DataChanges(operations: operations)))
    }

    /// The reading behind ``streamed(fileName:file:json:)``, handing each operation to `emit` as
    /// soon as it is read, with its index among the file's operations (one per section and
    /// table): an insert's rows and an update's or delete's items in chunks of up to `chunkRows`
    /// (the file's first chunk of up to `firstChunkRows`; an empty section as one empty chunk).
    ///
    /// Returns the checksum, or nil where `streamed` gives nil, after emitting what came before;
    /// `emit` returning false stops the read (nil).
    static func readStreamed(
        file: String, json bytes: UnsafeRawBufferPointer, chunkRows: Int, firstChunkRows: Int? = nil,
        emit: (_ index: Int, _ operation: DataChanges.Operation) -> Bool
    ) -> String? {
        let hasBOM = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
        var reader = StreamedJSON(scanner: JSONScanner(bytes: bytes, position: hasBOM ? 3 : 0))
        var index = -1
        var limit = firstChunkRows ?? chunkRows
        guard reader.open(UInt8(ascii: "{")) else { return nil }
        var more = !reader.closes(UInt8(ascii: "}"))
        var sectionsRead: [String] = []
        while more {
            // A section the format does not have: the document reader refuses it (MigrationGrammar).
            guard let name = reader.key(), let section = MigrationGrammar.section(named: name) else { return nil }
            // A key twice in a map, here or below: the document reader refuses it.
            guard !sectionsRead.contains(name) else { return nil }
            sectionsRead.append(name)
            if reader.scanner.peek() == UInt8(ascii: "n") {
                // `insert: null`: nothing to do, but part of the checksum.
                guard case .null? = (try? reader.scanner.parseNode(depth: 1))?.value else { return nil }
                reader.canonical += "null".utf8
            } else {
                guard reader.open(UInt8(ascii: "{")) else { return nil }
                var moreTables = !reader.closes(UInt8(ascii: "}"))
                var tablesRead: Set<String> = []
                while moreTables {
                    guard let table = reader.key(), tablesRead.insert(table).inserted, reader.open(UInt8(ascii: "["))
                    else { return nil }
                    index += 1
                    var rows: [DataChanges.RowValues] = []
                    var emittedRows = false
                    var changes: [DataChanges.RowChange] = []
                    var moreItems = !reader.closes(UInt8(ascii: "]"))
                    while moreItems {
                        reader.scanner.skipWhitespace()
                        switch section.items {
                        case .rows:
                            guard let row = reader.insertRow(file: file) else { return nil }
                            rows.append(row)
                        case .changes:
                            guard let item = try? reader.scanner.parseNode(depth: 3),
                                let change = try? MigrationGrammar.change(item, in: section, file: file)
                            else { return nil }
                            changes.append(change)
                            item.writeJSON(into: &reader.canonical)
                        }
                        reader.hashIfFull()
                        guard let next = reader.next(UInt8(ascii: "]")) else { return nil }
                        moreItems = next
                        // An insert's rows and an update's or delete's items alike: the run
                        // applies one chunk while this thread reads the next (issue 45).
                        if rows.count + changes.count >= limit && moreItems {
                            let chunk = DataChanges.Operation(section.kind, table: table, rows: rows, changes: changes)
                            guard emit(index, chunk) else { return nil }
                            rows.removeAll(keepingCapacity: true)
                            changes.removeAll(keepingCapacity: true)
                            emittedRows = true
                            limit = chunkRows
                        }
                    }
                    // Items come in chunks: none left after the last chunk, nothing more to hand over.
                    if !(rows.isEmpty && changes.isEmpty && emittedRows) {
                        let operation = DataChanges.Operation(section.kind, table: table, rows: rows, changes: changes)
                        guard emit(index, operation) else { return nil }
                    }
                    guard let next = reader.next(UInt8(ascii: "}")) else { return nil }
                    moreTables = next
                }
            }
            guard let next = reader.next(UInt8(ascii: "}")) else { return nil }
            more = next
        }
        reader.scanner.skipWhitespace()
        guard reader.scanner.isAtEnd else { return nil }
        return reader.checksum()
    }
}

/// The top levels of a JSON migration, scanned by hand, with their canonical JSON (the bytes
/// ``DocNode/writeJSON(into:)`` writes) hashed 64 KiB at a time.
private struct StreamedJSON {
    var scanner: JSONScanner
    var canonical: [UInt8] = []
    var hash = SHA256()
    var scratch: [UInt8] = []
    /// The last row's keys, by position, as bytes, as the string made of them, and as the
    /// canonical text writes them (quoted, with the colon).
    var keys: [(bytes: [UInt8], key: String, canonical: [UInt8])] = []
    /// The last row's number of values.
    var rowWidth = 0
    /// Whether the last key read was the previous row's at the same place.
    var keyReused = false

    init(scanner: JSONScanner) {
        self.scanner = scanner
        canonical.reserveCapacity(1 << 17)
    }

    /// Consumes `byte` (after whitespace); false when something else is there.
    mutating func open(_ byte: UInt8) -> Bool {
        scanner.skipWhitespace()
        guard scanner.peek() == byte else { return false }
        scanner.position += 1
        canonical.append(byte)
        return true
    }

    /// Consumes `close` when it comes next (an empty object or array).
    mutating func closes(_ close: UInt8) -> Bool {
        scanner.skipWhitespace()
        guard scanner.peek() == close else { return false }
        scanner.position += 1
        canonical.append(close)
        return true
    }

    /// After a member: true for a comma (another member follows), false for `close`, nil otherwise.
    mutating func next(_ close: UInt8) -> Bool? {
        scanner.skipWhitespace()
        guard let byte = scanner.peek(), byte == UInt8(ascii: ",") || byte == close else { return nil }
        scanner.position += 1
        canonical.append(byte)
        return byte == UInt8(ascii: ",")
    }

    /// A member's key and its colon.
    ///
    /// `position`: the member's place in its row, where the previous row's key there is reused when
    /// it is the same (rows repeat their keys: no new string for each).
    mutating func key(position: Int? = nil) -> String? {
        scanner.skipWhitespace()
        scratch.removeAll(keepingCapacity: true)
        guard (try? scanner.scanString(into: &scratch)) != nil else { return nil }
        keyReused = false
        if let position, position < keys.count, keys[position].bytes == scratch {
            keyReused = true
            guard colon() else { return nil }
            canonical.append(contentsOf: keys[position].canonical)
            return keys[position].key
        }
        let key = String(decoding: scratch, as: UTF8.self)  // as the document's tree decodes keys
        var quoted: [UInt8] = []
        DocNode.writeQuoted(key, into: &quoted)
        quoted.append(UInt8(ascii: ":"))
        if let position, position <= keys.count {
            if position == keys.count {
                keys.append((scratch, key, quoted))
            } else {
                keys[position] = (scratch, key, quoted)
            }
        }
        guard colon() else { return nil }
        canonical.append(contentsOf: quoted)
        return key
    }

    /// The colon after a member's key, and the spacing around it.
    private mutating func colon() -> Bool {
        scanner.skipWhitespace()
        guard scanner.peek() == UInt8(ascii: ":") else { return false }
        scanner.position += 1
        scanner.skipWhitespace()
        return true
    }

    /// A row to insert (at its `{`), as ``MigrationGrammar/row(_:file:)`` reads its node, without
    /// building the node: scalars straight into the row's values, nested lists and maps as nodes.
    mutating func insertRow(file: String) -> DataChanges.RowValues? {
        let line = scanner.line
        guard open(UInt8(ascii: "{")) else { return nil }
        var values: [(column: String, value: InputValue)] = []
        values.reserveCapacity(rowWidth)  // rows are alike: no room to spare in 100,000 of them
        var keysReused = true
        var more = !closes(UInt8(ascii: "}"))
        while more {
            guard let column = key(position: values.count) else { return nil }
            keysReused = keysReused && keyReused
            if scanner.peek() == UInt8(ascii: "{") || scanner.peek() == UInt8(ascii: "[") {
                // The row is 3 levels deep in its document: its values 4.
                guard let node = try? scanner.parseNode(depth: 4), MigrationGrammar.repeatedKey(in: node) == nil
                else { return nil }
                values.append((column, node.inputValue))
                node.writeJSON(into: &canonical)
            } else {
                guard let scalar = try? scanner.parseScalar(scratch: &scratch) else { return nil }
                values.append((column, scalar.inputValue))
                scalar.writeJSON(into: &canonical)
            }
            guard let next = next(UInt8(ascii: "}")) else { return nil }
            more = next
        }
        // A column twice: the document reader refuses it. A row with the previous row's keys, at
        // the same places, has none twice (that row was checked): rows are alike, nothing to compare.
        if !(keysReused && values.count == rowWidth) {
            for index in values.indices.dropFirst()
            where values[..<index].contains(where: { $0.column == values[index].column }) {
                return nil
            }
        }
        rowWidth = values.count
        return DataChanges.RowValues(values: values, line: line, file: file)
    }

    /// `sha256:` and the digest of the whole canonical text.
    mutating func checksum() -> String {
        canonical.withUnsafeBytes { hash.update(buffer: $0) }
        canonical.removeAll()
        return "sha256:" + hash.hexDigest
    }

    mutating func hashIfFull() {
        guard canonical.count >= 1 << 16 else { return }
        canonical.withUnsafeBytes { hash.update(buffer: $0) }
        canonical.removeAll(keepingCapacity: true)
    }
}
