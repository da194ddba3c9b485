# The two commands of the README:
#   make run    set up, build and start TagRouter
#   make test   set up, build and pass every test (the fault suite included)
# And for hardening (docs/RELIABILITY.md):
#   make fault        only the fault suite (end to end, root)
#   make fuzz-smoke   every fuzz target for FUZZ_SECONDS (default 30) seconds, two at a time
SWIFT ?= swift
CONFIG ?= debug

.PHONY: run test fault fuzz-smoke build lint format bench clean

build:
	scripts/setup run
	$(SWIFT) build -c $(CONFIG)

run:
	scripts/run

test:
	scripts/setup test
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

fault:
	scripts/setup test
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter 'Fault(PCSCD|Tag|Action)Tests'

FUZZ_SECONDS ?= 30
fuzz-smoke:
	scripts/setup test
	FUZZ_JOBS=2 scripts/fuzz $(FUZZ_SECONDS)

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

bench:
	scripts/setup run
	cd Benchmarks && $(SWIFT) package --disable-sandbox benchmark

clean:
	rm -rf .build Benchmarks/.build
