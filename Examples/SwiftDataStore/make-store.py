#!/usr/bin/env python3
"""Writes a store shaped as SwiftData writes one, for the models

    @Model final class Author {
        @Attribute(.unique) var name: String
        var id = UUID()
        @Relationship(inverse: \\Book.author) var books: [Book] = []
    }
    @Model final class Book {
        @Attribute(.unique) var title: String
        let id = UUID()
        var pages: Int = 0
        var published: Date?
        var author: Author?
    }

and, with --composites, a third model whose properties are Codable types, which SwiftData
stores as composite attributes (docs/swiftdata.md, "Composite attributes"):

    enum Kind: String, Codable { case fiction, reference }        // raw values: one column
    enum Placement: Codable { case wall, floor, window }         // cases: a column per case
    struct Size: Codable { var width: Double?; var depth: Double?; var unit: String?; var woods: [String]? }
    @Model final class Shelf {
        @Attribute(.unique) var label: String
        var kind: Kind
        var placement: Placement?
        var size: Size?
        var books: [Book] = []                                    // no inverse: ZBOOK.Z3BOOKS
    }

as the app would create it on first launch (no rows, history tracked, as every SwiftData store
is). Core Data does not run on Linux, so this stands in for that store; in a real project copy
the app's own store instead (README.md says how).

The layout is derived from two real SwiftData stores (README.md, docs/swiftdata.md): their DDL
(column order, indexes, the unique index Z_<Entity>_UNIQUE_<attr>, the history tables),
Z_PRIMARYKEY, Z_METADATA's keys, and Z_MODELCACHE as raw DEFLATE of an NSKeyedArchiver binary
plist with the same classes and keys. No byte or row of those stores is copied: the archive is
built here with plistlib and zlib. The version hashes in Z_METADATA are NOT Core Data's (its
hashing is not published): an app given this store would see a different model and migrate it.

With --folders it adds Folder and Recipe, shaped as a real app's folders and recipes (FOLDERS below).

usage: make-store.py [--composites] [--numbered] [--folders] OUTPUT.store
"""
import hashlib, plistlib, sqlite3, sys, zlib
from plistlib import UID

# Entities in Z_ENT order (Core Data numbers them by name). Properties in the order the real
# archives list them does not matter to readers; attributes: (name, NSAttributeType, class,
# default, optional); relationships: (name, destination, inverse, to_many, optional, delete rule).
ENTITIES = [
    ("Author",
     [("name", 700, "NSString", None, False), ("id", 1100, "NSUUID", "uuid", False)],
     [("books", "Book", "author", True, False, 1)],
     [["name"]]),
    ("Book",
     [("title", 700, "NSString", None, False), ("id", 1100, "NSUUID", "uuid", False),
      ("pages", 300, "NSNumber", 0, False), ("published", 900, "NSDate", None, True)],
     [("author", "Author", "books", False, True, 1)],
     [["title"]]),
]

# A composite attribute: (name, "composite", shape, elements, optional), shape "raw" (an enum
# with raw values: one element named as the property), "cases" (an enum without: one String
# element per case) or "struct"; elements (name, NSAttributeType, class), each optional, as in
# the real stores.
SHELF = ("Shelf",
         [("label", 700, "NSString", None, False),
          ("kind", "composite", "raw", [("kind", 700, "NSString")], False),
          ("placement", "composite", "cases", [("wall", 700, "NSString"), ("floor", 700, "NSString"), ("window", 700, "NSString")], True),
          ("size", "composite", "struct", [("width", 500, "NSNumber"), ("depth", 500, "NSNumber"), ("unit", 700, "NSString"),
                                            ("woods", 1000, "NSData")], True)],
         [("books", "Book", None, True, True, 1)],
         [["label"]])
if "--composites" in sys.argv:
    sys.argv.remove("--composites")
    ENTITIES.append(SHELF)

# With --numbered, Shelf also has two properties asking for one column each, as MetaCocktails'
# Cocktail and IngredientBase do (docs/swiftdata.md, "Composite attributes"): by name the first
# keeps the column and Core Data numbers the other.
#     struct Aisle: Codable { var id = UUID(); var name: String? }    // aisle.id: ZID (aisle < id)
#     struct Zone: Codable { var label: String? }                    // zone.label: ZLABEL1 (label < zone)
#     var aisle: Aisle?; let id = UUID(); var zone: Zone?            // Shelf's own id: ZID1
NUMBERED = [("aisle", "composite", "struct", [("id", 1100, "NSUUID"), ("name", 700, "NSString")], True),
            ("id", 1100, "NSUUID", "uuid", False),
            ("zone", "composite", "struct", [("label", 700, "NSString")], True)]
if "--numbered" in sys.argv:
    sys.argv.remove("--numbered")
    SHELF[1].extend(NUMBERED)
    if SHELF not in ENTITIES:
        ENTITIES.append(SHELF)

# With --folders, two models shaped as ChefTime's SDFolder and SDRecipe (jdeda/iOS-ChefTime@aac1b60,
# ChefTime/Resources/mock.store; docs/swiftdata.md, "Composite attributes"), whose history shows
# where a composite's elements and a one-to-many to the entity itself count in ZCOLUMNS:
#
#     enum FolderType: Codable { case systemAll, systemStandard, systemRecentlyDeleted, user }
#     @Model final class Folder {
#         @Attribute(.unique) let id: UUID
#         var name: String
#         var imageData: Data?
#         @Relationship(deleteRule: .cascade, inverse: \Folder.parentFolder) var folders: [Folder]
#         @Relationship(deleteRule: .cascade, inverse: \Recipe.parentFolder) var recipes: [Recipe]
#         var folderType: FolderType
#         var parentFolder: Folder?
#     }
#     @Model final class Recipe { @Attribute(.unique) let id: UUID; var name: String; var parentFolder: Folder? }
FOLDERS = [
    ("Folder",
     [("id", 1100, "NSUUID", None, False), ("name", 700, "NSString", None, False),
      ("imageData", 1000, "NSData", None, True),
      ("folderType", "composite", "cases", [("systemAll", 700, "NSString"), ("systemStandard", 700, "NSString"),
                                            ("systemRecentlyDeleted", 700, "NSString"), ("user", 700, "NSString")], False)],
     [("folders", "Folder", "parentFolder", True, False, 2), ("recipes", "Recipe", "parentFolder", True, False, 2),
      ("parentFolder", "Folder", "folders", False, True, 1)],
     [["id"]]),
    ("Recipe",
     [("id", 1100, "NSUUID", None, False), ("name", 700, "NSString", None, False)],
     [("parentFolder", "Folder", "recipes", False, True, 1)],
     [["id"]]),
]
if "--folders" in sys.argv:
    sys.argv.remove("--folders")
    ENTITIES += FOLDERS
ENTITIES.sort(key=lambda entity: entity[0])  # Z_ENT by name, whichever models were added


class Archiver:
    """A keyed archive's $objects: index 0 is $null; strings and classes appear once."""

    def __init__(self):
        self.objects = ["$null"]
        self.strings = {}
        self.classes = {}

    def add(self, obj):
        self.objects.append(obj)
        return UID(len(self.objects) - 1)

    def reserve(self):
        return self.add(None)

    def put(self, uid, obj):
        self.objects[uid.data] = obj

    def string(self, s):
        if s is None:
            return UID(0)
        if s not in self.strings:
            self.strings[s] = self.add(s)
        return self.strings[s]

    def cls(self, *names):
        if names[0] not in self.classes:
            self.classes[names[0]] = self.add({"$classname": names[0], "$classes": list(names) + ["NSObject"]})
        return self.classes[names[0]]

    def array(self, uids, mutable=False):
        c = self.cls("NSMutableArray", "NSArray") if mutable else self.cls("NSArray")
        return self.add({"NS.objects": list(uids), "$class": c})

    def dictionary(self, keys, values, mutable=True):
        c = self.cls("NSMutableDictionary", "NSDictionary") if mutable else self.cls("NSDictionary")
        return self.add({"NS.keys": list(keys), "NS.objects": list(values), "$class": c})

    def data(self, root):
        return plistlib.dumps({"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": root},
                               "$objects": self.objects}, fmt=plistlib.FMT_BINARY, sort_keys=False)


def composite(a, entity_uid, name, shape, elements, optional):
    """An NSCompositeAttributeDescription as the real stores archive one: its elements in
    NSCompositeElements, an enum marked in NSUserInfo (with its cases when they have no raw values)."""
    members = [a.add({"$class": a.cls("NSAttributeDescription", "NSPropertyDescription"), "_P": 243, "NSAttributeValueClassName": a.string(cls),
                      "NSAttributeType": code, "NSIsOptional": True, "NSEntity": entity_uid, "NSDefaultValue": UID(0),
                      "NSPropertyName": a.string(element), "NSValueTransformerName": UID(0), "NSFlagsKey": 0,
                      "NSRenamingIdentifier": a.string(element)}) for element, code, cls in elements]
    body = {"$class": a.cls("NSCompositeAttributeDescription", "NSAttributeDescription", "NSPropertyDescription"), "NSFlagsKey": 0,
            "NSAttributeType": 2100, "NSDefaultValue": UID(0), "NSValueTransformerName": UID(0),
            "NSAttributeValueClassName": a.string("NSDictionary"), "NSCompositeElements": a.array(members),
            "NSPropertyName": a.string(name), "NSRenamingIdentifier": a.string(name), "_P": 243 if optional else 241}
    if shape != "struct":
        keys, values = [a.string("EnumType")], [a.add(True)]
        if shape == "cases":
            keys.append(a.string("enum"))
            values.append(a.array([a.string(element) for element, *_ in elements]))
        body["NSUserInfo"] = a.dictionary(keys, values, mutable=False)
    if optional:
        body["NSIsOptional"] = True
    return a.add(body)


def model_archive():
    a = Archiver()
    model = a.reserve()
    entity_uids = {name: a.reserve() for name, *_ in ENTITIES}
    # NSEntities: Core Data's NSKnownKeysDictionary1 (values, with keys in searchMapping).
    names = [a.string(name) for name, *_ in ENTITIES]
    mapping = a.add({"$class": a.cls("NSKnownKeysMappingStrategy1", "NSKnownKeysMappingStrategy"),
                     "length": len(names), "keys": a.array(names), "version": 1})
    empty_token = a.add("__empty_slot_token_4c24_98dc_ac1e_b773__")
    entities = a.add({"values": a.array(entity_uids.values()), "$class": a.cls("NSKnownKeysDictionary1", "NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary"),
                      "searchMapping": mapping, "emptyToken": empty_token, "version": 1})
    user_info = a.dictionary([], [], mutable=False)
    relationship_uids = {(name, rel[0]): a.reserve() for name, _, rels, _ in ENTITIES for rel in rels}
    for name, attributes, relationships, unique in ENTITIES:
        uid = entity_uids[name]
        keys, values = [], []
        for attr, code, class_name, default, optional in attributes:
            if code == "composite":
                keys.append(a.string(attr))
                values.append(composite(a, uid, attr, class_name, default, optional))
                continue
            if default == "uuid":
                # SwiftData archives `let id = UUID()`'s default as an NSUUID; a fixed one here.
                default_uid = a.add({"NS.uuidbytes": hashlib.sha256(f"{name}.{attr}".encode()).digest()[:16], "$class": a.cls("NSUUID")})
            elif default is None:
                default_uid = UID(0)
            elif isinstance(default, str):
                default_uid = a.string(default)
            else:
                default_uid = a.add(default)
            keys.append(a.string(attr))
            values.append(a.add({"$class": a.cls("NSAttributeDescription", "NSPropertyDescription"), "NSDefaultValue": default_uid,
                                 "_P": 243 if optional else 241, "NSAttributeType": code, "NSAttributeValueClassName": a.string(class_name),
                                 "NSEntity": uid, "NSValueTransformerName": UID(0), "NSPropertyName": a.string(attr), "NSFlagsKey": 0,
                                 "NSRenamingIdentifier": a.string(attr)}))
        for rel, destination, inverse, to_many, optional, rule in relationships:
            rel_uid = relationship_uids[(name, rel)]
            body = {"_P": 243 if optional else 241, "NSDestinationEntity": entity_uids[destination], "NSEntity": uid, "NSDeleteRule": rule,
                    "$class": a.cls("NSRelationshipDescription", "NSPropertyDescription"),
                    "NSInverseRelationship": relationship_uids.get((destination, inverse), UID(0)),
                    "_NSInverseRelationshipName": a.string(inverse), "NSMaxCount": 0 if to_many else 1, "NSPropertyName": a.string(rel),
                    "NSRenamingIdentifier": a.string(rel), "NSMinCount": 0, "_NSDestinationEntityName": a.string(destination)}
            if optional:
                body["NSIsOptional"] = True
            a.put(rel_uid, body)
            keys.append(a.string(rel))
            values.append(rel_uid)
        properties = a.dictionary(keys, values)
        tuples = a.array([a.array([a.string(p) for p in t], mutable=True) for t in unique], mutable=True)
        a.put(uid, {"NSEntityName": a.string(name), "$class": a.cls("NSEntityDescription"), "NSClassNameForEntity": a.string(name),
                    "NSUniqueTuples": tuples, "NSUserInfo": user_info, "NSSubentities": a.dictionary([], []),
                    "NSVersionHashModifier": UID(0), "NSProperties": properties, "NSRenamingIdentifier": a.string(name),
                    "NSManagedObjectModel": model, "NSSuperentity": UID(0)})
    configurations = a.dictionary([a.string("default")], [a.add({"NS.objects": list(entity_uids.values()), "$class": a.cls("NSSet")})])
    versions = a.add({"NS.objects": [a.string("1.0.0")], "$class": a.cls("NSSet")})
    a.put(model, {"NSEntities": entities, "$class": a.cls("NSManagedObjectModel"), "NSFetchRequestTemplates": UID(0),
                  "NSVersionIdentifiers": versions, "NSConfigurations": configurations})
    return a.data(model)


def column(attr_code):
    return {300: "INTEGER", 500: "FLOAT", 900: "TIMESTAMP", 700: "VARCHAR", 1000: "BLOB", 1100: "BLOB", 1800: "BLOB"}[attr_code]


def ddl():
    """Tables as Core Data writes them: Z_PK, Z_ENT, Z_OPT, then columns grouped by type
    (INTEGER, TIMESTAMP, DECIMAL, FLOAT, VARCHAR, BLOB), each group by property name, a
    composite's elements in their order at its place; a to-many without an inverse is a column
    Z<owner's Z_ENT><NAME> in the destination's table."""
    order = ["INTEGER", "TIMESTAMP", "DECIMAL", "FLOAT", "VARCHAR", "BLOB"]
    tables, indexes = [], []
    numbers = {name: n for n, (name, *_) in enumerate(ENTITIES, 1)}
    for name, attributes, relationships, unique in ENTITIES:
        table = "Z" + name.upper()
        columns = []
        for attr, code, *rest in attributes:
            if code == "composite":
                columns += [("Z" + element.upper(), column(element_code), attr, i) for i, (element, element_code, _) in enumerate(rest[1])]
            else:
                columns.append(("Z" + attr.upper(), column(code), attr, 0))
        columns += [("Z" + rel.upper(), "INTEGER", rel, 0) for rel, _, _, to_many, *_ in relationships if not to_many]
        for owner, owner_attributes, owner_relationships, _ in ENTITIES:
            for rel, destination, inverse, to_many, *_ in owner_relationships:
                if to_many and inverse is None and destination == name:
                    columns.append((f"Z{numbers[owner]}{rel.upper()}", "INTEGER", "~" + rel, 0))  # after the to-ones (MetaCocktails: ZINGREDIENTBASE, Z1SPEC)
        # A name already given goes to the property first by name; Core Data numbers the others
        # (MetaCocktails' Cocktail: author.id in ZID, its own id in ZID1).
        given = set()
        for i, c in sorted(enumerate(columns), key=lambda e: (e[1][2], e[1][3])):
            stored, n = c[0], 0
            while stored in given:
                n += 1
                stored = f"{c[0]}{n}"
            given.add(stored)
            columns[i] = (stored,) + c[1:]
        columns.sort(key=lambda c: (order.index(c[1]), c[2], c[3]))
        tables.append(f"CREATE TABLE {table} ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, "
                      + ", ".join(f"{c} {t}" for c, t, *_ in columns) + " );")
        for rel, _, _, to_many, *_ in relationships:
            if not to_many:
                indexes.append(f"CREATE INDEX {table}_Z{rel.upper()}_INDEX ON {table} (Z{rel.upper()});")
        for owner, owner_attributes, owner_relationships, _ in ENTITIES:
            for rel, destination, inverse, to_many, *_ in owner_relationships:
                if to_many and inverse is None and destination == name:
                    hidden = f"Z{numbers[owner]}{rel.upper()}"
                    indexes.append(f"CREATE INDEX {table}_{hidden}_INDEX ON {table} ({hidden});")
        for attrs in unique:
            indexes.append(f"CREATE UNIQUE INDEX Z_{name}_UNIQUE_{'_'.join(attrs)} ON {table} ("
                           + ", ".join(f"Z{a.upper()} COLLATE BINARY ASC" for a in attrs) + ");")
    return tables + sorted(indexes, key=lambda s: s.split()[3] if s.startswith('CREATE UNIQUE') else s.split()[2])


HISTORY = """
CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB );
CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB );
CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID);
CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS);
CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS);
CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS);
CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS);
CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC);
"""


def main():
    # A name starting with '-' is an option this script does not know (`--help` was once taken as
    # the output's name and a store called `--help` was committed), never a file to write.
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.exit("usage: make-store.py [--composites] [--numbered] [--folders] OUTPUT.store")
    db = sqlite3.connect(sys.argv[1])
    if db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
        sys.exit(f"{sys.argv[1]} is not empty")
    db.execute("PRAGMA page_size = 4096")
    db.execute("PRAGMA auto_vacuum = 2")  # _NSAutoVacuumLevel "2" in Z_METADATA
    for statement in ddl():
        db.execute(statement)
    db.executescript("""
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
        CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
        """ + HISTORY)
    rows = [(n, name, 0, 0) for n, (name, *_) in enumerate(ENTITIES, 1)]
    rows += [(16001, "CHANGE", 0, 0), (16002, "TRANSACTION", 0, 0), (16003, "TRANSACTIONSTRING", 0, 0)]
    db.executemany("INSERT INTO Z_PRIMARYKEY VALUES (?, ?, ?, ?)", rows)
    hashes = {name: hashlib.sha256(f"seedkit example entity {name}".encode()).digest() for name, *_ in ENTITIES}
    metadata = plistlib.dumps({
        "NSPersistenceFrameworkVersion": 1523,
        "NSPersistenceMaximumFrameworkVersion": 1523,
        "NSStoreModelVersionHashes": hashes,
        "NSStoreModelVersionHashesDigest": "not Core Data's: generated by Examples/SwiftDataStore/make-store.py",
        "NSStoreModelVersionHashesVersion": 3,
        "NSStoreModelVersionIdentifiers": ["1.0.0"],
        "NSStoreType": "SQLite",
        "_NSAutoVacuumLevel": "2",
    }, fmt=plistlib.FMT_BINARY)
    db.execute("INSERT INTO Z_METADATA VALUES (1, '5EEDC0DE-5D17-4A7A-9D2B-000000000021', ?)", (metadata,))
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    db.execute("INSERT INTO Z_MODELCACHE VALUES (?)", (deflate.compress(model_archive()) + deflate.flush(),))
    db.commit()
    db.close()


if __name__ == "__main__":
    main()
