#!/usr/bin/env python3
"""Every real store is its own oracle (docs/core-data.md, "The store corpus").

usage: corpus.py SEEDKIT LIST [--only TEXT]...

--only TEXT runs only the stores whose FILE contains TEXT (make test runs two this way, a fast
subset; make test-slow runs them all).

LIST (Tests/Corpus/stores.txt) names each store, a line each: the verdict expected, its sha256,
its path in the repository (or a file name looked for in $SEEDKIT_CORPUS_DIR, for a store whose
repository did not let us commit it) and its SOURCE. Verdicts: released, round-trip (nothing to
release: no entity with a one-column key and 5 rows), refused (seedkit says why), WRONG (the
oracle found a difference). Exit 1 when a verdict differs from the list's or a sha256 does.

For each store: init --coredata → build → the seed equals the store by content → verify → a
release made from the fixtures (an attribute updated, a row copied under a new key, a row deleted,
a key renamed) → new-migration → check-upgrade → migrate a copy of the real store → equal to a
fresh build → a second migrate changes no byte. The comparison is this script's own SQL (Python's
sqlite3), not seedkit's readers: every row of every entity table, its to-one and inverse-less
to-many columns rendered as the related row's key through joins, join tables as pairs of keys;
Z_PK numbering may differ, nothing else. Relationship destinations are read from the manifest
init writes (refs:). Prints per store what round-tripped, released, or was refused and why.
"""
import collections, hashlib, os, plistlib, re, shutil, sqlite3, subprocess, sys, tempfile, urllib.parse, uuid, zlib

def run(seedkit, cwd, *args):
    r = subprocess.run([seedkit, *args], cwd=cwd, capture_output=True, text=True, timeout=600)
    return r.returncode, (r.stdout + r.stderr).strip()

def manifest_refs(path):
    """table → {ref name: (destination, key column)}, and table → key, from init's manifest."""
    tables, keys, cur, inrefs = {}, {}, None, False
    for line in open(path):
        m = re.match(r'^  (\w+):\s*$', line)
        if m:
            cur, inrefs = m.group(1), False
            tables[cur] = {}
            continue
        if not cur:
            continue
        m = re.match(r'^    (\w+):\s*(.*?)\s*(#.*)?$', line)
        if m:
            inrefs = m.group(1) == 'refs'
            if m.group(1) == 'key':
                keys[cur] = [k.strip() for k in m.group(2).strip('[]').split(',')]
            continue
        m = re.match(r'^      ([\w.]+):\s*(\w+)\.(\w+)', line)
        if inrefs and m:
            tables[cur][m.group(1)] = (m.group(2), m.group(3))
    return tables, keys

def model_relationships(db):
    """The store's own model (Z_MODELCACHE: a raw-deflated keyed archive), read here, not by
    seedkit: [(entity, relationship, destination, to-many, inverse)], or None without a cache."""
    try:
        (blob,) = db.execute('SELECT Z_CONTENT FROM Z_MODELCACHE').fetchone()
        archive = plistlib.loads(zlib.decompress(blob, -zlib.MAX_WBITS))
    except Exception:
        return None
    objects = archive['$objects']
    def get(value):
        value = objects[value.data] if isinstance(value, plistlib.UID) else value
        return None if value == '$null' else value
    found = []
    for o in objects:
        if isinstance(o, dict) and '_NSDestinationEntityName' in o:
            entity = get(o['NSEntity'])
            found.append((get(entity['NSEntityName']) if isinstance(entity, dict) else None, get(o['NSPropertyName']),
                          get(o['_NSDestinationEntityName']), o.get('NSMaxCount', 0) != 1,
                          get(o.get('_NSInverseRelationshipName'))))
    return found

def render(path, tables, keys):
    """Each entity table as a multiset of rows, refs as the related row's key."""
    db = sqlite3.connect(f'file:{path}?mode=ro', uri=True)
    ents, supers = {}, {}
    for ent, name, sup in db.execute('SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY'):
        ents[name], supers[ent] = ent, sup
    names = {ent: name for name, ent in ents.items()}
    def lineage(entity):
        ent, chain = ents.get(entity), []
        while ent is not None and ent not in chain:
            chain.append(ent)
            ent = supers.get(ent) or None
        return [names[e] for e in chain]
    # Relationship columns by the model: a to-one's own column (inherited ones included), and an
    # inverse-less to-many's column in its destination's table (Z<owner's Z_ENT><NAME>).
    relationships = model_relationships(db)
    columns_of = collections.defaultdict(dict)
    if relationships is not None:
        for entity in ents:
            for owner, name, dest, to_many, inverse in relationships:
                if not name or not dest:
                    continue
                if not to_many and owner in lineage(entity):
                    columns_of[entity]['Z' + name.upper()] = dest
                if to_many and not inverse and dest in lineage(entity) and owner in ents:
                    columns_of[entity][f'Z{ents[owner]}{name.upper()}'] = owner
    def table_of(entity):
        ent = ents.get(entity)
        while ent is not None and supers.get(ent):
            ent = supers[ent]
        return 'Z' + names.get(ent, entity).upper()
    out = {}
    def ref_columns(entity):
        found = set(columns_of[entity])
        for name in tables.get(entity, {}):
            owner, _, rel = name.rpartition('.')
            found.add(f'Z{ents.get(owner, "?")}{rel.upper()}' if owner else 'Z' + rel.upper())
        return found
    def keyexpr(alias, entity):
        cols = keys.get(entity)
        if not cols:
            # A keyless row is known by its number, which a build renumbers (1, 2, … in the
            # fixture's order): the related row is named by its attributes' values instead.
            refcols = ref_columns(entity)
            content = [c[1] for c in db.execute(f'PRAGMA table_info("{table_of(entity)}")')
                       if not (c[1] in ('Z_PK', 'Z_ENT', 'Z_OPT') or re.match(r'^Z\d+_', c[1])
                               or c[1].startswith('Z_FOK_') or c[1] in refcols)]
            if content:
                return (f"CASE WHEN {alias}.Z_PK IS NULL THEN NULL ELSE '(' || "
                        + " || ',' || ".join(f'quote({alias}."{c}")' for c in content) + " || ')' END")
            cols = ['Z_PK']
        return ' || \',\' || '.join(f'quote({alias}."Z{c.upper()}")' if c != 'Z_PK' else f'{alias}.Z_PK' for c in cols)
    for entity, refs in tables.items():
        table = table_of(entity)
        info = db.execute(f'PRAGMA table_info("{table}")').fetchall()
        if not info:
            continue
        columns = [c[1] for c in info]
        ent = ents.get(entity)
        where = f' WHERE t.Z_ENT = {ent}' if ent is not None and 'Z_ENT' in columns else ''
        parts, joins = [], []
        for i, c in enumerate(columns):
            if c in ('Z_PK', 'Z_ENT', 'Z_OPT') or re.match(r'^Z\d+_', c) or c.startswith('Z_FOK_'):
                continue
            ref = columns_of[entity].get(c) if relationships is not None else None
            for name, (dest, _) in refs.items() if relationships is None else ():
                owner, _, rel = name.rpartition('.')
                column = f'Z{ents.get(owner, "?")}{rel.upper()}' if owner else 'Z' + rel.upper()
                if column == c:
                    ref = dest
            if ref:
                joins.append(f'LEFT JOIN "{table_of(ref)}" j{i} ON j{i}.Z_PK = t."{c}"')
                parts.append(f"'{c}=' || coalesce({keyexpr(f'j{i}', ref)}, CASE WHEN t.\"{c}\" IS NULL THEN 'NULL' ELSE 'DANGLING ' || t.\"{c}\" END)")
            else:
                parts.append(f"'{c}=' || quote(t.\"{c}\")")
        sql = 'SELECT ' + (" || '|' || ".join(parts) or "''") + f' FROM "{table}" t ' + ' '.join(joins) + where
        out[entity] = collections.Counter(r[0] for r in db.execute(sql))
    # Many-to-many join tables (Z_<ent><name>): each link as the pair of related rows' keys.
    for (join,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z_[0-9]*'"):
        parts, joins = [], []
        for i, (_, c, *_) in enumerate(db.execute(f'PRAGMA table_info("{join}")').fetchall()):
            m = re.match(r'^Z_(\d+)[A-Z]', c)
            dest = names.get(int(m.group(1))) if m and not c.startswith('Z_FOK_') else None
            if dest:
                joins.append(f'LEFT JOIN "{table_of(dest)}" j{i} ON j{i}.Z_PK = t."{c}"')
                parts.append(f"'{c}=' || coalesce({keyexpr(f'j{i}', dest)}, 'DANGLING ' || quote(t.\"{c}\"))")
            else:
                parts.append(f"'{c}=' || quote(t.\"{c}\")")
        if parts:
            sql = 'SELECT ' + " || '|' || ".join(parts) + f' FROM "{join}" t ' + ' '.join(joins)
            out[join] = collections.Counter(r[0] for r in db.execute(sql))
    return out

def compare(a, b, tables, keys):
    A, B = render(a, tables, keys), render(b, tables, keys)
    problems = []
    for t in sorted(set(A) | set(B)):
        x, y = A.get(t, collections.Counter()), B.get(t, collections.Counter())
        if x != y:
            only_a, only_b = list((x - y).elements()), list((y - x).elements())
            problems.append(f'{t}: {len(only_a)} rows only in {os.path.basename(a)}, {len(only_b)} only in {os.path.basename(b)}'
                            + ''.join(f'\n      - {r[:240]}' for r in only_a[:2]) + ''.join(f'\n      + {r[:240]}' for r in only_b[:2]))
    return problems, sum(sum(c.values()) for c in A.values())

def read_csv(path):
    """RFC 4180 rows; an empty unquoted field is None (NULL), a quoted one '' (the empty string)."""
    text, rows, row, i = open(path, newline='', encoding='utf-8').read(), [], [], 0
    field, quoted = '', False
    while i < len(text):
        c = text[i]
        if c == '"' and not field and not quoted:
            j = i + 1
            while True:
                q = text.index('"', j)
                if text[q + 1:q + 2] == '"':
                    field += text[j:q] + '"'; j = q + 2
                else:
                    field += text[j:q]; i = q + 1; quoted = True; break
            continue
        if c in ',\n\r':
            row.append(field if (field or quoted) else None)
            field, quoted = '', False
            if c != ',':
                if c == '\r' and text[i + 1:i + 2] == '\n': i += 1
                rows.append(row); row = []
            i += 1
            continue
        field += c; i += 1
    if field or quoted or row:
        row.append(field if (field or quoted) else None); rows.append(row)
    return rows

def write_csv(path, rows):
    def cell(v):
        if v is None: return ''
        if v == '' or any(ch in v for ch in ',"\n\r'): return '"' + v.replace('"', '""') + '"'
        return v
    open(path, 'w', newline='', encoding='utf-8').write(''.join(','.join(cell(v) for v in r) + '\n' for r in rows))

def release(project, keys, tables):
    """Edits the fixtures as a release would: an attribute updated, a row copied under a new key,
    a row no other row refers to deleted, a key renamed (and every ref to it); returns the
    --rename arguments and what was done."""
    store = sqlite3.connect(f'file:{project}/app.store?mode=ro', uri=True)
    data = f'{project}/seeds/data'
    fixtures = {n[:-4]: read_csv(f'{data}/{n}') for n in sorted(os.listdir(data))}
    referrers = [(owner, ref, dest) for owner, refs in tables.items() for ref, (dest, _) in refs.items()]
    for entity, rows in fixtures.items():
        key = keys.get(entity)
        if not key or len(key) != 1 or len(rows) < 5 or key[0] not in rows[0] or tables.get(entity) is None:
            continue
        header, body = rows[0], rows[1:]
        k = header.index(key[0])
        if any(r[k] is None for r in body):
            continue
        is_uuid = re.fullmatch(r'[0-9A-Fa-f-]{36}', body[0][k]) is not None
        def newkey(old):
            return str(uuid.uuid5(uuid.NAMESPACE_URL, old)).upper() if is_uuid else old + ' (renamed)'
        def referred(value):
            return any(value in (r[fixtures[o][0].index(ref)] for r in fixtures[o][1:])
                       for o, ref, d in referrers if d == entity and o in fixtures and ref in fixtures[o][0])
        done, renames = [], []
        # An attribute the store holds as text.
        for i, h in enumerate(header):
            if i == k or '.' not in h and h in tables[entity]:
                continue
            if '.' in h:
                continue
            try:
                kinds = {t for (t,) in store.execute(f'SELECT DISTINCT typeof("Z{h.upper()}") FROM "Z{entity.upper()}"')}
            except sqlite3.Error:
                continue
            if kinds == {'text'} and body[0][i] is not None:
                body[0][i] += ' (edited in the release)'
                done.append(f'update {entity}.{h}')
                break
        copy = list(body[1]); copy[k] = newkey(body[1][k] + 'c')
        # A one-to-one (a ref to an entity that refers back) holds one row on each side: the copy holds none.
        for ref, (dest, _) in tables[entity].items():
            if ref in header and any(d == entity for d, _ in tables.get(dest, {}).values()):
                copy[header.index(ref)] = None
        # The same for a one-to-one the store's model shows (a keyless side is a number, not a ref).
        relationships = model_relationships(store) or []
        to_one = {(o, n) for o, n, _, many, _ in relationships if not many}
        for owner, rel, dest, many, inverse in relationships:
            if owner == entity and not many and (dest, inverse) in to_one and rel in header:
                copy[header.index(rel)] = None
        body.append(copy)
        done.append(f'copy {entity} row')
        old = body[2][k]; new = newkey(old)
        body[2][k] = new
        renames.append(f'{entity}:{old}={new}')
        for o, ref, d in referrers:
            if d == entity and o in fixtures and ref in fixtures[o][0]:
                j = fixtures[o][0].index(ref)
                for r in fixtures[o][1:]:
                    if r[j] == old: r[j] = new
        done.append(f'rename {entity} key')
        victim = next((i for i in range(len(body) - 2, 2, -1) if not referred(body[i][k])), None)
        if victim is not None:
            del body[victim]
            done.append(f'delete {entity} row')
        fixtures[entity] = [header] + body
        for n, rows in fixtures.items():
            write_csv(f'{data}/{n}.csv', rows)
        return renames, done
    return [], []

def choose_keys(project):
    """An entity without a key gets one, as init's manifest asks before the first release: the
    first column whose values are all given and all different (an identifier first)."""
    path = f'{project}/seeds/seedkit.yml'
    text = open(path).read()
    chosen = []
    # A relationship to a keyless entity holds its row's number: a key added now would leave it
    # a number, not a ref. Where the store has such a column (an indexed Z column no ref names), none is chosen.
    store = sqlite3.connect(f'file:{project}/app.store?mode=ro', uri=True)
    tables, _ = manifest_refs(path)
    indexed = {(t.upper(), c.upper()) for t, c in (
        re.match(r'^(Z\w+?)_(Z\w+)_INDEX$', n).groups() for (n,) in store.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name GLOB 'Z*_Z*_INDEX'")
        if re.match(r'^(Z\w+?)_(Z\w+)_INDEX$', n))}
    for entity, refs in tables.items():
        for (n,) in [(f,) for f in os.listdir(f'{project}/seeds/data') if f == f'{entity}.csv']:
            header = read_csv(f'{project}/seeds/data/{n}')[0]
            types = {c[1].upper(): c[2].upper() for c in store.execute(f'PRAGMA table_info("Z{entity.upper()}")')}
            if any(('Z' + entity.upper(), 'Z' + h.upper()) in indexed and types.get('Z' + h.upper()) == 'INTEGER'
                   and h not in refs for h in header):
                return chosen
    for name in sorted(os.listdir(f'{project}/seeds/data')):
        entity = name[:-4]
        block = re.search(rf'^  {entity}:\n    file: data/{re.escape(name)}\n((?:    .*\n)*)', text, re.M)
        if not block or re.search(r'^    key:', block.group(1), re.M):
            continue
        rows = read_csv(f'{project}/seeds/data/{name}')
        if len(rows) < 2:
            continue
        header, body = rows[0], rows[1:]
        order = sorted(range(len(header)), key=lambda i: (not re.search(r'id|identifier', header[i], re.I), i))
        for i in order:
            values = [r[i] for r in body]
            if '.' not in header[i] and all(v is not None for v in values) and len(set(values)) == len(values):
                text = text.replace(f'  {entity}:\n    file: data/{name}\n', f'  {entity}:\n    file: data/{name}\n    key: {header[i]}\n', 1)
                chosen.append(f'{entity}.{header[i]}')
                break
    open(path, 'w').write(text)
    return chosen

def one(seedkit, store, work):
    name = os.path.basename(store)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    shutil.copy(store, f'{work}/app.store')
    for suffix in ('-wal', '-shm'):
        if os.path.exists(store + suffix):
            shutil.copy(store + suffix, f'{work}/app.store{suffix}')
    steps = []
    def step(label, *args):
        rc, out = run(seedkit, work, *args)
        steps.append((label, rc, out))
        return rc, out
    rc, out = step('init', 'init', '--coredata', 'app.store')
    if rc != 0:
        return name, 'refused', f'init exit {rc}: {out.splitlines()[-1] if out else ""}'
    # What init says it left out of the fixtures ("212 links of Configuration.repositories left
    # out: …"): a difference there is named, not silent.
    left_out = sorted({m.group(0).strip(' )') for m in re.finditer(r'\d+ links? of \w+\.\w+ left out[^\n]*', out)})
    excused = {m.group(1) for m in (re.match(r'\d+ links? of (\w+)\.', n) for n in left_out) if m}
    chosen = choose_keys(work)
    rc, out = step('build', 'build')
    if rc != 0:
        return name, 'refused', 'build exit %d: %s' % (rc, ' / '.join(l for l in out.splitlines() if 'error' in l)[:600])
    tables, keys = manifest_refs(f'{work}/seeds/seedkit.yml')
    problems, rows = compare(f'{work}/app.store', f'{work}/build/seed.store', tables, keys)
    if problems and left_out and all(p.split(':')[0].startswith('Z_') or p.split(':')[0] in excused for p in problems):
        return name, 'refused', f'{rows} rows; init said what it left out: ' + '; '.join(left_out)[:600]
    if problems:
        return name, 'WRONG', 'the seed differs from the store:\n    ' + '\n    '.join(problems)
    rc, out = step('verify', 'verify', 'build/seed.store')
    if rc != 0:
        return name, 'WRONG', f'verify of the seed exit {rc}: {out[:400]}'
    shutil.copy(f'{work}/build/seed.store', f'{work}/seeds/releases/1.0.store')
    renames, done = release(work, keys, tables)
    if not done:
        return name, 'round-trip', f'{rows} rows equal; no entity with a one-column key and 5 rows to release'
    rc, out = step('new-migration', 'new-migration', 'release', '--from', 'seeds/releases/1.0.store',
                   *[a for r in renames for a in ('--rename', r)])
    if rc != 0:
        return name, 'refused', f'round-trip ok ({rows} rows); new-migration exit {rc}: {out[-400:]}'
    rc, out = step('build', 'build')
    if rc != 0:
        return name, 'refused', f'round-trip ok; build with the release exit {rc}: {out[-400:]}'
    rc, out = step('check-upgrade', 'check-upgrade', 'seeds/releases/1.0.store')
    if rc != 0:
        return name, 'WRONG' if rc == 1 else 'refused', f'round-trip ok; check-upgrade exit {rc}: ' + ' / '.join(l for l in out.splitlines() if 'LOST' in l or 'error' in l or 'DIVERGES' in l)[:600]
    shutil.copy(f'{work}/app.store', f'{work}/user.store')
    for suffix in ('-wal', '-shm'):
        if os.path.exists(f'{work}/app.store{suffix}'):
            shutil.copy(f'{work}/app.store{suffix}', f'{work}/user.store{suffix}')
    rc, out = step('migrate', 'migrate', 'user.store')
    if rc != 0:
        return name, 'refused', f'round-trip ok; migrate of the real store exit {rc}: {out[-400:]}'
    problems, _ = compare(f'{work}/user.store', f'{work}/build/seed.store', tables, keys)
    if problems:
        return name, 'WRONG', 'the migrated store differs from a fresh build:\n    ' + '\n    '.join(problems)
    rc, out = step('verify', 'verify', 'user.store')
    if rc != 0:
        return name, 'WRONG', f'verify of the migrated store exit {rc}: {out[:400]}'
    # Core Data's bookkeeping as its own rows keep it: each root entity's Z_MAX at least its
    # highest Z_PK, and a row's Z_OPT at least 1 (a new row is saved once).
    db = sqlite3.connect(f'file:{work}/user.store?mode=ro', uri=True)
    for ent, entity, sup, zmax in db.execute('SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY WHERE Z_SUPER = 0'):
        table = 'Z' + entity.upper()
        if not db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone():
            continue
        top, low = db.execute(f'SELECT max(Z_PK), min(Z_OPT) FROM "{table}"').fetchone()
        if top is not None and zmax is not None and 0 <= zmax < top:
            return name, 'WRONG', f'after migrate, Z_MAX of {entity} is {zmax} but {table} holds Z_PK {top}'
        if low is not None and low < 1:
            return name, 'WRONG', f'after migrate, a row of {table} has Z_OPT {low}'
    db.close()
    before = hashlib.sha256(open(f'{work}/user.store', 'rb').read()).hexdigest()
    rc, out = step('migrate again', 'migrate', 'user.store')
    after = hashlib.sha256(open(f'{work}/user.store', 'rb').read()).hexdigest()
    if rc != 0 or before != after:
        return name, 'WRONG', f'a second migrate exit {rc}, bytes {"same" if before == after else "changed"}'
    shutil.rmtree(work, ignore_errors=True)
    return name, 'released', f'{rows} rows equal; {", ".join(done)}; migrated store equals a fresh build'

def main():
    args, only = sys.argv[1:], []
    while '--only' in args:
        at = args.index('--only')
        if at + 1 >= len(args):
            sys.exit(__doc__)
        only.append(args[at + 1])
        del args[at:at + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    seedkit, listing = os.path.abspath(args[0]), os.path.abspath(args[1])
    root = subprocess.run(['git', 'rev-parse', '--show-toplevel'], cwd=os.path.dirname(listing),
                          capture_output=True, text=True).stdout.strip() or os.path.dirname(listing)
    elsewhere = os.environ.get('SEEDKIT_CORPUS_DIR', '')
    scratch = tempfile.mkdtemp(prefix='seedkit-corpus-')
    failures, counts, absent = [], collections.Counter(), 0
    for number, line in enumerate(open(listing), 1):
        if not line.strip() or line.startswith('#'):
            continue
        expected, digest, file, source = line.rstrip('\n').split(None, 3)
        if only and not any(text in file for text in only):
            continue
        file = urllib.parse.unquote(file)  # %20 for a space
        path = os.path.join(root, file)
        if not os.path.exists(path):
            path = os.path.join(elsewhere, os.path.basename(file)) if elsewhere else ''
        if not path or not os.path.exists(path):
            absent += 1
            print(f'absent     {file}: not committed; set SEEDKIT_CORPUS_DIR to a folder holding it ({source.split(";")[0]})')
            continue
        actual = hashlib.sha256(open(path, 'rb').read()).hexdigest()
        if actual != digest:
            failures.append(f'{file}: sha256 {actual}, the list says {digest}')
            continue
        _, verdict, detail = one(seedkit, path, os.path.join(scratch, str(number)))
        counts[verdict] += 1
        print(f'{verdict:10} {file}: {detail}')
        if verdict != expected:
            failures.append(f'{file}: {verdict}, the list expects {expected} (line {number})')
    shutil.rmtree(scratch, ignore_errors=True)
    print(f'{sum(counts.values())} stores: ' + ', '.join(f'{n} {v}' for v, n in sorted(counts.items()))
          + (f'; {absent} absent' if absent else ''))
    for failure in failures:
        print('FAILED: ' + failure)
    sys.exit(1 if failures else 0)

if __name__ == '__main__':
    main()
