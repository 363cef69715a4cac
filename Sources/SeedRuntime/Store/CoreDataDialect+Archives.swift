import Foundation

// A Transformable attribute's value is an object the app's code archived, stored as the archive's
// bytes (docs/core-data.md, "Transformable attributes"). seedkit never makes one: it carries the
// bytes a store holds (what `init --coredata STORE` writes, in base64) and checks that they are an
// archive Foundation's NSKeyedUnarchiver reads, as every Transformable value in the real stores
// read is (ChefTime's 109, docs/swiftdata.md).
extension CoreDataDialect {
    /// Why `value`, given for a Transformable attribute, is not an archive `NSKeyedArchiver` wrote;
    /// nil when it is one (or NULL).
    package static func archiveProblem(_ value: SQLValue) -> String? {
        switch value {
        case .null: return nil
        case .blob(let bytes):
            guard bytes.starts(with: Array("bplist00".utf8)) else {
                return "its bytes are not a binary property list (an archive starts with bplist00)"
            }
            guard
                let plist = try? PropertyListSerialization.propertyList(from: Data(bytes), format: nil)
                    as? [String: Any]
            else { return "its bytes do not read as a property list" }
            guard plist["$archiver"] as? String == "NSKeyedArchiver", plist["$objects"] is [Any],
                plist["$top"] is [String: Any]
            else { return "its property list is not a keyed archive ($archiver NSKeyedArchiver, $top, $objects)" }
            return nil
        default:
            return "it is not bytes (give the archive's bytes in base64, as init --coredata writes them)"
        }
    }

    /// The message for a Transformable `attribute` given something other than an archive, `why`.
    package static func archiveMessage(attribute: String, why: String) -> String {
        "\(attribute) is a Transformable attribute and its value is not an archive: \(why); give the bytes a store holds, in base64, as init --coredata writes them"
    }

    /// The Transformable attributes of `name` that `values` give something other than an archive:
    /// `(attribute, why)`, in the row's order.
    package func invalidArchives(entity name: String, values: [(column: String, value: SQLValue)]) -> [(
        attribute: String, why: String
    )] {
        guard let types = facts.attributeTypes[factsName(name)], types.values.contains("Transformable") else {
            return []
        }
        return values.compactMap { column, value in
            guard
                let attribute = types.first(where: {
                    $0.value == "Transformable" && columnName($0.key, in: name).isSameName(as: column)
                })?.key,
                let why = Self.archiveProblem(value)
            else { return nil }
            return (attribute, why)
        }
    }
}
