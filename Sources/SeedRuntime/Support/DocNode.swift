/// A parsed JSON or YAML value that remembers its line and column, so that errors
/// in migration and manifest files can say where they are.
public struct DocNode: Sendable, Equatable {
    public var value: DocValue
    public var line: Int
    public var column: Int

    public init(_ value: DocValue, line: Int, column: Int) {
        self.value = value
        self.line = line
        self.column = column
    }

    /// The entries of an object, or nil.
    public var entries: [DocEntry]? {
        if case .object(let entries) = value { return entries }
        return nil
    }

    /// The items of an array, or nil.
    public var items: [DocNode]? {
        if case .array(let items) = value { return items }
        return nil
    }

    /// The text of a string, or nil.
    public var string: String? {
        if case .string(let text) = value { return text }
        return nil
    }

    /// The value for a fixture column: scalars as they are, arrays and objects as JSON text.
    public var inputValue: InputValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .integer(let number): return .integer(number)
        case .real(let number): return .real(number)
        case .string(let text): return .string(text)
        case .array, .object: return .json(jsonText)
        }
    }

    /// Compact JSON text for this value, keys in their written order.
    public var jsonText: String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let number): return String(number)
        case .real(let number): return String(number)
        case .string(let text): return DocNode.quote(text)
        case .array(let items): return "[" + items.map(\.jsonText).joined(separator: ",") + "]"
        case .object(let entries): return "{" + entries.map { DocNode.quote($0.key) + ":" + $0.node.jsonText }.joined(separator: ",") + "}"
        }
    }

    /// A JSON string literal for `text`.
    public static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4) }
                else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}

/// The kinds of value a ``DocNode`` holds.
public indirect enum DocValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case string(String)
    case array([DocNode])
    case object([DocEntry])
}

/// One key of an object, with the position of the key.
public struct DocEntry: Sendable, Equatable {
    public var key: String
    public var line: Int
    public var column: Int
    public var node: DocNode

    public init(key: String, line: Int, column: Int, node: DocNode) {
        self.key = key
        self.line = line
        self.column = column
        self.node = node
    }
}
