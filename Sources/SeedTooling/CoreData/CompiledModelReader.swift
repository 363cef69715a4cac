import CZlib
import Foundation
import GRDB
import SeedRuntime

/// Reads a compiled Core Data model, a keyed archive of `NSManagedObjectModel`, into the same
/// ``CoreDataModel`` the XML reader produces. A compiled model comes from an app bundle (`.mom`,
/// or the current version of a `.momd`) or from a store itself: `Z_MODELCACHE.Z_CONTENT` is the
/// archive compressed as raw DEFLATE.
extension CoreDataModel {
    /// Reads the model a store keeps in `Z_MODELCACHE`; nil when the store has no such table or row.
    ///
    /// - throws: ``SeedError`` (configuration) when the store does not open or its cache does
    ///   not inflate or decode, naming what is wrong.
    public static func loadCache(store url: URL, shown: String) throws(SeedError) -> CoreDataModel? {
        let content: Data?
        // StoreAccess: leaves no -wal/-shm beside a WAL-mode store (SwiftData's are).
        let queue: DatabaseQueue
        do { queue = try StoreAccess.openReadOnly(url.path) } catch {
            throw SeedError(
                .configuration, file: shown,
                "cannot read the store's model cache (Z_MODELCACHE): \(error.diagnostics.map(\.message).joined(separator: "; "))"
            )
        }
        do {
            content = try queue.read { db -> Data? in
                guard try db.tableExists("Z_MODELCACHE") else { return nil }
                return try Data.fetchOne(
                    db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE WHERE Z_CONTENT IS NOT NULL LIMIT 1")
            }
        } catch {
            throw SeedError(.configuration, file: shown, "cannot read the store's model cache (Z_MODELCACHE): \(error)")
        }
        guard let content else { return nil }
        return try cache(content, file: shown)
    }

    /// The facts of the model the store open in `db` keeps in `Z_MODELCACHE`, for reading a
    /// store with no manifest (which attributes are UUIDs, which columns are relationships); nil
    /// when it keeps none, or one that does not decode (the facts a seed recorded then say).
    package static func cachedFacts(_ db: Database) throws -> CoreDataModelFacts? {
        try cachedModel(db)?.facts
    }

    /// The facts of the model the store at `store` keeps in `Z_MODELCACHE`, or nil when it keeps
    /// none (`migrate` with no manifest).
    ///
    /// A cache that does not decode is said to `notice` and left out: what needs the model then
    /// says so. A store that does not open or read is left to the migration to report.
    package static func cachedFacts(store: String, notice: (String) -> Void) -> CoreDataModelFacts? {
        guard FileManager.default.fileExists(atPath: store) else { return nil }
        do {
            return try loadCache(store: URL(fileURLWithPath: store), shown: store)?.facts
        } catch {
            let messages = error.diagnostics.map(\.message)
            if !messages.allSatisfy({ $0.hasPrefix("cannot read") }) {
                notice(
                    "the model the store keeps could not be decoded, so seedkit migrates without it: \(messages.joined(separator: "; "))"
                )
            }
            return nil
        }
    }

    /// The model the store keeps in `Z_MODELCACHE`, or nil when it keeps none (or none that reads).
    package static func cachedModel(_ db: Database) throws -> CoreDataModel? {
        guard try db.tableExists("Z_MODELCACHE"),
            let content = try Data.fetchOne(
                db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE WHERE Z_CONTENT IS NOT NULL LIMIT 1")
        else { return nil }
        return try? cache(content, file: "Z_MODELCACHE")
    }

    /// Decodes a `Z_MODELCACHE.Z_CONTENT` value: raw DEFLATE of a keyed archive.
    ///
    /// - throws: ``SeedError`` (configuration) naming what does not inflate or decode.
    public static func cache(_ content: Data, file: String) throws(SeedError) -> CoreDataModel {
        let archive: Data
        do { archive = try inflateRaw(content) } catch {
            throw SeedError(
                .configuration, file: file,
                "the store's model cache (Z_MODELCACHE.Z_CONTENT, \(content.count) bytes) does not inflate as raw DEFLATE: \(error)"
            )
        }
        do { return try compiled(archive, file: file) } catch {
            throw SeedError(
                .configuration, file: file,
                "the store's model cache (Z_MODELCACHE.Z_CONTENT) is not a compiled Core Data model: \(error.message)")
        }
    }

    /// Reads a compiled model file: a `.mom`, or a `.momd` folder's current version
    /// (`VersionInfo.plist`'s `NSManagedObjectModel_CurrentVersionName`).
    ///
    /// - throws: ``SeedError`` (configuration) naming the file and what is wrong with it.
    public static func loadCompiled(_ url: URL, shown: String) throws(SeedError) -> CoreDataModel {
        var file = url
        if url.pathExtension == "momd" {
            let info = url.appendingPathComponent("VersionInfo.plist")
            if let data = FileManager.default.contents(atPath: info.path),
                let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
                let current = plist["NSManagedObjectModel_CurrentVersionName"] as? String
            {
                file = url.appendingPathComponent(current + ".mom")
            } else {
                let moms = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter {
                    $0.hasSuffix(".mom")
                }
                guard moms.count == 1, let only = moms.first else {
                    throw SeedError(
                        .configuration, file: shown,
                        "a .momd needs a VersionInfo.plist naming its current version (NSManagedObjectModel_CurrentVersionName)"
                    )
                }
                file = url.appendingPathComponent(only)
            }
        }
        let display = displayPath(file)
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw SeedError(.configuration, file: display, "cannot read the compiled model")
        }
        do { return try compiled(data, file: display) } catch {
            throw SeedError(.configuration, file: display, "not a compiled Core Data model: \(error.message)")
        }
    }

    /// A problem decoding, in words, for the callers above to wrap with where it came from.
    public struct DecodeProblem: Error {
        /// What is wrong, in words.
        public let message: String
    }

    /// Decodes a compiled model's keyed archive (not compressed).
    public static func compiled(_ data: Data, file: String) throws(DecodeProblem) -> CoreDataModel {
        let archive: KeyedArchive
        do { archive = try KeyedArchive(data) } catch { throw DecodeProblem(message: error.description) }
        guard let root = archive.object(archive.objects[archive.root]),
            archive.className(root) == "NSManagedObjectModel"
        else {
            throw DecodeProblem(message: "its root object is not an NSManagedObjectModel")
        }
        guard let entries = archive.dictionary(root["NSEntities"]) else {
            throw DecodeProblem(message: "the model has no entities (NSEntities)")
        }
        var entities: [Entity] = []
        for (key, value) in entries {
            guard let object = value as? [String: Any], archive.classNames(object).contains("NSEntityDescription")
            else {
                throw DecodeProblem(message: "entity '\(key)' is not an NSEntityDescription")
            }
            entities.append(try entity(object, key: key, in: archive))
        }
        // A sub-entity's archive lists what it inherits as its own properties (a real store's
        // cache does: objc.io's Moody); the model lists each property once, on the entity that
        // declares it, as the XML does.
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for index in entities.indices where entities[index].parent != nil {
            var inherited = Set<String>()
            var inheritedConstraints: [[String]] = []
            var parent = entities[index].parent
            var seen: Set = [entities[index].name]
            while let name = parent, seen.insert(name).inserted, let ancestor = byName[name] {
                inherited.formUnion(ancestor.attributes.map(\.name) + ancestor.relationships.map(\.name))
                inheritedConstraints += ancestor.uniquenessConstraints
                parent = ancestor.parent
            }
            entities[index].attributes.removeAll { inherited.contains($0.name) }
            entities[index].relationships.removeAll { inherited.contains($0.name) }
            entities[index].uniquenessConstraints.removeAll { inheritedConstraints.contains($0) }
        }
        return CoreDataModel(entities: entities.sorted { $0.name < $1.name }, file: file)
    }

    private static func entity(_ object: [String: Any], key: String, in archive: KeyedArchive) throws(DecodeProblem)
        -> Entity
    {
        let name = archive.string(object["NSEntityName"]) ?? key
        let parent = archive.object(object["NSSuperentity"]).flatMap { archive.string($0["NSEntityName"]) }
        var entity = Entity(
            name: name, parent: parent, isAbstract: archive.bool(object["NSIsAbstract"]) ?? false,
            renamingIdentifier: archive.string(object["NSRenamingIdentifier"]).flatMap { $0 == name ? nil : $0 },
            attributes: [], relationships: [], line: 0)
        for (propertyKey, value) in archive.dictionary(object["NSProperties"]) ?? [] {
            guard let property = value as? [String: Any] else { continue }
            // A property another entity declares (not seen in real archives; those copy it, see above).
            if let owner = archive.object(property["NSEntity"]).flatMap({ archive.string($0["NSEntityName"]) }),
                owner != name
            {
                continue
            }
            let classes = archive.classNames(property)
            let propertyName = archive.string(property["NSPropertyName"]) ?? propertyKey
            let flags = archive.int(property["_P"]) ?? 0
            let optional = archive.bool(property["NSIsOptional"]) ?? (flags & 0x2 != 0)
            let renaming = archive.string(property["NSRenamingIdentifier"]).flatMap { $0 == propertyName ? nil : $0 }
            if classes.contains("NSRelationshipDescription") {
                let destination =
                    archive.string(property["_NSDestinationEntityName"])
                    ?? archive.object(property["NSDestinationEntity"]).flatMap { archive.string($0["NSEntityName"]) }
                guard let destination else {
                    throw DecodeProblem(
                        message: "entity \(name): relationship \(propertyName) has no destination entity")
                }
                let inverse =
                    archive.string(property["_NSInverseRelationshipName"])
                    ?? archive.object(property["NSInverseRelationship"]).flatMap {
                        archive.string($0["NSPropertyName"])
                    }
                let maxCount = archive.int(property["NSMaxCount"]) ?? 0
                let minCount = archive.int(property["NSMinCount"]) ?? 0
                entity.relationships.append(
                    Relationship(
                        name: propertyName, destination: destination, toMany: maxCount != 1,
                        ordered: archive.bool(property["NSIsOrdered"]) ?? (flags & 0x400 != 0), optional: optional,
                        minCount: minCount == 0 ? nil : minCount, maxCount: maxCount == 0 ? nil : maxCount,
                        deletionRule: deletionRule(archive.int(property["NSDeleteRule"]) ?? 0), inverseName: inverse,
                        line: 0,
                        renamingIdentifier: renaming))
            } else if classes.contains("NSCompositeAttributeDescription") {
                // A Codable enum or struct: its elements are the attributes (CompositeAttributes.swift).
                entity.attributes += compositeAttributes(
                    property, name: propertyName, optional: optional, renaming: renaming, in: archive)
            } else if classes.contains("NSAttributeDescription") {
                let code = archive.int(property["NSAttributeType"]) ?? 0
                guard let type = attributeTypes[code] else {
                    throw DecodeProblem(
                        message:
                            "entity \(name): attribute \(propertyName) has attribute type \(code), which seedkit does not know"
                    )
                }
                var attribute = Attribute(
                    name: propertyName, type: type, optional: optional, minValue: nil, maxValue: nil,
                    regularExpression: nil,
                    defaultValue: defaultValue(property["NSDefaultValue"], type: type, in: archive), line: 0,
                    renamingIdentifier: renaming, derived: classes.contains("NSDerivedAttributeDescription"),
                    transient: archive.bool(property["NSIsTransient"]) ?? (flags & 0x8 != 0),
                    valueTransformer: archive.string(property["NSValueTransformerName"]))
                for predicate in archive.array(property["NSValidationPredicates"]) ?? [] {
                    applyValidation(predicate, to: &attribute, in: archive)
                }
                entity.attributes.append(attribute)
            }
            // Fetched properties (NSFetchedPropertyDescription) are neither stored nor written.
        }
        // By name; a composite's elements (`size.width`, `size.depth`) keep their order at its place.
        let positions = Dictionary(
            entity.attributes.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        entity.attributes.sort {
            (compositeOwner($0.name), positions[$0.name] ?? 0) < (compositeOwner($1.name), positions[$1.name] ?? 0)
        }
        entity.relationships.sort { $0.name < $1.name }
        entity = refusingClashes(entity)
        // NSUniqueTuples: arrays of property names (or of the properties themselves).
        for tuple in archive.array(object["NSUniqueTuples"]) ?? [] {
            guard let elements = (tuple as? [String: Any]).flatMap({ archive.array($0) }) else { continue }
            let names = elements.compactMap { element in
                archive.string(element) ?? (element as? [String: Any]).flatMap { archive.string($0["NSPropertyName"]) }
            }
            if !names.isEmpty { entity.uniquenessConstraints.append(names) }
        }
        return entity
    }

    /// `NSAttributeType` as the XML model writes `attributeType`.
    static let attributeTypes: [Int: String] = [
        0: "Undefined", 100: "Integer 16", 200: "Integer 32", 300: "Integer 64", 400: "Decimal", 500: "Double",
        600: "Float",
        700: "String", 800: "Boolean", 900: "Date", 1000: "Binary", 1100: "UUID", 1200: "URI", 1800: "Transformable",
        2000: "Object ID", 2100: "Composite",
    ]

    /// `NSDeleteRule` as the XML model writes `deletionRule`.
    static func deletionRule(_ code: Int) -> String? {
        switch code {
        case 0: return "No Action"
        case 1: return "Nullify"
        case 2: return "Cascade"
        case 3: return "Deny"
        default: return nil
        }
    }

    /// An attribute's `NSDefaultValue` in the XML model's terms (`defaultValueString`, or for a
    /// date `defaultDateTimeInterval`, seconds since 2001).
    static func defaultValue(_ value: Any?, type: String, in archive: KeyedArchive) -> String? {
        guard let resolved = archive.resolve(value) else { return nil }
        if let object = resolved as? [String: Any] {
            if let seconds = object["NS.time"] as? Double { return formatNumber(seconds) }
            if let bytes = object["NS.uuidbytes"] as? Data, bytes.count == 16 {
                return UUID(uuid: bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }).uuidString
            }
            if let relative = archive.string(object["NS.relative"]) { return relative }
            return archive.string(object)
        }
        if let text = resolved as? String { return text }
        guard let number = archive.number(resolved) else { return nil }
        switch type {
        case "Boolean": return number.boolValue ? "YES" : "NO"
        case "Integer 16", "Integer 32", "Integer 64": return String(number.int64Value)
        default: return formatNumber(number.doubleValue)
        }
    }

    static func formatNumber(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// Validation predicates as Xcode writes them for min/max and regular expressions: `SELF >= n`,
    /// `SELF <= n`, `length >= n` for strings, `SELF MATCHES 'regex'`.
    ///
    /// Others are left alone.
    private static func applyValidation(_ predicate: Any, to attribute: inout Attribute, in archive: KeyedArchive) {
        guard let object = predicate as? [String: Any], archive.className(object) == "NSComparisonPredicate",
            let operatorType = archive.object(object["NSPredicateOperator"]).flatMap({
                archive.int($0["NSOperatorType"])
            }),
            let right = archive.object(object["NSRightExpression"])
        else { return }
        let constant = archive.resolve(right["NSConstantValue"])
        let text: String?
        if let string = archive.string(constant) {
            text = string
        } else if let date = (constant as? [String: Any])?["NS.time"] as? Double {
            text = formatNumber(date)
        } else if let number = archive.number(constant) {
            text = formatNumber(number.doubleValue)
        } else {
            text = nil
        }
        guard let text else { return }
        switch operatorType {
        case 3: attribute.minValue = text  // >=
        case 1: attribute.maxValue = text  // <=
        case 6: attribute.regularExpression = text  // MATCHES
        default: break
        }
    }
}

/// Inflates raw DEFLATE (no zlib header), as Core Data writes `Z_MODELCACHE.Z_CONTENT`.
func inflateRaw(_ input: Data) throws(KeyedArchive.Problem) -> Data {
    guard !input.isEmpty else { throw KeyedArchive.Problem("it is empty") }
    var stream = z_stream()
    guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
        throw KeyedArchive.Problem("zlib does not start (inflateInit2)")
    }
    defer { inflateEnd(&stream) }
    var output = Data()
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    var source = [UInt8](input)
    var status: Int32 = Z_OK
    source.withUnsafeMutableBufferPointer { sourceBuffer in
        stream.next_in = sourceBuffer.baseAddress
        stream.avail_in = uInt(sourceBuffer.count)
        repeat {
            chunk.withUnsafeMutableBufferPointer { chunkBuffer in
                stream.next_out = chunkBuffer.baseAddress
                stream.avail_out = uInt(chunkBuffer.count)
                status = inflate(&stream, Z_NO_FLUSH)
                if let base = chunkBuffer.baseAddress {
                    output.append(base, count: chunkBuffer.count - Int(stream.avail_out))
                }
            }
            // Stop at the stream's end, an error, or when no input is left to make progress with.
        } while status == Z_OK && (stream.avail_in > 0 || stream.avail_out == 0)
    }
    guard status == Z_STREAM_END else {
        let reason =
            stream.msg.map { String(cString: $0) }
            ?? (status == Z_OK || status == Z_BUF_ERROR
                ? "the data ends before the DEFLATE stream does" : "zlib error \(status)")
        throw KeyedArchive.Problem(reason)
    }
    return output
}
