"""make bench's cases for the write side's cost (issue 45), imported by bench.py: each beside its floor.

  * build of a 1M-row project once a 150k-row release migration exists (50k updates, 50k deletes,
    50k inserts), against the same build without the migration (BENCH_ONLY=buildmig);
  * migrate: 100k of 500k rows deleted, and 100k refs changed, each against 100k inserted; 20k of
    100k rows of a hierarchy (a self-ref column no index leads with) deleted, against 20k inserted
    (BENCH_ONLY=migratecost).
The stores and files are made once into build/bench (the shape in the folder's name).
"""
import json, os, random, shutil, subprocess

WORDS = ["alpha", "Brontë", "café", "naïve", "日本語", "zeta", "Omega", 'quote"d', "comma, inside", "plain"]
CATEGORIES = [f"Category {n}" for n in range(50)]
SCHEMA = ("CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);\n"
          "CREATE TABLE books (id INTEGER PRIMARY KEY, isbn TEXT NOT NULL UNIQUE, title TEXT NOT NULL, author TEXT, "
          "price REAL, category_id INTEGER REFERENCES categories(id));\n")


def quoted(value):
    return json.dumps(value, ensure_ascii=False)


def book(i, rng):
    return {"isbn": f"978{i:010d}", "title": f"{rng.choice(WORDS)} {i} {rng.choice(WORDS)}",
            "author": rng.choice(WORDS).title(), "price": rng.randint(0, 99999) / 100,
            "category_id": CATEGORIES[i % len(CATEGORIES)]}


def release_project(root, count, updates, deletes, inserts):
    """A project whose fixtures are a release of `count` books (key isbn, a ref to a category by
    name) and whose migrations/0001-release.yml brings the previous release to it: `updates`
    prices changed, `deletes` rows deleted and `inserts` rows inserted, written as
    `new-migration --from` writes them. Returns the project's folder."""
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, "seeds", "data"))
    os.makedirs(os.path.join(root, "migrations"))
    with open(os.path.join(root, "seeds", "schema.sql"), "w") as f:
        f.write(SCHEMA)
    with open(os.path.join(root, "seeds", "seedkit.yml"), "w") as f:
        f.write("schema: schema.sql\noutput: ../out.sqlite\ntables:\n"
                "  categories: { file: data/categories.csv, key: name }\n"
                "  books: { file: data/books.jsonl, key: isbn, refs: { category_id: categories.name } }\n")
    with open(os.path.join(root, "seeds", "data", "categories.csv"), "w") as f:
        f.write("name\n" + "".join(f"{c}\n" for c in CATEGORIES))
    rng = random.Random(11)
    # Changed rows spread evenly: every step-th row updated, the one after it deleted.
    step = max(2, count // max(1, updates, deletes))
    update, delete, insert = [], [], []
    with open(os.path.join(root, "seeds", "data", "books.jsonl"), "w", encoding="utf-8") as f:
        for i in range(1, count + 1):
            row = book(i, rng)
            if i % step == 0 and len(update) < updates:
                old = row["price"]
                row["price"] = round(old + 1, 2)
                update.append(f"    - key: {quoted(row['isbn'])}\n      from: {{ price: {old} }}\n      to: {{ price: {row['price']} }}\n")
            elif i % step == 1 and len(delete) < deletes:
                fields = ", ".join(f"{k}: {quoted(v)}" for k, v in row.items() if k != "isbn")
                delete.append(f"    - key: {quoted(row['isbn'])}\n      from: {{ {fields} }}\n")
                continue
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
        for i in range(inserts):
            row = book(count + i + 1, rng)
            row["isbn"] = f"979{i:010d}"
            insert.append("    - { " + ", ".join(f"{k}: {quoted(v)}" for k, v in row.items()) + " }\n")
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    with open(os.path.join(root, "migrations", "0001-release.yml"), "w", encoding="utf-8") as f:
        f.write("# 0001-release: a release's changes\n")
        for section, rows in [("insert", insert), ("update", update), ("delete", delete)]:
            if rows:
                f.write(f"{section}:\n  books:\n" + "".join(rows))
    return root


def cached_release_project(work, name, count, updates, deletes, inserts):
    """release_project under work/name, made once: the shape is in the folder's name."""
    root = os.path.join(work, f"{name}-{count}-{updates}-{deletes}-{inserts}")
    done = os.path.join(root, ".made")
    if not os.path.exists(done):
        release_project(root, count, updates, deletes, inserts)
        open(done, "w").close()
        os.sync()
    return root


def build_with_migration_case(table, bench, count=1_000_000, changed=150_000):
    """build of a 1M-row project once a 150k-row release migration exists, beside the same build
    without it (`--migrations none`): build's checks of the migrations (refs, update keys, what
    migrate would refuse) cost in proportion to the migration's rows (goal ≤ 1.3×)."""
    third = changed // 3
    project = cached_release_project(bench.WORK, "buildmig", count, third, third, changed - 2 * third)
    out = os.path.join(project, "out.sqlite")

    def build(migrations):
        bench.fresh(out)
        return bench.timed([bench.SEEDKIT, "build"] + ([] if migrations else ["--migrations", "none"]), cwd=project)

    floor, tool = bench.pair(lambda: build(False), lambda: build(True))
    rows = subprocess.run(["sqlite3", out, "SELECT count(*) FROM books"], capture_output=True, text=True).stdout.strip()
    assert rows == str(count - third + changed - 2 * third), rows
    case = f"build {count:,} rows once a {changed:,}-row migration exists ({third:,} updates, deletes, inserts)"
    table.append((case, "seedkit build --migrations none (floor)", count, *floor, 1.0, ""))
    table.append((case, "seedkit build with the migration", count, *tool, tool[0] / floor[0], "≤ 1.3×"))
    bench.fresh(out)


def migrate_project(root, count, deletes, ref_updates, inserts, self_ref=False):
    """A store of `count` books (key isbn, a ref to one of 50 categories; with `self_ref`, a
    nullable ref to another book, all NULL: a hierarchy no row uses yet) made by SQLite, and three
    migrations of its rows: 0001 deletes `deletes` of them, 0002 moves `ref_updates` to another
    category, 0003 inserts `inserts`. Returns (store, {name: migrations folder})."""
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    parent = ", parent_id INTEGER REFERENCES books(id)" if self_ref else ""
    schema = SCHEMA.replace("REFERENCES categories(id));", f"REFERENCES categories(id){parent});")
    store = os.path.join(root, "store.sqlite")
    script = ("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;\n" + schema +
              "CREATE TABLE _seedkit_tables (name TEXT PRIMARY KEY NOT NULL, position INTEGER NOT NULL, key TEXT NOT NULL, refs TEXT NOT NULL) WITHOUT ROWID;\n"
              "INSERT INTO _seedkit_tables VALUES ('categories', 0, '[\"name\"]', '{}'), ('books', 1, '[\"isbn\"]', "
              "'{\"category_id\":{\"column\":\"name\",\"table\":\"categories\"}" + (",\"parent_id\":{\"column\":\"isbn\",\"table\":\"books\"}" if self_ref else "") + "}');\n"
              # The ledger a seed has (empty: no migration applied yet), as seedkit writes it.
              "CREATE TABLE _seedkit_migrations (number INTEGER PRIMARY KEY NOT NULL, name TEXT NOT NULL, checksum TEXT NOT NULL, "
              "applied_at TEXT, origin TEXT NOT NULL CHECK (origin IN ('seed', 'applied')));\n"
              "INSERT INTO categories (name) VALUES " + ", ".join(f"('{c}')" for c in CATEGORIES) + ";\n"
              f"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {count}) "
              "INSERT INTO books (isbn, title, author, price, category_id) SELECT printf('978%010d', i), 'Book ' || i, 'Author', "
              f"(i % 1000) / 10.0, 1 + i % {len(CATEGORIES)} FROM n;\n")
    subprocess.run(["sqlite3", store], input=script, text=True, check=True)
    step = max(1, count // max(1, deletes, ref_updates))
    folders = {}

    def folder(name, document):
        path = os.path.join(root, name)
        os.makedirs(path)
        with open(os.path.join(path, "0001-" + name + ".json"), "w") as f:
            json.dump(document, f, ensure_ascii=False)
        folders[name] = path

    def category(i):
        return CATEGORIES[i % len(CATEGORIES)]

    if deletes:
        folder("delete", {"delete": {"books": [
            {"key": f"978{i:010d}", "from": {"price": (i % 1000) / 10.0, "category_id": category(i)}}
            for i in range(1, count + 1, step)][:deletes]}})
    if ref_updates:
        folder("moveref", {"update": {"books": [
            {"key": f"978{i:010d}", "from": {"category_id": category(i)}, "to": {"category_id": category(i + 1)}}
            for i in range(1, count + 1, step)][:ref_updates]}})
    if inserts:
        folder("insert", {"insert": {"books": [
            {"isbn": f"979{i:010d}", "title": f"New {i}", "author": "Author", "price": 1.0, "category_id": category(i)}
            for i in range(inserts)]}})
    return store, folders


def cached_migrate_project(work, name, count, deletes, ref_updates, inserts, self_ref=False):
    """migrate_project under work/name, made once: the shape is in the folder's name."""
    root = os.path.join(work, f"{name}-{count}-{deletes}-{ref_updates}-{inserts}")
    names = [n for n, k in [("delete", deletes), ("moveref", ref_updates), ("insert", inserts)] if k]
    if not os.path.exists(os.path.join(root, ".made")):
        migrate_project(root, count, deletes, ref_updates, inserts, self_ref)
        open(os.path.join(root, ".made"), "w").close()
        os.sync()
    return os.path.join(root, "store.sqlite"), {n: os.path.join(root, n) for n in names}


def migrate_cost_cases(table, bench):
    """A migration deleting 100k of 500k rows and one moving 100k rows to another parent (a ref
    changed), each beside one inserting 100k rows into the same store (goal ≤ 2×); deleting 20k of
    100k rows of a table with a self-ref column that no index leads with (a hierarchy, all NULL),
    beside inserting 20k rows there (BENCH_ONLY=migratecost)."""
    work = os.path.join(bench.WORK, "migrating.sqlite")

    def run(source, folder, expect):
        def once():
            bench.fresh(work)
            bench.copy_synced(source, work)
            result = bench.timed([bench.SEEDKIT, "migrate", work, "--migrations", folder, "--manifest", "none"])
            rows = subprocess.run(["sqlite3", work, "SELECT count(*) FROM books"], capture_output=True, text=True).stdout.strip()
            assert rows == str(expect), (folder, rows)
            return result
        return once

    n, k = 500_000, 100_000
    store, folders = cached_migrate_project(bench.WORK, "migcost", n, k, k, k)
    insert = run(store, folders["insert"], n + k)
    case = f"migrate a {n:,}-row store: {k:,} rows deleted, {k:,} refs changed, against {k:,} inserted"
    floor, deleted = bench.pair(insert, run(store, folders["delete"], n - k))
    _, moved = bench.pair(lambda: (0, 0, 0), run(store, folders["moveref"], n))
    table.append((case, f"seedkit migrate, {k:,} rows inserted (floor)", k, *floor, 1.0, ""))
    table.append((case, f"seedkit migrate, {k:,} rows deleted", k, *deleted, deleted[0] / floor[0], "≤ 2.0×"))
    table.append((case, f"seedkit migrate, {k:,} refs changed", k, *moved, moved[0] / floor[0], "≤ 2.0×"))
    n, k = 100_000, 20_000
    store, folders = cached_migrate_project(bench.WORK, "hierarchy", n, k, 0, k, self_ref=True)
    case = f"migrate a {n:,}-row hierarchy (self-ref column, no index): {k:,} rows deleted, against {k:,} inserted"
    floor, deleted = bench.pair(run(store, folders["insert"], n + k), run(store, folders["delete"], n - k))
    table.append((case, f"seedkit migrate, {k:,} rows inserted (floor)", k, *floor, 1.0, ""))
    table.append((case, f"seedkit migrate, {k:,} rows deleted", k, *deleted, deleted[0] / floor[0], "≤ 2.0×"))
    bench.fresh(work)
