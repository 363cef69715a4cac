#!/usr/bin/env python3
"""make bench: seedkit against sqlite3 and peers, side by side in one run, one table.

Generates its data under build/bench (kept between runs), then times, each seedkit case
next to its peer in the same run (alternating, best of BENCH_REPEAT runs each, default 2):
  * building a typed, indexed table from CSV / JSON Lines / a JSON array (rules on),
    against `sqlite3 .import` of the same rows as CSV (journal off), SQLite's own JSON
    functions, and a Python csv + sqlite3.executemany loader;
  * a 1M-row books CSV with a `pattern` rule (isbn), without and with a secondary index,
    without the pattern rule and without any rule (what the rules cost), against `sqlite3 .import`;
  * a 1M-row CSV with a ref column (category by name), against sqlite3 importing into a
    staging table and joining, and against itself without the read-back (--without-read-back);
  * a 1M-node tree (a self-ref by name) listed children first, and a chain, against the same
    tree listed parents first (BENCH_ONLY=forwardref);
  * a 10,000-row insert migration on a 10,000-row and a 1,000,000-row store, against the
    sqlite3 CLI running the equivalent INSERT ... WHERE NOT EXISTS script;
  * a 100,000-row insert migration (a ref and rules) against a Python prepared-statement
    loop doing the same checks, with peak RSS; the same migration through the app
    runtime's SeedInstaller.prepareStore(), in-process;
  * diff of two 1M-row stores differing in 1%, by primary key and by natural key, with the
    key in rowid order and in random order (table and JSON output), against sqldiff; rows
    removed, added, and both with changes; the mixed shape on the ref build's seed (a ref
    compared by the parent's key), by `isbn` (rowid order) and `title` (random order), in
    every output format;
  * 1 inserted row into a 1M-row store, into one whose rows have a foreign key, and into a
    1 GB store, against sqlite3 running the one INSERT (BENCH_ONLY=migrate1);
  * a table from a SQL query over a 1M-row CSV source, against the same rows as a fixture and
    against sqlite3 importing into a staging table and running the same SELECT (BENCH_ONLY=query);
  * a `.sql` migration of 200k INSERTs and 200k UPDATEs (seedkit counts every row SQLite writes,
    through its preupdate hook), against sqlite3 running the same SQL in one transaction
    (BENCH_ONLY=sqlstep);
  * check-upgrade of a 200k-row seed (a ref to a second table) through a release changing 30k
    rows (updates, deletes and inserts new-migration wrote), against build + migrate of the same
    release (BENCH_ONLY=checkupgrade);
  * inspect in every format, new-migration --from and export-migrations, each beside its floor
    (scripts/bench_tools.py: BENCH_ONLY=inspect, newmigration, export);
  * the first launch: a ~150 MB seed copied into place by SeedInstaller, against cp + sync
    (BENCH_ONLY=install);
  * the app-launch path on an up-to-date store, in-process.
Set BENCH_ROWS_BIG=5000000 to add the 5M-row runs (peak RSS must stay flat).
"""
import csv, json, os, random, shutil, subprocess, sys, time

import bench_release
import bench_tools

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "build", "bench")
SEEDKIT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/release/seedkit"))
BENCH = os.path.join(os.path.dirname(SEEDKIT), "seedkit-bench")
BIG = int(os.environ.get("BENCH_ROWS_BIG", "0"))
REPEAT = max(1, int(os.environ.get("BENCH_REPEAT", "2")))
ONLY = os.environ.get("BENCH_ONLY", "")  # "migrate100k": only that case

SCHEMA = """CREATE TABLE items (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL UNIQUE,
    author TEXT,
    price REAL,
    pages INTEGER,
    published DATE
);
"""
MANIFEST = """schema: schema.sql
output: ../out.sqlite
tables:
  items:
    file: ../{fixture}
    key: title
    rules:
      title: {{ required: true, max_length: 200 }}
      price: {{ min: 0, max: 1000 }}
      pages: {{ min: 1 }}
      published: {{ after: 1450-01-01 }}
"""
WORDS = ["alpha", "Brontë", "café", "naïve", "日本語", "zeta", "Omega", 'quote"d', "comma, inside", "plain"]


def rows(count, seed=7, prefix=""):
    rng = random.Random(seed)
    for i in range(1, count + 1):
        yield [i, f"{prefix}{rng.choice(WORDS)} {i} {rng.choice(WORDS)}", rng.choice(WORDS).title(),
               f"{rng.randint(0, 99999) / 100:.2f}", rng.randint(1, 2000),
               f"{rng.randint(1500, 2024)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"]


COLUMNS = ["id", "title", "author", "price", "pages", "published"]


def make_csv(path, count):
    if os.path.exists(path):
        return
    with open(path + ".tmp", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(COLUMNS)
        writer.writerows(rows(count))
    os.rename(path + ".tmp", path)


def make_json(path, count, lines):
    if os.path.exists(path):
        return
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        if not lines:
            f.write("[\n")
        for n, row in enumerate(rows(count)):
            obj = dict(zip(COLUMNS, row))
            obj["price"] = float(obj["price"])
            text = json.dumps(obj, ensure_ascii=False)
            f.write(text + "\n" if lines else ("," if n else "") + text + "\n")
        if not lines:
            f.write("]\n")
    os.rename(path + ".tmp", path)


def timed(cmd, stdin=None, cwd=WORK):
    """Runs cmd; returns (wall seconds, peak RSS in MB, CPU seconds (user + system)) of that process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdin=open(stdin) if stdin else subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    err = proc.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{err}")
    return seconds, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def fresh(path):
    for suffix in ["", "-journal", "-wal", "-shm"]:
        if os.path.exists(path + suffix):
            os.remove(path + suffix)


def sqlite_import(csv_path, db):
    fresh(db)
    script = os.path.join(WORK, "import.sql")
    with open(script, "w") as f:
        f.write("PRAGMA journal_mode=OFF;\nPRAGMA synchronous=OFF;\n" + SCHEMA + f".import --csv --skip 1 {csv_path} items\n")
    return timed(["sqlite3", db], stdin=script)


def sqlite_json(json_path, db):
    fresh(db)
    script = os.path.join(WORK, "json.sql")
    with open(script, "w") as f:
        f.write("PRAGMA journal_mode=OFF;\nPRAGMA synchronous=OFF;\n" + SCHEMA +
                "INSERT INTO items SELECT value->>'id', value->>'title', value->>'author', value->>'price', value->>'pages', value->>'published' "
                f"FROM json_each(readfile('{json_path}'));\n")
    return timed(["sqlite3", db], stdin=script)


def python_loader(csv_path, db):
    fresh(db)
    code = f"""
import csv, sqlite3
db = sqlite3.connect({db!r}); db.execute('PRAGMA journal_mode=OFF'); db.execute('PRAGMA synchronous=OFF')
db.executescript({SCHEMA!r})
with open({csv_path!r}, newline='', encoding='utf-8') as f:
    r = csv.reader(f); next(r)
    db.executemany('INSERT INTO items VALUES (?,?,?,?,?,?)', r)
db.commit()
"""
    return timed([sys.executable, "-c", code])


def pair(peer, tool):
    """Runs peer() and tool() alternately REPEAT times; the best (seconds, RSS) of each."""
    peers, tools = [], []
    for _ in range(REPEAT):
        peers.append(peer())
        tools.append(tool())
    return min(peers), min(tools)


BOOKS_COLUMNS = ["id", "isbn", "title", "author", "price", "published"]
CATEGORIES = [f"Category {n}" for n in range(50)]


def book_rows(count, seed=5):
    rng = random.Random(seed)
    for i in range(1, count + 1):
        yield [i, f"978{i:010d}", f"{rng.choice(WORDS)} {i} {rng.choice(WORDS)}", rng.choice(WORDS).title(),
               f"{rng.randint(0, 99999) / 100:.2f}", f"{rng.randint(1500, 2024)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"]


def make_books_csv(path, count, with_category=False):
    if os.path.exists(path):
        return
    rng = random.Random(3)
    with open(path + ".tmp", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        if with_category:
            writer.writerow(BOOKS_COLUMNS[:-1] + ["category_id"])
            writer.writerows(row[:-1] + [rng.choice(CATEGORIES)] for row in book_rows(count))
        else:
            writer.writerow(BOOKS_COLUMNS)
            writer.writerows(book_rows(count))
    os.rename(path + ".tmp", path)


BOOKS_SCHEMA = """CREATE TABLE books (
    id INTEGER PRIMARY KEY,
    isbn TEXT NOT NULL{unique},
    title TEXT NOT NULL,
    author TEXT,
    price REAL,
    published DATE
);
"""
BOOKS_RULES = """      title: {{ required: true, max_length: 200 }}
      price: {{ min: 0, max: 1000 }}
      published: {{ after: 1450-01-01 }}
"""
PATTERN_RULE = """      isbn: {{ pattern: "^978[0-9]{{10}}$" }}
"""


def seedkit_project(name, schema, manifest):
    project = os.path.join(WORK, name)
    os.makedirs(os.path.join(project, "seeds"), exist_ok=True)
    with open(os.path.join(project, "seeds", "schema.sql"), "w") as f:
        f.write(schema)
    with open(os.path.join(project, "seeds", "seedkit.yml"), "w") as f:
        f.write(manifest)
    return project


def build_in(project, *extra):
    fresh(os.path.join(project, "out.sqlite"))
    return timed([SEEDKIT, "build", "--migrations", "none", *extra], cwd=project)


def sqlite_script(db, script_text, name):
    fresh(db)
    script = os.path.join(WORK, name)
    with open(script, "w") as f:
        f.write(script_text)
    return timed(["sqlite3", db], stdin=script)


def pattern_cases(table):
    """The issue's shape: 1M books, 6 columns, rules incl. an isbn pattern; no index and index."""
    n = 1_000_000
    path = os.path.join(WORK, f"books-{n}.csv")
    make_books_csv(path, n)
    os.sync()
    for variant, unique, key in [("no secondary index", "", "id"), ("UNIQUE index on isbn", " UNIQUE", "isbn")]:
        schema = BOOKS_SCHEMA.format(unique=unique)
        case = f"CSV 1M books, {variant}, rules + isbn pattern"
        # Without the pattern and without any rule too (no index only): what the rules cost.
        for rules, label in [(BOOKS_RULES + PATTERN_RULE, "with"), (BOOKS_RULES, "without"), ("", "none")]:
            if label != "with" and unique:
                continue
            manifest = f"schema: schema.sql\noutput: ../out.sqlite\ntables:\n  books:\n    file: ../../books-{n}.csv\n    key: {key}\n" + ("    rules:\n" + rules.format() if rules else "")
            project = seedkit_project(f"books-{key}-{label}", schema, manifest)
            peer, tool = pair(lambda: sqlite_script(os.path.join(WORK, "import.sqlite"), "PRAGMA journal_mode=OFF;\nPRAGMA synchronous=OFF;\n" + schema + f".import --csv --skip 1 {path} books\n", "books.sql"),
                              lambda: build_in(project))
            if label == "with":
                table.append((case, "sqlite3 .import (journal off)", n, *peer, 1.0, ""))
                table.append((case, "seedkit build (rules + pattern)", n, *tool, tool[0] / peer[0], "≤ 0.85×"))
            elif label == "without":
                table.append((case, "seedkit build (rules, no pattern)", n, *tool, tool[0] / peer[0], ""))
            else:
                table.append((case, "seedkit build (no rules)", n, *tool, tool[0] / peer[0], ""))
    fresh(os.path.join(WORK, "import.sqlite"))


REF_SCHEMA = ("CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);\n"
              "CREATE TABLE books (id INTEGER PRIMARY KEY, isbn TEXT NOT NULL UNIQUE, title TEXT NOT NULL, author TEXT, price REAL, "
              "category_id INTEGER NOT NULL REFERENCES categories(id));\n")


def ref_project(name="books-ref", key="isbn"):
    """The project of the ref build: 1M books whose category is a ref by name; key `isbn`
    (assigned in id order) or `title` (random order)."""
    n = 1_000_000
    path = os.path.join(WORK, f"books-ref-{n}.csv")
    make_books_csv(path, n, with_category=True)
    os.sync()
    categories = os.path.join(WORK, "categories.csv")
    with open(categories, "w") as f:
        f.write("name\n" + "".join(name + "\n" for name in CATEGORIES))
    manifest = (f"schema: schema.sql\noutput: ../out.sqlite\ntables:\n  categories:\n    file: ../../categories.csv\n    key: name\n"
                f"  books:\n    file: ../../books-ref-{n}.csv\n    key: {key}\n    refs: {{ category_id: categories.name }}\n    rules:\n"
                + (BOOKS_RULES.replace("      published: {{ after: 1450-01-01 }}\n", "") + PATTERN_RULE).format())
    return seedkit_project(name, REF_SCHEMA, manifest), path


NODES_SCHEMA = "CREATE TABLE nodes (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, parent_id INTEGER REFERENCES nodes(id));\n"
NODES_MANIFEST = "schema: schema.sql\noutput: ../out.sqlite\ntables:\n  nodes:\n    file: ../../{file}\n    key: name\n    refs: {{ parent_id: nodes.name }}\n"


def make_tree_csv(path, count, order):
    """A tree of `count` nodes, node i's parent a random node of a higher number (the last is the
    root): listed parents first (every ref backward), children first (every ref forward), or a
    chain (node i's parent is node i + 1, children first)."""
    if os.path.exists(path):
        return
    rng = random.Random(45)
    with open(path + ".tmp", "w") as f:
        f.write("name,parent_id\n")
        indexes = range(count - 1, -1, -1) if order == "backward" else range(count)
        if order == "backward":  # the same tree as "forward", listed the other way
            parents = [rng.randrange(i + 1, count) if i + 1 < count else None for i in range(count)]
        for i in indexes:
            if order == "chain":
                parent = i + 1 if i + 1 < count else None
            elif order == "forward":
                parent = rng.randrange(i + 1, count) if i + 1 < count else None
            else:
                parent = parents[i]
            f.write(f"node-{i:07d},{'' if parent is None else f'node-{parent:07d}'}\n")
    os.rename(path + ".tmp", path)


def forward_ref_case(table):
    """1M nodes of a tree whose ref names a row listed later (children first), beside the same
    tree listed parents first, and a chain listed children first (issue 45)."""
    n = int(os.environ.get("BENCH_ROWS", "1000000"))
    projects = {}
    for order in ["backward", "forward", "chain"]:
        file = f"tree-{order}-{n}.csv"
        make_tree_csv(os.path.join(WORK, file), n, order)
        projects[order] = seedkit_project(f"tree-{order}", NODES_SCHEMA, NODES_MANIFEST.format(file=file))
    os.sync()
    runs = {order: [] for order in projects}
    for _ in range(REPEAT):
        for order, project in projects.items():
            runs[order].append(build_in(project))
    best = {order: min(times) for order, times in runs.items()}
    case = f"build {n // 1000:,}k nodes of a tree (a self-ref by name)"
    floor = best["backward"]
    table.append((case, "seedkit build, parents listed first (every ref backward: the floor)", n, *floor, 1.0, ""))
    table.append((case, "seedkit build, children listed first (every ref forward)", n, *best["forward"], best["forward"][0] / floor[0], "≤ 1.3×"))
    table.append((case, "seedkit build, a chain listed children first (row i → row i + 1)", n, *best["chain"], best["chain"][0] / floor[0], "≤ 1.3×"))


def ref_case(table):
    """1M books whose category is a ref by name: seedkit resolves it; sqlite3 imports into a
    staging table and joins."""
    n = 1_000_000
    project, path = ref_project()
    schema = REF_SCHEMA
    sql = ("PRAGMA journal_mode=OFF;\nPRAGMA synchronous=OFF;\n" + schema +
           "INSERT INTO categories (name) VALUES " + ", ".join(f"('{name}')" for name in CATEGORIES) + ";\n"
           "CREATE TEMP TABLE staging (id, isbn, title, author, price, category_id);\n"
           f".import --csv --skip 1 {path} staging\n"
           "INSERT INTO books SELECT s.id, s.isbn, s.title, s.author, s.price, c.id FROM staging AS s JOIN categories AS c ON c.name = s.category_id;\n")
    peer, tool = pair(lambda: sqlite_script(os.path.join(WORK, "import.sqlite"), sql, "ref.sql"), lambda: build_in(project))
    # The floor: SQLite inserting the same shape of rows (UNIQUE key, a ref's id) from a recursive
    # CTE, in one statement, with no file to read or parse and no lookup per row.
    floor_sql = ("PRAGMA journal_mode=OFF;\nPRAGMA synchronous=OFF;\n" + schema +
                 "INSERT INTO categories (name) VALUES " + ", ".join(f"('{name}')" for name in CATEGORIES) + ";\n"
                 f"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n}) "
                 "INSERT INTO books SELECT i, printf('978%010d', i), 'A title of a book ' || i, 'An Author', (i % 5000) / 100.0, "
                 f"(i % {len(CATEGORIES)}) + 1 FROM n;\n")
    floor = min(sqlite_script(os.path.join(WORK, "floor.sqlite"), floor_sql, "floor.sql") for _ in range(REPEAT))
    case = "CSV 1M books with a ref (category by name)"
    table.append((case, "sqlite3 .import to staging + INSERT … JOIN", n, *peer, 1.0, ""))
    table.append((case, "floor: sqlite3 INSERT … SELECT from a recursive CTE (no parsing)", n, *floor, floor[0] / peer[0], ""))
    table.append((case, "seedkit build (ref + rules + pattern)", n, *tool, tool[0] / peer[0], "≤ 1.0×"))
    table.append((case, "seedkit build, vs the floor", n, *tool, tool[0] / floor[0], "≤ 1.2×"))
    # What reading the seed back costs (docs/reference.md, "What build checks"): the same build
    # without it, alternating; the read-back's goal is ≤ 10% of the build.
    unchecked, checked = pair(lambda: build_in(project, "--without-read-back"), lambda: build_in(project))
    table.append((case, "seedkit build --without-read-back", n, *unchecked, unchecked[0] / peer[0], ""))
    table.append((case, "seedkit build (read-back), vs --without-read-back", n, *checked, checked[0] / unchecked[0], "≤ 1.1×"))
    fresh(os.path.join(WORK, "floor.sqlite"))
    fresh(os.path.join(WORK, "import.sqlite"))
    return os.path.join(project, "out.sqlite")


def big_migration_case(table):
    """100,000 books inserted by one JSON migration (ref to a category, rules) into a small
    store: seedkit migrate and the app runtime, against a Python prepared-statement loop."""
    n = 100_000
    project = os.path.join(WORK, "bigmig")
    shutil.rmtree(project, ignore_errors=True)
    os.makedirs(os.path.join(project, "seeds", "data"))
    os.makedirs(os.path.join(project, "migrations"))
    with open(os.path.join(project, "seeds", "schema.sql"), "w") as f:
        f.write("CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);\n"
                "CREATE TABLE books (id INTEGER PRIMARY KEY, isbn TEXT NOT NULL UNIQUE, title TEXT NOT NULL, author TEXT, price REAL, "
                "category_id INTEGER NOT NULL REFERENCES categories(id));\n")
    with open(os.path.join(project, "seeds", "data", "categories.csv"), "w") as f:
        f.write("name\n" + "".join(name + "\n" for name in CATEGORIES))
    rng = random.Random(9)
    with open(os.path.join(project, "seeds", "data", "books.csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["isbn", "title", "author", "price", "category_id"])
        for row in book_rows(1000, seed=8):
            writer.writerow([row[1], row[2], row[3], row[4], rng.choice(CATEGORIES)])
    rules = (BOOKS_RULES.replace("      published: {{ after: 1450-01-01 }}\n", "") + PATTERN_RULE).format()
    with open(os.path.join(project, "seeds", "seedkit.yml"), "w") as f:
        f.write("schema: schema.sql\noutput: ../seed.sqlite\ntables:\n  categories:\n    file: data/categories.csv\n    key: name\n"
                "  books:\n    file: data/books.csv\n    key: isbn\n    refs: { category_id: categories.name }\n    rules:\n" + rules)
    subprocess.run([SEEDKIT, "build", "--migrations", "none"], cwd=project, check=True, capture_output=True)
    new = []
    for row in book_rows(n, seed=12):
        new.append({"isbn": f"978{1_000_000 + row[0]:010d}", "title": "New " + row[2],
                    "author": row[3], "price": float(row[4]), "category_id": rng.choice(CATEGORIES)})
    with open(os.path.join(project, "migrations", "0001-many-books.json"), "w") as f:
        json.dump({"insert": {"books": new}}, f, ensure_ascii=False)
    seed = os.path.join(project, "seed.sqlite")
    store = os.path.join(project, "store.sqlite")
    python = f"""
import json, re, sqlite3, sys
db = sqlite3.connect({store!r}, isolation_level=None)
rows = json.load(open({os.path.join(project, "migrations", "0001-many-books.json")!r}))["insert"]["books"]
isbn = re.compile(r"978[0-9]{{10}}")
db.execute("BEGIN IMMEDIATE")
categories = {{}}
find = "SELECT id FROM categories WHERE name = ?"
exists = "SELECT 1 FROM books WHERE isbn = ?"
insert = "INSERT INTO books (isbn, title, author, price, category_id) VALUES (?, ?, ?, ?, ?)"
inserted = 0
for row in rows:
    if not row.get("title") or len(row["title"]) > 200 or not (0 <= row["price"] <= 1000) or not isbn.fullmatch(row["isbn"]):
        sys.exit("rule broken")
    name = row["category_id"]
    category = categories.get(name)
    if category is None:
        found = db.execute(find, (name,)).fetchone()
        if found is None: sys.exit("no such category")
        category = categories[name] = found[0]
    if db.execute(exists, (row["isbn"],)).fetchone(): continue
    db.execute(insert, (row["isbn"], row["title"], row["author"], row["price"], category))
    inserted += 1
if db.execute("PRAGMA foreign_key_check").fetchone(): sys.exit("foreign key")
db.execute("COMMIT")
print(inserted)
"""

    def reset():
        fresh(store)
        shutil.copy(seed, store)

    def run_python():
        reset()
        return timed([sys.executable, "-c", python])

    def run_seedkit():
        reset()
        return timed([SEEDKIT, "migrate", store], cwd=project)  # the manifest's rules validate the rows

    peer, tool = pair(run_python, run_seedkit)
    count = subprocess.run(["sqlite3", store, "SELECT count(*) FROM books"], capture_output=True, text=True).stdout.strip()
    assert int(count) == 1000 + n, count
    case = "migrate +100k rows (ref + rules), 1k-row store"
    table.append((case, "python sqlite3, prepared statements, same checks", n, *peer, 1.0, ""))
    table.append((case, "seedkit migrate (JSON migration)", n, *tool, tool[0] / peer[0], "≤ 0.3×"))
    if os.path.exists(BENCH):
        runtimes = []
        for _ in range(REPEAT):
            reset()
            out = subprocess.run([BENCH, "apply", store, seed, os.path.join(project, "migrations")], capture_output=True, text=True, check=True)
            runtimes.append(json.loads(out.stdout))
        best = min(runtimes, key=lambda r: r["seconds"])
        table.append((case, "app runtime SeedInstaller.prepareStore() (in-process)", n, best["seconds"], best["peak_rss_mb"], float("nan"), best["seconds"] / peer[0], "≤ 0.3×"))
        # The change accounting (SQLite's preupdate hook, docs/conflicts-and-triggers.md): the same
        # run in-process with it off (its floor) and on, alternating.
        accounted = {"off": [], "on": []}
        for _ in range(REPEAT):
            for mode in ("off", "on"):
                reset()
                out = subprocess.run([BENCH, "migrate", store, os.path.join(project, "migrations"), mode], capture_output=True, text=True, check=True)
                accounted[mode].append(json.loads(out.stdout)["seconds"])
        off, on = min(accounted["off"]), min(accounted["on"])
        table.append((case, "SeedMigrator.migrate, change accounting off: its floor", n, off, float("nan"), float("nan"), off / peer[0], ""))
        table.append((case, "SeedMigrator.migrate with change accounting (ratio: vs its floor)", n, on, float("nan"), float("nan"), on / off, "≤ 1.05×"))
        # Every later launch: the store has the update; the app loads its bundled migrations and
        # prepareStore() finds nothing pending (the ledger's check reads the big file's checksum).
        out = subprocess.run([BENCH, "launch", store, seed, os.path.join(project, "migrations"), "10"], capture_output=True, text=True, check=True)
        launch = json.loads(out.stdout)
        table.append(("app launch after the 100k-row update was applied (13 MB JSON bundled)", "seedkit-bench launch: load the migrations + prepareStore(), median of 10",
                      n, launch["load_and_prepare_median_ms"] / 1000, float("nan"), float("nan"), float("nan"), ""))


def seedkit_build(fixture):
    project = os.path.join(WORK, "project-" + fixture.replace(".", "-"))
    os.makedirs(os.path.join(project, "seeds"), exist_ok=True)
    with open(os.path.join(project, "seeds", "schema.sql"), "w") as f:
        f.write(SCHEMA)
    with open(os.path.join(project, "seeds", "seedkit.yml"), "w") as f:
        f.write(MANIFEST.format(fixture="../" + fixture))
    fresh(os.path.join(project, "out.sqlite"))
    result = timed([SEEDKIT, "build", "--migrations", "none"], cwd=project)
    return result, os.path.join(project, "out.sqlite")


def install_case(table):
    """The first launch: SeedInstaller copying a ~150 MB seed into place (seedkit-bench install,
    in its own process), against `cp` and `sync` of the file (issue 45: ≤ 1.1×)."""
    if not os.path.exists(BENCH):
        return
    n = 1_600_000
    seed = os.path.join(WORK, "install-seed.sqlite")
    if not os.path.exists(seed):
        make_csv(os.path.join(WORK, f"items-{n}.csv"), n)
        _, out = seedkit_build(f"items-{n}.csv")
        shutil.copy(out, seed)
    empty = os.path.join(WORK, "install-migrations")
    os.makedirs(empty, exist_ok=True)
    store = os.path.join(WORK, "install-store.sqlite")
    os.sync()

    def peer():
        fresh(store)
        return timed(["sh", "-c", f"cp '{seed}' '{store}' && sync '{store}'"])

    def tool():
        fresh(store)
        return timed([BENCH, "install", store, seed, empty])

    base, sk = pair(peer, tool)
    fresh(store)
    case = f"first launch: a {os.path.getsize(seed) / 1e6:.0f} MB seed copied into place"
    table.append((case, "cp + sync of the file", n, *base, 1.0, ""))
    table.append((case, "seedkit-bench install (SeedInstaller.prepareStore(), a process)", n, *sk, sk[0] / base[0], "≤ 1.1×"))


def migration_case(store_rows, table):
    """10,000-row insert migration on a store of store_rows rows: seedkit (JSON and YAML) vs sqlite3."""
    base = os.path.join(WORK, f"store-{store_rows}.sqlite")
    if not os.path.exists(base):
        csv_path = os.path.join(WORK, f"items-{store_rows}.csv")
        make_csv(csv_path, store_rows)
        sqlite_import(csv_path, base)
    new = [dict(zip(COLUMNS, r)) for r in rows(10_000, seed=11, prefix="New ")]
    for r in new:
        del r["id"]
        r["price"] = float(r["price"])
    mig = os.path.join(WORK, "mig")
    shutil.rmtree(mig, ignore_errors=True)
    for kind in ["json", "yml"]:
        os.makedirs(os.path.join(mig, kind))
    with open(os.path.join(mig, "json", "0001-new-items.json"), "w") as f:
        json.dump({"insert": {"items": new}}, f, ensure_ascii=False)
    with open(os.path.join(mig, "yml", "0001-new-items.yml"), "w") as f:
        f.write("insert:\n  items:\n" + "".join("    - " + json.dumps(r, ensure_ascii=False) + "\n" for r in new))
    # The store needs its natural key recorded, as a seed built by seedkit has it.
    spec_sql = ("CREATE TABLE IF NOT EXISTS _seedkit_tables (name TEXT PRIMARY KEY NOT NULL, position INTEGER NOT NULL, key TEXT NOT NULL, refs TEXT NOT NULL) WITHOUT ROWID;"
                "INSERT OR REPLACE INTO _seedkit_tables VALUES ('items', 0, '[\"title\"]', '{}');")
    subprocess.run(["sqlite3", base, spec_sql], check=True)
    sql = os.path.join(WORK, "equivalent.sql")
    with open(sql, "w") as f:
        f.write("BEGIN IMMEDIATE;\n")
        for r in new:
            values = ", ".join("'" + str(r[c]).replace("'", "''") + "'" for c in COLUMNS[1:])
            title = r["title"].replace("'", "''")
            f.write(f"INSERT INTO items (title, author, price, pages, published) SELECT {values} WHERE NOT EXISTS (SELECT 1 FROM items WHERE title = '{title}');\n")
        f.write("COMMIT;\n")
    results = {}
    for _ in range(REPEAT):
        for name, cmd in [("sqlite3 CLI, INSERT … WHERE NOT EXISTS", None), ("seedkit migrate (JSON migration)", "json"), ("seedkit migrate (YAML migration)", "yml")]:
            store = os.path.join(WORK, "migrating.sqlite")
            fresh(store)
            copy_synced(base, store)
            if cmd is None:
                result = timed(["sqlite3", store], stdin=sql)
            else:
                result = timed([SEEDKIT, "migrate", store, "--migrations", os.path.join(mig, cmd), "--manifest", "none"])
            results[name] = min(results.get(name, result), result)
            count = subprocess.run(["sqlite3", store, "SELECT count(*) FROM items"], capture_output=True, text=True).stdout.strip()
            assert int(count) == store_rows + 10_000, (name, count)
    base_time = results["sqlite3 CLI, INSERT … WHERE NOT EXISTS"][0]
    goals = {"seedkit migrate (JSON migration)": "≤ 1.1×", "seedkit migrate (YAML migration)": "≤ 1.3×"}
    for name, (seconds, rss, cpu) in results.items():
        table.append((f"migrate +10k rows on {store_rows:,}-row store", name, 10_000, seconds, rss, cpu, seconds / base_time, goals.get(name, "")))


def query_case(table):
    """A table from a SQL query over a source (docs/reference.md, "Derived tables"): the 1M-row items
    CSV read as a source and reshaped by a SELECT, against the same rows as a fixture and
    against sqlite3 doing the same (.import into a staging table, INSERT … SELECT, DROP)."""
    n = 1_000_000
    csv_path = os.path.join(WORK, f"items-{n}.csv")
    make_csv(csv_path, n)
    os.sync()
    select = ("SELECT title, author, price, pages, published FROM raw "
              "WHERE title IS NOT NULL ORDER BY CAST(id AS INTEGER)")
    project = seedkit_project("query", SCHEMA, "schema: schema.sql\noutput: ../out.sqlite\n"
                              f"sources:\n  raw: {{ file: ../../items-{n}.csv }}\n"
                              "tables:\n  items:\n    query: " + json.dumps(select) + "\n    key: title\n")
    floor_db = os.path.join(WORK, "query-floor.sqlite")
    floor_sql = ("PRAGMA journal_mode=OFF;\nPRAGMA synchronous=OFF;\n" + SCHEMA +
                 f".import --csv {csv_path} raw\n"
                 f"INSERT INTO items (title, author, price, pages, published) {select};\nDROP TABLE raw;\n")
    results = {}
    for _ in range(REPEAT):
        for name in ["sqlite3: .import to staging, INSERT … SELECT", "seedkit build, query: over a source", "seedkit build, the same rows as a fixture"]:
            if name.startswith("sqlite3"):
                result = sqlite_script(floor_db, floor_sql, "query-floor.sql")
            elif "query" in name:
                result = build_in(project)
            else:
                result = seedkit_build(f"items-{n}.csv")[0]
            results[name] = min(results.get(name, result), result)
    count = subprocess.run(["sqlite3", os.path.join(project, "out.sqlite"), "SELECT count(*) FROM items"], capture_output=True, text=True).stdout.strip()
    assert count == str(n), count
    fresh(floor_db)
    base = results["sqlite3: .import to staging, INSERT … SELECT"][0]
    goals = {"seedkit build, query: over a source": "≤ 1.2×"}
    for name, (seconds, rss, cpu) in results.items():
        table.append(("1M rows from a query over a CSV source → typed table + UNIQUE index", name, n, seconds, rss, cpu, seconds / base, goals.get(name, "")))


def sql_step_case(table):
    """A `.sql` data migration (docs/releases.md): 200k INSERTs and 200k UPDATEs, counted through
    seedkit's temporary triggers, against sqlite3 running the same statements in one transaction."""
    n = 200_000
    base = os.path.join(WORK, f"store-{n}.sqlite")
    if not os.path.exists(base):
        csv_path = os.path.join(WORK, f"items-{n}.csv")
        make_csv(csv_path, n)
        sqlite_import(csv_path, base)
    mig = os.path.join(WORK, "mig-sql")
    shutil.rmtree(mig, ignore_errors=True)
    os.makedirs(mig)
    statements = ("INSERT INTO items (title, author, price, pages, published) "
                  "SELECT 'New ' || title, author, price, pages, published FROM items;\n"
                  "UPDATE items SET price = price + 1 WHERE title NOT LIKE 'New %';\n")
    with open(os.path.join(mig, "0001-double.sql"), "w") as f:
        f.write(statements)
    floor = os.path.join(WORK, "sql-step.sql")
    with open(floor, "w") as f:
        f.write("BEGIN IMMEDIATE;\n" + statements + "COMMIT;\n")
    results = {}
    for _ in range(REPEAT):
        for name in ["sqlite3 CLI, the same SQL in one transaction", "seedkit migrate, .sql step (counted)"]:
            store = os.path.join(WORK, "sql-step.sqlite")
            fresh(store)
            copy_synced(base, store)
            if name.startswith("sqlite3"):
                result = timed(["sqlite3", store], stdin=floor)
            else:
                result = timed([SEEDKIT, "migrate", store, "--migrations", mig, "--manifest", "none"])
            results[name] = min(results.get(name, result), result)
            count = subprocess.run(["sqlite3", store, "SELECT count(*) FROM items"], capture_output=True, text=True).stdout.strip()
            assert int(count) == 2 * n, (name, count)
    fresh(os.path.join(WORK, "sql-step.sqlite"))
    floor_time = results["sqlite3 CLI, the same SQL in one transaction"][0]
    goals = {"seedkit migrate, .sql step (counted)": "≤ 1.3×"}
    for name, (seconds, rss, cpu) in results.items():
        table.append((f".sql migration: {n:,} inserts + {n:,} updates", name, 2 * n, seconds, rss, cpu, seconds / floor_time, goals.get(name, "")))


def copy_synced(source, destination):
    """A copy whose pages are on disk before the clock starts: otherwise the timed run's fsync at
    COMMIT writes back the whole freshly copied file (0.45 s for 1.2 GB), and times the copy."""
    shutil.copy(source, destination)
    descriptor = os.open(destination, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def one_gb_store():
    """A store of about 1 GB (10.5M rows of the same items table), made once by SQLite itself
    and cached in build/bench: the issue's "1 row into a 1 GB store" shape."""
    path = os.path.join(WORK, "store-1gb.sqlite")
    if os.path.exists(path):
        return path
    print("generating the 1 GB store (once, cached in build/bench)…", file=sys.stderr)
    temporary = path + ".partial"
    fresh(temporary)
    script = """PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
CREATE TABLE items (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, author TEXT, price REAL, pages INTEGER, published DATE);
CREATE TABLE _seedkit_tables (name TEXT PRIMARY KEY NOT NULL, position INTEGER NOT NULL, key TEXT NOT NULL, refs TEXT NOT NULL) WITHOUT ROWID;
INSERT INTO _seedkit_tables VALUES ('items', 0, '["title"]', '{}');
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10500000)
INSERT INTO items (title, author, price, pages, published)
SELECT printf('item %08d', i), printf('Author %d of a rather long list of authors', i % 977), (i % 90000) / 100.0, i % 1000,
       printf('%04d-%02d-%02d', 1500 + i % 500, 1 + i % 12, 1 + i % 28) FROM n;
"""
    subprocess.run(["sqlite3", temporary], input=script, text=True, check=True)
    os.replace(temporary, path)
    return path


def store_size_cases(table):
    """10k rows into a 10k-row and into a 1M-row store, and the ratio of the two for each tool,
    SQLite's own INSERT … WHERE NOT EXISTS included (what the bigger B-trees cost SQLite itself)."""
    migration_case(10_000, table)
    migration_case(1_000_000, table)
    small = [row for row in table if "10,000-row store" in row[0]]
    for row in [row for row in table if "1,000,000-row store" in row[0]]:
        same = next(r for r in small if r[1] == row[1])
        table.append(("migrate +10k rows: 1M-row store vs 10k-row store", row[1], row[2], row[3], row[4], row[5], row[3] / same[3],
                      "≤ 1.2×" if row[1].startswith("seedkit") else ""))


def foreign_key_store():
    """1M items in 20 categories by a foreign key (items.category_id REFERENCES categories(id)),
    the ref recorded as seedkit records it: made once by SQLite itself and cached in build/bench.
    The shape of a store with refs, where PRAGMA foreign_key_check reads every item."""
    path = os.path.join(WORK, "store-1m-fk.sqlite")
    if os.path.exists(path):
        return path
    temporary = path + ".partial"
    fresh(temporary)
    script = """PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE items (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, price REAL, category_id INTEGER NOT NULL REFERENCES categories(id));
CREATE TABLE _seedkit_tables (name TEXT PRIMARY KEY NOT NULL, position INTEGER NOT NULL, key TEXT NOT NULL, refs TEXT NOT NULL) WITHOUT ROWID;
INSERT INTO _seedkit_tables VALUES ('categories', 0, '["name"]', '{}'),
  ('items', 1, '["title"]', '{"category_id":{"column":"name","table":"categories"}}');
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20)
INSERT INTO categories (name) SELECT printf('Category %d', i) FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
INSERT INTO items (title, price, category_id) SELECT printf('item %08d', i), (i % 90000) / 100.0, 1 + i % 20 FROM n;
"""
    subprocess.run(["sqlite3", temporary], input=script, text=True, check=True)
    os.replace(temporary, path)
    return path


def one_row_migration_case(table):
    """1 inserted row into the 1M-row store (90 MB), into one whose rows have a foreign key, and
    into a 1 GB store: the cost of a small update to a big store, against sqlite3 running the one
    INSERT (the floor: no parsing, no checks)."""
    base = os.path.join(WORK, "store-1000000.sqlite")
    if not os.path.exists(base):
        csv_path = os.path.join(WORK, "items-1000000.csv")
        make_csv(csv_path, 1_000_000)
        sqlite_import(csv_path, base)
        spec_sql = ("CREATE TABLE IF NOT EXISTS _seedkit_tables (name TEXT PRIMARY KEY NOT NULL, position INTEGER NOT NULL, key TEXT NOT NULL, refs TEXT NOT NULL) WITHOUT ROWID;"
                    "INSERT OR REPLACE INTO _seedkit_tables VALUES ('items', 0, '[\"title\"]', '{}');")
        subprocess.run(["sqlite3", base, spec_sql], check=True)

    def migration(name, row, insert_sql):
        """A folder with the one-row migration, and the floor's SQL script."""
        folder = os.path.join(WORK, name)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        with open(os.path.join(folder, "0001-one.json"), "w") as f:
            json.dump({"insert": {"items": [row]}}, f)
        script = os.path.join(WORK, name + ".sql")
        with open(script, "w") as f:
            f.write(f"BEGIN IMMEDIATE; {insert_sql} WHERE NOT EXISTS (SELECT 1 FROM items WHERE title = 'One more item'); COMMIT;\n")
        return folder, script

    plain = migration("mig1", {"title": "One more item", "author": "A", "price": 1.0, "pages": 10, "published": "2020-01-01"},
                      "INSERT INTO items (title, author, price, pages, published) SELECT 'One more item', 'A', 1.0, 10, '2020-01-01'")
    referring = migration("mig1-fk", {"title": "One more item", "price": 1.0, "category_id": "Category 3"},
                          "INSERT INTO items (title, price, category_id) SELECT 'One more item', 1.0, (SELECT id FROM categories WHERE name = 'Category 3')")
    stores = [("a 1M-row store", base, *plain), ("a 1M-row store whose rows have a foreign key", foreign_key_store(), *referring)]
    if os.environ.get("BENCH_ONE_GB", "1") != "0":
        stores.append(("a 1 GB store (10.5M rows)", one_gb_store(), *plain))
    for label, source, mig, sql in stores:
        results = {}
        size = os.path.getsize(source) / 1e6
        case = f"migrate 1 row into {label} ({size:,.0f} MB)"
        for _ in range(REPEAT):
            for name, whole in [("sqlite3 CLI, one INSERT … WHERE NOT EXISTS (floor)", None), ("seedkit migrate (damage check in proportion)", False), ("seedkit migrate --check-whole-store", True)]:
                store = os.path.join(WORK, "migrating.sqlite")
                fresh(store)
                copy_synced(source, store)
                if whole is None:
                    result = timed(["sqlite3", store], stdin=sql)
                else:
                    result = timed([SEEDKIT, "migrate", store, "--migrations", mig, "--manifest", "none"] + (["--check-whole-store"] if whole else []))
                count = subprocess.run(["sqlite3", store, "SELECT count(*) FROM items WHERE title = 'One more item'"], capture_output=True, text=True).stdout.strip()
                assert count == "1", (label, name, count)
                results[name] = min(results.get(name, result), result)
        floor = results["sqlite3 CLI, one INSERT … WHERE NOT EXISTS (floor)"][0]
        for name, (seconds, rss, cpu) in results.items():
            table.append((case, name, 1, seconds, rss, cpu, seconds / floor, "≤ 50 ms" if name.startswith("seedkit migrate (") else ""))
        if os.path.exists(BENCH):
            # The app runtime in-process (SeedInstaller.prepareStore()): no process to start.
            best = None
            for _ in range(REPEAT):
                store = os.path.join(WORK, "migrating.sqlite")
                fresh(store)
                copy_synced(source, store)
                out = subprocess.run([BENCH, "apply", store, source, mig], capture_output=True, text=True, check=True)
                measured = json.loads(out.stdout)
                if best is None or measured["seconds"] < best["seconds"]:
                    best = measured
            table.append((case, "app runtime in-process (prepareStore, no process start)", 1,
                          best["seconds"], best["peak_rss_mb"], float("nan"), best["seconds"] / floor, "≤ 50 ms"))
    fresh(os.path.join(WORK, "migrating.sqlite"))


def ensure_sqldiff():
    if not shutil.which("sqldiff"):
        print("installing sqldiff (Debian package sqlite3-tools)…", file=sys.stderr)
        subprocess.run(["apt-get", "install", "-y", "-qq", "sqlite3-tools"], check=False, capture_output=True)
        if not shutil.which("sqldiff"):
            subprocess.run(["apt-get", "update", "-qq"], check=False, capture_output=True)
            subprocess.run(["apt-get", "install", "-y", "-qq", "sqlite3-tools"], check=True, capture_output=True)


def diff_pair(seed, name, change_sql):
    """Two copies of seed, the second with 1% of its rows changed."""
    old, new = os.path.join(WORK, f"diff-{name}-a.sqlite"), os.path.join(WORK, f"diff-{name}-b.sqlite")
    for path in (old, new):
        fresh(path)
        shutil.copy(seed, path)
    subprocess.run(["sqlite3", new, change_sql], check=True)
    return old, new


def inspect_and_diff(items_seed, books_seed, table, ref_seed=None):
    """inspect on the 1M-row seed; diff of two 1M-row stores that differ in 1% of rows, against
    sqldiff: by primary key, and by natural key in random order (items.title) and in rowid
    order (books.isbn, assigned in id order)."""
    ensure_sqldiff()
    n = 1_000_000
    timed([SEEDKIT, "inspect", items_seed])  # warm the page cache, as for every other case
    best = min(timed([SEEDKIT, "inspect", items_seed]) for _ in range(3))
    table.append(("inspect a 1M-row store (90 MB)", "seedkit inspect", n, *best, float("nan"), ""))
    old, new = diff_pair(items_seed, "items", "UPDATE items SET price = price + 1 WHERE id % 100 = 0")
    # By primary key, like sqldiff: stores without seedkit's recorded natural keys.
    byid = [os.path.join(WORK, f"diff-{side}-pk.sqlite") for side in "ab"]
    for source, target in zip((old, new), byid):
        fresh(target)
        shutil.copy(source, target)
        subprocess.run(["sqlite3", target, "DROP TABLE _seedkit_tables"], check=True)
    case = "diff two 1M-row stores, 1% changed"
    base, pk = pair(lambda: timed(["sqldiff", old, new]), lambda: timed([SEEDKIT, "diff", *byid, "--manifest", "none"]))
    table.append((case, "sqldiff (by primary key)", n, *base, 1.0, ""))
    table.append((case, "seedkit diff (by primary key)", n, *pk, pk[0] / base[0], "≤ 1.0×"))
    _, key = pair(lambda: (0, 0, 0), lambda: timed([SEEDKIT, "diff", old, new, "--manifest", "none"]))
    table.append((case, "seedkit diff (natural key, random order: title)", n, *key, key[0] / base[0], "≤ 1.0×"))
    _, key_json = pair(lambda: (0, 0, 0), lambda: timed([SEEDKIT, "diff", old, new, "--manifest", "none", "--format", "json"]))
    table.append((case, "seedkit diff (natural key, random order, --format json)", n, *key_json, key_json[0] / base[0], "≤ 1.0×"))
    # Rows removed and added, not only changed (issue 23): by natural key, against sqldiff.
    shapes = [
        ("3,333 rows removed", "DELETE FROM items WHERE id % 300 = 0"),
        ("3,333 rows added", "INSERT INTO items (title, author, price, pages, published) SELECT 'Added ' || id, author, price, pages, published FROM items WHERE id % 300 = 0"),
        ("1% changed + 3,333 removed + 3,333 added", "UPDATE items SET price = price + 1 WHERE id % 100 = 0; DELETE FROM items WHERE id % 300 = 1; "
         "INSERT INTO items (title, author, price, pages, published) SELECT 'Added ' || id, author, price, pages, published FROM items WHERE id % 300 = 2"),
    ]
    for label, change in shapes:
        old, new = diff_pair(items_seed, "items-shape", change)
        case = f"diff two 1M-row stores, {label}"
        base, key = pair(lambda: timed(["sqldiff", "--table", "items", old, new]), lambda: timed([SEEDKIT, "diff", old, new, "--manifest", "none"]))
        table.append((case, "sqldiff --table items", n, *base, 1.0, ""))
        table.append((case, "seedkit diff (natural key: title)", n, *key, key[0] / base[0], "≤ 1.0×"))
        _, key_json = pair(lambda: (0, 0, 0), lambda: timed([SEEDKIT, "diff", old, new, "--manifest", "none", "--format", "json"]))
        table.append((case, "seedkit diff (natural key, --format json)", n, *key_json, key_json[0] / base[0], "≤ 1.0×"))
        if "changed +" in label:  # every output format on the mixed shape
            for fmt in ["csv", "markdown"]:
                _, other = pair(lambda: (0, 0, 0), lambda: timed([SEEDKIT, "diff", old, new, "--manifest", "none", "--format", fmt]))
                table.append((case, f"seedkit diff (natural key, --format {fmt})", n, *other, other[0] / base[0], "≤ 1.0×"))
    if ref_seed:
        diff_with_ref(ref_seed, table)
    if books_seed:
        old, new = diff_pair(books_seed, "books", "UPDATE books SET price = price + 1 WHERE id % 100 = 0")
        case = "diff two 1M-row book stores, 1% changed"
        base, key = pair(lambda: timed(["sqldiff", old, new]), lambda: timed([SEEDKIT, "diff", old, new, "--manifest", "none"]))
        table.append((case, "sqldiff (by primary key)", n, *base, 1.0, ""))
        table.append((case, "seedkit diff (natural key in rowid order: isbn)", n, *key, key[0] / base[0], "≤ 1.0×"))
        _, key_json = pair(lambda: (0, 0, 0), lambda: timed([SEEDKIT, "diff", old, new, "--manifest", "none", "--format", "json"]))
        table.append((case, "seedkit diff (natural key in rowid order, --format json)", n, *key_json, key_json[0] / base[0], "≤ 1.0×"))


def diff_with_ref(ref_seed, table):
    """The mixed shape on the ref build's seed (issue 23): 1% of prices and 0.5% of categories
    (a ref, compared by the parent's name) changed, 3,333 rows removed and 3,333 added; by the
    recorded key `isbn` (rowid order) and by `title` (random order, through a manifest), in every
    output format, against sqldiff --table books."""
    n = 1_000_000
    change = ("UPDATE books SET price = price + 1 WHERE id % 100 = 0; "
              "UPDATE books SET category_id = category_id % 50 + 1 WHERE id % 200 = 50; "
              "DELETE FROM books WHERE id % 300 = 1; "
              "INSERT INTO books (isbn, title, author, price, category_id) "
              "SELECT '979' || substr(isbn, 4), 'Added ' || title, author, price, category_id FROM books WHERE id % 300 = 2")
    old, new = diff_pair(ref_seed, "books-ref", change)
    by_title, _ = ref_project("books-ref-title", key="title")
    title_manifest = os.path.join(by_title, "seeds", "seedkit.yml")
    case = "diff two 1M-row stores with a ref: 1% changed + 0.5% recategorised + 3,333 removed + 3,333 added"
    base = None
    for label, extra in [("natural key in rowid order: isbn", ["--manifest", "none"]), ("natural key, random order: title", ["--manifest", title_manifest])]:
        for fmt in ["table", "json", "csv", "markdown"]:
            command = [SEEDKIT, "diff", old, new, *extra, "--format", fmt]
            if base is None:
                base, tool = pair(lambda: timed(["sqldiff", "--table", "books", old, new]), lambda: timed(command))
                table.append((case, "sqldiff --table books", n, *base, 1.0, ""))
            else:
                _, tool = pair(lambda: (0, 0, 0), lambda: timed(command))
            table.append((case, f"seedkit diff ({label}, --format {fmt})", n, *tool, tool[0] / base[0], "≤ 1.0×"))


def print_table(table):
    print()
    print(f"Each case's first row is its peer; best of {REPEAT} alternating runs each.")
    print()
    print("| case | tool | rows | wall s | CPU s | peak RSS MB | vs peer | goal |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for case, tool, count, seconds, rss, cpu, ratio, goal in table:
        shown = "–" if ratio != ratio else f"{ratio:.2f}×"
        verdict = ""
        if goal and goal.endswith(" ms"):  # an absolute goal: the wall time itself
            verdict = f"{goal} {'met' if seconds * 1000 <= float(goal.split()[1]) else 'NOT met'}"
        elif goal and ratio == ratio:
            verdict = f"{goal} {'met' if ratio <= float(goal.split()[1].rstrip('×')) else 'NOT met'}"
        shown_cpu = "–" if cpu != cpu else f"{cpu:.2f}"
        wall = f"{seconds:.3f}" if seconds < 1 else f"{seconds:.2f}"
        shown_rss = "–" if rss != rss else f"{rss:.0f}"
        print(f"| {case} | {tool} | {count:,} | {wall} | {shown_cpu} | {shown_rss} | {shown} | {verdict} |")


def check_upgrade_case(table, count=200_000, changed=30_000):
    """check-upgrade of one old seed through a release of `changed` rows, beside build + migrate of it."""
    project = os.path.join(WORK, f"check-upgrade-{count}")
    shutil.rmtree(project, ignore_errors=True)
    os.makedirs(os.path.join(project, "seeds", "data"))
    os.makedirs(os.path.join(project, "seeds", "releases"))
    with open(os.path.join(project, "seeds", "schema.sql"), "w") as f:
        f.write("CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);\n"
                "CREATE TABLE books (id INTEGER PRIMARY KEY, isbn TEXT NOT NULL UNIQUE, title TEXT NOT NULL, author TEXT, "
                "price REAL, category_id INTEGER REFERENCES categories(id));\n")
    with open(os.path.join(project, "seeds", "seedkit.yml"), "w") as f:
        f.write("schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n"
                "  categories: { file: data/categories.csv, key: name }\n"
                "  books: { file: data/books.csv, key: isbn, refs: { category_id: categories.name } }\n")
    with open(os.path.join(project, "seeds", "data", "categories.csv"), "w") as f:
        f.write("name\n" + "".join(f"{c}\n" for c in CATEGORIES))

    def write_books(release):
        rng = random.Random(3)
        step = count // changed
        with open(os.path.join(project, "seeds", "data", "books.csv"), "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(["isbn", "title", "author", "price", "category_id"])
            for i, row in enumerate(book_rows(count)):
                category = rng.choice(CATEGORIES)
                if release and i % step == 0:
                    if i % (step * 10) == 0:
                        continue  # deleted
                    row[4] = f"{float(row[4]) + 1:.2f}"  # updated
                writer.writerow(row[1:4] + [row[4], category])
            if release:
                for i in range(changed // 10):  # inserted
                    writer.writerow([f"979{i:010d}", f"New {i}", "Author", "1.00", CATEGORIES[i % len(CATEGORIES)]])

    write_books(False)
    subprocess.run([SEEDKIT, "build", "--output", "seeds/releases/1.0.sqlite"], cwd=project, check=True,
                   capture_output=True)
    write_books(True)
    subprocess.run([SEEDKIT, "new-migration", "release", "--from", "seeds/releases/1.0.sqlite"], cwd=project,
                   check=True, capture_output=True)
    store = os.path.join(project, "store.sqlite")

    def build_and_migrate():
        fresh(os.path.join(project, "build", "seed.sqlite"))
        built = timed([SEEDKIT, "build"], cwd=project)
        fresh(store)
        copy_synced(os.path.join(project, "seeds", "releases", "1.0.sqlite"), store)
        migrated = timed([SEEDKIT, "migrate", store], cwd=project)
        return built[0] + migrated[0], max(built[1], migrated[1]), built[2] + migrated[2]

    floor, tool = pair(build_and_migrate, lambda: timed([SEEDKIT, "check-upgrade", "seeds/releases/1.0.sqlite"],
                                                        cwd=project))
    case = f"check-upgrade, {count:,}-row seed, {changed:,}-row release"
    table.append((case, "seedkit build + seedkit migrate of the release", changed, *floor, 1.0, ""))
    table.append((case, "seedkit check-upgrade (one old seed)", changed, *tool, tool[0] / floor[0], "≤ 1.5×"))


def build_with_migration_case(table):
    bench_release.build_with_migration_case(table, sys.modules[__name__])


def migrate_cost_cases(table):
    bench_release.migrate_cost_cases(table, sys.modules[__name__])


def main():
    os.makedirs(WORK, exist_ok=True)
    for tool in ["sqlite3"]:
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is needed: apt-get install sqlite3")
    table = []
    if ONLY == "migrate100k":  # one case, for profiling; the default runs them all
        big_migration_case(table)
        print_table(table)
        return
    if ONLY == "ref":  # the ref build alone, with its floor
        ref_case(table)
        print_table(table)
        return
    if ONLY == "diff":  # the diff cases alone, on the 1M-row seed
        make_csv(os.path.join(WORK, "items-1000000.csv"), 1_000_000)
        _, items_seed = seedkit_build("items-1000000.csv")
        project, _ = ref_project()
        build_in(project)
        inspect_and_diff(items_seed, None, table, os.path.join(project, "out.sqlite"))
        print_table(table)
        return
    if ONLY == "migrate10k":  # 10k rows into a 10k-row and a 1M-row store: cost follows the rows
        store_size_cases(table)
        print_table(table)
        return
    if ONLY == "migrate1":
        one_row_migration_case(table)
        print_table(table)
        return
    if ONLY == "install":  # the first launch's copy, beside cp + sync
        install_case(table)
        print_table(table)
        return
    if ONLY == "forwardref":  # a tree listed children first, beside the same tree parents first
        forward_ref_case(table)
        print_table(table)
        return
    if ONLY == "query":  # a table from a query over a source, with its floor
        query_case(table)
        print_table(table)
        return
    if ONLY == "sqlstep":  # a .sql migration with its counting triggers, with its floor
        sql_step_case(table)
        print_table(table)
        return
    if ONLY == "buildmig":  # build once a 150k-row migration exists, beside the build without it
        build_with_migration_case(table)
        print_table(table)
        return
    if ONLY == "migratecost":  # deletes and ref changes beside inserts; a hierarchy's deletes
        migrate_cost_cases(table)
        print_table(table)
        return
    if ONLY in ("inspect", "newmigration", "export"):  # the commands around a release (bench_tools.py)
        {"inspect": bench_tools.inspect_cases, "newmigration": bench_tools.new_migration_cases,
         "export": bench_tools.export_cases}[ONLY](table, sys.modules[__name__])
        print_table(table)
        return
    if ONLY == "checkupgrade":  # check-upgrade of a release, beside build + migrate of it
        rows = int(os.environ.get("BENCH_ROWS", "200000"))  # the release changes 15% of them
        check_upgrade_case(table, rows, rows * 3 // 20)
        print_table(table)
        return
    n = 1_000_000
    csv1 = os.path.join(WORK, f"items-{n}.csv")
    print("generating data (cached in build/bench)…", file=sys.stderr)
    make_csv(csv1, n)
    make_json(os.path.join(WORK, f"items-{n}.jsonl"), n, lines=True)
    make_json(os.path.join(WORK, f"items-{n}.json"), n, lines=False)
    os.sync()  # freshly written data is flushed before timing; writeback doubled some timings otherwise

    print("CSV and JSON, 1M rows…", file=sys.stderr)
    imports, builds, jsonl, jsona = [], [], [], []
    out = None
    for _ in range(REPEAT):
        imports.append(sqlite_import(csv1, os.path.join(WORK, "import.sqlite")))
        result, out = seedkit_build(f"items-{n}.csv")
        builds.append(result)
        jsonl.append(seedkit_build(f"items-{n}.jsonl")[0])
        jsona.append(seedkit_build(f"items-{n}.json")[0])
    base, sk, jl, ja = min(imports), min(builds), min(jsonl), min(jsona)
    case = "1M rows (CSV, JSON Lines, JSON array) → typed table + UNIQUE index"
    table.append((case, "sqlite3 .import of the CSV (journal off)", n, *base, 1.0, ""))
    table.append((case, "seedkit build, CSV (rules on)", n, *sk, sk[0] / base[0], "≤ 0.85×"))
    count = subprocess.run(["sqlite3", out, "SELECT count(*) FROM items"], capture_output=True, text=True).stdout.strip()
    assert count == str(n), count
    table.append((case, "seedkit build, JSON Lines", n, *jl, jl[0] / base[0], "≤ 0.9×"))
    table.append((case, "seedkit build, JSON array (streamed)", n, *ja, ja[0] / base[0], "≤ 0.9×"))
    py = python_loader(csv1, os.path.join(WORK, "python.sqlite"))
    table.append((case, "python csv + sqlite3.executemany", n, *py, py[0] / base[0], ""))
    sj = sqlite_json(os.path.join(WORK, f"items-{n}.json"), os.path.join(WORK, "json.sqlite"))
    table.append((case, "sqlite3 json_each(readfile()) of the JSON array", n, *sj, sj[0] / base[0], ""))
    for path in ["python.sqlite", "json.sqlite"]:
        fresh(os.path.join(WORK, path))

    if BIG:
        print(f"CSV, {BIG:,} rows…", file=sys.stderr)
        big = os.path.join(WORK, f"items-{BIG}.csv")
        make_csv(big, BIG)
        os.sync()
        bb = sqlite_import(big, os.path.join(WORK, "import.sqlite"))
        table.append((f"CSV {BIG // 1_000_000}M rows", "sqlite3 .import (journal off)", BIG, *bb, 1.0, ""))
        (sb, _) = seedkit_build(f"items-{BIG}.csv")
        table.append((f"CSV {BIG // 1_000_000}M rows", "seedkit build (rules on)", BIG, *sb, sb[0] / bb[0], ""))
        fresh(os.path.join(WORK, "import.sqlite"))

    print("pattern rule and ref, 1M rows…", file=sys.stderr)
    pattern_cases(table)
    ref_seed = ref_case(table)
    forward_ref_case(table)
    query_case(table)
    books_seed = os.path.join(WORK, "books-isbn-with", "out.sqlite")  # key isbn, assigned in id order

    print("migrations…", file=sys.stderr)
    store_size_cases(table)
    one_row_migration_case(table)
    install_case(table)
    big_migration_case(table)
    sql_step_case(table)
    check_upgrade_case(table, 1_000_000, 150_000)  # issue 45's shape
    build_with_migration_case(table)
    migrate_cost_cases(table)
    bench_tools.new_migration_cases(table, sys.modules[__name__])
    bench_tools.export_cases(table, sys.modules[__name__])

    print("inspect and diff…", file=sys.stderr)
    bench_tools.inspect_cases(table, sys.modules[__name__])
    inspect_and_diff(out, books_seed, table, ref_seed)

    launch = None
    if os.path.exists(BENCH):
        print("app launch…", file=sys.stderr)
        project = os.path.join(WORK, "launch")
        shutil.rmtree(project, ignore_errors=True)
        shutil.copytree(os.path.join(ROOT, "seeds"), os.path.join(project, "seeds"))
        os.makedirs(os.path.join(project, "migrations"))
        with open(os.path.join(project, "migrations", "0001-add-fourth-book.json"), "w") as f:
            json.dump({"insert": {"books": [{"title": "The fourth book", "price": 12, "category_id": "Biography"}]}}, f)
        subprocess.run([SEEDKIT, "build", "--output", "seed.sqlite"], cwd=project, check=True, capture_output=True)
        shutil.copy(os.path.join(project, "seed.sqlite"), os.path.join(project, "store.sqlite"))
        out = subprocess.run([BENCH, "launch", "store.sqlite", "seed.sqlite", "migrations", "1000"], cwd=project, capture_output=True, text=True, check=True)
        launch = json.loads(out.stdout)

    print_table(table)
    if launch:
        print()
        print(f"App launch on an up-to-date store, in-process ({launch['iterations']} runs): "
              f"prepareStore() median {launch['prepare_median_ms']:.3f} ms (p95 {launch['prepare_p95_ms']:.3f} ms); "
              f"loading the bundled migrations too: median {launch['load_and_prepare_median_ms']:.3f} ms (p95 {launch['load_and_prepare_p95_ms']:.3f} ms)")
    print(f"\nmachine: {os.cpu_count()} cores; sqlite3 {subprocess.run(['sqlite3', '--version'], capture_output=True, text=True).stdout.split()[0]}")


if __name__ == "__main__":
    main()
