import Foundation
import GRDB
import SeedRuntime

extension SeedBuilder {
    /// Writes the join-table rows of the many-to-many relationships fixtures list (Core Data),
    /// once every table is loaded, so that either side may be listed first.
    ///
    /// A fixture names the related rows by their keys: in CSV one field of comma-separated keys
    /// (`"Classics, Favourites"`), in JSON an array (`["Classics", "Favourites"]`) or one key.
    /// Members of an ordered relationship are ordered as listed; a row joins last among the
    /// owners of each member when the inverse is ordered.
    func loadManyToMany(_ plans: [TablePlan], coreData: CoreDataDialect, db: Database, diagnostics: inout [Diagnostic])
        throws
    {
        guard let model = manifest.model else { return }
        for plan in plans {
            let config = plan.config
            let file = config.displayFile
            // Only fixtures of entities with a many-to-many relationship are read again.
            guard
                model.flattened(config.name)?.relationships.contains(where: {
                    model.manyToMany(config.name, $0.name) != nil
                }) == true
            else { continue }
            var source: any RecordSource
            if config.query != nil { continue }
            let format = config.reading.format
            do {
                let columns = model.fixtureColumns(config.name)
                var fields = config.mapping.fields(forColumns: columns)
                // A record that gives a composite whole is read too (SwiftShapeFields.swift).
                if format.valuesNest {
                    fields += SwiftShapeFields.wholeNames(coreData.swiftShape(of: config.name), fields: fields)
                }
                source = try config.openFixture(fields: fields) { _ in "" }
            } catch { continue }  // already reported by the first pass
            // The attribute each field fills (an ignored field fills none).
            let names = source.columnNames.map { field in
                if case .column(let name) = config.mapping.resolve(field, isColumn: { _ in true }) { return name }
                return "\u{0}ignored"
            }
            let links = names.indices.compactMap { index -> (index: Int, relationship: CoreDataModel.Relationship)? in
                guard plan.table.column(plan.storeColumn(names[index])) == nil,
                    let relationship = model.manyToMany(config.name, names[index])
                else { return nil }
                return (index, relationship)
            }
            if links.isEmpty { continue }

            // How a row of this fixture is found again: by its key, converted as the model types it.
            let keyColumns = config.key.isEmpty ? plan.table.primaryKey : config.key
            var keyFields: [(index: Int, type: ColumnType)] = []
            for column in keyColumns {
                guard let index = names.firstIndex(where: { $0.isSameName(as: column) }),
                    config.refs[names[index]] == nil,
                    let info = plan.table.column(plan.storeColumn(column))
                else {
                    throw SeedError(
                        .configuration, file: manifest.path, line: config.line,
                        "\(config.name) lists many-to-many relationships, so its fixture needs its key (\(keyColumns.joined(separator: ", "))) as plain attribute columns"
                    )
                }
                keyFields.append((index, plan.modelTypes[names[index]] ?? coreData.columnType(info)))
            }
            let ownerSQL = coreData.primaryKeySQL(
                from: plan.table.name,
                where: (keyFields.map {
                    quoteIdentifier(plan.table.column(plan.storeColumn(names[$0.index]))?.name ?? "") + " = ?"
                }
                    + [coreData.rowFilter(config.name)].compactMap { $0 }).joined(separator: " AND "))

            struct Link {
                var index: Int
                var name: String
                var reference: TableSpec.Reference
                var lookup: Statement
                var keyType: ColumnType
                var links: CoreDataDialect.BulkLinks
            }
            var prepared: [Link] = []
            for (index, relationship) in links {
                guard let reference = config.refs[names[index]] else {
                    throw SeedError(
                        .configuration, file: manifest.path, line: config.line,
                        "\(config.name).\(names[index]) is a many-to-many relationship: add refs: { \(names[index]): \(relationship.destination).<key> } so its keys can be found"
                    )
                }
                guard
                    let join = try coreData.joinTable(
                        db, entity: config.name, relationship: relationship.name, destination: relationship.destination)
                else {
                    throw SeedError(
                        .configuration, file: file, line: 1, column: format.recordsNameTheirFields ? 0 : index + 1,
                        "the template has no join table for \(config.name).\(relationship.name) (\(CoreDataDialect.joinTableShape(entity: config.name, relationship: relationship.name, destination: relationship.destination))); was it created with this model?"
                    )
                }
                let destination = coreData.tableName(reference.table)
                let keyColumn = coreData.columnName(reference.column, in: reference.table)
                guard let keyInfo = try TableInfo.read(db, table: destination)?.column(keyColumn)
                else {
                    throw SeedError(
                        .configuration, file: manifest.path, line: config.line,
                        "ref \(config.name).\(names[index]) → \(reference): the template has no column \(destination).\(keyColumn)"
                    )
                }
                prepared.append(
                    Link(
                        index: index, name: names[index], reference: reference,
                        lookup: try db.makeStatement(
                            sql: coreData.primaryKeySQL(
                                from: destination,
                                where:
                                    "\(quoteIdentifier(keyInfo.name)) = ?\(coreData.rowFilter(reference.table).map { " AND \($0)" } ?? "")"
                            ) + " LIMIT 1"),
                        keyType: model.columnType(entity: reference.table, attribute: reference.column)
                            ?? coreData.columnType(keyInfo),
                        links: try coreData.bulkLinks(db, join: join)))
            }
            let owner = try db.makeStatement(sql: ownerSQL)

            var record = RawRecord()
            while try source.next(&record, diagnostics: &diagnostics) {
                var fields: [Int: (kind: RawRecord.Kind, text: String)] = [:]
                for field in 0..<record.count {
                    fields[record.columns[field]] = (record.kinds[field], record.text(field))
                }
                var key: [SQLValue] = []
                for (index, type) in keyFields {
                    guard let field = fields[index],
                        case .success(let value) = type.convert(Self.input(field.kind, field.text))
                    else { break }
                    key.append(value)
                }
                // A row that did not load was reported by the first pass.
                guard key.count == keyFields.count, case .integer(let ownerKey)? = try owner.firstValue(binding: key)
                else { continue }
                for i in prepared.indices {
                    guard let field = fields[prepared[i].index] else { continue }
                    var seen = Set<Int64>()
                    for (position, item) in Self.keys(field.kind, field.text, valuesNest: format.valuesNest)
                        .enumerated()
                    {
                        let column = format.recordsNameTheirFields ? 0 : prepared[i].index + 1
                        guard case .success(let keyValue) = prepared[i].keyType.convert(item),
                            case .integer(let member)? = try prepared[i].lookup.firstValue(binding: [keyValue])
                        else {
                            diagnostics.append(
                                Diagnostic(
                                    file: file, line: record.line, column: column, code: .unresolvedReference,
                                    message:
                                        "\(prepared[i].name) '\(Self.shown(item))' matches no \(prepared[i].reference)",
                                    table: plan.table.name))
                            continue
                        }
                        guard seen.insert(member).inserted else {
                            diagnostics.append(
                                Diagnostic(
                                    file: file, line: record.line, column: column, code: .duplicateKey,
                                    message: "\(prepared[i].name) lists '\(Self.shown(item))' twice",
                                    table: plan.table.name))
                            continue
                        }
                        try prepared[i].links.link(owner: ownerKey, member: member, position: position)
                    }
                }
            }
        }
    }

    private static func shown(_ value: InputValue) -> String {
        if case .string(let text) = value { return text }
        return value.description
    }

    /// A raw field as the value a key converts from.
    private static func input(_ kind: RawRecord.Kind, _ text: String) -> InputValue {
        switch kind {
        case .null: return .null
        case .integer: return Int64(text).map(InputValue.integer) ?? .string(text)
        case .real: return Double(text).map(InputValue.real) ?? .string(text)
        case .bool: return .bool(text == "true")
        case .text: return .string(text)
        case .json: return .json(text)
        }
    }

    /// The keys a to-many field lists: CSV text split at commas, a JSON array's items, or one JSON
    /// value (a format whose values nest gives a list as an array).
    private static func keys(_ kind: RawRecord.Kind, _ text: String, valuesNest: Bool) -> [InputValue] {
        guard kind == .text, !valuesNest else { return input(kind, text).listItems }
        // A JSON array, for keys a comma-separated list cannot hold (docs/core-data.md).
        if text.first == "[" { return InputValue.json(text).listItems }
        return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.map(
            InputValue.string)
    }
}
