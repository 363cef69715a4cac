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

test: build
	$(SWIFT) test --no-parallel
	$(SEEDKIT) check-upgrade seeds/releases/*.sqlite
	SWIFT=$(SWIFT) python3 scripts/check-example.py

bench:
	$(SWIFT) build -c release
	python3 scripts/bench.py $(SEEDKIT_RELEASE)

clean:
	rm -rf .build build Examples/DemoApp/.build
