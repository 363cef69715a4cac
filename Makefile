# seedkit — make seed: build the BookStore example seed and migrate a store; make test: the suite but its
# slow tier, which make test-slow runs (CI runs both);
# make install [PREFIX=/usr/local]: the release CLI as PREFIX/bin/seedkit, stripped; make uninstall removes it;
# make artifactbundle: the same CLI as build/seedkit.artifactbundle (and .zip), which the plugins use
# instead of compiling seedkit when SEEDKIT_ARTIFACTBUNDLE names it (docs/runtime.md, "A prebuilt CLI for the plugins").
SWIFT ?= swift
SEEDKIT = .build/debug/seedkit
SEEDKIT_RELEASE = .build/release/seedkit
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
# make test installs the debug binary it has just built (CONFIGURATION=debug): no second, release build.
CONFIGURATION ?= release
# A release CLI on Linux links the Swift runtime statically: it runs without the toolchain, and
# starts in under 10 ms instead of 20-30 (measured: `seedkit --version`, /usr/bin/time).
STATIC_STDLIB := $(if $(and $(filter release,$(CONFIGURATION)),$(filter Linux,$(shell uname -s))),--static-swift-stdlib)
export SWIFT_BACKTRACE = enable=no
# make test prints each step's wall time (bash's `time`), so a slow step shows in CI logs.
SHELL := /bin/bash
export TIMEFORMAT =   (%R s)

.PHONY: all build seed test test-slow check-example bench clean install uninstall artifactbundle format lint

all: build

build:
	$(SWIFT) build

# Only the CLI it runs: not the benchmark tool, not the tests.
seed:
	$(SWIFT) build --product seedkit
	@scripts/demo.sh $(SEEDKIT)

# The store corpus's fast subset, which make test runs beside the tests (a store that releases and
# one that round-trips, 7 s); make test-slow runs every store listed.
CORPUS_FAST = --only Example_v1.0.0.sqlite --only CoreDataMigrationRevised-Example/CoreDataMigration_Example_1.sqlite

# make test: every test but the slow ones, the checks and the install. Logs go to build/build.log
# and build/test.log; the terminal shows failures, warnings and the closing lines. Any compiler
# warning fails the suite. Tests run in parallel (each works in its own temporary folder; suites
# that must not overlap are .serialized). The checks run beside the tests (they only run the built
# binary and read files); their log is printed after the tests. check-install installs the debug
# binary the build step wrote, with SWIFT=true: a `swift build` there would wait for the tests'
# lock on .build. check-api.py compares SeedRuntime's public symbols, from the graph
# check-docs.sh extracts, with docs/api/SeedRuntime.txt. Without the plugins (Package.swift says
# why): nothing here runs them; check-example does.
#
# make test-slow: the tests tagged .slow (fuzzers, differential runs over thousands of inputs, big,
# deep or killed migrations; scripts/slow-tests.py names them, and a count that does not match
# fails) and, beside them, the hostile probe: 40% of the suite's CPU time, left out of make test so
# that it takes under 150 s on a fresh clone of a 2-core machine; then check-install as a user's
# `make install` runs it (its `swift build` included), and check-workflow, which runs the CI
# workflow `seedkit init` writes, step by step, in a scratch app (a release build of a clone of
# HEAD: commit first), and the store corpus (scripts/corpus.py over Tests/Corpus/stores.txt: every
# real Core Data and SwiftData store listed, init → build → release → migrate, checked by its own SQL).
# CI runs both.
TEST_LOG_FILTER = '^(◇|↳) |^✔ (Test|Suite) (?!run with)|^\[[0-9]+/[0-9]+\]|^Building for|^Build complete|^[^✘]* to \w+\([a-z:]*\) started\.$$'

test: export SEEDKIT_WITHOUT_PLUGINS = 1
test:
	@mkdir -p build
	@echo "$(SWIFT) build --build-tests  (build/build.log)"
	@time $(SWIFT) build --build-tests > build/build.log 2>&1 || (cat build/build.log; exit 1)
	@if grep -q "warning:" build/build.log; then grep -A3 "warning:" build/build.log; echo "make test: compiler warnings (build/build.log)"; exit 1; fi
	@echo "lint, check-upgrade, check-markdown, check-sources, check-docs, check-api, check-install, the corpus's fast subset  (beside the tests; build/checks.log)"
	@echo "$(SWIFT) test --skip-build --disable-xctest --skip <the slow tests>  (passing tests: build/test.log)"
	@slow=$$(python3 scripts/slow-tests.py) || exit 1; \
	  { set -x && time $(SWIFT) format lint --strict $(FORMATTED) && \
	    time $(SEEDKIT) check-upgrade seeds/releases/*.sqlite && \
	    time python3 scripts/check-markdown.py && \
	    time python3 scripts/check-sources.py && \
	    time SWIFT=$(SWIFT) scripts/check-docs.sh && \
	    time python3 scripts/check-api.py && \
	    time SWIFT=true scripts/check-install.sh && \
	    time python3 scripts/corpus.py $(SEEDKIT) Tests/Corpus/stores.txt $(CORPUS_FAST); } > build/checks.log 2>&1 & checks=$$!; \
	  time ( $(SWIFT) test --skip-build --disable-xctest --skip "$$slow" > build/test.log 2>&1; status=$$?; \
	    grep -vP $(TEST_LOG_FILTER) build/test.log; exit $$status ); tests=$$?; \
	  wait $$checks; checks=$$?; echo "checks (build/checks.log):"; cat build/checks.log; \
	  [ $$tests -eq 0 ] && [ $$checks -eq 0 ]

# make format rewrites the Swift sources as .swift-format says (4-space indent, 120 columns); make lint
# (run by make test) fails on any line it would change and on its lint rules (force unwraps, try!, and
# doc comments: every public declaration documented, a one-line summary first, parameters, returns
# and throws as the signature has them). The example app's sources are linted too (not its .build);
# docs quote them verbatim.
FORMATTED = -r -p Sources Tests Plugins Package.swift Examples/DemoApp/Package.swift Examples/DemoApp/Sources

format:
	$(SWIFT) format format -i $(FORMATTED)

lint:
	$(SWIFT) format lint --strict $(FORMATTED)

test-slow: export SEEDKIT_WITHOUT_PLUGINS = 1
test-slow:
	@mkdir -p build
	@echo "$(SWIFT) build --build-tests  (build/build.log)"
	@time $(SWIFT) build --build-tests > build/build.log 2>&1 || (cat build/build.log; exit 1)
	@echo "python3 scripts/hostile.py $(SEEDKIT) --cases $${HOSTILE_CASES:-100}  (beside the tests; build/hostile.log)"
	@slow=$$(python3 scripts/slow-tests.py) && count=$$(python3 scripts/slow-tests.py --count) || exit 1; \
	  echo "$(SWIFT) test --skip-build --disable-xctest --filter <the $$count slow tests>  (passing tests: build/test-slow.log)"; \
	  { time python3 scripts/hostile.py $(SEEDKIT) --cases $${HOSTILE_CASES:-100}; } > build/hostile.log 2>&1 & hostile=$$!; \
	  time ( $(SWIFT) test --skip-build --disable-xctest --filter "$$slow" > build/test-slow.log 2>&1; status=$$?; \
	    grep -vP $(TEST_LOG_FILTER) build/test-slow.log; exit $$status ); tests=$$?; \
	  grep -q "Test run with $$count tests" build/test-slow.log || { echo "make test-slow: $$count slow tests should have run"; tests=1; }; \
	  wait $$hostile; hostile=$$?; echo "python3 scripts/hostile.py (build/hostile.log):"; cat build/hostile.log; \
	  echo "scripts/check-install.sh  (with the install recipe's swift build)"; SWIFT=$(SWIFT) scripts/check-install.sh; install=$$?; \
	  echo "scripts/check-workflow.sh  (the CI workflow seedkit init writes, step by step, in a scratch app)"; \
	  time scripts/check-workflow.sh; workflow=$$?; \
	  echo "python3 scripts/corpus.py  (every real store in Tests/Corpus/stores.txt: init, build, release, migrate, by its own SQL)"; \
	  time python3 scripts/corpus.py $(SEEDKIT) Tests/Corpus/stores.txt; corpus=$$?; \
	  [ $$tests -eq 0 ] && [ $$hostile -eq 0 ] && [ $$install -eq 0 ] && [ $$workflow -eq 0 ] && [ $$corpus -eq 0 ]

# Builds Examples/DemoApp, the app that adopts seedkit (the README's Package.swift line, both
# plugins, the runtime at launch), from scratch: 80 s more on a fresh machine; then again in a
# scratch folder with an artifact bundle, which must compile none of the CLI. CI runs it last.
# The bundle holds the debug CLI make test built (the layout and the plugins' use of it are what
# is checked; a release build here would add minutes to CI for the same check).
check-example:
	@$(MAKE) --no-print-directory artifactbundle CONFIGURATION=debug
	time SWIFT=$(SWIFT) python3 scripts/check-example.py

# DESTDIR is prepended for packagers (staged installs); the binary needs the SQLite library
# (libsqlite3; on Linux also libcrypto, libxml2, zlib), not the Swift toolchain (STATIC_STDLIB).
# Stripped (install -s): the symbols are two fifths of the file and nothing at run time reads them.
install:
	$(SWIFT) build -c $(CONFIGURATION) --product seedkit $(STATIC_STDLIB)
	install -d "$(DESTDIR)$(BINDIR)"
	install -m 755 -s ".build/$(CONFIGURATION)/seedkit" "$(DESTDIR)$(BINDIR)/seedkit"
	@echo "installed $(DESTDIR)$(BINDIR)/seedkit"

# The layout SwiftPM's binaryTarget reads (SE-0305): info.json naming the executable for this
# machine's triple, and the stripped release CLI. The .zip is what a release would publish
# (binaryTarget(url:checksum:)); its checksum is printed.
ARTIFACTBUNDLE = build/seedkit.artifactbundle
artifactbundle:
	$(SWIFT) build -c $(CONFIGURATION) --product seedkit $(STATIC_STDLIB)
	@scripts/artifactbundle.sh ".build/$(CONFIGURATION)/seedkit" "$(ARTIFACTBUNDLE)"

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/seedkit"

# The two products the bench runs, built with the flags `make install` uses: a build with other
# flags (without STATIC_STDLIB) would recompile every module in .build/release each time.
bench:
	$(SWIFT) build -c release --product seedkit $(STATIC_STDLIB)
	$(SWIFT) build -c release --product seedkit-bench $(STATIC_STDLIB)
	python3 scripts/bench.py $(SEEDKIT_RELEASE)

clean:
	rm -rf .build build Examples/DemoApp/.build
