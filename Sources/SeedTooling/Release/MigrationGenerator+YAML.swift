import SeedRuntime

/// The YAML text of a migration's pieces, as ``MigrationGenerator`` writes them: a row's flow map,
/// an item's fields, a name.
extension MigrationGenerator {
    /// One item of an update or delete: `key`, `from` and `to` (when given), named as the
    /// migration format names them (``MigrationGrammar``).
    static func item(key: String, from: String, to: String? = nil) -> String {
        typealias Field = MigrationGrammar.Field.Kind
        let fields = "    - \(Field.key.name): \(key)\n      \(Field.expected.name): \(from)"
        return to.map { fields + "\n      \(Field.wanted.name): \($0)" } ?? fields
    }

    /// A flow map of values, a row's or a change's: `{ price: 11.0, title: "Dune" }`.
    static func map(_ values: [(column: String, value: SQLValue)]) -> String {
        var text = "{ "  // appended in place: a map per row written
        for (index, value) in values.enumerated() {
            append(value.column, value.value.yaml, first: index == 0, to: &text)
        }
        return text + " }"
    }

    /// A flow map of values already written as YAML (a many-to-many's list among them).
    static func map(yaml values: [(column: String, yaml: String)]) -> String {
        var text = "{ "
        for (index, value) in values.enumerated() { append(value.column, value.yaml, first: index == 0, to: &text) }
        return text + " }"
    }

    private static func append(_ column: String, _ yaml: String, first: Bool, to text: inout String) {
        if !first { text += ", " }
        text += name(column)
        text += ": "
        text += yaml
    }

    static func key(_ columns: [String], _ values: [SQLValue]) -> String {
        columns.count == 1 ? values[0].yaml : map(Array(zip(columns, values)).map { (column: $0.0, value: $0.1) })
    }

    /// A column or table name as a YAML key: plain when it is a simple identifier.
    static func name(_ text: String) -> String {
        // By bytes (ASCII letters, digits, `_`, not a digit first): once per value written, where
        // asking each Character whether it is a letter was a fourteenth of new-migration's samples.
        var simple = !text.isEmpty
        var first = true
        for byte in text.utf8 {
            let letter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            let digit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            if !(letter || digit || byte == UInt8(ascii: "_")) || (first && digit) {
                simple = false
                break
            }
            first = false
        }
        // YAML 1.1's words for null and booleans, asked only of a short name that starts like one.
        if simple, text.utf8.count <= 5, let lead = text.utf8.first, "nNtTfFyYoO".utf8.contains(lead),
            ["null", "true", "false", "yes", "no", "on", "off", "y", "n"].contains(text.lowercasedName)
        {
            simple = false
        }
        return simple ? text : SQLValue.yamlQuoted(text)
    }
}
