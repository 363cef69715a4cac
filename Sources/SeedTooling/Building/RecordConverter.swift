import SeedRuntime

/// Turns raw fixture records into typed slots, checking each value's type and the
/// manifest's rules.
///
/// Runs on the reading thread, so the SQLite thread only binds.
///
/// The per-slot facts are copied into flat arrays once, so the per-field loop touches
/// no strings and retains nothing; messages are built only for values that fail.
struct RecordConverter {
    let plan: TablePlan
    let file: String
    /// The type each slot's text converts to: the column's, or for a ref the parent key's.
    private let types: [ColumnType]
    private let rules: [ColumnRules.Prepared?]
    private let fieldNumbers: [Int]
    private let isReference: [Bool]
    /// Whether the slot is a column of the manifest's natural key, which every row must fill.
    private let isKey: [Bool]

    init(plan: TablePlan, file: String) {
        self.plan = plan
        self.file = file
        types = plan.bound.map { $0.reference?.keyType ?? $0.info.type }
        rules = plan.bound.map { $0.rules.map(ColumnRules.Prepared.init) }
        fieldNumbers = plan.bound.map(\.fieldNumber)
        isReference = plan.bound.map { $0.reference != nil }
        let key = Set(plan.config.key.map { plan.storeColumn($0).lowercasedName })
        isKey = plan.bound.map { key.contains($0.info.name.lowercasedName) }
    }

    /// Converts `record` into a new record of `batch`; every problem found in it is appended
    /// to `diagnostics` and its slots marked failed (see ``RecordBatch/failedSlots``): the
    /// record is kept, so that one build reports the key, ref and constraint problems of rows
    /// that also break a rule.
    func convert(_ record: RawRecord, into batch: RecordBatch, diagnostics: inout [Diagnostic]) {
        batch.beginRecord(line: record.line)
        record.bytes.withUnsafeBytes { bytes in
            for field in 0..<record.count {
                let slot = plan.slotOfSourceColumn[record.columns[field]]
                if slot < 0 { continue }  // loaded in a later pass
                let type = types[slot]
                let text = UnsafeRawBufferPointer(rebasing: bytes[record.starts[field]..<record.ends[field]])
                // A JSON element's nested value (`size.woods: ["oak"]`) is its JSON text, as a string of it is.
                let kind = record.kinds[field] == .json && type == .json ? .text : record.kinds[field]
                var value: SQLValue?  // built only for rules that need it
                switch kind {
                case .null:
                    batch.setNull(slot)
                    if isKey[slot] {
                        batch.markFailed(slot)
                        fail(
                            &diagnostics, record, field, slot, .missingRequired,
                            "\(name(slot)) is empty, but it is part of the natural key of \(plan.table.name), which every row must have"
                        )
                        continue
                    }
                    if rules[slot]?.required == true { value = .null }
                case .text, .integer, .real:
                    if kind != .text && (type == .date || type == .datetime || type == .blob) && !isReference[slot] {
                        keepRaw(batch, slot, text)
                        fail(
                            &diagnostics, record, field, slot, .typeMismatch,
                            "\(name(slot)): \(String(decoding: text, as: UTF8.self)) is not \(type.expectation) (the column is \(plan.bound[slot].info.declaredType))"
                        )
                        continue
                    }
                    // A column with no declared type stores a value as its source types it (docs/reference.md,
                    // "Fixtures"): a JSON number as a number, as a migration's is; CSV fields are text.
                    let converted =
                        type == .any && kind != .text
                        ? .success(
                            kind == .integer
                                ? NumberSyntax.integer(text).map(ColumnType.Converted.integer)
                                    ?? NumberSyntax.real(text).map(ColumnType.Converted.real) ?? .sameText
                                : NumberSyntax.real(text).map(ColumnType.Converted.real) ?? .sameText)
                        : type.convert(text: text)
                    switch converted {
                    case .success(.sameText):
                        batch.setBytes(slot, text)
                        if rules[slot] != nil, rules[slot]?.quicklyPasses(text: text) != true {
                            value = .text(String(decoding: text, as: UTF8.self))
                        }
                    case .success(.integer(let int)):
                        batch.setInteger(slot, int)
                        if rules[slot] != nil, rules[slot]?.quicklyPasses(number: Double(int)) != true {
                            value = .integer(int)
                        }
                    case .success(.real(let real)):
                        batch.setReal(slot, real)
                        if rules[slot] != nil, rules[slot]?.quicklyPasses(number: real) != true { value = .real(real) }
                    case .success(.blob(let blob)):
                        batch.set(slot, .blob(blob))
                        if rules[slot] != nil { value = .blob(blob) }
                    case .success(.null):
                        batch.setNull(slot)
                        value = .null
                    case .failure(let failure):
                        keepRaw(batch, slot, text)
                        let shown =
                            kind == .text
                            ? "'\(String(decoding: text, as: UTF8.self))'" : String(decoding: text, as: UTF8.self)
                        let what =
                            plan.bound[slot].reference.map { "a key of \($0.spec)" } ?? plan.bound[slot]
                            .relationshipHint
                            ?? "the column is \(plan.bound[slot].info.declaredType.isEmpty ? "untyped" : plan.bound[slot].info.declaredType)"
                        fail(
                            &diagnostics, record, field, slot, .typeMismatch,
                            "\(name(slot)): \(shown) is not \(failure.expected) (\(what))")
                        continue
                    }
                case .bool:
                    switch type.convert(.bool(text.count == 4)) {
                    case .success(let converted):
                        batch.set(slot, converted)
                        value = converted
                    case .failure(let failure):
                        keepRaw(batch, slot, text)
                        fail(
                            &diagnostics, record, field, slot, .typeMismatch,
                            "\(name(slot)): \(String(decoding: text, as: UTF8.self)) is not \(failure.expected)")
                        continue
                    }
                case .json:
                    guard type == .text || type == .any, !isReference[slot] else {
                        keepRaw(batch, slot, text)
                        fail(
                            &diagnostics, record, field, slot, .typeMismatch,
                            "\(name(slot)): a nested array or object fits only a TEXT or untyped column, not \(plan.bound[slot].info.declaredType)"
                        )
                        continue
                    }
                    batch.setBytes(slot, text)
                    if rules[slot] != nil, rules[slot]?.quicklyPasses(text: text) != true {
                        value = .text(String(decoding: text, as: UTF8.self))
                    }
                }
                if let rule = rules[slot], let value {
                    for problem in rule.check(value) {
                        batch.markFailed(slot)
                        fail(&diagnostics, record, field, slot, problem.code, problem.message)
                    }
                }
            }
        }
        if plan.recordsNameTheirFields {
            // A key left out: its column's DEFAULT applies, and `required` still holds.
            let base = (batch.count - 1) * batch.width
            for slot in 0..<batch.width where batch.slots[base + slot] == .absent {
                if isKey[slot], plan.bound[slot].info.defaultSQL == nil, plan.bound[slot].defaultSQL == nil {
                    batch.markFailed(slot)
                    diagnostics.append(
                        Diagnostic(
                            file: file, line: record.line, code: .missingRequired,
                            message:
                                "\(name(slot)) is missing, but it is part of the natural key of \(plan.table.name), which every row must have",
                            table: plan.table.name))
                    continue
                }
                if let rule = rules[slot], rule.required, plan.bound[slot].info.defaultSQL == nil,
                    plan.bound[slot].defaultSQL == nil
                {
                    batch.markFailed(slot)
                    diagnostics.append(
                        Diagnostic(
                            file: file, line: record.line, code: .missingRequired,
                            message: "\(name(slot)) is required but missing", table: plan.table.name))
                }
            }
        }
    }

    /// A value that failed conversion stays in the record as the fixture's text, marked failed:
    /// the record is still inserted, so that its key and refs are checked and later rows are
    /// checked against it (the build fails anyway; no follow-on error is reported for that value).
    private func keepRaw(_ batch: RecordBatch, _ slot: Int, _ text: UnsafeRawBufferPointer) {
        batch.setBytes(slot, text)
        batch.markFailed(slot)
    }

    private func name(_ slot: Int) -> String { plan.bound[slot].name }

    private func fail(
        _ diagnostics: inout [Diagnostic], _ record: RawRecord, _ field: Int, _ slot: Int, _ code: DiagnosticCode,
        _ message: String
    ) {
        let column = plan.recordsNameTheirFields ? field + 1 : fieldNumbers[slot]
        diagnostics.append(
            Diagnostic(
                file: file, line: record.line, column: column, code: code, message: message, table: plan.table.name))
    }
}
