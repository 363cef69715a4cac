/// A value as a fixture or migration file gives it, before it is converted to a column's type.
///
/// CSV fields arrive as ``string(_:)`` or ``null``; JSON and YAML keep their own types.
package enum InputValue: Equatable, Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case string(String)
    /// A nested array or object, kept as JSON text.
    case json(String)

    package var description: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .integer(let value): return String(value)
        case .real(let value): return SQLValue.format(value)
        case .string(let value): return "\"" + value + "\""
        case .json(let value): return value
        }
    }

    /// The values a to-many relationship lists: a JSON/YAML array's items, nothing for null, else the value itself.
    package var listItems: [InputValue] {
        switch self {
        case .null: return []
        case .json(let text):
            var bytes = Array(text.utf8)
            let document = bytes.withUnsafeMutableBytes { try? JSONScanner.parseDocument(UnsafeRawBufferPointer($0)) }
            return document?.items?.map(\.inputValue) ?? [self]
        default: return [self]
        }
    }
}
