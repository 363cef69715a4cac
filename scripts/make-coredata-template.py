#!/usr/bin/env python3
"""Writes Examples/CoreDataBookStore/seeds/empty.sqlite: an empty BookStore store laid out as
Core Data lays out that model (the reference tables of docs/core-data.md, Z_PRIMARYKEY, Z_METADATA with a
binary plist of version hashes). Core Data does not run on Linux, so this stands in for the
store an app creates on first launch; in a real project, copy that store instead."""
import os, plistlib, sqlite3, sys

if len(sys.argv) > 1 and sys.argv[1].startswith("-"):
    sys.exit("usage: make-coredata-template.py [OUTPUT.sqlite]  (an option is no file name)")
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "Examples", "CoreDataBookStore", "seeds", "empty.sqlite")
if os.path.exists(path):
    os.remove(path)
db = sqlite3.connect(path)
db.executescript("""
PRAGMA page_size = 4096;
CREATE TABLE ZBOOK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCATEGORY INTEGER, ZPRICE FLOAT, ZTITLE VARCHAR );
CREATE TABLE ZBOOKCATEGORY ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
CREATE TABLE ZPAGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZBOOK INTEGER, Z_FOK_BOOK INTEGER, ZTEXT VARCHAR );
CREATE INDEX ZBOOK_ZCATEGORY_INDEX ON ZBOOK (ZCATEGORY);
CREATE INDEX ZPAGE_ZBOOK_INDEX ON ZPAGE (ZBOOK);
CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
INSERT INTO Z_PRIMARYKEY VALUES (1, 'Book', 0, 0), (2, 'BookCategory', 0, 0), (3, 'Page', 0, 0);
""")
metadata = plistlib.dumps({
    "NSPersistenceFrameworkVersion": 866,
    "NSStoreModelVersionHashes": {name: bytes([n]) * 32 for n, name in enumerate(["Book", "BookCategory", "Page"], 1)},
    "NSStoreModelVersionIdentifiers": [""],
    "NSStoreType": "SQLite",
}, fmt=plistlib.FMT_BINARY)
db.execute("INSERT INTO Z_METADATA VALUES (1, 'B1C2D3E4-0000-4000-8000-0123456789AB', ?)", (metadata,))
db.commit()
db.close()
print("wrote", path)
