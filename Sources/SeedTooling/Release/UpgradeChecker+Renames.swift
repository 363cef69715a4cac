import SeedRuntime

extension UpgradeChecker {
    /// The release's renames, indexed by table and old key, for the key a row has after them
    /// (``after(_:_:)``).
    ///
    /// `check-upgrade` asks once per row the release touches: looking through every rename each
    /// time cost renames × rows (issue 45: cost follows the work).
    struct RenameIndex {
        typealias Rename = (table: SemanticRows, old: [InputValue], new: [InputValue])
        private let renames: [Rename]
        /// Positions in `renames`, ascending, by the table's name (lowercased) and a bucket of the old key.
        private var byOldKey: [String: [String: [Int]]] = [:]

        init(_ renames: [Rename]) {
            self.renames = renames
            for (position, rename) in renames.enumerated() {
                byOldKey[rename.table.written.name.lowercasedName, default: [:]][
                    Self.bucket(rename.old.map(UpgradeChecker.sqlValue)), default: []
                ].append(position)
            }
        }

        /// The key a row of `table` has after the renames: its own renames, in order, and each key
        /// part that refers to a renamed parent by the parent's key, under the parent's new key.
        func after(_ table: SemanticRows, _ key: [SQLValue]) -> [SQLValue] {
            guard !renames.isEmpty else { return key }
            var current = follow(table.written.name, from: key) { rename, current in
                rename.table.written.name == table.written.name && rename.old.count == current.count
            }
            for (index, column) in table.writtenKeyColumns.enumerated() where index < current.count {
                guard let reference = table.written.refs[column] else { continue }
                current[index] =
                    follow(reference.table, from: [current[index]]) { rename, _ in
                        rename.table.written.name.isSameName(as: reference.table) && rename.old.count == 1
                            && rename.new.count == 1
                            && rename.table.writtenKeyColumns.first?.isSameName(as: reference.column) == true
                    }[0]
            }
            return current
        }

        /// `key` through each rename of `table`, in the release's order, that `applies` and whose
        /// old key is `key` as it reads by then (as SQLite compares: 10 and 10.0 alike).
        private func follow(
            _ table: String, from key: [SQLValue], where applies: (Rename, [SQLValue]) -> Bool
        ) -> [SQLValue] {
            guard let keys = byOldKey[table.lowercasedName] else { return key }
            var current = key
            var last = -1
            while let positions = keys[Self.bucket(current)],
                let next = positions.first(where: { position in
                    position > last && applies(renames[position], current)
                        && zip(renames[position].old, current).allSatisfy {
                            UpgradeChecker.sqlValue($0).isSame(as: $1)
                        }
                })
            {
                current = renames[next].new.map(UpgradeChecker.sqlValue)
                last = next
            }
            return current
        }

        /// Keys that are the same as SQLite compares them share a bucket (numbers by their value
        /// as a double, text and blobs by their bytes); the bucket's keys are then compared exactly.
        private static func bucket(_ key: [SQLValue]) -> String {
            key.map { value in
                switch value {
                case .null: "n"
                case .integer(let number): "d\((Double(number) + 0).bitPattern)"
                case .real(let number): "d\((number + 0).bitPattern)"
                case .text(let text): "t\(text.utf8.count):" + text
                case .blob(let bytes): "b" + bytes.map { String($0, radix: 16) }.joined(separator: ".")
                }
            }.joined(separator: "\u{0}")
        }
    }
}
