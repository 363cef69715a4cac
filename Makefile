# seedkit — make seed: build the BookStore example seed and migrate a store; make test: the whole suite.
SWIFT ?= swift
SEEDKIT = .build/debug/seedkit
SEEDKIT_RELEASE = .build/release/seedkit
export SWIFT_BACKTRACE = enable=no

.PHONY: all build seed test bench clean

all: build

build:
	$(SWIFT) build

seed: build
	@scripts/demo.sh $(SEEDKIT)

# Logs go to build/build.log and build/test.log; the terminal shows failures, warnings and the
# closing lines. Any compiler warning fails the suite.
test:
	@mkdir -p build
	@$(SWIFT) build --build-tests > build/build.log 2>&1 || (cat build/build.log; exit 1)
	@if grep -q "warning:" build/build.log; then grep -A3 "warning:" build/build.log; echo "make test: compiler warnings (build/build.log)"; exit 1; fi
	@echo "$(SWIFT) test --skip-build --no-parallel --disable-xctest  (passing tests: build/test.log)"
	@$(SWIFT) test --skip-build --no-parallel --disable-xctest > build/test.log 2>&1; status=$$?; \
	  grep -vP '^(◇|↳) |^✔ (Test|Suite) (?!run with)|^\[[0-9]+/[0-9]+\]|^Building for|^Build complete' build/test.log; exit $$status
	$(SEEDKIT) check-upgrade seeds/releases/*.sqlite
	python3 scripts/hostile.py $(SEEDKIT) --cases $${HOSTILE_CASES:-100}
	SWIFT=$(SWIFT) scripts/check-docs.sh
	SWIFT=$(SWIFT) python3 scripts/check-example.py

bench:
	$(SWIFT) build -c release
	python3 scripts/bench.py $(SEEDKIT_RELEASE)

clean:
	rm -rf .build build Examples/DemoApp/.build
