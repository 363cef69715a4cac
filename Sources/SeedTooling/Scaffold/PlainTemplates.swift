/// The texts `seedkit init` writes for a plain SQLite project, and the files both layouts share.
enum PlainTemplates {
    static let manifest = """
        # The seed's manifest: seedkit build reads it (paths are relative to this file).
        schema: schema.sql            # the DDL run on an empty database
        output: ../build/seed.sqlite  # what seedkit build writes, and your app bundles
        tables:                       # loaded in this order
          items:
            file: data/items.csv
            key: name                 # the natural key: how a migration finds the row in a user's store
            rules:
              name: { required: true, min_length: 1, max_length: 100 }
              quantity: { min: 0 }

        """

    static let schema = """
        -- The seed's tables: the schema your app's store has. seedkit build runs this on an empty
        -- database, then loads the fixtures seedkit.yml lists.
        CREATE TABLE items (
            id       INTEGER PRIMARY KEY,
            name     TEXT NOT NULL UNIQUE,
            quantity INTEGER NOT NULL DEFAULT 0
        );

        """

    static let items = """
        name,quantity
        First item,1
        Second item,2

        """

    static let migrationsReadme = """
        # Data migrations

        Numbered data updates for the stores users already have (`0001-add-fourth-book.yml`,
        `0002-add-symbol-schema.sql`, …). After editing the fixtures, `seedkit new-migration NAME
        --from seeds/releases/<last release>.sqlite` writes the next one from what changed;
        `seedkit migrate STORE` (and the app, through SeedRuntime) applies the ones a store has
        not had. Never edit or renumber a migration once it has shipped. seedkit skips this file.

        """

    static let releasesReadme = """
        # Seeds that shipped

        One file per release, as it was bundled: when you ship, copy `build/seed.sqlite` here as
        `<version>.sqlite`. Never edit or rebuild these files: they are what users' stores started
        from. `seedkit check-upgrade seeds/releases/*.sqlite` migrates a copy of each and checks
        that it ends up with exactly what a fresh build of today's fixtures holds.

        """

    /// `.gitignore`: what `build` and SwiftPM write, never committed (issue 44: `git add -A` took `build/`).
    static let gitignore = """
        # seedkit: the seed `seedkit build` writes (ship the copy in seeds/releases/, not this one)
        build/
        # SwiftPM
        .build/
        Package.resolved

        """

    static let workflow = """
        # seedkit in CI (written by seedkit init): fixture errors show as annotations on the lines
        # at fault, and every seed that shipped must upgrade, through the migrations, to exactly
        # what a fresh build of the fixtures holds.
        name: seedkit
        on: [push, pull_request]
        jobs:
          seeds:
            runs-on: ubuntu-latest
            container: swift:6.1
            env:
              # Where CI gets seedkit when this repository is not a Swift package (an app's package
              # resolves it itself): the Git URL you install seedkit from.
              SEEDKIT_GIT_URL: ""
            steps:
              - uses: actions/checkout@v4
              - name: Cache seedkit
                # The installed CLI, kept between runs (its release build takes minutes), under a key
                # that changes with the version Package.resolved pins (commit it) or SEEDKIT_GIT_URL.
                uses: actions/cache@v4
                with:
                  path: /usr/local/bin/seedkit
                  key: seedkit-${{ runner.os }}-${{ hashFiles('Package.resolved') }}-${{ env.SEEDKIT_GIT_URL }}
              - name: Install seedkit
                # seedkit's own `make install` (its README, "Install the CLI"), unless the cache had it:
                # in an app's package, in the checkout SwiftPM resolves (the version Package.resolved
                # pins, the one the app links); otherwise in a clone of SEEDKIT_GIT_URL. For a path
                # dependency, make -C that path; a project that gets seedkit another way replaces this step.
                run: |
                  apt-get update -qq && apt-get install -y -qq libsqlite3-dev zlib1g-dev libssl-dev make git
                  if [ -x /usr/local/bin/seedkit ]; then
                    echo "seedkit $(/usr/local/bin/seedkit --version), from the cache"
                  elif [ -f Package.swift ]; then
                    swift package resolve
                    make -C .build/checkouts/seedkit install PREFIX=/usr/local
                  elif [ -n "$SEEDKIT_GIT_URL" ]; then
                    source=$(mktemp -d)
                    git clone -q --depth 1 "$SEEDKIT_GIT_URL" "$source"
                    make -C "$source" install PREFIX=/usr/local
                  else
                    echo "::error::this repository is not a Swift package: set SEEDKIT_GIT_URL in .github/workflows/seedkit.yml to the Git URL you install seedkit from"
                    exit 1
                  fi
              - name: seedkit build
                run: seedkit build --format github
              - name: seedkit check-upgrade
                shell: bash
                run: |
                  shopt -s nullglob
                  shipped=(seeds/releases/*.sqlite)
                  if [ ${#shipped[@]} -eq 0 ]; then echo "no shipped seeds yet"; else seedkit check-upgrade "${shipped[@]}"; fi
              - name: seedkit review
                # For the reviewer, in the job's summary: the seed's rows against the last seed that
                # shipped, and what the migrations do to a store that holds it (--dry-run writes
                # nothing), so a pull request shows row changes instead of a binary file.
                if: always()
                shell: bash
                run: |
                  shopt -s nullglob
                  shipped=(seeds/releases/*.sqlite)
                  summary=${GITHUB_STEP_SUMMARY:-/dev/stdout}
                  if [ ! -f build/seed.sqlite ]; then echo "no seed was built (see seedkit build)" >> "$summary"; exit 0; fi
                  if [ ${#shipped[@]} -eq 0 ]; then echo "no shipped seed to compare with yet" >> "$summary"; exit 0; fi
                  last=$(printf '%s\\n' "${shipped[@]}" | sort -V | tail -n 1)
                  {
                    echo "### The seed against $last"
                    echo
                    seedkit diff --format markdown "$last" build/seed.sqlite
                    echo
                    echo "### What the migrations do to a store of $last"
                    echo
                    echo '```'
                    seedkit migrate --dry-run "$last"
                    echo '```'
                  } >> "$summary"

        """
}
