import SeedRuntime

/// Turns raw fixture records into typed slots, checking each value's type and the
/// manifest's rules. Runs on the reading thread, so the SQLite thread only binds.
struct RecordConverter {
    let plan: TablePlan
    let file: String

    /// Converts `record` into a new record of `batch`; on any problem the record is
    /// dropped and every problem found in it is appended to `diagnostics`.
    func convert(_ record: RawRecord, into batch: RecordBatch, diagnostics: inout [Diagnostic]) {
        batch.beginRecord(line: record.line)
        var failed = false
        record.bytes.withUnsafeBytes { bytes in
            for field in 0..<record.count {
                let slot = plan.slotOfSourceColumn[record.columns[field]]
                let bound = plan.bound[slot]
                let fieldNumber = plan.isJSON ? field + 1 : bound.fieldNumber
                let type = bound.reference?.keyType ?? bound.info.type
                let text = UnsafeRawBufferPointer(rebasing: bytes[record.starts[field]..<record.ends[field]])
                var value: SQLValue?  // built only when a rule needs it
                switch record.kinds[field] {
                case .null:
                    batch.set(slot, .null)
                    value = .null
                case .text, .integer, .real:
                    if record.kinds[field] != .text && (type == .text || type == .date || type == .datetime || type == .blob) && bound.reference == nil {
                        if type != .text {
                            fail(&diagnostics, record, fieldNumber, .typeMismatch, "\(bound.info.name): \(String(decoding: text, as: UTF8.self)) is not \(type.expectation) (the column is \(bound.info.declaredType))")
                            failed = true
                            continue
                        }
                    }
                    switch type.convert(text: text) {
                    case .success(.sameText):
                        batch.setText(slot, record.bytes[record.starts[field]..<record.ends[field]])
                        if bound.rules != nil { value = .text(String(decoding: text, as: UTF8.self)) }
                    case .success(.integer(let int)): batch.set(slot, .integer(int)); value = .integer(int)
                    case .success(.real(let real)): batch.set(slot, .real(real)); value = .real(real)
                    case .success(.blob(let blob)): batch.set(slot, .blob(blob)); value = .blob(blob)
                    case .success(.null): batch.set(slot, .null); value = .null
                    case .failure(let failure):
                        let shown = record.kinds[field] == .text ? "'\(String(decoding: text, as: UTF8.self))'" : String(decoding: text, as: UTF8.self)
                        let what = bound.reference.map { "a key of \($0.spec)" } ?? "the column is \(bound.info.declaredType.isEmpty ? "untyped" : bound.info.declaredType)"
                        fail(&diagnostics, record, fieldNumber, .typeMismatch, "\(bound.info.name): \(shown) is not \(failure.expected) (\(what))")
                        failed = true
                        continue
                    }
                case .bool:
                    switch type.convert(.bool(text.count == 4)) {
                    case .success(let converted): batch.set(slot, converted); value = converted
                    case .failure(let failure):
                        fail(&diagnostics, record, fieldNumber, .typeMismatch, "\(bound.info.name): \(String(decoding: text, as: UTF8.self)) is not \(failure.expected)")
                        failed = true
                        continue
                    }
                case .json:
                    guard type == .text || type == .any, bound.reference == nil else {
                        fail(&diagnostics, record, fieldNumber, .typeMismatch, "\(bound.info.name): a nested array or object fits only a TEXT or untyped column, not \(bound.info.declaredType)")
                        failed = true
                        continue
                    }
                    batch.setText(slot, record.bytes[record.starts[field]..<record.ends[field]])
                    value = .text(String(decoding: text, as: UTF8.self))
                }
                if let rules = bound.rules, let value {
                    for problem in rules.check(value) {
                        fail(&diagnostics, record, fieldNumber, problem.code, problem.message)
                        failed = true
                    }
                }
            }
        }
        if plan.isJSON {
            // A key left out: its column's DEFAULT applies, and `required` still holds.
            let base = (batch.count - 1) * batch.width
            for (slot, bound) in plan.bound.enumerated() where batch.slots[base + slot] == .absent {
                if let rules = bound.rules, rules.required, bound.info.defaultSQL == nil {
                    fail(&diagnostics, record, 0, .missingRequired, "\(bound.info.name) is required but missing")
                    failed = true
                }
            }
        }
        if failed { batch.discardRecord() }
    }

    private func fail(_ diagnostics: inout [Diagnostic], _ record: RawRecord, _ column: Int, _ code: DiagnosticCode, _ message: String) {
        diagnostics.append(Diagnostic(file: file, line: record.line, column: column, code: code, message: message, table: plan.table.name))
    }
}
