# The two commands of the README:
#   make run    set up, build and start TagRouter
#   make test   set up, build and pass every test
SWIFT ?= swift
CONFIG ?= debug

.PHONY: run test build lint format bench clean

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

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

bench:
	scripts/setup run
	cd Benchmarks && $(SWIFT) package --disable-sandbox benchmark

clean:
	rm -rf .build Benchmarks/.build
