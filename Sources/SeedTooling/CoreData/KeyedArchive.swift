import Foundation
import SeedRuntime

/// A binary property list written by `NSKeyedArchiver` (`$archiver`, `$top`, `$objects`), read
/// with Foundation's property-list reader and walked here: no `NSKeyedUnarchiver`, nothing
/// Apple-only, so it reads the same on Linux.
///
/// Objects are dictionaries whose values refer to other objects by UID (an index into `$objects`);
/// `$null` (index 0) is nil; each object's `$class` names its class (`$classname`, `$classes` for
/// its superclasses).
struct KeyedArchive {
    /// The archive's `$objects`, in order.
    let objects: [Any]
    /// The index of `$top`'s `root`.
    let root: Int

    /// What the archive does not say, in words: the reader names it in its error.
    struct Problem: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    init(_ data: Data) throws(Problem) {
        guard data.starts(with: Array("bplist00".utf8)) else {
            throw Problem("not a binary property list (no bplist00 header)")
        }
        let plist: Any
        do { plist = try PropertyListSerialization.propertyList(from: data, format: nil) } catch {
            throw Problem("the property list does not read: \(error.localizedDescription)")
        }
        guard let top = plist as? [String: Any], let objects = top["$objects"] as? [Any] else {
            throw Problem("not a keyed archive (no $objects)")
        }
        guard (top["$archiver"] as? String) == "NSKeyedArchiver" else {
            throw Problem("not written by NSKeyedArchiver ($archiver)")
        }
        guard let rootReference = (top["$top"] as? [String: Any])?["root"], let root = Self.uid(rootReference),
            objects.indices.contains(root)
        else {
            throw Problem("the archive has no root object ($top.root)")
        }
        self.objects = objects
        self.root = root
    }

    /// The index a UID value refers to; nil for anything else.
    ///
    /// Foundation gives UIDs as an opaque class: `_NSKeyedArchiverUID` with a `value` on Linux,
    /// `CFKeyedArchiverUID` on Apple platforms, whose description ends `{value = N}`.
    static func uid(_ value: Any) -> Int? {
        let typeName = String(describing: type(of: value))
        if typeName.contains("KeyedArchiverUID") {
            for child in Mirror(reflecting: value).children where child.label == "value" {
                if let number = child.value as? UInt32 { return Int(number) }
                if let number = child.value as? Int { return number }
                if let number = child.value as? UInt64 { return Int(exactly: number) }
            }
        }
        let text = String(describing: value)
        guard text.contains("KeyedArchiverUID"), let start = text.range(of: "value = ", options: .backwards) else {
            return nil
        }
        return Int(text[start.upperBound...].prefix { $0.isNumber })
    }

    /// `value` with a UID followed to the object it names; `$null` and missing values are nil.
    func resolve(_ value: Any?) -> Any? {
        guard let value else { return nil }
        guard let index = Self.uid(value) else { return value }
        guard objects.indices.contains(index), index != 0 else { return nil }
        let object = objects[index]
        if let text = object as? String, text == "$null" { return nil }
        return object
    }

    /// The object at `index` as a dictionary (an archived object), or nil.
    func object(_ value: Any?) -> [String: Any]? { resolve(value) as? [String: Any] }

    /// The class name an archived object was written as (its `$class`'s `$classname`).
    func className(_ object: [String: Any]) -> String? {
        self.object(object["$class"])?["$classname"] as? String
    }

    /// The class and superclass names of an archived object (`$classes`).
    func classNames(_ object: [String: Any]) -> [String] {
        (self.object(object["$class"])?["$classes"] as? [Any])?.compactMap { $0 as? String } ?? []
    }

    /// A string: a plain string object, or an archived `NSString`/`NSMutableString` (`NS.string`).
    func string(_ value: Any?) -> String? {
        switch resolve(value) {
        case let text as String: return text
        case let object as [String: Any]:
            if let text = object["NS.string"] as? String { return text }
            if let bytes = object["NS.bytes"] as? Data { return String(data: bytes, encoding: .utf8) }
            return nil
        default: return nil
        }
    }

    /// The elements of an archived `NSArray`/`NSSet`/`NSOrderedSet` (`NS.objects`), each resolved.
    func array(_ value: Any?) -> [Any]? {
        guard let object = object(value), let references = object["NS.objects"] as? [Any] else { return nil }
        return references.compactMap { resolve($0) }
    }

    /// The entries of an archived dictionary: `NSDictionary` (`NS.keys`, `NS.objects`) or
    /// Core Data's `NSKnownKeysDictionary1` (`values`, with keys in `searchMapping.keys`).
    func dictionary(_ value: Any?) -> [(key: String, value: Any)]? {
        guard let object = object(value) else { return nil }
        var keys: [Any]
        var values: [Any]
        if let keyReferences = object["NS.keys"] as? [Any], let valueReferences = object["NS.objects"] as? [Any] {
            keys = keyReferences
            values = valueReferences
        } else if let mapping = self.object(object["searchMapping"]), let mapped = array(mapping["keys"]),
            let valueArray = self.object(object["values"])?["NS.objects"] as? [Any]
        {
            keys = mapped
            values = valueArray
        } else {
            return nil
        }
        guard keys.count == values.count else { return nil }
        var entries: [(key: String, value: Any)] = []
        for (key, value) in zip(keys, values) {
            guard let name = string(key), let resolved = resolve(value) else { continue }
            entries.append((name, resolved))
        }
        return entries
    }

    /// A number (integer, real or boolean) as `NSNumber`, for the caller to read as it needs.
    func number(_ value: Any?) -> NSNumber? {
        switch resolve(value) {
        case let number as NSNumber: return number
        case let flag as Bool: return NSNumber(value: flag)
        case let integer as Int: return NSNumber(value: integer)
        case let real as Double: return NSNumber(value: real)
        default: return nil
        }
    }

    func bool(_ value: Any?) -> Bool? {
        if let flag = resolve(value) as? Bool { return flag }
        return number(value)?.boolValue
    }

    func int(_ value: Any?) -> Int? { number(value)?.intValue }
}
