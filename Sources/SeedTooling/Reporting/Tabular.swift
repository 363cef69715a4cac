import Foundation
public import SeedRuntime

/// Rows to print: column names and values, plus how many rows were left out.
///
/// Every format that prints rows (csv, markdown) prints a report's ``Report/tabular``.
///
/// The rows are either held (``rows``) or read while a format prints them (``stream``, what
/// `inspect` gives): every format reads them through ``forEachRow(_:)``, once, so printing a
/// million rows holds one row at a time (docs/performance.md, "inspect streams its rows").
public struct Tabular: Sendable {
    /// The column names, in order.
    public var columns: [String]
    /// A cell is a value (`.null` is SQLite's NULL, shown as NULL where a format can) or nil:
    /// nothing to say there (the old value of an added row), empty in every format.
    public var rows: [[SQLValue?]]
    /// Rows that matched but were not included (`--limit`).
    ///
    /// Of a ``stream``, known once it is read.
    public var omitted: Int
    /// Ref columns by index: each row's parent key and the value stored.
    ///
    /// Their cells in ``rows`` show the key (or the stored value when no parent row has it); JSON
    /// gives both.
    public var references: [Int: [(key: SQLValue, id: SQLValue)]] = [:]
    /// Rows not read yet, read as they are printed; a tabular with a stream holds no ``rows``.
    public var stream: RowSource?

    /// Holds `rows` under `columns`; `omitted` counts the rows that matched and were left out.
    public init(columns: [String], rows: [[SQLValue?]], omitted: Int = 0) {
        self.columns = columns
        self.rows = rows
        self.omitted = omitted
    }

    /// One row as a format prints it: its cells, and each ref column's parent key and value stored.
    public struct Row {
        /// The row's values, one per column (nil: nothing to say there).
        public var cells: [SQLValue?]
        /// Each ref column's parent key and the value stored, by column index.
        public var references: [Int: (key: SQLValue, id: SQLValue)]

        /// Describes a row: its `cells`, and the parent key and stored value of each ref column.
        public init(cells: [SQLValue?], references: [Int: (key: SQLValue, id: SQLValue)] = [:]) {
            self.cells = cells
            self.references = references
        }
    }

    /// Hands each row to `body` in order, the held ones then the stream's (read as they are
    /// handed over), and returns how many more matched than were included (``omitted``).
    ///
    /// A stream's read that fails stops the rows there; ``RowSource/failure`` says why.
    @discardableResult
    public func forEachRow(_ body: (Row) -> Void) -> Int {
        for (index, cells) in rows.enumerated() {
            var refs: [Int: (key: SQLValue, id: SQLValue)] = [:]
            for (column, values) in references where index < values.count { refs[column] = values[index] }
            body(Row(cells: cells, references: refs))
        }
        guard let stream else { return omitted }
        return omitted + stream.read(body)
    }

    /// A copy with every row held: the stream read to its end (for a caller that keeps the rows).
    public func held() throws -> Tabular {
        guard let stream else { return self }
        var copy = self
        copy.stream = nil
        let refColumns = stream.referenceColumns
        for column in refColumns where copy.references[column] == nil { copy.references[column] = [] }
        copy.omitted += stream.read { row in
            copy.rows.append(row.cells)
            for column in refColumns {
                copy.references[column]?.append(row.references[column] ?? (key: .null, id: .null))
            }
        }
        if let failure = stream.failure { throw failure }
        return copy
    }
}

/// Rows read from SQLite while they are printed, once (``Tabular/stream``): `read` steps a
/// statement and hands over each row, then returns how many more rows matched than it read (a
/// `--limit`).
///
/// It runs inside the read that opened the statement, so a command prints the rows before that read
/// ends.
public final class RowSource: @unchecked Sendable {
    // Unchecked: a stream is read once, on the thread of the database read that made it.
    private let reader: ((Tabular.Row) -> Void) throws -> Int
    /// The ref columns by index (their parent key and value stored, in each row's ``Tabular/Row/references``).
    public let referenceColumns: [Int]
    /// Why reading stopped early (the statement failed on a row), if it did.
    public private(set) var failure: (any Error)?
    /// Rows handed over so far.
    public private(set) var rowsRead = 0
    private var done = false

    /// A stream that calls `read` once, when printed, with a function to hand each row to; `read`
    /// returns how many rows matched but were left out.
    public init(referenceColumns: [Int] = [], read: @escaping ((Tabular.Row) -> Void) throws -> Int) {
        self.referenceColumns = referenceColumns
        self.reader = read
    }

    /// Reads the rows into `body` (the first call only; later ones read nothing); returns the omitted count.
    func read(_ body: (Tabular.Row) -> Void) -> Int {
        guard !done else { return 0 }
        done = true
        do {
            return try withoutActuallyEscaping(body) { body in
                try reader { row in
                    rowsRead += 1
                    body(row)
                }
            }
        } catch {
            failure = error
            return 0
        }
    }
}

extension SQLValue {
    /// How a value reads in a table: text as is but for what a terminal acts on (escaped: `\x1b`,
    /// `\r`, `\0`; line feeds are left to each format), NULL as `NULL`, blobs as size and hex prefix.
    public var display: String {
        switch self {
        case .null: return "NULL"
        case .text(let text): return text.escapingControls(keepingNewlines: true)
        case .blob(let bytes):
            let hex = bytes.prefix(8).map { String(format: "%02x", $0) }.joined()
            return "<\(bytes.count) bytes \(hex)\(bytes.count > 8 ? "…" : "")>"
        default: return description
        }
    }
}
