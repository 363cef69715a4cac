#!/usr/bin/env python3
"""make bench: seedkit against sqlite3 and peers, side by side in one run, one table.

Generates its data under build/bench (kept between runs), then times:
  * building a typed, indexed table from CSV / JSON Lines / a JSON array (rules on),
    against `sqlite3 .import` (journal off), SQLite's own JSON functions, and a
    Python csv + sqlite3.executemany loader;
  * peak RSS at 1M and 5M rows (streaming: it must stay flat);
  * a 10,000-row insert migration on a 10,000-row and a 1,000,000-row store, against the
    sqlite3 CLI running the equivalent INSERT ... WHERE NOT EXISTS script;
  * the app-launch path on an up-to-date store, in-process.
Set BENCH_ROWS_BIG=0 to skip the 5M-row runs.
"""
import csv, json, os, random, shutil, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "build", "bench")
SEEDKIT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/release/seedkit"))
BENCH = os.path.join(os.path.dirname(SEEDKIT), "seedkit-bench")
BIG = int(os.environ.get("BENCH_ROWS_BIG", "5000000"))

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
    """Runs cmd; returns (seconds, peak RSS in MB of that process)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdin=open(stdin) if stdin else subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    err = proc.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{err}")
    return seconds, usage.ru_maxrss / 1024


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
    for name, cmd in [("sqlite3 CLI, INSERT … WHERE NOT EXISTS", None), ("seedkit migrate (JSON migration)", "json"), ("seedkit migrate (YAML migration)", "yml")]:
        store = os.path.join(WORK, "migrating.sqlite")
        fresh(store)
        shutil.copy(base, store)
        if cmd is None:
            results[name] = timed(["sqlite3", store], stdin=sql)
        else:
            results[name] = timed([SEEDKIT, "migrate", store, "--migrations", os.path.join(mig, cmd), "--manifest", "none"])
        count = subprocess.run(["sqlite3", store, "SELECT count(*) FROM items"], capture_output=True, text=True).stdout.strip()
        assert int(count) == store_rows + 10_000, (name, count)
    base_time = results["sqlite3 CLI, INSERT … WHERE NOT EXISTS"][0]
    for name, (seconds, rss) in results.items():
        table.append((f"migrate +10k rows on {store_rows:,}-row store", name, 10_000, seconds, rss, seconds / base_time))


def inspect_and_diff(seed, table):
    """inspect on the 1M-row seed; diff of two 1M-row stores that differ in 1% of rows, against sqldiff."""
    if not shutil.which("sqldiff"):
        print("installing sqldiff (Debian package sqlite3-tools)…", file=sys.stderr)
        subprocess.run(["apt-get", "install", "-y", "-qq", "sqlite3-tools"], check=False, capture_output=True)
        if not shutil.which("sqldiff"):
            subprocess.run(["apt-get", "update", "-qq"], check=False, capture_output=True)
            subprocess.run(["apt-get", "install", "-y", "-qq", "sqlite3-tools"], check=True, capture_output=True)
    n = 1_000_000
    timed([SEEDKIT, "inspect", seed])  # warm the page cache, as for every other case
    best = min(timed([SEEDKIT, "inspect", seed]) for _ in range(3))
    table.append(("inspect a 1M-row store (90 MB)", "seedkit inspect", n, *best, float("nan")))
    old, new = os.path.join(WORK, "diff-a.sqlite"), os.path.join(WORK, "diff-b.sqlite")
    for path in (old, new):
        fresh(path)
        shutil.copy(seed, path)
    subprocess.run(["sqlite3", new, "UPDATE items SET price = price + 1 WHERE id % 100 = 0"], check=True)
    base = timed(["sqldiff", old, new])
    table.append(("diff two 1M-row stores, 1% changed", "sqldiff (by primary key)", n, *base, 1.0))
    # By primary key, like sqldiff: stores without seedkit's recorded natural keys.
    byid = [os.path.join(WORK, f"diff-{side}-pk.sqlite") for side in "ab"]
    for source, target in zip((old, new), byid):
        fresh(target)
        shutil.copy(source, target)
        subprocess.run(["sqlite3", target, "DROP TABLE _seedkit_tables"], check=True)
    pk = timed([SEEDKIT, "diff", *byid, "--manifest", "none"])
    table.append(("diff two 1M-row stores, 1% changed", "seedkit diff (by primary key)", n, *pk, pk[0] / base[0]))
    key = timed([SEEDKIT, "diff", old, new, "--manifest", "none"])
    table.append(("diff two 1M-row stores, 1% changed", "seedkit diff (by natural key: title)", n, *key, key[0] / base[0]))


def main():
    os.makedirs(WORK, exist_ok=True)
    for tool in ["sqlite3"]:
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is needed: apt-get install sqlite3")
    table = []
    n = 1_000_000
    csv1 = os.path.join(WORK, f"items-{n}.csv")
    print("generating data (cached in build/bench)…", file=sys.stderr)
    make_csv(csv1, n)
    make_json(os.path.join(WORK, f"items-{n}.jsonl"), n, lines=True)
    make_json(os.path.join(WORK, f"items-{n}.json"), n, lines=False)
    os.sync()  # freshly written data is flushed before timing; writeback doubled some timings otherwise

    print("CSV, 1M rows…", file=sys.stderr)
    base = sqlite_import(csv1, os.path.join(WORK, "import.sqlite"))
    table.append(("CSV 1M rows → typed table + UNIQUE index", "sqlite3 .import (journal off)", n, *base, 1.0))
    (sk, out) = seedkit_build(f"items-{n}.csv")
    table.append(("CSV 1M rows → typed table + UNIQUE index", "seedkit build (rules on)", n, *sk, sk[0] / base[0]))
    count = subprocess.run(["sqlite3", out, "SELECT count(*) FROM items"], capture_output=True, text=True).stdout.strip()
    assert count == str(n), count
    py = python_loader(csv1, os.path.join(WORK, "python.sqlite"))
    table.append(("CSV 1M rows → typed table + UNIQUE index", "python csv + sqlite3.executemany", n, *py, py[0] / base[0]))

    print("JSON, 1M rows…", file=sys.stderr)
    (jl, _) = seedkit_build(f"items-{n}.jsonl")
    table.append(("JSON Lines 1M rows", "seedkit build", n, *jl, jl[0] / base[0]))
    (ja, _) = seedkit_build(f"items-{n}.json")
    table.append(("JSON array 1M rows", "seedkit build (streamed)", n, *ja, ja[0] / base[0]))
    sj = sqlite_json(os.path.join(WORK, f"items-{n}.json"), os.path.join(WORK, "json.sqlite"))
    table.append(("JSON array 1M rows", "sqlite3 json_each(readfile())", n, *sj, sj[0] / base[0]))

    if BIG:
        print(f"CSV, {BIG:,} rows…", file=sys.stderr)
        big = os.path.join(WORK, f"items-{BIG}.csv")
        make_csv(big, BIG)
        os.sync()
        bb = sqlite_import(big, os.path.join(WORK, "import.sqlite"))
        table.append((f"CSV {BIG // 1_000_000}M rows", "sqlite3 .import (journal off)", BIG, *bb, 1.0))
        (sb, _) = seedkit_build(f"items-{BIG}.csv")
        table.append((f"CSV {BIG // 1_000_000}M rows", "seedkit build (rules on)", BIG, *sb, sb[0] / bb[0]))
        fresh(os.path.join(WORK, "import.sqlite"))

    print("migrations…", file=sys.stderr)
    migration_case(10_000, table)
    migration_case(1_000_000, table)

    print("inspect and diff…", file=sys.stderr)
    inspect_and_diff(out, table)

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

    print()
    print("| case | tool | rows | wall s | rows/s | peak RSS MB | vs sqlite3 |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for case, tool, count, seconds, rss, ratio in table:
        shown = "–" if ratio != ratio else f"{ratio:.2f}×"
        print(f"| {case} | {tool} | {count:,} | {seconds:.2f} | {count / seconds:,.0f} | {rss:.0f} | {shown} |")
    if launch:
        print()
        print(f"App launch on an up-to-date store, in-process ({launch['iterations']} runs): "
              f"prepareStore() median {launch['prepare_median_ms']:.3f} ms (p95 {launch['prepare_p95_ms']:.3f} ms); "
              f"loading the bundled migrations too: median {launch['load_and_prepare_median_ms']:.3f} ms (p95 {launch['load_and_prepare_p95_ms']:.3f} ms)")
    print(f"\nmachine: {os.cpu_count()} cores; sqlite3 {subprocess.run(['sqlite3', '--version'], capture_output=True, text=True).stdout.split()[0]}")


if __name__ == "__main__":
    main()
