// Generated from docs/releases.md by Tests/seedkitTests/HelpTopicTests.swift: do not edit; after
// an edit of docs/, SEEDKIT_WRITE_HELP_TOPICS=1 swift test --filter HelpTopicTests writes it again.
extension HelpTopic {
    static let releasesSections: [String: String] = [
        #"""
        Migration files
        """#: #"""
        ## Migration files

        Files in `migrations/` named `NNNN-name.yml` (or `.json`) and `NNNN-name.sql`, applied in
        numeric order; a number used twice is a configuration error.

        ```yaml
        insert:                 # add rows whose key is missing; rows already present are left alone
          books:
            - { title: The fourth book, price: 12, category_id: Biography }
        update:                 # only where the row still holds `from`; every `to` column needs a `from`
          books:
            - key: The first book
              from: { price: 10 }
              to:   { price: 11 }
        delete:                 # only rows that still hold `from` and that nothing references
          books:
            - key: The third book
              from: { price: 10 }
        ```

        A delete must say what it expects to find: `from` is required, and only the columns it lists
        are compared (`new-migration --from` lists every column; `from: {}` deletes a row with nothing
        but its key, or on purpose whatever the user did to it). A delete without `from` is a
        configuration error (exit 2) rather than a silent loss of a row the user edited.

        "Nothing references" is decided once the run's other changes are done (an update that waits
        for a parent inserted at the end of the run may stop referring to the row first; so is a delete
        whose `from` names a row that is not in the store yet while other changes wait, such as a
        rename's new key when the rename waits for a parent; an update whose `from` names such a row
        waits in the same way), and a
        reference from a row the run deletes too does not count: a row that refers to itself, and rows
        the migrations delete that refer to each other (a cycle through nullable refs), are deleted
        together, their foreign keys checked at the commit. Any other row referring to one of them (a
        user's) keeps it, and every row of the cycle it reaches, each `delete denied` (1600). Where a
        foreign key to those tables has an `ON DELETE` action, such a group is denied instead (deleting
        one first would make SQLite change the others).

        These three sections, and the fields above (`key`, `from`, `to`), are the whole format: any
        other top-level key or field is a configuration error (exit 2) at its `file:line:col`, with
        what was expected (`unknown field 'note' in update (expected key, from, to)`), and nothing
        is written. The message and place are the same whether the file is YAML or JSON, read by
        `seedkit` or by an app, and for a JSON file of 1 MiB or more, which is read while applied.
        So is a key written twice in the same map (a column twice in a row, `key` twice in an
        update): YAML never allowed it, and JSON now refuses it too, where it used to keep one of
        the two.

        YAML scalars follow YAML 1.2's core schema: only `true`/`false` are booleans, so a
        country code `NO` or a value `yes` stays text (a BOOLEAN column still accepts `yes`/`no`).
        Earlier seedkit versions read `yes`/`no`/`on`/`off` as YAML 1.1 booleans: a migration that
        holds such a plain scalar gets a different checksum now, and a store that recorded it under
        the old checksum is refused as changed (exit 3).

        Composite keys are written as a map: `key: { book: The first book, number: 2 }`. A
        `.sql` migration runs as written, once. The store records each applied migration in
        `_seedkit_migrations` (number, name, `sha256:` checksum, `applied_at`, origin `seed` or
        `applied`); a seed records the migrations present at build time as `seed`, so a fresh
        install has nothing to do. The checksum covers a declarative migration's content as
        canonical JSON (so a YAML file and its JSON conversion have the same checksum, and
        comments don't count), and SQL as written. A recorded migration whose file changed, or a
        recorded number with no file, makes the store refused (exit 3) with a message that says
        what to do. Shipped migrations are history: never edit one, add the next. For a JSON
        migration of 1 MiB or more the run also records the SHA-256 of the file's bytes
        (`_seedkit_file_digests`: number, `sha256`): a later launch that finds the same bytes takes the
        recorded checksum without scanning the file (10 ms instead of 110 ms for a 13 MB, 100,000-row
        update); other bytes (the file re-exported, or edited) are scanned and compared as before. A
        seed records the digest of the exported `.json` of each such migration it comes with.

        ### Refs resolve in any order

        Dependency order is seedkit's job, not the author's. Within one run of pending migrations
        (and within one migration) a ref may name a row that a later change of the run inserts: a
        child table listed before its parent table, a self-reference such as ISO 3166-2's
        `parent_id: subdivisions.code` with children first, a chain, or a parent added by a later
        migration or by a later `.sql` step. A row whose parent is not in the store yet waits for
        it and is inserted as soon as the parent is; the report still lists rows in the order
        written, each under its own migration. Rows that wait on each other (a cycle) are inserted
        through a nullable ref (NULL first, linked once the other row is in) or a many-to-many
        relationship (Core Data: the row goes in without the members not in yet, whose join rows are
        written once they are); a cycle of NOT NULL refs is an error naming the rows (2030).

        What still has no parent at the end of the run:

        - **A key nobody provides** — no fixture row, no migration's insert or rename, not the
          store — is the author's typo. (What a `.sql` migration inserts is known only by running
          it, so a key of a table that some `.sql` migration of the release inserts into or updates
          is never called a typo; when the store lacks it, it is a conflict as below.) `migrate`
          with a manifest reports it, exit 1, nothing written:
          ```
          migrations/0001-typo.yml:3: error: subdivisions 'NO-42': country_id 'NX' matches no countries.alpha_2 in the fixtures, the store or any migration; nothing was written [2030]
          ```
          Rows that needed that row are not reported again.
        - **A parent the user deleted** (the release provides it, this store no longer has it) is a
          conflict: the child is not inserted, the report names the child's key and the parent's
          key, and the migration is recorded as applied (the user's deletion wins, as for any
          conflict; `--on-conflict fail` makes it an error). The app runtime has no manifest, so
          every missing parent is such a conflict in its report.
          ```
          conflict        subdivisions 'NO-0302': parent_id 'NO-03' matches no subdivisions.code in the store (the user deleted it?); row not inserted
          ```

        ### Renames

        An update may change key columns:

        ```yaml
        update:
          countries:
            - key: Turkey
              from: { name: Turkey, official_name: Republic of Turkey }
              to:   { name: Türkiye, official_name: Republic of Türkiye }
        ```

        The row keeps its identity (rowid, primary key, Core Data `Z_PK`), so refs by id still
        point at it; rows that store the renamed value itself (a FOREIGN KEY or manifest ref to
        that column) are changed with it. A store that already holds the new key with the `to`
        values is up to date (`already up to date (renamed to 'Türkiye')`); a row the user changed
        is a conflict, as for any update; a new key another row already has is a conflict
        (`the new key 'Türkiye' is already taken by another row; not renamed`), never a duplicate.
        The renamed row itself is not another row: a key in a `COLLATE NOCASE` column renamed to its
        own other case (`veg` → `VEG`, which SQLite's comparison finds equal) is renamed.

        ### Schema steps

        A `.sql` migration (a schema step: `ALTER TABLE … ADD COLUMN`, `CREATE TABLE`, …) runs in
        the same ordered history and the same transaction as the data migrations around it: the
        data migration after it sees the new columns and tables (seedkit re-reads the schema and
        the store's table specs after each `.sql` step), and a failure anywhere later rolls the
        schema step back with everything else.

        What a `.sql` step may do, and how its rows are counted:

        - **Pragmas.** It may run the pragmas that read the schema or check the store (`table_info`,
          `index_list`, `foreign_key_check`, `integrity_check`, …), read any pragma (`PRAGMA
          foreign_keys;`), and set `user_version` and `defer_foreign_keys` (both last only as long as
          seedkit's transaction; foreign keys are still checked before the commit, and the table
          rebuilds `new-migration --from` writes need it). Every other pragma that sets something is
          refused before anything runs (exit 2): `ignore_check_constraints`, `foreign_keys`,
          `recursive_triggers`, `query_only`, `synchronous`, `max_page_count`, `writable_schema`, the
          journal's, … change how the statements after it run, or the connection, for the whole run.
        - **Counts come from SQLite.** Rows are counted by SQLite's preupdate hook, which SQLite calls
          for each row any statement writes (tables `WITHOUT ROWID`, the deletes of a REPLACE conflict,
          what a trigger or a foreign-key action writes, a `DELETE` without `WHERE` included); where the
          platform's SQLite lacks the hook (Apple's system SQLite may), by temporary triggers on every
          table, which count the same rows (`recursive_triggers` is on for the step so that SQLite fires
          delete triggers for REPLACE's deletes; the tests run every case through both). The rows
          `DROP TABLE` empties are the statement's own; what that cascades to is counted. A virtual
          table's rows are counted where it stores them (an FTS5 table's `search_content`, …). The report gives the counts by table, then each row deleted by its key
          (`deleted books 'The third book'`, and the rows `ON DELETE CASCADE` took with it).
        - **No deletes as a side effect.** A statement other than `DELETE` that deletes a row the store
          holds — a REPLACE conflict (`INSERT OR REPLACE`, `REPLACE INTO`, `UPDATE OR REPLACE`, a schema's
          `ON CONFLICT REPLACE`), what that cascades to, a trigger — fails the run, exit 1, nothing written,
          naming the statement and the rows (`this INSERT deleted 2 rows the store held (reviews 1; books
          'The first book')`): a row the user holds or edited is never lost because a release's SQL
          re-inserted it. Write such a change as an upsert (`INSERT … ON CONFLICT (title) DO UPDATE SET
          …`, which keeps the row, its id and its children), or as a data migration, whose `from` keeps
          the user's edits. Deleting rows is what `DELETE` statements are for.
        - **seedkit's own tables are not the step's.** A statement that inserts into, updates, deletes
          from, drops, alters, or puts a trigger or an index on `_seedkit_meta`, `_seedkit_tables`,
          `_seedkit_migrations` or `_seedkit_file_digests` (directly, or in the body of a trigger the
          step creates) is refused by SQLite's authorizer before anything runs, exit 2: `writing
          _seedkit_migrations is not allowed in a SQL migration`. Those tables are the store's record of
          what it holds; a step that emptied the ledger would make the next run apply every migration
          again.
        - **Time bound.** Each `.sql` step may run for 60 seconds (all its statements together); past
          that, SQLite's progress handler stops the running statement, the run is rolled back and
          nothing is written, exit 5 [2400]: `0002-forever.sql:2:1: error: this statement ran past the
          bound of 60 s on a SQL migration step and was stopped`. `migrate --sql-timeout SECONDS` or the
          environment variable `SEEDKIT_SQL_TIMEOUT=SECONDS` (which `check-upgrade`, `new-migration
          --from` and `migrate --dry-run` honour too) sets another bound, from 0.001 to 86400. The app's
          library call has the same bound (`SeedMigrator.Options.sqlTimeLimit`, default 60 s or the
          environment variable), so a step that never ends cannot hang an app at launch.
        - **Temporary triggers a step creates** stay on the connection for the rest of the run; what
          they change in later data migrations is accounted like any trigger's change
          ([conflicts-and-triggers.md](conflicts-and-triggers.md#what-migrate-accounts-for)).

        ### Every error at once

        Like `build`, `migrate` reports every problem of the pending migrations in one run: rule
        violations, type errors, unknown tables and columns, unknown refs, constraint failures. A
        row that breaks a rule is still written inside the (rolled back) transaction, so that the
        duplicate keys and refs of the rows after it are checked against it too.

        A store with damaged pages is refused (exit 3) before anything is written, and the message
        says to recover the data first. When migrations are pending, `migrate` and the app runtime
        check a store under 16 MB whole (`PRAGMA quick_check`); a larger one in proportion to the run
        (its header, and every page the run reads or writes), unless `--check-whole-store` is given
        (an up-to-date store pays nothing). What that does and does not catch:
        [performance.md](performance.md#damaged-stores).

        All pending migrations run in one `BEGIN IMMEDIATE` transaction, foreign keys checked before
        commit (those SQLite counts the run left unresolved; every one with `--check-whole-store`): a
        failure or a crash at any moment leaves the store as it was. `--dry-run` copies the store into memory (SQLite's backup API) and migrates the
        copy, so its plan is exactly what would happen, SQL migrations included; the store is
        opened read-only. `--backup PATH` writes a consistent copy (backup API, WAL included)
        before migrating; PATH must not exist yet (exit 2: a backup never replaces a file).

        A file that cannot grow is an I/O failure (exit 4), never a crash: a full disk says so
        (`cannot write the backup: the disk is full (SQLITE_FULL, …)`), and a write past the
        process's file-size limit (`ulimit -f`), whose signal (SIGXFSZ) would otherwise kill the
        process, fails like any write and names the limit (`a file grew past this process's
        file-size limit (ulimit -f: 256 KB; File too large, EFBIG)`). `build` and `--backup` remove
        their temporary files (and journals) on every failure; `migrate` rolls back; `new-migration`
        writes a release's files whole or not at all (never a cut-off migration in `migrations/`);
        `check-upgrade` and `new-migration` name the temporary folder their fresh build could not be
        written in (`TMPDIR` chooses another).
        """#,
        #"""
        Renames in a release
        """#: #"""
        ## Renames in a release

        A key that only the old seed has and a key that only the fixtures have are, by default, a
        delete plus an insert. `new-migration --from` writes them as a **rename** instead (an update
        of the key columns, which keeps the row, its id and every row referring to it; see
        [Renames](#renames)) when it can tell it is the same row:

        - **by an id the fixtures give**: the table has an `INTEGER PRIMARY KEY` other than the
          natural key, every record of its fixture gives it (a CSV column, a key of every JSON
          record; plain SQLite stores), and every row both seeds have under the same key has the
          same id in both. Then a removed key and an added key with the same id are one row renamed.
          Ids that SQLite assigned (the fixture has no id) follow the file's order, so they say
          nothing about identity and are never used; nor are ids that disagree on a row both seeds share.
        - **by the key column's collation**: a removed key and an added key that SQLite calls one
          key under their column's collation (`COLLATE NOCASE`: `veg` and `VEG`, ASCII letters only;
          `COLLATE RTRIM`: `veg` and `veg ` with trailing spaces) are one row whose key's text
          changed. A delete plus an insert cannot turn one into the other: `migrate` finds the one
          row under either key, so the insert is already present and the row keeps its old text.
          Listed as `rename cats 'veg' → 'VEG' (one key under its collation)`. A key part that is
          a ref, or a column of another collation, compares its bytes.
        - **by a hint**: `--rename TABLE:OLD=NEW` (repeatable), the keys read exactly as the fixtures
          read them: nothing is trimmed (a trailing space or no-break space U+00A0 is part of a text
          key, as in the CSV), a part of a number key is converted as the column converts a field,
          and keys compare as SQLite compares them (text by its bytes).
          A composite key lists its parts in the key's column order, separated by commas
          (`--rename 'editions:Hello,2024=Hello,2025'`); a part holding a comma, `=` or `"` is
          written in double quotes, a quote inside doubled. A hint whose old key is not a row of
          the old seed that the fixtures dropped, or whose new key is not a row the fixtures added,
          is an error naming it (exit 2, nothing written):
          `error: --rename 'countries:Turkei=Türkiye': no row of countries in the old seed has the key 'Turkei' [2100]`.
          The old seed a hint is read against is the shipped one with the existing migrations
          applied (where users are); a key one of those migrations deleted is said to be so:
          `the old seed has countries 'Macedonia', but the old seed with the existing migrations applied (0001-drop) does not`.
        - **as a likely rename, for the author to decide**: a deleted row and an inserted row of one
          table whose other columns are all (or mostly: more than half) equal are written as a delete
          and an insert, and listed with the `--rename` that would make them one row renamed:

          ```console
          $ seedkit new-migration "release 2" --from seeds/releases/1.0.sqlite
          wrote migrations/0001-release-2.yml: 2 inserts, 0 updates, 2 deletes
            likely rename countries 'Macedonia' → 'North Macedonia' (every other column matches): written as a delete and an insert; if it is one row renamed, run again with --rename 'countries:Macedonia=North Macedonia'
          ```

          A row whose other columns say nothing (a table of tags, its key the only column) is told by
          the rows that refer to it: a deleted row and an inserted one are a likely rename when rows
          of other tables that referred to the first refer to the second in the new seed (a ref that
          changed from one to the other, or a row keyed by its ref deleted and the same key under the
          other inserted), paired by the most such rows; the referring rows' own likely renames that
          are only their ref following it are then left out:
          `likely rename tags 'red' → 'crimson' (3 rows of items, notes that referred to 'red' refer to
          'crimson' instead): … --rename 'tags:red=crimson'`.

        Rows that refer to a renamed row are not updated just because their ref now reads the new
        key (their ref follows the rename), and the updates are written parents first, each table's
        renames before its other updates, so that a `from` reads refs as they are after the rename.
        Each ref of an update names the key its row holds when that update runs: a row whose rename
        comes later in the migration (or the renamed row itself, in its own rename: `from: { code: a,
        parent: a }`, `to: { code: a2, parent: b }`) by its old key, which names the same row, and the
        ref follows the rename. This is what makes tables that refer to each other work: one table's
        updates run before the other's renames.
        Each rename is listed with how it was told apart (check the `same id` ones: an id the fixtures
        reused for an unrelated row would re-point users' rows at it):

        ```console
        $ seedkit new-migration "release 1.1" --from seeds/releases/1.0.sqlite --rename 'countries:Turkey=Türkiye'
        wrote migrations/0001-release-1-1.yml: 0 inserts, 2 updates (2 renames), 0 deletes
          rename countries 'Turkey' → 'Türkiye' (--rename)
          rename subdivisions 'NO-03' → 'NO-OS' (same id in both seeds)
        $ cat migrations/0001-release-1-1.yml
        # 0001-release-1-1: generated by seedkit new-migration from seeds/releases/1.0.sqlite
        update:
          countries:
            - key: "Turkey"
              from: { name: "Turkey", official_name: "Republic of Turkey" }
              to: { name: "Türkiye", official_name: "Republic of Türkiye" }
          subdivisions:
            - key: "NO-03"
              from: { code: "NO-03" }
              to: { code: "NO-OS" }
        $ seedkit check-upgrade seeds/releases/1.0.sqlite
        seeds/releases/1.0.sqlite: applied 0001-release-1-1; converges with a fresh build
          ok: user edit countries 'Türkiye'.alpha_2 = "TR (edited by the user)" kept
          ok: user row subdivisions 'NO-03 (added by the user)'.name = "Oslo (edited by the user)" kept
          ok: user edit subdivisions 'NO-OS'.name = "Oslo (edited by the user)" kept
          ok: user row countries 'Norway (added by the user)'.alpha_2 = "NO (edited by the user)" kept
          ok: user row subdivisions 'NO-03 (added by the user)' still refers to the renamed countries 'Türkiye'
        1 old seed converges
        ```

        Here `subdivisions` fixtures give each row its `id` (`NO-03` kept id 1, so it is a rename, and
        its child `NO-0301` gets no update), and countries, whose ids SQLite assigns, needed the
        hint. For a rename, `check-upgrade`'s simulated user edits a column the rename does not touch
        (the edit must survive under the new key) and adds a row referring to the renamed row (it must
        still refer to it after the upgrade).

        Note that a seed records the migrations present at build time as already contained, so the
        fixtures must hold what those migrations add: `check-upgrade` is what catches fixtures that
        fall behind (new installs would otherwise never get the data).
        """#,
    ]
}
