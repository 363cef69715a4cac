import GRDB

extension StatementArguments {
    /// Arguments for the values of `pairs` (a key or a row's resolved values), in order.
    ///
    /// Cheaper than `StatementArguments(pairs.map(\.value))`, whose generic conversion builds a key
    /// path on every call.
    package init(values pairs: [(column: String, value: SQLValue)]) {
        self.init(pairs.map { $0.value.databaseValue as (any DatabaseValueConvertible)? })
    }
}
