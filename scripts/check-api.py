#!/usr/bin/env python3
"""make test's check of SeedRuntime's public API against the list in docs/api/SeedRuntime.txt.

scripts/check-docs.sh extracts SeedRuntime's symbol graph (public symbols only) into
build/docs/symbol-graphs; this script reads it and compares every public symbol's path
(`SeedInstaller/prepareStore(in:)`, one a line, sorted) with the committed list. A public
symbol the list does not name fails, with its name: the public API only grows on purpose.
A listed symbol that is no longer public fails too, so the list stays the API.

Symbols an app gets from a protocol's extension (GRDB's `DatabaseValueConvertible` helpers on
`SQLValue`, say) are listed as well: they are what an app can call.

    python3 scripts/check-api.py            # check (run scripts/check-docs.sh first)
    python3 scripts/check-api.py --update   # rewrite the list from the symbol graph
"""
import glob, json, os, sys
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRAPHS = os.path.join(ROOT, "build", "docs", "symbol-graphs")
LIST = os.path.join(ROOT, "docs", "api", "SeedRuntime.txt")
PUBLIC = {"public", "open"}


def public_symbols():
    files = sorted(glob.glob(os.path.join(GRAPHS, "SeedRuntime*.symbols.json")))
    if not files:
        sys.exit(f"check-api: no symbol graph in {os.path.relpath(GRAPHS, ROOT)}; run scripts/check-docs.sh first")
    paths = []
    for name in files:
        with open(name) as file:
            graph = json.load(file)
        for symbol in graph["symbols"]:
            # An extension block (`extension DatabaseMigrator`) is not itself something to call: its members are listed.
            if symbol.get("accessLevel") in PUBLIC and symbol["kind"]["identifier"] != "swift.extension":
                paths.append("/".join(symbol["pathComponents"]))
    return Counter(paths)


def main():
    found = public_symbols()
    lines = sorted(found.elements())
    if "--update" in sys.argv[1:]:
        os.makedirs(os.path.dirname(LIST), exist_ok=True)
        with open(LIST, "w") as file:
            file.write("".join(line + "\n" for line in lines))
        print(f"check-api: wrote {len(lines)} public symbols of SeedRuntime to {os.path.relpath(LIST, ROOT)}")
        return
    try:
        with open(LIST) as file:
            listed = Counter(line.strip() for line in file if line.strip() and not line.startswith("#"))
    except FileNotFoundError:
        listed = Counter()
    added = sorted((found - listed).elements())
    removed = sorted((listed - found).elements())
    if added or removed:
        for path in added:
            print(f"check-api: public symbol not in {os.path.relpath(LIST, ROOT)}: {path}", file=sys.stderr)
        for path in removed:
            print(f"check-api: listed symbol no longer public: {path}", file=sys.stderr)
        print("check-api: SeedRuntime's public API changed. If that is on purpose (an app needs it: document it,"
              " curate it in SeedRuntime.docc), run `python3 scripts/check-api.py --update` and commit the list;"
              " otherwise make the declaration `package` or internal.", file=sys.stderr)
        sys.exit(1)
    print(f"SeedRuntime public API: {sum(found.values())} symbols, as {os.path.relpath(LIST, ROOT)} lists")


if __name__ == "__main__":
    main()
