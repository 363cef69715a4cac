import Foundation
import GRDB
import SeedRuntime

extension SeedBuilder {
    static let batchSize = 4096
    /// How many unknown fixture columns are named one by one before the rest are counted.
    static let unknownColumnLimit = 20

    /// Loads one table's fixture: a reading thread parses, converts and checks rules into
    /// batches; this thread inserts them.
    ///
    /// - returns: the rows inserted and the SHA-256 of the fixture's bytes.
    func load(_ plan: TablePlan, index: Int, deferral: Deferral, db: Database, diagnostics: inout [Diagnostic]) throws
        -> (rows: Int, hash: [UInt8])
    {
        let config = plan.config
        let file = config.displayFile
        guard config.query != nil || FileManager.default.fileExists(atPath: config.file.path) else {
            throw SeedError(
                .configuration, file: file,
                "the fixture for table \(config.name) does not exist (manifest: \(manifest.path))")
        }
        let source: any RecordSource
        // JSON keys are the fixture's names: attributes for Core Data, columns otherwise, as mapped.
        let columns = manifest.model?.fixtureColumns(config.name) ?? plan.table.columns.map(\.name)
        // A JSON record may give a composite whole, in the Swift type's shape (SwiftShapeFields.swift).
        var fields = config.mapping.fields(forColumns: columns)
        if config.query == nil, config.reading.format.valuesNest {
            fields += SwiftShapeFields.wholeNames(
                SwiftShapeFields.shape(plan.dialect, entity: config.name), fields: fields)
        }
        let opened = Result { () throws(SeedError) -> any RecordSource in
            if let query = config.query, let sources = deferral.sources {
                return try QueryRecordSource(query, in: sources, file: file)
            }
            return try config.openFixture(fields: fields) {
                [mapping = config.mapping, table = config.name] key in
                mapping.unknownFieldMessage(key, what: "key", table: table, columns: columns)
            }
        }
        switch opened {
        case .success(let opened): source = opened
        case .failure(let error) where error.kind == .invalidData:
            diagnostics += error.diagnostics
            deferral.refuse(config.name)
            return (0, [])
        case .failure(let error): throw error
        }
        // A JSON Pointer no record holds is one error naming it, not a NULL in every row: the
        // records are read once first to find out (only for a fixture with pointers).
        if !config.pointerPositions.isEmpty {
            var first = try config.openFixture(fields: source.columnNames) { _ in "" }
            var record = RawRecord()
            var ignored: [Diagnostic] = []
            var records = 0
            while try first.next(&record, diagnostics: &ignored) {
                records += 1
                ignored.removeAll(keepingCapacity: true)
            }
            let unheld = first.unheldPointers
            if !unheld.isEmpty && records > 0 {
                for pointer in unheld {
                    let column = config.mapping.columns.first { $0.field == pointer }?.column ?? pointer
                    let position = config.pointerPositions[column] ?? (config.line, config.column)
                    diagnostics.append(
                        Diagnostic(
                            file: manifest.path, line: position.line, column: position.column, code: .unknownColumn,
                            message:
                                "columns: \(column): \(pointer): no record of \(file) holds this path (\(records) records read), so table \(config.name) would get no \(column) from it; check the path against a record"
                        ))
                }
                deferral.refuse(config.name)
                return (0, [])
            }
        }
        let shapes =
            config.query == nil && config.reading.format.valuesNest
            ? SwiftShapeFields(
                dialect: plan.dialect, entity: config.name, file: file, table: plan.table.name,
                names: source.columnNames) : nil
        guard
            let plan = complete(
                plan, columns: source.columnNames, recordsNameTheirFields: config.reading.format.recordsNameTheirFields,
                file: file,
                composite: { shapes?.namesComposite($0) ?? false }, diagnostics: &diagnostics)
        else {
            deferral.refuse(config.name)
            return (0, [])
        }
        let fileSize = config.query != nil ? 0 : FileFacts.size(config.file.path) ?? 0

        let width = plan.bound.count
        let pipeline = BatchPipeline(batches: (0..<3).map { _ in RecordBatch(width: width, capacity: Self.batchSize) })
        let converter = RecordConverter(plan: plan, file: file)
        let digest = readBackDigest(plan, db: db)
        let producer = Producer(
            source: source, converter: converter, shapes: shapes, pipeline: pipeline, digest: digest)
        try DetachedThread.start("read \(file)", stackSize: 1 << 20) { producer.run() }

        let loader: TableLoader
        do {
            loader = try TableLoader(db: db, plan: plan, file: file)
            loader.deferral = deferral
            if plan.bound.contains(where: { $0.reference != nil }) {
                let parked = try ParkedRows(db: db, plan: plan, number: index)
                deferral.parked[plan.config.name] = parked
                loader.parking = parked
                // A miss may be a row not in yet: of this file, of a table loaded later, or itself parked.
                loader.parkable = plan.bound.map { bound in
                    guard let parent = bound.reference?.spec.table else { return false }
                    return (deferral.order[parent] ?? -1) >= index || deferral.isWaiting(parent)
                }
                // A nullable ref whose parent is not in yet is set once every row is in: its row goes
                // in now, in the fixture's order (a Core Data entity without a key needs that order
                // too: refs to it give its row's line, which the build makes its Z_PK). A WITHOUT
                // ROWID table's rows wait instead, and so do those of a table with triggers or
                // checks: they would see the ref empty, or fire again when it is set.
                let coreDataOrder = plan.dialect is CoreDataDialect && config.key.isEmpty
                if plan.table.rowIDName != nil, coreDataOrder || loader.linksUnseen {
                    let links = try LinkedRefs(db: db, plan: plan, number: index)
                    deferral.links[index] = links
                    loader.links = links
                }
            }
        } catch {
            pipeline.cancel()
            pipeline.waitForProducer()
            throw error
        }
        var loaderDiagnostics: [Diagnostic] = []
        do {
            while let batch = pipeline.takeReady() {
                let read = batch.bytesRead
                try loader.load(batch, diagnostics: &loaderDiagnostics)
                pipeline.recycle(batch)
                progress?(config.name, loader.rowsInserted, read, fileSize)
                if loaderDiagnostics.count + diagnostics.count > Self.diagnosticLimit * 2 { break }
            }
        } catch {
            pipeline.cancel()
            pipeline.waitForProducer()
            throw error
        }
        pipeline.cancel()
        pipeline.waitForProducer()
        if !loader.duplicateKeys.isEmpty {
            // A duplicate key names the earlier row too: found by reading the records again (only now).
            let earlier = try earlierLines(
                of: loader.duplicateKeys, plan: plan, deferral: deferral, fields: fields)
            for index in loaderDiagnostics.indices where loaderDiagnostics[index].code == .duplicateKey {
                guard let line = earlier[loaderDiagnostics[index].line] else { continue }
                let place = config.query != nil ? "row \(line) of the query" : "line \(line)"
                loaderDiagnostics[index].message = loaderDiagnostics[index].message.replacingOccurrences(
                    of: "an earlier row has the same", with: "\(place) has the same")
            }
        }
        var readerDiagnostics = producer.diagnostics
        if let query = config.query, let sources = deferral.sources,
            !(readerDiagnostics.isEmpty && loaderDiagnostics.isEmpty)
        {
            // A query's row has no line in a file: its errors say which row by its key too.
            let rows = try QueryRecordSource(query, in: sources, file: file)
            let keyFields = config.key.map { config.mapping.field(for: $0) }
            let named = (readerDiagnostics + loaderDiagnostics).filter { $0.file == file }.map(\.line)
            let keys = rows.describeKeys(rows: Set(named), fields: keyFields)
            func annotate(_ diagnostic: inout Diagnostic) {
                guard diagnostic.file == file, let key = keys[diagnostic.line], !key.isEmpty else { return }
                diagnostic.message += " (the query's row \(diagnostic.line): \(key))"
            }
            for index in readerDiagnostics.indices { annotate(&readerDiagnostics[index]) }
            for index in loaderDiagnostics.indices { annotate(&loaderDiagnostics[index]) }
        }
        // Reader problems first, then the inserter's, each in file order.
        diagnostics += (readerDiagnostics + loaderDiagnostics).sorted { ($0.line, $0.column) < ($1.line, $1.column) }
        if let failure = producer.failure {
            if failure.kind == .invalidData { diagnostics += failure.diagnostics } else { throw failure }
        }
        if let digest { deferral.readBacks.append(ReadBack(plan: plan, fields: fields, expected: digest)) }
        return (loader.rowsInserted, source.contentHash.hash.digest)
    }

    /// For each duplicate key (by its row's line): the line of the first row with the same values,
    /// read again through the same reader and conversion as the load.
    private func earlierLines(
        of duplicates: [(line: Int, slots: [Int], values: [SQLValue])], plan: TablePlan, deferral: Deferral,
        fields: [String]
    ) throws -> [Int: Int] {
        let config = plan.config
        var source: any RecordSource
        if let query = config.query, let sources = deferral.sources {
            source = try QueryRecordSource(query, in: sources, file: config.displayFile)
        } else {
            source = try config.openFixture(fields: fields) { _ in "" }
        }
        let converter = RecordConverter(plan: plan, file: config.displayFile)
        let batch = RecordBatch(width: plan.bound.count, capacity: 1)
        var record = RawRecord()
        var ignored: [Diagnostic] = []
        var found: [Int: Int] = [:]
        let last = duplicates.map(\.line).max() ?? 0
        while try source.next(&record, diagnostics: &ignored), record.line < last {
            ignored.removeAll(keepingCapacity: true)
            batch.reset()
            converter.convert(record, into: batch, diagnostics: &ignored)
            for duplicate in duplicates where found[duplicate.line] == nil && record.line < duplicate.line {
                if zip(duplicate.slots, duplicate.values).allSatisfy({ batch.value(record: 0, slot: $0).isSame(as: $1) }
                ) {
                    found[duplicate.line] = record.line
                }
            }
            if found.count == duplicates.count { break }
        }
        return found
    }

    /// Maps the fixture's columns onto the table's; unknown columns are data errors at line 1.
    private func complete(
        _ plan: TablePlan, columns: [String], recordsNameTheirFields: Bool, file: String, composite: (Int) -> Bool,
        diagnostics: inout [Diagnostic]
    ) -> TablePlan? {
        var plan = plan
        plan.recordsNameTheirFields = recordsNameTheirFields
        var failed = false
        // The model's rules (Core Data), with the manifest's on top; keyed by the fixture's column names.
        var rules: [String: ColumnRules] = [:]
        for rule in manifest.model?.rules(for: plan.config.name) ?? [] { rules[rule.column.lowercasedName] = rule }
        for rule in plan.config.rules {
            rules[rule.column.lowercasedName] = rules[rule.column.lowercasedName].map { $0.merged(with: rule) } ?? rule
        }
        // A generated UUID (`let id = UUID()`) left out or empty gets the row's name-based UUID once every table is loaded.
        if let coreData = plan.dialect as? CoreDataDialect, let entity = coreData.entity(named: plan.config.name) {
            for attribute in coreData.facts.generated[coreData.modelName(of: entity)] ?? [] {
                rules[attribute.lowercasedName]?.required = false
            }
        }
        let entity = manifest.model?.flattened(plan.config.name)
        let mapping = plan.config.mapping
        let tableColumns = manifest.model?.fixtureColumns(plan.config.name) ?? plan.table.columns.map(\.name)
        /// The manifest's names (columns, or attributes) of the fields the fixture fills.
        var filled: [String] = []
        // Unknown columns are named one by one up to a point, then counted: each message lists the
        // table's columns, and a header can be 100,000 fields wide.
        var unknownColumns = 0
        var firstCountedColumn = 0  // where the counted ones start, so the summary sorts after the named ones
        func unknown(_ field: String, at index: Int) {
            failed = true
            unknownColumns += 1
            if unknownColumns == Self.unknownColumnLimit + 1 { firstCountedColumn = index + 1 }
            guard unknownColumns <= Self.unknownColumnLimit else { return }
            diagnostics.append(
                Diagnostic(
                    file: file, line: 1, column: index + 1, code: .unknownColumn,
                    message: mapping.unknownFieldMessage(
                        field, what: "column", table: plan.table.name, columns: tableColumns), table: plan.table.name))
        }
        defer {
            if unknownColumns > Self.unknownColumnLimit {
                diagnostics.append(
                    Diagnostic(
                        file: file, line: 1, column: firstCountedColumn, code: .unknownColumn,
                        message:
                            "\(unknownColumns - Self.unknownColumnLimit) more columns from here on name no column of table \(plan.table.name)",
                        table: plan.table.name))
            }
        }
        for (index, field) in columns.enumerated() {
            if composite(index) {
                // A composite given whole: its elements' fields carry its value.
                plan.slotOfSourceColumn.append(-1)
                continue
            }
            let name: String
            switch mapping.resolve(field, isColumn: { _ in true }) {
            case .ignored:
                plan.slotOfSourceColumn.append(-1)
                continue
            case .unknown:
                unknown(field, at: index)
                continue
            case .column(let column):
                name = column
            }
            if let attribute = entity?.attributes.first(where: { $0.name == name }),
                !CoreDataModel.supportedTypes.contains(attribute.type)
            {
                diagnostics.append(
                    Diagnostic(
                        file: file, line: 1, column: index + 1, code: .unknownColumn,
                        message:
                            "\(field) is a \(attribute.type) attribute (an archived object, written by the app's own code), which seedkit cannot write; leave it out of the fixture",
                        table: plan.table.name))
                failed = true
                continue
            }
            if plan.table.column(plan.storeColumn(name)) == nil,
                manifest.model?.manyToMany(plan.config.name, name) != nil
            {
                // a join table's rows: loaded once every table is (see loadManyToMany)
                plan.slotOfSourceColumn.append(-1)
                continue
            }
            guard var info = plan.table.column(plan.storeColumn(name)) else {
                unknown(field, at: index)
                continue
            }
            filled.append(name)
            info.type = plan.modelTypes[name] ?? plan.dialect.columnType(info)
            // Messages name the field as the fixture writes it.
            var fieldRules = rules[name.lowercasedName]
            if field != name { fieldRules?.column = field }
            plan.slotOfSourceColumn.append(plan.bound.count)
            let reference = plan.referencesByColumn[info.name.lowercasedName]
            var hint: String?
            if reference == nil,
                let relationship = entity?.relationships.first(where: { $0.name == name && !$0.toMany })
            {
                let parent = relationship.destination
                let key = manifest.tables.first { $0.name == parent }?.key.first ?? "KEY"
                hint =
                    "\(field) is a to-one relationship to \(parent), stored as its row's \(CoreDataDialect.primaryKeyColumn); to name \(parent) rows by a key, add refs: { \(field): \(parent).\(key) } to \(plan.config.name) in the manifest"
            }
            plan.bound.append(
                TablePlan.Bound(
                    info: info, name: field, rules: fieldRules, reference: reference,
                    fieldNumber: recordsNameTheirFields ? 0 : index + 1,
                    defaultSQL: plan.defaults[name.lowercasedName]?.sqlLiteral,
                    relationshipHint: hint))
        }
        // Defaults for attributes the fixture has no column for: every row gets them.
        for (name, value) in plan.defaults.sorted(by: { $0.key < $1.key })
        where !filled.contains(where: { $0.lowercasedName == name }) {
            if let info = plan.table.column(plan.storeColumn(name)) {
                plan.constants.append((info.name, value.sqlLiteral))
            }
        }
        // A header names the file's fields once: a key or required field it lacks, every record lacks.
        if !recordsNameTheirFields {
            for key in plan.config.key where !filled.contains(where: { $0.isSameName(as: key) }) {
                if plan.table.column(plan.storeColumn(key))?.defaultSQL == nil
                    && plan.defaults[key.lowercasedName] == nil
                    && manifest.model?.manyToMany(plan.config.name, key) == nil
                {
                    let wanted = mapping.field(for: key)
                    diagnostics.append(
                        Diagnostic(
                            file: file, line: 1, column: 0, code: .missingRequired,
                            message:
                                "\(key) is part of the natural key of \(plan.table.name), but the header has no \(wanted == key ? "such column" : "field \(wanted)")",
                            table: plan.table.name))
                    failed = true
                }
            }
            for rule in rules.values where rule.required && !filled.contains(where: { $0.isSameName(as: rule.column) })
            {
                if plan.table.column(plan.storeColumn(rule.column))?.defaultSQL == nil
                    && plan.defaults[rule.column.lowercasedName] == nil
                {
                    let wanted = mapping.field(for: rule.column)
                    // An attribute the model requires and seedkit cannot write: say so, not "add the column".
                    let unwritable = manifest.model?.flattened(plan.config.name)?.attributes.first {
                        $0.name == rule.column && !CoreDataModel.supportedTypes.contains($0.type)
                    }
                    let message =
                        unwritable.map {
                            CoreDataDialect.unwritableMessage(
                                entity: plan.config.name, attribute: $0.name, type: $0.type)
                                + "; the model requires it, so seedkit cannot build \(plan.config.name) rows"
                        }
                        ?? "\(rule.column) is required, but the header has no \(wanted == rule.column ? "such column" : "field \(wanted)")"
                    diagnostics.append(
                        Diagnostic(
                            file: file, line: 1, column: 0, code: unwritable == nil ? .missingRequired : .unknownColumn,
                            message: message, table: plan.table.name))
                    failed = true
                }
            }
        }
        // Records that may leave fields out are inserted by the mask of the fields they give (TableLoader).
        if plan.bound.count > 64 && recordsNameTheirFields {
            diagnostics.append(
                Diagnostic(
                    file: file, line: 1, code: .configuration,
                    message:
                        "\(plan.config.reading.format.displayName) fixtures support tables of up to 64 columns; use CSV for \(plan.table.name)",
                    table: plan.table.name))
            failed = true
        }
        return failed ? nil : plan
    }
}

/// The reading thread's work: parse, convert, check rules, publish batches.
private final class Producer: @unchecked Sendable {
    private var source: any RecordSource
    private let converter: RecordConverter
    private let shapes: SwiftShapeFields?
    private let pipeline: BatchPipeline
    /// The read-back's digest of the converted records (filled on this thread; read after it ends).
    private let digest: ReadBackDigest?
    /// Written by the producer thread; read after ``BatchPipeline/waitForProducer()``.
    private(set) var diagnostics: [Diagnostic] = []
    private(set) var failure: SeedError?

    init(
        source: any RecordSource, converter: RecordConverter, shapes: SwiftShapeFields?, pipeline: BatchPipeline,
        digest: ReadBackDigest?
    ) {
        self.digest = digest
        self.source = source
        self.converter = converter
        self.shapes = shapes
        self.pipeline = pipeline
    }

    func run() {
        // The source and the diagnostics are this thread's locals while it reads: an object's
        // properties passed inout cost a dynamic exclusivity check per record.
        var source = self.source
        var diagnostics: [Diagnostic] = []
        defer {
            self.source = source
            self.diagnostics = diagnostics
            pipeline.finishProducing()
        }
        var record = RawRecord()
        while let batch = pipeline.takeFree() {
            var more = true
            do {
                while batch.count < SeedBuilder.batchSize {
                    guard try source.next(&record, diagnostics: &diagnostics) else {
                        more = false
                        break
                    }
                    if let shapes, !shapes.expand(&record, diagnostics: &diagnostics) { continue }
                    converter.convert(record, into: batch, diagnostics: &diagnostics)
                    digest?.add(batch, record: batch.count - 1)
                }
            } catch {
                // Stop reading, but still load what was read before the error, so that its problems are reported too.
                failure = error
                more = false
            }
            batch.bytesRead = source.bytesRead
            pipeline.publish(batch)
            if !more || diagnostics.count > SeedBuilder.diagnosticLimit * 2 { return }
        }
    }
}
