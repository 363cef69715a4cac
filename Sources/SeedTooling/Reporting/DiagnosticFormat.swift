import Foundation
public import SeedRuntime

/// How diagnostics are printed: gcc-style lines, a JSON document, or GitHub Actions annotations.
public enum DiagnosticFormat: String, Sendable, CaseIterable {
    case human, json, github

    /// Renders `diagnostics` (each line ends with a newline).
    public func render(_ diagnostics: [Diagnostic]) -> String {
        switch self {
        case .human:
            // Messages quote names and values from stores and files: nothing in them may act on a terminal.
            return diagnostics.map { $0.description.escapingControls(keepingNewlines: true) + "\n" }.joined()
        case .github:
            return diagnostics.map { diagnostic in
                var properties: [String] = []
                if let file = diagnostic.file { properties.append("file=\(Self.escapeProperty(file))") }
                if diagnostic.line > 0 { properties.append("line=\(diagnostic.line)") }
                if diagnostic.column > 0 { properties.append("col=\(diagnostic.column)") }
                properties.append("title=\(Self.escapeProperty("seedkit \(diagnostic.code.rawValue)"))")
                let command =
                    diagnostic.severity == .error ? "error" : diagnostic.severity == .warning ? "warning" : "notice"
                return
                    "::\(command) \(properties.joined(separator: ","))::\(Self.escapeData(diagnostic.message + " [\(diagnostic.code.rawValue)]"))\n"
            }.joined()
        case .json:
            return JSONOutput.render(Self.document(diagnostics)) + "\n"
        }
    }

    /// The JSON shape: `{"code": 1560 or the only code, "errors": [{file, line, column, severity, code, message, table}]}`.
    public static func document(_ diagnostics: [Diagnostic]) -> JSONOutput {
        let errors = diagnostics.filter { $0.severity == .error }
        let code: JSONOutput =
            errors.count > 1
            ? .int(DiagnosticCode.multipleErrors.rawValue) : errors.first.map { .int($0.code.rawValue) } ?? .null
        return .object([
            ("code", code),
            ("errors", .array(diagnostics.map(json))),
        ])
    }

    public static func json(_ diagnostic: Diagnostic) -> JSONOutput {
        .object([
            ("file", diagnostic.file.map { .string($0) } ?? .null),
            ("line", diagnostic.line > 0 ? .int(diagnostic.line) : .null),
            ("column", diagnostic.column > 0 ? .int(diagnostic.column) : .null),
            ("severity", .string(diagnostic.severity.rawValue)),
            ("code", .int(diagnostic.code.rawValue)),
            ("message", .string(diagnostic.message)),
            ("table", diagnostic.table.map { .string($0) } ?? .null),
        ])
    }

    /// One GitHub Actions annotation line (`::error file=…,title=…::message`), for reports that are
    /// not diagnostics (a diverging old seed, a migration that changed after it was applied).
    public static func githubAnnotation(
        _ severity: Diagnostic.Severity = .error, file: String, title: String, _ message: String
    ) -> String {
        let command = severity == .error ? "error" : severity == .warning ? "warning" : "notice"
        return "::\(command) file=\(escapeProperty(file)),title=\(escapeProperty(title))::\(escapeData(message))\n"
    }

    private static func escapeData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    private static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}

/// A JSON value for output, with keys in a stable, written order.
public indirect enum JSONOutput: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONOutput])
    case object([(String, JSONOutput)])

    /// Pretty-printed JSON with two-space indents.
    public static func render(_ value: JSONOutput, indent: String = "") -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1 << 12)
        write(value, indent: Array(indent.utf8), depth: 0, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value` as ``render(_:indent:)`` gives it, at `depth` levels of two spaces past
    /// `indent`: into one buffer, rather than a string per value joined into its parent's.
    private static func write(_ value: JSONOutput, indent: [UInt8], depth: Int, into bytes: inout [UInt8]) {
        func newline(_ depth: Int) {
            bytes.append(UInt8(ascii: "\n"))
            bytes += indent
            bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
        }
        switch value {
        case .null: bytes += "null".utf8
        case .bool(let flag): bytes += (flag ? "true" : "false").utf8
        case .int(let number): bytes += String(number).utf8
        // ±Infinity as `1e999` (valid JSON, read back as Infinity); SQLite never stores NaN.
        case .double(let number): bytes += (number.isNaN ? "null" : SQLValue.format(number)).utf8
        case .string(let text): DocNode.writeQuoted(text, into: &bytes)
        case .array(let items):
            if items.isEmpty {
                bytes += "[]".utf8
                return
            }
            bytes.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                write(item, indent: indent, depth: depth + 1, into: &bytes)
            }
            newline(depth)
            bytes.append(UInt8(ascii: "]"))
        case .object(let entries):
            if entries.isEmpty {
                bytes += "{}".utf8
                return
            }
            bytes.append(UInt8(ascii: "{"))
            for (index, entry) in entries.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                DocNode.writeQuoted(entry.0, into: &bytes)
                bytes += ": ".utf8
                write(entry.1, indent: indent, depth: depth + 1, into: &bytes)
            }
            newline(depth)
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// The value of a SQL value.
    public static func sql(_ value: SQLValue) -> JSONOutput {
        switch value {
        case .null: return .null
        case .integer(let number): return .int(Int(number))
        case .real(let number): return .double(number)
        case .text(let text): return .string(text)
        case .blob(let bytes): return .string(Data(bytes).base64EncodedString())
        }
    }
}
