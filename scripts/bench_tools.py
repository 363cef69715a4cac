"""make bench's cases for the commands around a release (issue 45), imported by bench.py: each
beside its floor, with peak RSS.

  * inspect of a 1M-row table in every format (json, csv, human, markdown), against sqlite3
    printing the same rows as JSON, and json at 250k rows (a --where) beside 1M: peak memory
    flat in the rows (BENCH_ONLY=inspect);
  * new-migration --from of a 500k-row table with 100k and 200k rows changed (half updated, a
    quarter deleted, a quarter inserted), against diff of the same two seeds and against build +
    diff (what new-migration does: a fresh build of the fixtures, then the comparison)
    (BENCH_ONLY=newmigration);
  * export-migrations of 5,000 small migrations, against migrate applying them (BENCH_ONLY=export).
The projects are made once into build/bench (the shape in the folder's name).
"""
import json, os, random, shutil, subprocess

import bench_release


def inspect_cases(table, bench):
    """inspect of a 1M-row table, each format, beside sqlite3 -json; json at 250k and 1M rows."""
    n = 1_000_000
    bench.make_csv(os.path.join(bench.WORK, f"items-{n}.csv"), n)
    _, seed = bench.seedkit_build(f"items-{n}.csv")
    case = f"inspect a {n:,}-row table, every format (rows streamed: memory flat in the rows)"

    def inspect(*extra):
        return lambda: bench.timed([bench.SEEDKIT, "inspect", seed, "items", *extra])

    floor, json_all = bench.pair(lambda: bench.timed(["sqlite3", "-json", seed, "SELECT * FROM items"]),
                                 inspect("--format", "json"))
    table.append((case, "sqlite3 -json SELECT * FROM items (floor)", n, *floor, 1.0, ""))
    table.append((case, "seedkit inspect --format json", n, *json_all, json_all[0] / floor[0], ""))
    for fmt in ["csv", "human", "markdown"]:
        _, other = bench.pair(lambda: (0, 0, 0), inspect("--format", fmt))
        table.append((case, f"seedkit inspect --format {fmt}", n, *other, other[0] / floor[0], ""))
    _, quarter = bench.pair(lambda: (0, 0, 0), inspect("--format", "json", "--where", "id % 4 = 0"))
    table.append((case, "seedkit inspect --format json --where 'id % 4 = 0'", n // 4, *quarter, float("nan"), ""))
    # Flat memory: the peak at 1M rows against the peak at 250k (the ratio column is of memory here).
    table.append((case, "peak RSS, 1M rows against 250k (json)", n, *json_all, json_all[1] / quarter[1], "≤ 1.2×"))


def release_pair(root, count, changed, seedkit):
    """A project of `count` books (key isbn, a ref to a category by name) whose fixtures are the
    next release, and releases/old.sqlite built from the release before: of `changed` rows, half
    updated (price), a quarter deleted, a quarter inserted. Made once (the shape in the name)."""
    root = os.path.join(root, f"newmig-{count}-{changed}")
    done = os.path.join(root, ".made")
    if os.path.exists(done):
        return root
    shutil.rmtree(root, ignore_errors=True)
    for folder in ["seeds/data", "migrations", "releases"]:
        os.makedirs(os.path.join(root, folder))
    with open(os.path.join(root, "seeds", "schema.sql"), "w") as f:
        f.write(bench_release.SCHEMA)
    with open(os.path.join(root, "seeds", "seedkit.yml"), "w") as f:
        f.write("schema: schema.sql\noutput: ../new.sqlite\ntables:\n"
                "  categories: { file: data/categories.csv, key: name }\n"
                "  books: { file: data/books.jsonl, key: isbn, refs: { category_id: categories.name } }\n")
    with open(os.path.join(root, "seeds", "data", "categories.csv"), "w") as f:
        f.write("name\n" + "".join(f"{c}\n" for c in bench_release.CATEGORIES))
    updates, deletes = changed // 2, changed // 4
    inserts = changed - updates - deletes
    step = count // (updates + deletes)

    def write(release):
        rng = random.Random(11)
        with open(os.path.join(root, "seeds", "data", "books.jsonl"), "w", encoding="utf-8") as f:
            for i in range(1, count + 1):
                row = bench_release.book(i, rng)
                if release and i % step == 0 and i // step <= updates + deletes:
                    if (i // step) % 3 == 0 and deletes:  # a third of the touched rows: deleted
                        continue
                    row["price"] = round(row["price"] + 1, 2)
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
            if release:
                for i in range(inserts):
                    row = bench_release.book(count + i + 1, rng)
                    row["isbn"] = f"979{i:010d}"
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")

    write(False)
    subprocess.run([seedkit, "build", "--output", "releases/old.sqlite", "--migrations", "none"],
                   cwd=root, check=True, capture_output=True)
    write(True)
    subprocess.run([seedkit, "build", "--migrations", "none"], cwd=root, check=True,
                   capture_output=True)
    open(done, "w").close()
    os.sync()
    return root


def new_migration_cases(table, bench, count=500_000, sizes=(100_000, 200_000)):
    """new-migration beside diff of the same two seeds and beside build + diff: `--from OLD`
    (which builds the fixtures first) and `--from OLD --to NEW` (the seed a build just wrote;
    goal ≤ 1.5× diff). Both must write the same file."""
    for changed in sizes:
        root = release_pair(bench.WORK, count, changed, bench.SEEDKIT)
        written = os.path.join(root, "migrations", "0001-release.yml")
        texts = {}

        def new_migration(*extra):
            def run():
                if os.path.exists(written):
                    os.remove(written)
                result = bench.timed([bench.SEEDKIT, "new-migration", "release", "--from", "releases/old.sqlite",
                                      *extra], cwd=root)
                assert os.path.exists(written), written
                with open(written, "rb") as f:
                    texts[extra] = f.read()
                os.remove(written)
                return result
            return run

        def diff():
            return bench.timed([bench.SEEDKIT, "diff", "releases/old.sqlite", "new.sqlite"], cwd=root)

        def build():
            bench.fresh(os.path.join(root, "new.sqlite"))
            return bench.timed([bench.SEEDKIT, "build", "--migrations", "none"], cwd=root)

        floor, tool = bench.pair(diff, new_migration())
        built, to_seed = bench.pair(build, new_migration("--to", "new.sqlite"))
        assert texts[()] == texts[("--to", "new.sqlite")], "--to wrote another file than --from"
        case = f"new-migration, a {count:,}-row table, {changed:,} rows changed"
        table.append((case, "seedkit diff of the same two seeds (floor)", changed, *floor, 1.0, ""))
        table.append((case, "seedkit build of the fixtures (new-migration's fresh build)", count, *built,
                      built[0] / floor[0], ""))
        plus = (floor[0] + built[0], max(floor[1], built[1]), floor[2] + built[2])
        table.append((case, "seedkit build + seedkit diff", changed, *plus, plus[0] / floor[0], ""))
        table.append((case, "seedkit new-migration --from (builds the fixtures)", changed, *tool,
                      tool[0] / floor[0], ""))
        table.append((case, "seedkit new-migration --from --to (the built seed)", changed, *to_seed,
                      to_seed[0] / floor[0], "≤ 1.5×"))


def export_project(root, count, seedkit):
    """A project with a small seed and `count` migrations of one inserted row each. Made once."""
    root = os.path.join(root, f"export-{count}")
    done = os.path.join(root, ".made")
    if os.path.exists(done):
        return root
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, "seeds", "data"))
    os.makedirs(os.path.join(root, "migrations"))
    with open(os.path.join(root, "seeds", "schema.sql"), "w") as f:
        f.write(bench_release.SCHEMA)
    with open(os.path.join(root, "seeds", "seedkit.yml"), "w") as f:
        f.write("schema: schema.sql\noutput: ../seed.sqlite\ntables:\n"
                "  categories: { file: data/categories.csv, key: name }\n"
                "  books: { file: data/books.csv, key: isbn, refs: { category_id: categories.name } }\n")
    with open(os.path.join(root, "seeds", "data", "categories.csv"), "w") as f:
        f.write("name\n" + "".join(f"{c}\n" for c in bench_release.CATEGORIES))
    with open(os.path.join(root, "seeds", "data", "books.csv"), "w") as f:
        f.write("isbn,title,author,price,category_id\n9780000000001,First,Author,1.5,Category 1\n")
    for i in range(1, count + 1):
        with open(os.path.join(root, "migrations", f"{i:04d}-book-{i}.yml"), "w") as f:
            f.write(f"insert:\n  books:\n    - {{ isbn: \"979{i:010d}\", title: \"Book {i}\", author: Author, "
                    f"price: {i % 100}.5, category_id: \"Category {i % 50}\" }}\n")
    subprocess.run([seedkit, "build", "--migrations", "none"], cwd=root, check=True,
                   capture_output=True)
    open(done, "w").close()
    os.sync()
    return root


def export_cases(table, bench, count=5_000):
    """export-migrations of `count` small migrations beside migrate applying them (goal ≤ 1.5×)."""
    root = export_project(bench.WORK, count, bench.SEEDKIT)
    store = os.path.join(root, "store.sqlite")
    out = os.path.join(root, "exported")

    def migrate():
        bench.fresh(store)
        bench.copy_synced(os.path.join(root, "seed.sqlite"), store)
        return bench.timed([bench.SEEDKIT, "migrate", store], cwd=root)

    def export(folder):
        def run():
            shutil.rmtree(folder, ignore_errors=True)
            result = bench.timed([bench.SEEDKIT, "export-migrations", folder], cwd=root)
            assert len(os.listdir(folder)) == count, len(os.listdir(folder))
            return result
        return run

    # What creating that many files costs the file system, beside it: Python writing the same
    # files the same way (a temporary file each, renamed into place).
    writer = ("import os, sys\nsrc, dst = sys.argv[1], sys.argv[2]\nos.makedirs(dst)\n"
              "for name in sorted(os.listdir(src)):\n    data = open(os.path.join(src, name), 'rb').read()\n"
              "    tmp = os.path.join(dst, '.' + name + '.tmp')\n"
              "    with open(tmp, 'wb') as f: f.write(data)\n    os.rename(tmp, os.path.join(dst, name))\n")
    copy = out + "-python"

    def python_writes():
        shutil.rmtree(copy, ignore_errors=True)
        return bench.timed(["python3", "-c", writer, os.path.join(root, "migrations"), copy])

    floor, tool = bench.pair(migrate, export(out))
    _, files = bench.pair(lambda: (0, 0, 0), python_writes)
    case = f"export-migrations of {count:,} small migrations"
    table.append((case, f"seedkit migrate applying the {count:,} (floor)", count, *floor, 1.0, ""))
    table.append((case, f"python writing {count:,} files, temporary + rename (the file system's part)", count,
                  *files, files[0] / floor[0], ""))
    table.append((case, "seedkit export-migrations", count, *tool, tool[0] / floor[0], "≤ 1.5×"))
    if os.path.isdir("/dev/shm"):  # the same into tmpfs: seedkit's own work, without ext4's inode allocation
        shm = os.path.join("/dev/shm", f"seedkit-bench-export-{os.getpid()}")
        _, memory = bench.pair(lambda: (0, 0, 0), export(shm))
        table.append((case, "seedkit export-migrations into tmpfs (/dev/shm)", count, *memory, memory[0] / floor[0],
                      "≤ 1.5×"))
        shutil.rmtree(shm, ignore_errors=True)
    for folder in (out, copy):
        shutil.rmtree(folder, ignore_errors=True)
    bench.fresh(store)
