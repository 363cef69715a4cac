import Foundation
import GRDB

/// Values the model requires of a new object: generated UUIDs and required attributes.
///
/// A non-optional `UUID` attribute whose model default is a UUID instance (SwiftData's
/// `let id = UUID()`; ``CoreDataModelFacts/generated``) gets, when a row gives it no value, the
/// name-based UUID of the row (``nameBasedUUID(entity:attribute:key:)``): the app gives each new
/// object a fresh UUID, and seedkit gives each seeded row one of its own that every build and
/// every device derives alike. Any other required attribute (``CoreDataModelFacts/required``)
/// without a value is an error: Core Data would refuse to save such an object, and SwiftData
/// traps reading nil into a non-optional property.
extension CoreDataDialect {
    /// The SQL function builds fill generated UUIDs with: `seedkit_name_uuid(entity, attribute, keyPart…)`.
    static let nameUUIDFunction = "seedkit_name_uuid"

    /// The UUID seedkit generates for `entity`'s `attribute` in the row whose natural key is
    /// `key` (its parts in the key's order; a ref's part is the parent's key value, not its `Z_PK`).
    ///
    /// RFC 9562 version 8 (custom, name-based with SHA-256): the first 16 bytes of
    /// SHA-256(UTF-8 of `Entity.attribute`, then for each key part a 0 byte and the part's
    /// ``canonicalText(_:)``), with the version nibble set to 8 (byte 6: `0x8_`) and the variant
    /// to RFC 9562 (byte 8: `0b10xx_xxxx`).
    package static func nameBasedUUID(entity: String, attribute: String, key: [SQLValue]) -> [UInt8] {
        var hash = SHA256()
        hash.update("\(entity).\(attribute)".utf8)
        for part in key {
            hash.update([0])
            hash.update(canonicalText(part).utf8)
        }
        var bytes = Array(hash.digest.prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return bytes
    }

    /// A key part as the name of a generated UUID hashes it: text as it is, an integer in
    /// decimal, a real as Swift prints it (`2.5`), 16 bytes (a UUID) in the upper-case standard
    /// form, other bytes as upper-case hexadecimal, NULL as nothing.
    package static func canonicalText(_ value: SQLValue) -> String {
        switch value {
        case .null: return ""
        case .integer(let number): return String(number)
        case .real(let number): return "\(number)"
        case .text(let text): return text
        case .blob(let bytes) where bytes.count == 16:
            return UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                    bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                )
            ).uuidString
        case .blob(let bytes): return bytes.map { hexDigits[Int($0 >> 4)] + hexDigits[Int($0 & 0x0F)] }.joined()
        }
    }

    private static let hexDigits = "0123456789ABCDEF".map(String.init)

    /// The model's name of the entity the migration or fixture calls `name`.
    func factsName(_ name: String) -> String {
        entity(named: name).map(modelName) ?? name
    }

    /// `values` with a generated UUID for each generated attribute of `name` that they give no
    /// value (left out, or NULL); `key` is the row's natural key (see ``nameBasedUUID(entity:attribute:key:)``).
    package func withGeneratedValues(
        entity name: String, table: TableInfo, values: [(column: String, value: SQLValue)], key: [SQLValue]
    ) -> [(column: String, value: SQLValue)] {
        let entity = factsName(name)
        var values = values
        for attribute in facts.generated[entity] ?? [] {
            guard let column = table.column(columnName(attribute, in: name)) else { continue }
            let generated = SQLValue.blob(Self.nameBasedUUID(entity: entity, attribute: attribute, key: key))
            if let index = values.firstIndex(where: { $0.column.isSameName(as: column.name) }) {
                if values[index].value == .null { values[index].value = generated }
            } else {
                values.append((column.name, generated))
            }
        }
        return values
    }

    /// The required attributes of `name` that `values` leave without a value, in the model's
    /// order: NULL given, or (`inserting`) left out with no default to fill them.
    package func missingRequired(
        entity name: String, table: TableInfo, values: [(column: String, value: SQLValue)], inserting: Bool
    ) -> [String] {
        let entity = factsName(name)
        let defaults = facts.defaults[entity] ?? [:]
        let generated = Set(facts.generated[entity] ?? [])
        return (facts.required[entity] ?? []).filter { attribute in
            guard let column = table.column(columnName(attribute, in: name)) else {
                // A non-optional enum without raw values: a new row needs one of its cases.
                let cases = caseColumns(entity: name, enum: attribute, table: table)
                return inserting && !cases.isEmpty
                    && !values.contains { given in
                        given.value != .null && cases.contains { given.column.isSameName(as: $0) }
                    }
            }
            guard let given = values.first(where: { $0.column.isSameName(as: column.name) }) else {
                return inserting && defaults[attribute] == nil && !generated.contains(attribute)
            }
            return given.value == .null
        }
    }

    /// The attributes of `name` that `values` give a value (not NULL) although seedkit cannot
    /// write them (``CoreDataModelFacts/unwritable``), with their types, in the row's order.
    package func unwritableValues(entity name: String, values: [(column: String, value: SQLValue)]) -> [(
        attribute: String, type: String
    )] {
        guard let attributes = facts.unwritable[factsName(name)], !attributes.isEmpty else { return [] }
        return values.compactMap { column, value in
            guard value != .null,
                let found = attributes.first(where: { columnName($0.key, in: name).isSameName(as: column) })
            else { return nil }
            return (found.key, found.value)
        }
    }

    /// The message for a value of `entity`'s `attribute`, of model type `type`, that seedkit cannot write.
    ///
    /// The values of `name`'s enum-case columns (``CoreDataModelFacts/enumCases``) in `values` that
    /// are not their case's name (nor NULL): `(attribute, value, case)`, in the row's order.
    package func wrongEnumCases(entity name: String, values: [(column: String, value: SQLValue)]) -> [(
        attribute: String, value: SQLValue, name: String
    )] {
        guard let cases = facts.enumCases[factsName(name)], !cases.isEmpty else { return [] }
        return values.compactMap { column, value in
            guard value != .null,
                let found = cases.first(where: { columnName($0.key, in: name).isSameName(as: column) }),
                value != .text(found.value)
            else { return nil }
            return (found.key, value, found.value)
        }
    }

    /// The message for a value of enum-case column `attribute` that is not its case's name.
    package static func wrongEnumCaseMessage(entity: String, attribute: String, value: SQLValue, name: String) -> String
    {
        "\(entity): \(attribute) is \(value.sqlLiteral), but it holds only '\(name)' (the case's name, when the enum's value is .\(name)) or nothing; give the other case's column instead"
    }

    /// A type of the form `Composite: why` (or `UUID: why`, …) is one seedkit refuses for the reason
    /// given (a composite attribute of a shape no real store read shows, docs/core-data.md).
    package static func unwritableMessage(entity: String, attribute: String, type: String) -> String {
        if let colon = type.firstIndex(of: ":") {
            let kind = type[..<colon]
            let why = type[type.index(after: colon)...].drop { $0 == " " }
            return
                "\(entity): \(attribute) (\(kind == "Composite" ? "a composite attribute, a Codable enum or struct" : String(kind))) is not written by seedkit: \(why)"
        }
        return
            "\(entity): \(attribute) is a \(type) attribute (an archived object, written by the app's own code), which seedkit cannot write"
    }

    /// The message for a row of `entity` (shown as `key`) that is not written because it leaves
    /// required `attribute` without a value; `action` is `not inserted` or `not updated`.
    package static func requiredMessage(entity: String, key: String, attribute: String, action: String) -> String {
        "\(entity) \(key): \(action): \(entity).\(attribute) is required by the model (non-optional) and the row gives no value"
    }

    /// A part of a natural key, for ``fillGeneratedValues(_:entity:table:key:)``: a column, or a
    /// to-one relationship's column whose part is the parent's key column.
    package struct KeyPart: Sendable {
        package var column: String
        package var parent: (table: String, column: String)?

        package init(column: String, parent: (table: String, column: String)? = nil) {
            self.column = column
            self.parent = parent
        }
    }

    /// A build's generated UUIDs: every row of `entity` in `table` left without a value for a
    /// generated attribute gets its name-based UUID, from the row's natural key `key` as stored
    /// (a ref's part is its parent's key value).
    ///
    /// Rows are read after every table is loaded, so the parents' keys are there.
    ///
    /// - returns: per generated attribute, the rows left without a value (`key` is empty: no name to derive it from).
    package func fillGeneratedValues(_ db: Database, entity name: String, table: TableInfo, key: [KeyPart]) throws -> [(
        attribute: String, rows: Int
    )] {
        let entity = factsName(name)
        let attributes = (facts.generated[entity] ?? []).compactMap { attribute in
            table.column(columnName(attribute, in: name)).map { (attribute, $0.name) }
        }
        guard !attributes.isEmpty else { return [] }
        let t = quoteIdentifier(table.name)
        let own = rowFilter(name).map { " AND \($0)" } ?? ""
        guard !key.isEmpty else {
            return try attributes.map { attribute, column in
                (
                    attribute,
                    try Int.fetchOne(
                        db, sql: "SELECT count(*) FROM \(t) WHERE \(quoteIdentifier(column)) IS NULL\(own)") ?? 0
                )
            }
        }
        db.add(
            function: DatabaseFunction(Self.nameUUIDFunction, argumentCount: nil, pure: true) { arguments in
                let names = arguments.prefix(2).map { String.fromDatabaseValue($0) ?? "" }
                guard names.count == 2 else { return nil }
                let key = arguments.dropFirst(2).map { SQLValue.fromDatabaseValue($0) ?? .null }
                return Data(Self.nameBasedUUID(entity: names[0], attribute: names[1], key: key))
            })
        let parts = key.map { part -> String in
            guard let parent = part.parent else { return "\(t).\(quoteIdentifier(part.column))" }
            return
                "(SELECT \(quoteIdentifier(parent.column)) FROM \(quoteIdentifier(parent.table)) WHERE Z_PK = \(t).\(quoteIdentifier(part.column)))"
        }.joined(separator: ", ")
        for (attribute, column) in attributes {
            let c = quoteIdentifier(column)
            try db.execute(
                sql: "UPDATE \(t) SET \(c) = \(Self.nameUUIDFunction)(?, ?, \(parts)) WHERE \(c) IS NULL\(own)",
                arguments: [entity, attribute])
        }
        return []
    }
}
