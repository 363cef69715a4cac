// Generated from docs/reference.md by Tests/seedkitTests/HelpTopicTests.swift: do not edit; after
// an edit of docs/, SEEDKIT_WRITE_HELP_TOPICS=1 swift test --filter HelpTopicTests writes it again.
extension HelpTopic {
    static let referenceSections: [String: String] = [
        #"""
        The manifest (`seeds/seedkit.yml`)
        """#: #"""
        ## The manifest (`seeds/seedkit.yml`)

        ```yaml
        schema: schema.sql            # DDL run on an empty database; or
        # template: empty.sqlite      # a store whose schema is used as-is
        output: ../build/seed.sqlite  # relative to the manifest (absolute paths as they are); --output overrides
        tables:                       # loaded in this order; a ref may name a row loaded later
          categories:
            file: data/categories.csv
            key: name                 # natural key: a column or a list; default: the primary key
            rules:
              name: { required: true, min_length: 1, max_length: 25 }
          books:
            file: data/books.csv
            key: title
            refs:
              category_id: categories.name   # the fixture holds a category name; the id is stored
            rules:
              price: { min: 0, max: 1000 }
              isbn: { pattern: "^[0-9]{13}$" }
              format: { one_of: [hardcover, paperback, ebook] }
              published: { after: 1450-01-01, before: 2100-01-01 }
            checks:
              - sql: "NOT (format = 'ebook' AND price > 50)"
                message: an ebook can't cost more than 50
        ```

        A ref may name a row that comes later: a parent listed after its child in the same file (a
        self-reference like `parent_id: subdivisions.code`) or in a table loaded later. A row whose
        nullable ref names a row not in yet goes in in the fixture's order with the ref empty, and the
        ref is set once every row is in (rows that refer to each other, in a chain or a cycle, included):
        a ref to a later row costs about what a ref to an earlier one does. A row whose NOT NULL ref
        waits (or whose CHECK or trigger refuses it with the ref empty, or whose table has triggers
        or manifest checks, which would see the ref empty) waits in a temporary table and
        is inserted once its parent is in; a cycle of NOT NULL refs is an error (2030) naming each row
        and the rows it waits for. A row that breaks a rule is still checked for
        duplicate keys, refs and constraints, so one build reports every problem.

        Unknown keys, tables and columns are configuration errors (exit 2) that name the manifest
        line. Rules: `required` (not NULL), `min`/`max` (numbers, inclusive), `min_length`/`max_length`
        (characters), `pattern` (an ICU regular expression that must match the whole value, as
        Core Data's `regularExpressionString` — an NSPredicate MATCHES — does: any way of matching
        the whole value counts, so `a|ab` accepts `ab`; `\d`, `\w`, `\s` are Unicode-aware and `.`
        stops at line terminators, as in ICU), `one_of`, `after`/`before` (ISO 8601 dates or date-times,
        exclusive, compared as moments: offsets and fractions of a second count, a date or a date-time
        without an offset is UTC, a Core Data date is seconds since 2001; a value that is not a date
        fails them, 1550). `checks`
        are SQL boolean expressions evaluated by SQLite on each inserted row; like a CHECK
        constraint, NULL passes. Schema constraints (NOT NULL, UNIQUE, CHECK, FOREIGN KEY) are
        enforced too and reported at the fixture's line. A natural key is unique: when the schema
        does not say so, the build adds a temporary unique index while loading. Every column of a
        natural key must have a value (an empty or missing key is 1570, in fixtures and in migrations);
        only a table's own INTEGER PRIMARY KEY, when it is the key by default, may be left for SQLite to
        number.

        Manifests and migrations are YAML (or JSON) read with limits that no hand-written file comes
        near: lists and maps nest at most 256 levels, aliases (`*name`) may repeat at most 10,000
        values in all (an "alias bomb" is refused before it grows), a key appears once per map. Each
        is a configuration error (2100, exit 2) at its line and column, as are syntax errors.

        **Data as it comes.** Real datasets rarely match the schema field for field. Three table
        options read them as they are, without a converter (the iso-codes example,
        [`Examples/IsoCodes`](../Examples/IsoCodes/README.md), uses all three):

        ```yaml
          countries:
            file: data/iso_3166-1.json      # {"3166-1": [{"alpha_2": "FR", "alpha_3": "FRA", "name": "France", …}, …]}
            root: /3166-1                   # the records are the array at this JSON Pointer
            key: code
            columns: { code: alpha_2 }      # column ← fixture field
            ignore: [alpha_3, numeric, flag, common_name]   # fields the table does not store
        ```

        - `root:` is a JSON Pointer (RFC 6901) to the array inside a `.json` document: `/3166-1` is
          the key `3166-1` of the top-level object, `/data/0/items` steps through an array by index,
          `~1` stands for `/` and `~0` for `~` in a key. The document is still streamed: what comes
          before and after the array is stepped over value by value, never held. A `.json` document
          that is not an array is an error (2001) that says what it found and where the array is:
          `expected an array of objects, found an object with keys 3166-1; point at the array with
          root: /3166-1 in the manifest`.
        - `columns:` maps a column to the fixture field that fills it (CSV header name or JSON key).
          `key`, `refs`, `rules` and `checks` keep speaking of columns; error messages name the field
          as the fixture writes it, at its line and field. Once a column is mapped, a field with the
          column's own name is not read (an error unless ignored).
        - `ignore:` lists fields that are read and dropped. Any other field the table lacks is still
          an error (2020) that says how to map or ignore it. A field mapped twice, or both mapped and
          ignored, and a mapped column the table lacks are manifest errors (exit 2) at their line.
        - `new-migration --from` and every report speak in column names.

        ### Published files as they are

        Publishers ship files in their own formats and change them every release. These options
        read such a file exactly as it is published: no converter script, and the next release of
        the file is the next release of the seed (the tzdb example,
        [`Examples/TimeZones`](../Examples/TimeZones/README.md), reads IANA's `zone1970.tab` this way
        and releases it from tzdata 2022a to 2025b). The options go on a table with `file:` or on a
        source (below); a bad value is a manifest error (2100, exit 2) at its line.

        <!-- quoted from Examples/TimeZones/seeds/seedkit.yml -->
        ```yaml
          zones:
            file: data/zone1970.tab         # .tab: tab-separated, no quoting
            comment: "#"                    # the file's own comment lines
            header: [codes, coordinates, tz, comments]   # its header is only inside a comment
            ragged: true                    # rows without comments have 3 fields
            key: tz
        ```

        - `format:` `csv`, `tsv`, `json` or `jsonl`. By default the extension decides: `.csv`;
          `.tsv` and `.tab`; `.json`; `.jsonl` and `.ndjson`. Any other extension without `format:`
          is a manifest error at the `file:` line. The format is decided once, when the manifest is
          read: `build`, `new-migration`, `check-upgrade` and the build plugin read the file alike.
          **TSV** is IANA style: fields are split on tabs and nothing is quoted (a `"` is a character
          like any other); otherwise it is read as CSV is (header, blank lines, UTF-8).
          `file: data/countries.txt` with `format: tsv` reads a tab-separated `.txt`.
        - `delimiter:` (CSV) the one ASCII character between fields, `,` by default:
          `delimiter: ";"` for a European spreadsheet's export, `delimiter: "|"`.
        - `comment:` (CSV, TSV) lines that start with this text are skipped, wherever a record could
          start: `comment: "#"`. A line inside a quoted field is never a comment.
        - `header:` (CSV, TSV) the file has no header row; these name its fields, in order:
          `header: [codes, coordinates, tz, comments]`. The first line of the file is a record.
        - `nulls:` (CSV, TSV) the unquoted fields read as NULL. By default only the empty unquoted
          field is; a list replaces that: `nulls: ["", "-"]` reads `-` as NULL too (ISO 4217's "not
          applicable" in an INTEGER column), `nulls: ["-"]` reads an empty field as the empty string.
          A quoted field is always text. (Not `null:`, which YAML reads as a null key.)
        - `ragged: true` (CSV, TSV) a row with fewer fields than the header has NULL for the rest (ubuntu.csv's
          older releases have 6 of its 9 fields). A row with more fields stays an error (2001); without
          `ragged:` a short row is an error that names this option.
        - `columns:` a value that starts with `/` is a JSON Pointer (RFC 6901) into each record (JSON
          fixtures): `columns: { common_name: /name/common, first_spelling: /altSpellings/0 }`. The
          top-level field a pointer enters counts as read (its other members are dropped). A record
          without the path gives NULL; a path that no record holds is one error (2020) at the
          pointer's manifest line naming the path and the table, not a NULL in every row.

        **Nested values.** Nested arrays and objects are stored as canonical JSON text: minified, in
        document order, numbers as written, strings with the fewest escapes (`\"`, `\\`, control
        characters; `\u00e9` is stored as `é`, `\/` as `/`), which SQLite's `json()` leaves as it is.
        A publisher re-indenting or re-escaping a file changes nothing: a JSON fixture's content hash
        is over its records, not its bytes, so the seed is byte-identical and `new-migration` finds
        nothing to write.

        ### Derived tables

        A file that is not one table per file (ISO 4217's `codes-all.csv`: one row per country and
        currency, withdrawn currencies marked by a date) is a **source**: loaded into a scratch
        database, never into the seed. A table with `query:` instead of `file:` takes its rows from a
        SQLite `SELECT` over the sources:

        ```yaml
        sources:                          # raw files, read with the options above
          codes: { file: data/codes-all.csv, nulls: ["", "-"] }
        tables:
          currency:
            query: |
              SELECT DISTINCT AlphabeticCode AS code, Currency AS name, MinorUnit AS minor_unit
              FROM codes WHERE WithdrawalDate IS NULL AND AlphabeticCode IS NOT NULL
            key: code
          country_currency:
            query: SELECT Entity AS country, AlphabeticCode AS currency FROM codes WHERE WithdrawalDate IS NULL AND AlphabeticCode IS NOT NULL
            key: [country, currency]
            refs: { currency: currency.code }
        ```

        - A source is a table of its fields, each TEXT: a CSV or TSV file's header (or `header:`), a
          JSON file's top-level keys (nested values as canonical JSON text, so `json_extract` reads
          into them); NULL as `nulls:` says. A source takes `file:`, `root:` and the reading options.
        - The query's result columns name the fields, as a CSV header does. Its rows go through
          everything a fixture's rows go through: conversion by the column's type, rules, refs,
          checks, keys, and `new-migration`/`check-upgrade`. Their errors name the table, the
          row of the query's result and its key: `seeds/seedkit.yml (query of currency):2:3: error:
          minor_unit: 'two' is not an integer (the column is INTEGER) (the query's row 2: code 'ALL') [2010]`;
          a duplicate key names the earlier row (`row 1 of the query has the same`), as it names the
          earlier line of a file (`duplicate key title 'The first book': line 2 has the same`).
        - A query that does not prepare is a manifest error (2100) at its line with SQLite's message:
          `seeds/seedkit.yml:7:12: error: the query of table currency does not prepare: no such
          column: AlphabeticCod [2100]`. A query that writes is refused the same way.
        - A table has `file:` or `query:`, not both; reading options belong to the source.

        ### Tables only migrations write

        Some tables hold only what users make (their own notes, an app's favourites), or rows an app
        wrote before it had a seed: the seed starts them empty, and releases change the rows users
        already have. Such a table says so instead of naming a fixture:

        ```yaml
        tables:
          Book:
            migrate_only: true            # the seed leaves it as the template or schema makes it
            key: title
        ```

        - `build` leaves the table as the template (or schema) has it and lists no rows for it. The
          table's key and refs are checked against the schema as any table's are.
        - A release's updates and deletes of such a table name the users' own rows, which no fixture or
          old seed holds: `build` and `check-upgrade` do not ask for them there (for other tables a key
          that matches no row is a typo, 2030). `migrate` applies them where the row is and reports it
          missing where it is not.
        - An insert into such a table is refused (2100, exit 2, at its line): the seed records every
          migration as applied, so a fresh install would never get the row. Give the table a `file:`
          that holds it instead.
        - `migrate_only: true` with `file:` or `query:` is a manifest error; a table with neither and
          without the flag still fails `build` (a forgotten `file:`), with a message that names the flag.
        """#,
        #"""
        Fixtures
        """#: #"""
        ## Fixtures

        - **CSV** (`.csv`): RFC 4180 (other separators, TSV, comments, files without a header: see
          [Published files as they are](#published-files-as-they-are)); a header row of column names; UTF-8 (a BOM is skipped); LF or
          CRLF; quoted fields may hold commas, doubled quotes and line breaks. An empty unquoted
          field is NULL; `""` is the empty string. Blank lines are skipped. A quote inside an
          unquoted field is an error.
        - **JSON** (`.json`): an array of objects, read as a stream; or a document holding one, found
          with `root:` (above). **JSON Lines** (`.jsonl`, `.ndjson`): one object per line. Keys are
          column names (or mapped with `columns:`); `null` is NULL; nested arrays and objects are
          stored as canonical JSON text ([Nested values](#published-files-as-they-are)); a key left
          out takes the column's DEFAULT. For a SwiftData entity, a map is a composite struct's value
          and a string an enum's case ([swiftdata.md](swiftdata.md#giving-a-composite-in-the-swift-shape)).
        - Values are converted by the column's declared type, following SQLite's affinity rules:
          INT → integer, REAL/FLOA/DOUB → real, CHAR/CLOB/TEXT → text as written, other types →
          numeric; a column with no declared type (or `ANY`) takes a value as its source types it,
          in fixtures and migrations alike: a CSV field as text (`007` stays `'007'`), a JSON or YAML
          number as a number, a quoted one as text (`new-migration` writes each value with its type,
          so a release of such a column converges); plus BOOL (`true/false/1/0/yes/no` → 1/0), DATE (`YYYY-MM-DD`, checked against the
          calendar) and DATETIME/TIMESTAMP (ISO 8601), stored as the text given; BLOB takes base64. A
          value that does not fit is an error (2010), never stored as text. Integers are read digit by
          digit: `12.0` and `1.5e3` fit an INTEGER, `12.5` and anything past 64 bits do not (nothing is
          rounded or clamped).
        - A fixture column the table lacks is an error (2020); past 20 of them in one header the rest
          are counted in one line, and headers of any width are checked in linear time.
        - Every error names the file, the line of the record's first line, and the column: the
          field's position in its record (for CSV, its position in the header).
        """#,
        #"""
        Output formats
        """#: #"""
        ## Output formats

        `--format` takes the same names on every command that reports (`init`, `build`, `migrate`, `status`,
        `check-upgrade`, `inspect`, `diff`, `verify`, `new-migration`, `export-migrations`), and each name means the same thing everywhere:

        | format | what it prints |
        |---|---|
        | `human` (default; also spelled `table`) | text for people: aligned tables, one line per row or problem; on a terminal long text is cut at 40 characters, `inspect STORE TABLE` shows 50 rows unless `--limit` says otherwise, with a line saying how many were left out, and headers are bold unless `NO_COLOR` is set; a table's columns are as wide as their widest cell in its first 1,000 rows (a later, wider cell widens its own line) |
        | `json` | one pretty-printed JSON document, keeping SQLite's types; every row (`migrate` lists every row it touched, not a sample) |
        | `csv` | the report's rows, RFC 4180, which reads back with seedkit: NULL is an empty field, the empty string is `""`, blobs are base64 (a value holding a NUL, which a CSV fixture cannot carry, is warned about on stderr) |
        | `markdown` | the report's rows as a GitHub-flavoured Markdown table (pipes escaped, line breaks as `<br>`), for a pull request or a job summary; it stops before 512 KiB (GitHub drops a job summary over 1 MiB), saying how many rows it left out: `csv` and `json` list every one |
        | `github` | the text for people, with what needs attention (errors, refusals, divergences, conflicts, problems found) as GitHub Actions annotations (`::error file=…::…`) |

        What each command prints in each; a command given a format it does not print exits 2 before it
        does anything, naming the formats it prints:

        | command | `human` | `json` | `csv`, `markdown`: one row per | `github` |
        |---|---|---|---|---|
        | `init` | `wrote PATH  what it is for` per file, then `next:` and a step a line | `{"folder", "written": [{"path", "purpose"}], "next": [step]}`, each step the line `human` prints | refused | refused |
        | `build` | the seed's tables and rows | `{"output", "bytes", "seconds", "contentHash", "tables", "migrations"}`; `--check`: `{"output", "upToDate"}` | refused | errors as annotations |
        | `migrate` | a line per migration, a sample of its rows | every row: `{"store", "dryRun", "backup", "migrations": [{…, "events"}]}` | row: migration, kind, table, key, detail (`csv` lists every row; `markdown`, for people, the sample `human` lists) | errors, conflicts and denied deletes as annotations |
        | `status` | a line per migration | `{"store", "migrations": [{"number", "state", …}]}` | migration: migration, state, detail | a changed or missing migration as an annotation |
        | `check-upgrade` | each old seed, what converged, kept, was lost | `[{"seed", "passed", "divergences", …}]` | refused | each divergence and lost edit as an annotation |
        | `new-migration` | `wrote PATH: what it does` per file, its renames (`  rename …`) and likely renames (`  likely rename …`) under it; or the line saying no migration was needed | `{"written": [{"path", "summary", "renames", "likelyRenames"}], "note"}`: `note` is the line `human` prints when nothing was written, else `null` | refused | refused |
        | `export-migrations` | `wrote PATH  CHECKSUM` per file; or the line saying the migrations folder has none | `{"folder", "written": [{"path", "checksum"}]}` | refused | refused |
        | `inspect STORE` | the store's facts, tables, entities, migrations | `{"path", "kind", "bytes", …, "integrity"}` | table: table, rows | refused |
        | `inspect STORE TABLE` | the rows | `{"columns", "rows": [{…}], "omitted"}` | row | refused |
        | `diff A B` | per table a count line, then `+`, `-`, `~` lines, an added or removed row with its values (`+ 'Pear': quantity 7`) | `{"identical", "schema", …, "tables": [{"table", "key", "added": [{"key", "values"}], "removed", "changed": [{"key", "columns"}]}]}` | difference: table, change, key, column, old, new (an added row gives a row per column with its value as `new`, a removed one as `old`) | refused |
        | `verify STORE` | a line per problem, then what was checked | `{"columns", "rows", "omitted"}` of the rows | problem: table, key, column, code, message | each problem as an annotation |

        In `csv`, `markdown` and `human` rows, a cell with nothing to say (the old value of an added
        row, the key of a table-level difference) is empty; a NULL value is `NULL` in `human` and
        `markdown` and an empty field in `csv`.

        Errors: `init`, `build`, `migrate`, `status`, `check-upgrade`, `new-migration` and `export-migrations` report them in their format when it
        has one for errors (`json`: `{"code", "errors": [{file, line, column, severity, code, message,
        table}]}` on stdout; `github`: annotations on stdout), otherwise as text on stderr (a list of ten or more ending with its totals: `12 errors, 1 warning`);
        `inspect`, `diff` and `verify`, whose stdout is data, always say them as text on stderr.
        """#,
        #"""
        How seedkit compares text and names
        """#: #"""
        ## How seedkit compares text and names

        SQLite decides, everywhere seedkit compares, reads or shows a value: build's key and ref
        checks, `migrate`'s key lookups and `from` checks, `diff`, `new-migration --from` (rename
        hints included), `check-upgrade`, `inspect`, `verify` and the app library.

        - **Values compare as SQLite compares them.** Text is equal when its bytes are (SQLite's
          BINARY collation): `Café` written composed (`U+00E9`) and decomposed (`e` + `U+0301`) are two
          values, two keys, a change to migrate and a difference to `diff`, though they look alike and
          Swift's `String ==` calls them equal. Where a column declares a collation, its `from` check
          uses it as SQLite does: `NOCASE` folds ASCII letters only, `RTRIM` ignores trailing spaces
          (the collation is read with `sqlite3_table_column_metadata`; any other collation compares
          bytes). A key is looked up by SQLite, so under the key column's collation. An update whose
          `to` differs from the store only in what a collation ignores is still written, so that a
          release's case fix reaches the store; `new-migration --from` writes a key changed only in
          what its collation ignores as a rename of that row ([releases.md](releases.md#renames-in-a-release)).
          A number equals the same number of the other storage class, as SQLite's `IS` and `sqldiff`
          find them: `9` and `9.0` in a column with no declared type (where SQLite keeps each as it
          was given) are one value, so `diff` shows no change, `new-migration` writes none and
          `migrate` calls such an update up to date. A number and its text (`9` and `'9'`) are two values.
        - **Text is read whole.** Text is bound and read with its length, never as a C string: a NUL
          inside (`"abc\u0000def"` in a JSON fixture or migration) is stored, read, compared and
          written back as it is. A CSV fixture cannot hold one (a NUL byte in a file reads as UTF-16):
          `--format csv` (on `inspect`, `diff`, `verify`, …) warns when a value has one; `--format json` keeps it.
        - **Names match as SQLite matches them**: ASCII letters case-insensitively, every other
          character as it is. Columns `é` and `É` are two columns; a fixture field or a migration
          column `É` is written to `É` only.
        - **People see escapes, programs see the bytes.** In `table` and `markdown` output, `diff`,
          `migrate`'s lines, `check-upgrade` and every message, a character a terminal would act on
          is escaped: NUL as `\0`, `\r`, `\t`, other control characters as `\x1b`, C1 controls, line
          separators and bidirectional overrides as `\u202E` (table cells keep line breaks as `⏎`). Where
          two texts differ in their bytes but print alike, reports write their non-ASCII characters out
          (`'Cafe\u0301'` against `'Caf\u00E9'`). `json` and `csv` output carry the exact text (JSON
          escapes it as JSON does).
        - **Text that is not UTF-8.** SQLite stores the bytes it is given as TEXT without checking
          them, so a store another program wrote may hold text that is not UTF-8. seedkit reads such
          text with each byte that is not part of a well-formed UTF-8 sequence written as `\xNN`, in
          every output (JSON and CSV included, which cannot carry the byte): `diff` shows
          `'A\xFFB' → 'A\xFEB'` where two stores differ only there, and compares the bytes. The store
          is never changed by reading it.
        - **REAL ±Infinity** is written `1e999` / `-1e999` (SQLite's own literal for it) in every
          output, JSON and CSV included; a REAL, NUMERIC or untyped column reads a number beyond a
          double's range as ±Infinity, as SQLite does, so `inspect --format csv` reads back with
          `build`. An INTEGER column refuses it, and NaN (which SQLite stores as NULL) is refused.

        ### What `check-upgrade` checks

        For each old seed, `check-upgrade` migrates a copy as `migrate` migrates a user's store (the
        same code, once) and compares it by content with a fresh build, as `diff` compares two stores:
        table by table and key by key, refs by the parent's key, ids SQLite assigns ignored, schema
        included. Values compare as SQLite compares them (`10` and `10.0` are equal; text and blobs by
        their bytes); a REAL prints at round-trip precision, and a value whose storage class differs
        from the other side's says its class (`got 1e999 (REAL, infinity), expected '1e400' (TEXT)`).
        Every difference is a divergence, on its own line; when the run did not apply a migration's
        change to that row, the next line says which migration, at which line, and what the run said
        (`migrations/0002-reprice.yml:4: migration 0002-reprice did not apply its change: conflict:
        changed in the store (price is 24, expected 25); the store's values are kept`).

        Every row the release's declarative changes touch gets one verdict: it is as in a fresh build
        (ok) or it diverges. The ok rows are counted, one line per table (`books: 2 rows the release
        touched as in a fresh build (1 updated, 1 deleted); 1 DIVERGES`); `--verbose` lists each
        (`ok: books 'Dune' updated as in a fresh build`), and so does `--format json` (`okRows`, and
        `tables` with the counts). Rows a `.sql` migration writes are covered by the comparison alone.

        Then a second copy is migrated in which a simulated user, before upgrading, did what a user
        might to the first three rows of each change of each pending migration (of each column an
        update changes): changed a value the update changes (or filled in a NULL the release fills);
        added a row under a key an insert inserts; edited a row a delete deletes, or added a row
        referring to it (every other delete: a referring row); edited a renamed row and added a row
        referring to it; and added a row of its own to every table of the manifest (a copy of its
        first row under a new key; for a table of keys and refs only, the new key is the user's data).
        Two copies, because a user's edit hides the release's change of the row it edits (they are
        migrated at the same time, on two threads, each copy in memory). The user's copy gets the
        release's changes of the rows the user touched and of the rows those changes name (a ref's
        parent, a rename's new key), not the others, which cannot reach the user's rows: the seed's own
        copy proves them. When they could (a pending `.sql` migration, a trigger, a UNIQUE index on other
        columns than a table's key, a ref to a column other than its parent's key), the user's copy
        gets every change, as `migrate` applies them. After the
        upgrade each of the user's rows and edits must still be there, once, holding what the store
        held once the user had made the edit (read back through SQLite, compared as SQLite compares):
        `ok: user edit …  kept`, or `LOST: …` with what the row holds instead. A user's value has the
        column's kind: a number one higher, a date a day later (`1882-03-14` for `1882-03-13`), a
        JSON object or array with a member or an element added (a column that must hold JSON keeps
        valid JSON), a UUID another UUID, other text with a note. A SwiftData composite is edited as
        its stored elements, whichever form the migration gives it in, and never in an enum's case
        column, which holds only its case's name ([swiftdata.md](swiftdata.md#giving-a-composite-in-the-swift-shape)).

        Each check that could not run is listed with its table and why, SQLite's reason included when
        the old seed refused the user's row or edit (`not checked: books 'A': the delete was not tried
        against a user's edit or a user's row referring to it: the old seed refused the user's edit of
        price: cannot update books 'A': CHECK constraint failed: price <= 24, …`; `notChecked` in
        JSON): an empty table, a key made of refs only, a value no user would type (NULL). Rows of the
        app's own tables (those the manifest does not list) are not simulated: each such table that
        refers to a seed table is listed as not checked.

        The last line sums up: `2 old seeds converge`, `1 of 2 old seeds do not converge`, or, for a
        seed that converges but loses a user's edit, `1 of 2 old seeds converges but loses a user's
        edits`. Exit codes: 0 when every seed converges and keeps every user edit; 1 when one diverges
        (a schema the release's steps do not produce, a column included, is a divergence) or loses an
        edit; 2 for an update's or delete's key that matches no row of the fixtures, the old seeds or
        any migration (2030; a key naming a parent by the key a rename gives it is found under the
        parent's old key); 3 when an old seed is refused. On a terminal, a progress line on stderr
        says what it is at, from the start: the fresh build (its table and rows, as `build` shows them),
        the release's keys, then each seed and step.
        """#,
        #"""
        Exit codes
        """#: #"""
        ## Exit codes

        | code | meaning | commands |
        |---|---|---|
        | 0 | success | every command |
        | 1 | the input data has errors: validation, parse, conflicts under `--on-conflict fail`; `build --check`: the seed is stale; `status --exit-code`: migrations are pending; `diff --exit-code`: the stores differ; `verify`: a row breaks a rule; `check-upgrade`: an old seed diverges from a fresh build | `build`, `migrate`, `status --exit-code`, `diff --exit-code`, `verify`, `check-upgrade`, `new-migration --from` |
        | 2 | usage or configuration: an unknown option, bad manifest, missing file (a `--manifest` named that is not there), a store that is not a regular file (a FIFO, a pipe, a device), malformed or duplicate migration, unknown table or column, an output that is an input or an existing file that is not a SQLite store (`build`), a migration `migrate` would refuse (`build`, `export-migrations` too) (`verify` too: a manifest table the store lacks, a check that does not run on it) | every command |
        | 3 | the store was refused: a recorded migration's file changed or is missing (`status --exit-code` says so too), the store is newer than these migrations, a foreign store (no seedkit ledger, not Core Data, and none of the tables the migrations write), a foreign or corrupt store (seedkit's or Core Data's tables holding what their writer never writes), a schema that needs `trusted_schema` or a collation or function only the app registers, a data migration whose writes made SQLite change rows its report cannot name (a user's trigger deleting or updating rows, a view's `INSTEAD OF` trigger, a batch statement changing another number of rows than it names), a read past the bound on reading a store, not a SQLite database, empty or damaged (`inspect` and `verify` print what the check found, then exit 3), a header SQLite will not write (`migrate`: a file format write version above 2), a Core Data store seedkit must not write (persistent history it cannot record as Core Data does, a store mirrored to CloudKit without `--allow-cloudkit`, a `build` template holding CloudKit record metadata or a seedkit ledger, a derived attribute only Core Data computes, `Z_MAX` below a `Z_PK`) | `build` (its Core Data template), `migrate`, `status`, `inspect`, `diff`, `verify`, `check-upgrade` (an old seed), `new-migration --from` (also the seed given with --to, when `build` did not write it from this manifest and these migrations), `init --template` |
        | 4 | SQLite or I/O failure: a seed that reads back other than its fixtures (`build`, [what build checks](#what-build-checks)), locked past `--busy-timeout` (read commands wait 5 s), read-only (the store, or its folder: SQLite creates its journal beside the store), disk full, an output or folder that can't be written, a full or closed stdout or a reader that went away (a broken pipe), fewer than 32 file descriptors, a thread that cannot start | every command |
        | 5 | a bound ran out: a `.sql` migration step ran past `--sql-timeout` (default 60 s, `SEEDKIT_SQL_TIMEOUT`) and was stopped; nothing written | `migrate` |

        Every command: `init`, `build`, `migrate`, `status`, `inspect`, `diff`, `verify`, `check-upgrade`, `new-migration`, `export-migrations`.

        SIGINT and SIGTERM exit 130 and 143 (128 + the signal) after cleaning up: `migrate` rolls back
        (the store is byte-identical), `build`, `build --check`, `check-upgrade` and `new-migration
        --from` remove their temporary files. An old seed `check-upgrade` cannot check (one `migrate`
        would refuse) makes it exit 3, as `migrate` would for that store (a divergence stays 1), and it
        still reports the other seeds. `Tests/seedkitTests/ExitCodeTableTests.swift` runs a real case
        for each command and code in this table and fails if the table claims a pair no case shows.

        Every error about a store names it: `user.sqlite: error: the store is newer than these
        migrations: … [2200]`. A refusal is always put on the store (a migration file it concerns is
        named in the message), and `diff A B` names the one of the two stores that failed.

        In every failing case the store is left exactly as it was, and `build` writes no output.
        """#,
        #"""
        Error codes
        """#: #"""
        ## Error codes

        | code | meaning |
        |---|---|
        | 1550 | other rule or check failed (`one_of`, `checks`, CHECK constraints) |
        | 1560 | several errors (the `code` of a JSON report with more than one error) |
        | 1570 | required value missing (`required`, NOT NULL) |
        | 1580 / 1590 | too few / too many related rows (Core Data to-many `minCount`/`maxCount`, in `verify`) |
        | 1600 | delete denied: the row is still referenced |
        | 1610 / 1620 | number too large / too small |
        | 1630 / 1640 | date too late / too soon |
        | 1660 / 1670 | string too long / too short |
        | 1680 | pattern mismatch |
        | 2001 | parse error in a fixture: CSV or JSON syntax, wrong field count, a JSON document without an array where the records should be |
        | 2002 | not UTF-8 (a UTF-16 file is named as such), in a fixture, manifest or migration |
        | 2010 | a value that does not fit its column's type (an INTEGER takes -9223372036854775808 to 9223372036854775807, read exactly) |
        | 2020 | a fixture field the table does not have (neither a column, nor mapped with `columns:`, nor listed in `ignore:`) |
        | 2030 | unresolved reference, FOREIGN KEY failed; in `build`, also a cycle of NOT NULL refs (each row named with the rows it waits for) and a ref a migration writes to a key that no fixture and no migration provides; in `build` and `check-upgrade`, an update's or delete's key that matches no row of the fixtures, the old seeds or any migration. Refs to a table whose fixture was refused whole (a header error), and the keys a migration's updates give for such a table, are not reported row by row: one line per table and ref (per migration and table) says how many were not checked |
        | 2040 | duplicate natural key, UNIQUE failed |
        | 2050 | conflict: the user changed a row a migration wanted to change |
        | 2100 | configuration: manifest or migration file, its YAML or JSON syntax included (a tab in a YAML line's indentation, or a line indented unlike the keys around it, gets a hint naming it) |
        | 2200 | store refused: damaged (`quick_check`/`integrity_check` findings), not a database, empty, a header SQLite will not write, newer than the migrations, a recorded migration changed or missing, a foreign store, a Core Data store seedkit must not write; always put on the store (`STORE: error: … [2200]`) |
        | 2300 | SQLite or I/O failure: a seed that reads back other than its fixtures (table, key, column, both values), locked, a read-only store or folder, disk full, an output or backup that can't be written, a full or closed stdout |
        | 2400 | a `.sql` migration step ran past its time bound and was stopped (exit 5) |
        """#,
    ]
}
