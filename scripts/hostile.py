#!/usr/bin/env python3
"""Hostile-schema harness (issue 22): generated schemas, fixtures, user edits and migrations,
run through the real `seedkit build` and `seedkit migrate`, each run audited independently
with Python's own sqlite3 module (none of seedkit's code).

Schemas mix what real apps write: ON CONFLICT clauses (REPLACE, IGNORE, FAIL, ABORT, ROLLBACK),
partial and expression indexes, COLLATE NOCASE keys, AUTOINCREMENT, WITHOUT ROWID, STRICT,
generated columns, views, and triggers that veto (RAISE(IGNORE)), abort (RAISE(ABORT)) or
write elsewhere (an audit log).

The audit, after each run:
  build    exit 0 exactly when the fixtures can all be stored (an oracle computed here: unique
           keys, unique values where the schema says UNIQUE, no row a trigger vetoes or aborts);
           on success the seed holds every fixture row with its values and nothing else, and
           the summary's counts are the seed's; on failure no output file and no temp file.
  migrate  on failure the store's bytes are unchanged; on success every entry of the migration
           has an event with its key; every 'inserted' row is in the store with the migration's
           values and was not there before; every 'updated' row holds the new values; every
           'deleted' row is gone; every row no applied event names is unchanged (nothing of the
           user's lost); every new row is named by an 'inserted' event; --on-conflict fail with
           a conflict fails; a second run changes nothing.
  check-upgrade  the seed ships as release 1.0; the next release's fixtures are what the
           migration makes of a pristine copy; check-upgrade passes exactly when a fresh build of
           them can succeed, and leaves the shipped seed's bytes and folder as they were.

  issue 34 each case also probes, from its own stream (seed:case:34): a `.sql` migration's
           pragma (every one that sets something but user_version refused, exit 2, the store's
           bytes unchanged; the allowed ones run); a `.sql` write (INSERT [OR REPLACE], REPLACE,
           UPDATE [OR REPLACE], upserts, DELETE) over a row the user edited, against what
           SQLite's own triggers count in Python: a statement other than DELETE that deletes a
           row fails (exit 1, unchanged), otherwise the report's counts and deleted rows are
           SQLite's; an untrusted view (recursing forever, or needing trusted_schema) read by
           inspect ends with exit 3 in bounded time; a symlink to an empty file is refused, one
           to the store is read as its target; a named --manifest that is not there is exit 2;
           `ulimit -n` below 32 is exit 4 with nothing written; under a random `ulimit -v` the run
           ends on its own or on SIGINT, and its migration is applied whole or not at all.

Usage: hostile.py SEEDKIT [--cases N] [--seed S] [--case K] [--keep DIR] [--verbose] [--jobs J]
  Cases are numbered from the seed: `--seed 22 --case 137` replays case 137 alone.
  `make test-slow` (CI) runs 100 cases (HOSTILE_CASES); release time runs 600+:
  `python3 scripts/hostile.py .build/debug/seedkit --cases 600`.
"""
import argparse, hashlib, json, multiprocessing, os, random, shutil, sqlite3, subprocess, sys, tempfile

TITLES = ["Dune", "Emma", "Nana", "Ulysses", "Beloved", "Kim", "Heidi", "Rebecca", "Carrie", "Lolita",
          "Matilda", "Persuasion", "Middlemarch", "Walden", "Candide"]
ISBNS = ["111", "222", "333", "444", "555", "666", None]
CATEGORIES = ["Fiction", "Biography"]


class Case:
    def __init__(self, seed, number):
        self.seed = seed
        self.number = number
        r = random.Random(f"{seed}:{number}")
        self.r = r
        self.without_rowid = r.random() < 0.12
        self.autoincrement = not self.without_rowid and r.random() < 0.25
        self.strict = r.random() < 0.2
        self.nocase = r.random() < 0.2
        self.isbn_rule = r.choice(["none", "unique", "REPLACE", "IGNORE", "FAIL", "ABORT", "ROLLBACK", "partial", "none"])
        self.generated = r.random() < 0.25
        self.expression_index = r.random() < 0.25
        self.view = r.random() < 0.3
        self.veto_insert = r.random() < 0.3       # BEFORE INSERT … WHEN price > 100 RAISE(IGNORE)
        self.abort_insert = r.random() < 0.15     # BEFORE INSERT … WHEN price = 13 RAISE(ABORT)
        self.veto_update = r.random() < 0.2       # BEFORE UPDATE … WHEN NEW.price > 100 RAISE(IGNORE)
        self.veto_delete = r.random() < 0.2       # BEFORE DELETE … WHEN OLD.title LIKE 'K%' RAISE(IGNORE)
        self.audit_log = r.random() < 0.25        # AFTER INSERT/UPDATE/DELETE → log table
        self.on_conflict_fail = r.random() < 0.2
        # Fixtures: a few books; sometimes a duplicate title or isbn, a vetoed or aborted price.
        count = r.randint(1, 8)
        titles = r.sample(TITLES, count)
        if r.random() < 0.1 and count > 1:
            titles[-1] = titles[0] if r.random() < 0.5 or not self.nocase else titles[0].upper()
        self.fixtures = [self.book(t) for t in titles]
        if r.random() < 0.85:
            # Mostly distinct isbns (a shared one fails the build where isbn is UNIQUE).
            free = r.sample(ISBNS[:-1] + ["777", "888", "999"], min(count, 9))
            for book, isbn in zip(self.fixtures, free):
                book["isbn"] = isbn if r.random() < 0.85 else None
        # What the user does to their copy of the seed.
        self.user_inserts = [self.book(f"Mine {i}") for i in range(r.randint(0, 3))]
        self.user_price_edits = [t for t in titles if r.random() < 0.25]
        self.user_deletes = [t for t in titles if r.random() < 0.15]
        # The migration: inserts (new, already there, the user's, duplicates), updates, deletes.
        pool = TITLES + [b["title"] for b in self.user_inserts]
        self.m_inserts = [self.book(r.choice(pool)) for _ in range(r.randint(0, 5))]
        for book in self.m_inserts:
            if book["isbn"] is not None and r.random() < 0.6:
                book["isbn"] = str(r.randint(700, 799))  # mostly a fresh isbn: most runs then apply
        self.m_updates = []
        self.m_deletes = []
        for book in self.fixtures:
            roll = r.random()
            if roll < 0.3:
                to = {"price": self.price()}
                if r.random() < 0.4:
                    to["isbn"] = r.choice(ISBNS)
                self.m_updates.append((book, to))
            elif roll < 0.45:
                self.m_deletes.append(book)

    def price(self):
        return self.r.choice([5, 9, 10, 12, 13, 15, 20, 150, 500])

    def book(self, title):
        return {"title": title, "price": self.price(), "category": self.r.choice(CATEGORIES), "isbn": self.r.choice(ISBNS)}

    # -- files ------------------------------------------------------------------------------
    def schema(self):
        title = "title TEXT NOT NULL" + (" COLLATE NOCASE" if self.nocase else "")
        isbn = "isbn TEXT"
        if self.isbn_rule == "unique":
            isbn += " UNIQUE"
        elif self.isbn_rule in ("REPLACE", "IGNORE", "FAIL", "ABORT", "ROLLBACK"):
            isbn += " UNIQUE ON CONFLICT " + self.isbn_rule
        columns = []
        if self.without_rowid:
            columns.append(title + " PRIMARY KEY")
        else:
            columns.append("id INTEGER PRIMARY KEY" + (" AUTOINCREMENT" if self.autoincrement else ""))
            columns.append(title + " UNIQUE")
        columns += ["price REAL NOT NULL", "category_id INTEGER NOT NULL REFERENCES categories(id)", isbn]
        if self.generated:
            columns.append("cents INTEGER GENERATED ALWAYS AS (CAST(price * 100 AS INTEGER)) VIRTUAL")
        tail = ""
        if self.without_rowid:
            tail = " WITHOUT ROWID"
        if self.strict:
            tail += ("," if tail else "") + " STRICT"
        sql = ["CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)" + (" STRICT" if self.strict else "") + ";",
               "CREATE TABLE books (" + ", ".join(columns) + ")" + tail + ";"]
        if self.isbn_rule == "partial":
            sql.append("CREATE UNIQUE INDEX books_isbn ON books(isbn) WHERE isbn IS NOT NULL;")
        if self.expression_index:
            sql.append("CREATE INDEX books_lower ON books(lower(title));")
        if self.view:
            sql.append("CREATE VIEW cheap AS SELECT title, price FROM books WHERE price < 10;")
        if self.veto_insert:
            sql.append("CREATE TRIGGER no_pricey BEFORE INSERT ON books WHEN NEW.price > 100 BEGIN SELECT RAISE(IGNORE); END;")
        if self.abort_insert:
            sql.append("CREATE TRIGGER no_thirteen BEFORE INSERT ON books WHEN NEW.price = 13 BEGIN SELECT RAISE(ABORT, 'no 13'); END;")
        if self.veto_update:
            sql.append("CREATE TRIGGER frozen BEFORE UPDATE ON books WHEN NEW.price > 100 BEGIN SELECT RAISE(IGNORE); END;")
        if self.veto_delete:
            sql.append("CREATE TRIGGER keep_k BEFORE DELETE ON books WHEN OLD.title LIKE 'K%' BEGIN SELECT RAISE(IGNORE); END;")
        if self.audit_log:
            sql.append("CREATE TABLE log (what TEXT, title TEXT);")
            for event, row in (("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD")):
                sql.append(f"CREATE TRIGGER log_{event.lower()} AFTER {event} ON books BEGIN INSERT INTO log VALUES ('{event}', {row}.title); END;")
        return "\n".join(sql) + "\n"

    def manifest(self):
        return ("schema: schema.sql\noutput: ../build/seed.sqlite\ntables:\n"
                "  categories: { file: data/categories.csv, key: name }\n"
                "  books:\n    file: data/books.csv\n    key: title\n    refs: { category_id: categories.name }\n")

    def books_csv(self):
        lines = ["title,price,category_id,isbn"]
        for b in self.fixtures:
            lines.append(f"{b['title']},{b['price']},{b['category']},{'' if b['isbn'] is None else b['isbn']}")
        return "\n".join(lines) + "\n"

    def migration(self):
        def scalar(v):
            return "null" if v is None else json.dumps(v)
        out = []
        if self.m_inserts:
            out.append("insert:\n  books:")
            for b in self.m_inserts:
                out.append(f"    - {{ title: {scalar(b['title'])}, price: {b['price']}, category_id: {b['category']}, isbn: {scalar(b['isbn'])} }}")
        if self.m_updates:
            out.append("update:\n  books:")
            for b, to in self.m_updates:
                frm = {k: b[k] for k in to}
                out.append(f"    - key: {scalar(b['title'])}")
                out.append("      from: { " + ", ".join(f"{k}: {scalar(v)}" for k, v in frm.items()) + " }")
                out.append("      to: { " + ", ".join(f"{k}: {scalar(v)}" for k, v in to.items()) + " }")
        if self.m_deletes:
            out.append("delete:\n  books:")
            for b in self.m_deletes:
                out.append(f"    - key: {scalar(b['title'])}\n      from: {{ price: {b['price']} }}")
        return "\n".join(out) + "\n" if out else "insert: {}\n"

    def fingerprint(self):
        return hashlib.sha256((self.schema() + self.books_csv() + self.migration() + repr((self.user_inserts, self.user_price_edits, self.user_deletes, self.on_conflict_fail))).encode()).hexdigest()

    # -- the oracle for build ---------------------------------------------------------------
    def build_should_succeed(self):
        fold = (lambda s: s.lower()) if self.nocase else (lambda s: s)
        titles = [fold(b["title"]) for b in self.fixtures]
        if len(set(titles)) != len(titles):
            return False
        if self.isbn_rule != "none":
            isbns = [b["isbn"] for b in self.fixtures if b["isbn"] is not None]
            if len(set(isbns)) != len(isbns):
                return False
        if self.veto_insert and any(b["price"] > 100 for b in self.fixtures):
            return False
        if self.abort_insert and any(b["price"] == 13 for b in self.fixtures):
            return False
        return True

    # -- the oracle for migrate -------------------------------------------------------------
    def migrate_should_apply(self, store_isbns):
        """Whether the migration must apply (True), decided from what the case generated, not from
        seedkit: nothing in it can fail on any store the user made (conflicts and vetoes are reported,
        not failures; an audit log's rows are named). None when it may rightly fail: --on-conflict
        fail, an insert an ABORT trigger refuses, a UNIQUE isbn that can collide."""
        if self.on_conflict_fail:
            return None
        if self.abort_insert and any(b["price"] == 13 for b in self.m_inserts):
            return None
        if self.isbn_rule not in ("none", "REPLACE", "IGNORE"):
            # A UNIQUE isbn fails the run only when a written isbn is one a row already holds
            # (the user's store, read by Python's sqlite3, or another row of the migration).
            written = [b["isbn"] for b in self.m_inserts if b["isbn"] is not None]
            if len(set(written)) != len(written) or set(written) & set(store_isbns):
                return None
            if any(to.get("isbn") is not None for _, to in self.m_updates):
                return None
        return True

def rows(path, table="books"):
    db = sqlite3.connect(path)
    try:
        cols = "title, price, (SELECT name FROM categories c WHERE c.id = category_id), isbn"
        key = "rowid" if has_rowid(db, table) else "title"
        return {r[0]: {"key": r[0], "title": r[1], "price": r[2], "category": r[3], "isbn": r[4]}
                for r in db.execute(f"SELECT {key}, {cols} FROM {table}")}
    finally:
        db.close()


def has_rowid(db, table):
    try:
        db.execute(f"SELECT rowid FROM {table} LIMIT 1").fetchall()
        return True
    except sqlite3.OperationalError:
        return False


def by_title(table_rows):
    return {r["title"]: r for r in table_rows.values()}


def run(seedkit, args, cwd):
    p = subprocess.run([seedkit] + args, cwd=cwd, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


STATS = {}


def tally(name):
    STATS[name] = STATS.get(name, 0) + 1


def check_case(seedkit, case, work, failures):
    start = len(failures)

    def fail(message):
        failures.append(f"case {case.number}: {message}")

    os.makedirs(os.path.join(work, "seeds", "data"))
    os.makedirs(os.path.join(work, "migrations"))
    open(os.path.join(work, "seeds", "schema.sql"), "w").write(case.schema())
    open(os.path.join(work, "seeds", "seedkit.yml"), "w").write(case.manifest())
    open(os.path.join(work, "seeds", "data", "categories.csv"), "w").write("name\n" + "\n".join(CATEGORIES) + "\n")
    open(os.path.join(work, "seeds", "data", "books.csv"), "w").write(case.books_csv())

    # -- build --
    status, out, err = run(seedkit, ["build", "--format", "json"], work)
    seed = os.path.join(work, "build", "seed.sqlite")
    leftovers = [f for f in os.listdir(os.path.join(work, "build"))] if os.path.isdir(os.path.join(work, "build")) else []
    if status not in (0, 1):
        fail(f"build exit {status}: {err.strip()[:300]}")
        return
    expected_ok = case.build_should_succeed()
    if (status == 0) != expected_ok:
        fail(f"build exit {status}, expected {'success' if expected_ok else 'failure'}: {err.strip()[:300]}")
        return
    tally("build ok" if status == 0 else "build refused")
    if status != 0:
        if leftovers:
            fail(f"failed build left files: {leftovers}")
        return
    if sorted(leftovers) != ["seed.sqlite"]:
        fail(f"build left files: {leftovers}")
    held = by_title(rows(seed))
    if len(held) != len(case.fixtures):
        fail(f"seed holds {len(held)} books, fixtures have {len(case.fixtures)}")
    for b in case.fixtures:
        r = held.get(b["title"])
        if r is None or r["price"] != float(b["price"]) or r["category"] != b["category"] or r["isbn"] != b["isbn"]:
            fail(f"seed row for {b['title']!r} is {r}, fixture {b}")
    summary = {t["name"]: t["rows"] for t in json.loads(out)["tables"]}
    if summary.get("books") != len(held):
        fail(f"build summary says {summary.get('books')} books, the seed holds {len(held)}")
    if len(failures) > start:
        return

    check_upgrade(seedkit, case, work, seed, fail)
    check_issue34(seedkit, case, work, seed, fail)

    # -- the user's store --
    user = os.path.join(work, "user.sqlite")
    shutil.copyfile(seed, user)
    db = sqlite3.connect(user)
    try:
        for b in case.user_inserts:
            try:
                db.execute("INSERT OR ABORT INTO books (title, price, category_id, isbn) VALUES (?, ?, (SELECT id FROM categories WHERE name = ?), ?)",
                           (b["title"], b["price"], b["category"], b["isbn"]))
            except sqlite3.DatabaseError:
                pass  # the user's app would not have stored it either
        for t in case.user_price_edits:
            try:
                db.execute("UPDATE OR ABORT books SET price = price + 1 WHERE title = ?", (t,))
            except sqlite3.DatabaseError:
                pass
        for t in case.user_deletes:
            db.execute("DELETE FROM books WHERE title = ?", (t,))
        db.commit()
    finally:
        db.close()
    open(os.path.join(work, "migrations", "0001-update.yml"), "w").write(case.migration())

    before_bytes = open(user, "rb").read()
    before = rows(user)
    args = ["migrate", "user.sqlite", "--format", "json"] + (["--on-conflict", "fail"] if case.on_conflict_fail else [])
    status, out, err = run(seedkit, args, work)
    after_bytes = open(user, "rb").read()
    extra = [f for f in os.listdir(work) if f.startswith("user.sqlite") and f != "user.sqlite"]
    if extra:
        fail(f"migrate left files: {extra}")
    tally(f"migrate exit {status}")
    expected = case.migrate_should_apply([r["isbn"] for r in before.values() if r["isbn"] is not None])
    if expected:
        tally("migrate expected to apply")
        if status != 0:
            fail(f"migrate exit {status} on a migration that must apply: {(err.strip() or out.strip())[:300]}")
    if status != 0 and os.environ.get("HOSTILE_SHOW"):
        print(f"case {case.number}: migrate exit {status}: {(err.strip() or out.strip())[:600]}")
    if status != 0:
        if status not in (1, 2, 3, 4):
            fail(f"migrate exit {status}: {err.strip()[:300]}")
        if after_bytes != before_bytes:
            fail(f"migrate failed (exit {status}) and the store changed: {err.strip()[:300]}")
        return
    after = rows(user)
    try:
        report = json.loads(out)
    except ValueError:
        fail(f"migrate printed no JSON: {out[:300]}")
        return
    events = [e for m in report["migrations"] for e in m["events"]]
    for e in events:
        tally("event " + e["kind"])
    kinds = {}
    for e in events:
        kinds.setdefault(e["kind"], []).append(e["key"].get("title"))
    if case.on_conflict_fail and kinds.get("conflict"):
        fail(f"--on-conflict fail exited 0 with conflicts {kinds['conflict']}")
    # Every entry of the migration has an event with its key.
    entries = [b["title"] for b in case.m_inserts] + [b["title"] for b, _ in case.m_updates] + [b["title"] for b in case.m_deletes]
    named = [e["key"].get("title") for e in events]
    for title in set(entries):
        if named.count(title) < entries.count(title):
            fail(f"{entries.count(title)} entries for {title!r}, {named.count(title)} events: a row went unreported")
    before_t, after_t = by_title(before), by_title(after)
    fold = (lambda s: s.lower()) if case.nocase else (lambda s: s)
    before_folded = {fold(t) for t in before_t}
    inserted = set(kinds.get("inserted", []))
    updated = set(kinds.get("updated", []))
    deleted = set(kinds.get("deleted", []))
    for t in inserted:
        # A row the same run inserted and then updated holds the update's values over the insert's.
        later = next((to for b, to in case.m_updates if b["title"] == t), {}) if t in updated else {}
        specs = [{**b, **later} for b in case.m_inserts if b["title"] == t]
        r = after_t.get(t)
        if fold(t) in before_folded:
            fail(f"'inserted' {t!r}, which the store already had")
        elif r is None:
            fail(f"'inserted' {t!r} is not in the store")
        elif not any(r["price"] == float(b["price"]) and r["isbn"] == b["isbn"] and r["category"] == b["category"] for b in specs):
            fail(f"'inserted' {t!r} holds {r}, the migration says {specs}" + (f" then {later}" if later else ""))
    for t in updated:
        to = next(to for b, to in case.m_updates if b["title"] == t)
        r = after_t.get(t)
        if r is None or any((float(v) if k == "price" else v) != r[k] for k, v in to.items()):
            fail(f"'updated' {t!r} holds {r}, the migration says {to}")
    for t in deleted:
        if t in after_t:
            fail(f"'deleted' {t!r} is still in the store")
        if t not in before_t:
            fail(f"'deleted' {t!r} was not in the store")
    for t, r in before_t.items():
        if t in updated or t in deleted:
            continue
        if t not in after_t:
            fail(f"{t!r} ({r}) vanished, and no event says it was deleted")
        elif after_t[t] != r:
            fail(f"{t!r} changed from {r} to {after_t[t]}, and no event says it was updated")
    for t in after_t:
        if t not in before_t and t not in inserted:
            fail(f"{t!r} appeared, and no event says it was inserted")
    # A second run has nothing to do.
    status2, out2, err2 = run(seedkit, ["migrate", "user.sqlite", "--format", "json"], work)
    if status2 != 0 or rows(user) != after:
        fail(f"second migrate exit {status2} or changed rows: {err2.strip()[:300]}")


def check_upgrade(seedkit, case, work, seed, fail):
    """The release workflow: the seed just built ships as release 1.0; the next release's
    fixtures are what the migration makes of it (migrated on a pristine copy); check-upgrade must
    find the migrated 1.0 seed equal to a fresh build of them, and leave 1.0's file as it was."""
    pristine = os.path.join(work, "pristine.sqlite")
    shutil.copyfile(seed, pristine)
    open(os.path.join(work, "migrations", "0001-update.yml"), "w").write(case.migration())
    status, out, err = run(seedkit, ["migrate", "pristine.sqlite"], work)
    if status != 0:
        tally("check-upgrade skipped (the migration fails on the seed)")
        os.remove(os.path.join(work, "migrations", "0001-update.yml"))
        return
    release = os.path.join(work, "next")
    shutil.copytree(os.path.join(work, "seeds"), os.path.join(release, "seeds"))
    shutil.copytree(os.path.join(work, "migrations"), os.path.join(release, "migrations"))
    os.remove(os.path.join(work, "migrations", "0001-update.yml"))
    os.makedirs(os.path.join(release, "seeds", "releases"))
    shipped = os.path.join(release, "seeds", "releases", "1.0.sqlite")
    shutil.copyfile(seed, shipped)
    lines = ["title,price,category_id,isbn"]
    key = "rowid" if not case.without_rowid else "title"
    db = sqlite3.connect(pristine)
    prices = []
    try:
        for title, price, category, isbn in db.execute(f"SELECT title, price, (SELECT name FROM categories c WHERE c.id = category_id), isbn FROM books ORDER BY {key}"):
            lines.append(f"{title},{price!r},{category},{'' if isbn is None else isbn}")
            prices.append(price)
    finally:
        db.close()
    # An UPDATE can store what an INSERT trigger refuses: then a fresh build of the next release
    # fails, and check-upgrade must say so (exit 1) rather than pass.
    expected_ok = not (case.veto_insert and any(p > 100 for p in prices)) and not (case.abort_insert and 13 in prices)
    open(os.path.join(release, "seeds", "data", "books.csv"), "w").write("\n".join(lines) + "\n")
    before = open(shipped, "rb").read()
    status, out, err = run(seedkit, ["check-upgrade", "seeds/releases/1.0.sqlite"], release)
    tally(f"check-upgrade exit {status}")
    if (status == 0) != expected_ok or status not in (0, 1):
        fail(f"check-upgrade exit {status} on a release whose fixtures are the migrated seed (expected {'success' if expected_ok else 'failure'}): {(err.strip() or out.strip())[:500]}")
    if open(shipped, "rb").read() != before:
        fail("check-upgrade changed the shipped seed")
    leftovers = sorted(f for f in os.listdir(os.path.join(release, "seeds", "releases")) if f != "1.0.sqlite")
    if leftovers:
        fail(f"check-upgrade left files beside the shipped seed: {leftovers}")


# -- issue 34: connections, files and flags that cannot be turned against the store -------------
# Each case also runs one probe of each class below, drawn from its own stream (seed:case:34), so
# the cases above stay what they were. The audits use Python's sqlite3 and the file system.

REFUSED_PRAGMAS = ["ignore_check_constraints = ON", "foreign_keys = OFF", "recursive_triggers = OFF",
                   "query_only = 1", "synchronous = OFF", "max_page_count = 1", "writable_schema = ON", "journal_mode = MEMORY",
                   "cache_size = 1", "trusted_schema = ON", "case_sensitive_like = ON", "optimize", "shrink_memory"]
ALLOWED_PRAGMAS = ["user_version = 7", "table_info(books)", "foreign_keys", "index_list(books)", "foreign_key_check", "quick_check", "defer_foreign_keys = ON"]


def probe_folder(work, name, seed, migration_sql=None):
    """A copy of the case's project in work/NAME: its seeds, `user.sqlite` (the seed), and a
    `.sql` migration 0001 when given."""
    folder = os.path.join(work, name)
    shutil.copytree(os.path.join(work, "seeds"), os.path.join(folder, "seeds"))
    os.makedirs(os.path.join(folder, "migrations"))
    if migration_sql is not None:
        open(os.path.join(folder, "migrations", "0001-step.sql"), "w").write(migration_sql)
    shutil.copyfile(seed, os.path.join(folder, "user.sqlite"))
    return folder


def sql_oracle(path, sql):
    """What SQLite does with `sql` on a copy of `path`, counted by its own triggers (recursive
    triggers on, so REPLACE's deletes fire them): (ok, counts by table, deletes by statement kind)."""
    copy = path + ".oracle"
    shutil.copyfile(path, copy)
    db = sqlite3.connect(copy, isolation_level=None)
    try:
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("PRAGMA recursive_triggers = ON")
        db.execute("CREATE TEMP TABLE counts (tbl TEXT, kind TEXT)")
        tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' AND name NOT LIKE '\\_seedkit\\_%' ESCAPE '\\'")]
        for t in tables:
            for kind in ("INSERT", "UPDATE", "DELETE"):
                db.execute(f"CREATE TEMP TRIGGER o_{kind}_{t} AFTER {kind} ON main.\"{t}\" BEGIN INSERT INTO counts VALUES ('{t}', '{kind}'); END")
        db.execute("BEGIN")
        try:
            db.execute(sql)
        except sqlite3.DatabaseError:
            if db.in_transaction:  # ON CONFLICT ROLLBACK has ended it already
                db.execute("ROLLBACK")
            return False, {}, 0
        counts = {}
        for t, kind in db.execute("SELECT tbl, kind FROM counts"):
            counts.setdefault(t, {"INSERT": 0, "UPDATE": 0, "DELETE": 0})[kind] += 1
        db.execute("ROLLBACK")
        deletes = sum(c["DELETE"] for c in counts.values())
        return True, counts, deletes
    finally:
        db.close()
        os.remove(copy)


def check_issue34(seedkit, case, work, seed, fail):
    r = random.Random(f"{case.seed}:{case.number}:34")
    titles = [b["title"] for b in case.fixtures]
    probe_pragma(seedkit, r, work, seed, fail)
    probe_replace(seedkit, r, work, seed, titles, case, fail)
    probe_untrusted(seedkit, r, work, seed, fail)
    probe_untrusted_trigger(seedkit, r, work, seed, fail)
    probe_links_and_flags(seedkit, r, work, seed, fail)
    probe_limits(seedkit, r, work, seed, fail)


def probe_pragma(seedkit, r, work, seed, fail):
    """A `.sql` migration's pragma: one that sets anything but user_version is refused before
    anything runs (exit 2, the store's bytes as they were); the allowed ones run."""
    refused = r.random() < 0.7
    pragma = r.choice(REFUSED_PRAGMAS if refused else ALLOWED_PRAGMAS)
    folder = probe_folder(work, "i34-pragma", seed, f"INSERT INTO categories (name) VALUES ('Pragma');\nPRAGMA {pragma};\n")
    user = os.path.join(folder, "user.sqlite")
    before = open(user, "rb").read()
    status, out, err = run(seedkit, ["migrate", "user.sqlite"], folder)
    tally(f"i34 pragma {'refused' if refused else 'allowed'} exit {status}")
    if refused:
        if status != 2 or f"PRAGMA {pragma.split(' ')[0]} is not allowed in a SQL migration" not in err:
            fail(f"PRAGMA {pragma} in a .sql migration: exit {status}, expected 2 naming it: {err.strip()[:300]}")
        if open(user, "rb").read() != before:
            fail(f"PRAGMA {pragma} was refused and the store changed")
    elif status != 0:
        fail(f"PRAGMA {pragma} (allowed) in a .sql migration: exit {status}: {err.strip()[:300]}")


def probe_replace(seedkit, r, work, seed, titles, case, fail):
    """A `.sql` statement that writes books: counts are SQLite's (its triggers' in Python), and a
    statement other than DELETE that deletes a row the store held fails the run, store unchanged."""
    title = r.choice(titles + ["Fresh"]) if titles else "Fresh"
    isbn = r.choice(ISBNS[:-1] + ["999"])
    values = f"('{title}', {r.choice([5, 12, 150])}, (SELECT id FROM categories WHERE name = 'Fiction'), '{isbn}')"
    statement = r.choice([
        f"INSERT OR REPLACE INTO books (title, price, category_id, isbn) VALUES {values}",
        f"REPLACE INTO books (title, price, category_id, isbn) VALUES {values}",
        f"INSERT INTO books (title, price, category_id, isbn) VALUES {values} ON CONFLICT DO NOTHING",
        f"INSERT INTO books (title, price, category_id, isbn) VALUES {values}",
        f"UPDATE OR REPLACE books SET isbn = '{isbn}' WHERE title = '{title}'",
        f"UPDATE books SET price = price + 1",
        f"DELETE FROM books WHERE title = '{title}'",
    ])
    folder = probe_folder(work, "i34-replace", seed, statement + ";\n")
    user = os.path.join(folder, "user.sqlite")
    # The user edits a row first: that is the row a REPLACE must not take away unseen.
    db = sqlite3.connect(user)
    try:
        if titles:
            try:
                db.execute("UPDATE OR ABORT books SET price = price + 1 WHERE title = ?", (r.choice(titles),))
            except sqlite3.DatabaseError:
                pass
        db.commit()
    finally:
        db.close()
    ok, counts, deletes = sql_oracle(user, statement)
    side_deletes = deletes if not statement.startswith("DELETE") else 0
    before = open(user, "rb").read()
    status, out, err = run(seedkit, ["migrate", "user.sqlite", "--format", "json"], folder)
    kind = statement.split(" ")[0] + (" OR REPLACE" if " OR REPLACE" in statement else "")
    tally(f"i34 sql {kind} exit {status}")
    if not ok or side_deletes:
        if status != 1:
            fail(f".sql `{statement}`: SQLite {'fails it' if not ok else f'deletes {side_deletes} rows as a side effect'}; migrate exit {status}, expected 1: {(err.strip() or out.strip())[:300]}")
        if ok and "a SQL migration may delete rows only with DELETE" not in err + out:  # --format json: on stdout
            fail(f".sql `{statement}`: the side-effect delete is not named: {(err.strip() or out.strip())[:300]}")
        if open(user, "rb").read() != before:
            fail(f".sql `{statement}` failed and the store changed")
        return
    if status != 0:
        fail(f".sql `{statement}`: SQLite runs it, migrate exit {status}: {err.strip()[:300]}")
        return
    report = json.loads(out)
    events = [e for m in report["migrations"] for e in m["events"]]
    reported = {e["table"]: e["detail"] for e in events if e["kind"] == "sql"}
    for table, c in counts.items():
        parts = [f"{c[k]} {w}" for k, w in (("INSERT", "inserted"), ("UPDATE", "updated"), ("DELETE", "deleted")) if c[k]]
        if parts and reported.get(table) != ", ".join(parts):
            fail(f".sql `{statement}`: SQLite changed {table}: {', '.join(parts)}; migrate reported {reported.get(table)!r}")
    deleted = [e for e in events if e["kind"] == "deleted"]
    if len(deleted) != deletes:
        fail(f".sql `{statement}`: SQLite deleted {deletes} rows, migrate named {len(deleted)}")


def probe_untrusted(seedkit, r, work, seed, fail):
    """An untrusted store: a view that recurses forever, or one that needs trusted_schema, read
    by inspect or verify, ends with a clear error (exit 3) in bounded time, the store unchanged."""
    folder = probe_folder(work, "i34-untrusted", seed)
    user = os.path.join(folder, "user.sqlite")
    endless = r.random() < 0.6
    db = sqlite3.connect(user)
    try:
        if endless:
            db.execute("CREATE VIEW endless AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i AS id, 'x' || i AS title FROM n")
        else:
            db.execute("CREATE VIEW endless AS SELECT name AS title FROM pragma_table_list")
        db.commit()
    finally:
        db.close()
    before = open(user, "rb").read()
    command = r.choice([["inspect", "user.sqlite", "endless", "--limit", "3"], ["inspect", "user.sqlite", "endless", "--format", "json"]])
    p = subprocess.run([seedkit] + command, cwd=folder, capture_output=True, text=True, timeout=60, env={**os.environ, "SEEDKIT_READ_LIMIT": "1"})
    tally(f"i34 untrusted {'endless view' if endless else 'untrusted function'} exit {p.returncode}")
    expected = "reading the store was stopped" if endless else "trusted_schema off"
    if p.returncode != 3 or expected not in p.stderr:
        fail(f"untrusted store ({'endless view' if endless else 'pragma_table_list view'}) via {' '.join(command)}: exit {p.returncode}: {p.stderr.strip()[:300]}")
    if open(user, "rb").read() != before:
        fail("reading an untrusted store changed it")


def probe_untrusted_trigger(seedkit, r, work, seed, fail):
    """An untrusted trigger that reads what trusted_schema off forbids, fired by a migration's
    write (a .sql step or a data migration): the store is refused (exit 3), its bytes unchanged."""
    sql = r.random() < 0.5
    folder = probe_folder(work, "i34-trigger", seed, "INSERT INTO categories (name) VALUES ('Trig');\n" if sql else None)
    if not sql:
        open(os.path.join(folder, "migrations", "0001-trig.yml"), "w").write("insert:\n  categories:\n    - { name: Trig }\n")
    user = os.path.join(folder, "user.sqlite")
    db = sqlite3.connect(user)
    try:
        db.execute("CREATE TABLE spy (n TEXT)")
        db.execute("CREATE TRIGGER snoop AFTER INSERT ON categories BEGIN INSERT INTO spy SELECT name FROM pragma_table_list; END")
        db.commit()
    finally:
        db.close()
    before = open(user, "rb").read()
    status, out, err = run(seedkit, ["migrate", "user.sqlite"], folder)
    tally(f"i34 untrusted trigger ({'sql' if sql else 'data'}) exit {status}")
    if status != 3 or "trusted_schema off" not in err:
        fail(f"an untrusted trigger fired by a {'.sql' if sql else 'data'} migration: exit {status}, expected 3: {err.strip()[:300]}")
    if open(user, "rb").read() != before:
        fail("a migration refused for an untrusted trigger changed the store")


def probe_links_and_flags(seedkit, r, work, seed, fail):
    """A store through a symlink is its target (an empty target refused, exit 3, left empty); a
    named --manifest that is not there is exit 2 on any command, nothing written."""
    folder = probe_folder(work, "i34-links", seed)
    command = r.choice([["inspect"], ["status"], ["verify"], ["migrate"], ["migrate", "--dry-run"], ["diff", "user.sqlite"]])
    open(os.path.join(folder, "empty.sqlite"), "w").close()
    os.symlink("empty.sqlite", os.path.join(folder, "link.sqlite"))
    status, out, err = run(seedkit, command + ["link.sqlite"], folder)
    tally(f"i34 link to empty exit {status}")
    if status != 3 or "the file is empty (0 bytes)" not in err or os.path.getsize(os.path.join(folder, "empty.sqlite")) != 0:
        fail(f"{' '.join(command)} through a link to an empty file: exit {status}: {err.strip()[:300]}")
    os.symlink("user.sqlite", os.path.join(folder, "good.sqlite"))
    status, out, err = run(seedkit, ["inspect", "good.sqlite", "--format", "json"], folder)
    if status != 0 or json.loads(out).get("bytes") != os.path.getsize(os.path.join(folder, "user.sqlite")):
        fail(f"inspect through a link: exit {status}, size {out[:200]!r}, the target has {os.path.getsize(os.path.join(folder, 'user.sqlite'))} bytes")
    user = os.path.join(folder, "user.sqlite")
    before = open(user, "rb").read()
    command = r.choice([["migrate", "user.sqlite"], ["verify", "user.sqlite"], ["status", "user.sqlite"], ["inspect", "user.sqlite", "books"], ["build"]])
    status, out, err = run(seedkit, command + ["--manifest", "seeds/seedkit.ym"], folder)
    tally(f"i34 missing manifest exit {status}")
    if status != 2 or "no such manifest" not in err or out:
        fail(f"{' '.join(command)} --manifest seeds/seedkit.ym: exit {status}, expected 2: {(err.strip() or out.strip())[:300]}")
    if open(user, "rb").read() != before:
        fail(f"{' '.join(command)} with a missing --manifest changed the store")


def probe_limits(seedkit, r, work, seed, fail):
    """Few descriptors: one clear error (exit 4), nothing written. Little memory: the run ends on
    its own or on SIGINT, and the migration is applied whole or not at all."""
    folder = probe_folder(work, "i34-limits", seed, "INSERT INTO categories (name) VALUES ('Limits');\n")
    user = os.path.join(folder, "user.sqlite")
    before = open(user, "rb").read()
    descriptors = r.randint(4, 31)
    p = subprocess.run(["bash", "-c", f'ulimit -n {descriptors}; exec "$0" migrate user.sqlite', seedkit], cwd=folder, capture_output=True, text=True, timeout=60)
    tally(f"i34 ulimit -n exit {p.returncode}")
    if p.returncode != 4 or f"ulimit -n {descriptors}" not in p.stderr or open(user, "rb").read() != before:
        fail(f"migrate under ulimit -n {descriptors}: exit {p.returncode}: {p.stderr.strip()[:300]}")
    kilobytes = r.randrange(120_000, 400_000, 5_000)
    p = subprocess.run(["bash", "-c", f'ulimit -v {kilobytes}; exec timeout -s INT -k 10 20 "$0" migrate user.sqlite', seedkit], cwd=folder, capture_output=True, text=True, timeout=90)
    tally(f"i34 ulimit -v {'ok' if p.returncode == 0 else 'failed'}")
    if p.returncode == 137:
        fail(f"migrate under ulimit -v {kilobytes} ignored SIGINT: {p.stderr.strip()[:300]}")
    db = sqlite3.connect(user)
    try:
        applied = db.execute("SELECT count(*) FROM _seedkit_migrations WHERE number = 1").fetchone()[0]
        limits = db.execute("SELECT count(*) FROM categories WHERE name = 'Limits'").fetchone()[0]
    finally:
        db.close()
    if applied != limits or (p.returncode == 0) != (applied == 1):
        fail(f"migrate under ulimit -v {kilobytes}: exit {p.returncode}, migration recorded {applied}, its row {limits}: not all or nothing")


def run_case(job):
    """One case in a worker process: its failures, its tallies, its fingerprint."""
    seedkit, seed, number, keep = job
    STATS.clear()
    case = Case(seed, number)
    work = keep or tempfile.mkdtemp(prefix="seedkit-hostile-")
    if keep:
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
    failures = []
    try:
        check_case(seedkit, case, work, failures)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    return number, failures, dict(STATS), case.fingerprint()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("seedkit")
    parser.add_argument("--cases", type=int, default=int(os.environ.get("HOSTILE_CASES", "60")))
    parser.add_argument("--seed", type=int, default=int(os.environ.get("HOSTILE_SEED", "22")))
    parser.add_argument("--case", type=int)
    parser.add_argument("--keep")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="cases run at once (default: one per core)")
    options = parser.parse_args()
    seedkit = os.path.abspath(options.seedkit)
    numbers = [options.case] if options.case is not None else range(options.cases)
    jobs = [(seedkit, options.seed, number, options.keep) for number in numbers]
    # Each case works in its own folder and is audited on its own: they run in parallel, and
    # their results are read in case order, so the output is the same whatever the timing.
    if options.keep or options.jobs <= 1 or len(jobs) <= 1:
        results = map(run_case, jobs)
    else:
        pool = multiprocessing.Pool(options.jobs)
        results = pool.imap(run_case, jobs)
    failures, prints, stats = [], set(), {}
    for number, case_failures, case_stats, fingerprint in results:
        failures += case_failures
        prints.add(fingerprint)
        for name, count in case_stats.items():
            stats[name] = stats.get(name, 0) + count
        if options.verbose or case_failures:
            print(f"case {number}: {'FAILED' if case_failures else 'ok'}  (replay: --seed {options.seed} --case {number} --keep DIR)")
    for failure in failures:
        print("hostile: AUDIT FAILED: " + failure, file=sys.stderr)
    print("hostile: " + ", ".join(f"{k} {v}" for k, v in sorted(stats.items())))
    # The tallies are asserted, so that a seedkit that refused every migration could not pass:
    # every case the generator says must apply did (checked per case above), those cases are a
    # real share of the run, and most migrations apply.
    migrated = sum(v for k, v in stats.items() if k.startswith("migrate exit "))
    applied = stats.get("migrate exit 0", 0)
    must = stats.get("migrate expected to apply", 0)
    if options.case is None and migrated:
        if must < migrated * 0.3:
            failures.append(f"only {must} of {migrated} migrations are ones the oracle says must apply (expected at least 30%)")
        if applied < migrated * 0.5:
            failures.append(f"only {applied} of {migrated} migrations applied (expected at least 50%)")
        for failure in failures[-2:]:
            if failure.startswith("only "):
                print("hostile: AUDIT FAILED: " + failure, file=sys.stderr)
    print(f"hostile: {len(numbers)} cases ({len(prints)} distinct), seed {options.seed}: {len(failures)} audit failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
