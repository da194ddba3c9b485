# The two commands of the README:
#   make run    set up, build and start TagRouter
#   make test   set up, build and pass every test (the fault suite included), the end-to-end suites in
#               parallel processes (scripts/test)
# Packaging (docs/operations.md, "Install"):
#   make release        the self-contained release binary (Swift runtime and Foundation linked statically),
#                       .build/static/release/tagrouter
#   make install        binary, units, sysusers/tmpfiles entries, polkit rule, modprobe blacklist, example rules,
#                       man pages, completions, docs; PREFIX (default /usr/local) and DESTDIR as usual
#   make uninstall      removes what install put there, never /etc/tagrouter/rules nor the state
#   make deb            dist/tagrouter_VERSION_ARCH.deb
#   make package-test   builds the .deb, installs it into a throwaway Debian root and checks it works there
# And for hardening (docs/RELIABILITY.md):
#   make fault        only the fault suite (end to end, root)
#   make fuzz-smoke   every fuzz target for FUZZ_SECONDS (default 10) seconds, FUZZ_JOBS (default 2) at a time,
#                     built unoptimized (FUZZ_CONFIG, default debug; scripts/fuzz alone builds optimized)
#   make fuzz-build   only builds the targets of fuzz-smoke
#   make soak         the long runs make test keeps short (1,000 interleaved taps)
#   make measure      the measurement that prints figures and asserts nothing (a tap's time outside the reader)
#   make screenshots  docs/console/*.png, taken by the console's browser tests (root)
SWIFT ?= swift
CONFIG ?= debug

.PHONY: check-alerts run test soak measure fault screenshots fuzz-smoke fuzz-build build lint format bench clean release manuals completions install uninstall deb \
	package-test

build:
	scripts/setup run
	$(SWIFT) build -c $(CONFIG)

run:
	scripts/run

# What the build needs is installed first; what only the tests use (a browser, a broker, an X server, Playwright's
# virtual environment) installs while the build runs, in the idle scheduling class: its unpacking takes only the CPU
# the build leaves.
test:
	scripts/setup run
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Benchmarks
	scripts/check-imports
	$(MAKE) --no-print-directory check-alerts
	@mkdir -p .build && chrt --idle 0 scripts/setup test > .build/setup-test.log 2>&1 & setup=$$!; \
		$(SWIFT) build --build-tests; built=$$?; \
		wait $$setup; installed=$$?; cat .build/setup-test.log; \
		[ $$installed -eq 0 ] && [ $$built -eq 0 ]
	scripts/test

# The ops pack's Prometheus alert rules and their unit tests (contrib/ops), with promtool from Debian's prometheus
# package. scripts/setup does not install it (the package also installs and starts a Prometheus server): without
# it the check says so and is left out.
check-alerts:
	@if command -v promtool >/dev/null; then \
		cd contrib/ops && promtool check rules alerts.yml && promtool test rules alerts.test.yml; \
	else \
		echo "check-alerts: promtool is not installed (apt-get install prometheus): contrib/ops/alerts.yml NOT checked"; \
	fi

# The long runs that `make test` keeps short: 1,000 interleaved taps on two readers.
soak:
	scripts/setup test
	$(SWIFT) build --build-tests
	TAGROUTER_INTERLEAVED_TAPS=500 $(SWIFT) test --skip-build --filter 'FaultActionTests/interleavedTaps'

# A measurement that prints figures and asserts nothing: make test leaves it out.
measure:
	scripts/setup test
	$(SWIFT) build --build-tests
	TAGROUTER_MEASURE=1 $(SWIFT) test --skip-build --filter TapOverheadMeasurement

# The console's screenshots in docs/console/, taken by its browser tests in Chromium (docs/console.md).
screenshots:
	scripts/setup test
	$(SWIFT) build --build-tests
	mkdir -p docs/console
	TAGROUTER_SCREENSHOTS=$(CURDIR)/docs/console $(SWIFT) test --skip-build --filter ConsoleBrowserTests

fault:
	scripts/setup test
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter 'Fault(PCSCD|Tag|Action|Write|MQTT)Tests|ClassicWriteFaultTests'

# The smoke run builds without optimization: in about 60% of the CPU time of an optimized build, and a 10 s run
# replays its corpus either way (docs/RELIABILITY.md, "Fuzzing").
FUZZ_SECONDS ?= 10
FUZZ_JOBS ?= 2
FUZZ_CONFIG ?= debug
fuzz-smoke:
	scripts/setup test
	FUZZ_JOBS=$(FUZZ_JOBS) FUZZ_CONFIG=$(FUZZ_CONFIG) scripts/fuzz $(FUZZ_SECONDS)

fuzz-build:
	scripts/setup run
	FUZZ_CONFIG=$(FUZZ_CONFIG) scripts/fuzz --build

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Benchmarks
	scripts/check-imports

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

bench:
	scripts/setup run
	cd Benchmarks && $(SWIFT) package --disable-sandbox benchmark

clean:
	rm -rf .build Benchmarks/.build

# Packaging. Install paths follow the GNU and systemd conventions; the configuration lives in /etc/tagrouter
# whatever the prefix (the units read it there).
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
DOCDIR ?= $(DATADIR)/doc/tagrouter
MANDIR ?= $(DATADIR)/man
UNITDIR ?= $(PREFIX)/lib/systemd/system
USERUNITDIR ?= $(PREFIX)/lib/systemd/user
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
# polkit and kmod only look in /usr and /etc: under another prefix their files go to /etc.
POLKITDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/share/polkit-1/rules.d,/etc/polkit-1/rules.d)
MODPROBEDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/modprobe.d,/etc/modprobe.d)
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR ?= $(if $(filter /usr,$(PREFIX)),$(DATADIR)/zsh/vendor-completions,$(DATADIR)/zsh/site-functions)
FISHCOMPDIR ?= $(DATADIR)/fish/vendor_completions.d
RULESDIR ?= /etc/tagrouter/rules
# The release build has a build folder of its own, so that it neither waits for a debug build nor makes one wait
# (SwiftPM locks its build folder): CI builds it while the tests run (.ci/run). No debug information: the package
# strips the binary anyway, and without it the link is shorter.
RELEASE_SCRATCH ?= .build/static
RELEASE_BIN = $(RELEASE_SCRATCH)/release/tagrouter
GENERATED = .build/generated

release:
	scripts/setup run
	$(SWIFT) build -c release --static-swift-stdlib --product tagrouter --scratch-path $(RELEASE_SCRATCH) \
		-debug-info-format none

# Man pages from the argument parser itself (swift-argument-parser's generate-manual plugin), one per command.
# The plugin builds the package itself, in debug and in the tests' build folder: after `make test` it has nothing to build.
# They are made again only when a source is newer than they are: the plugin costs about 40 s even with nothing to
# build (it builds its own tool first), and CI makes them beside the release build (.ci/run).
MANUALS_MADE = $(GENERATED)/man/.made
manuals: $(MANUALS_MADE)

$(MANUALS_MADE): Package.swift scripts/man-pages $(shell find Sources -name '*.swift')
	$(SWIFT) package plugin generate-manual --configuration debug --multi-page --section 1 \
		--authors "the TagRouter authors"
	rm -rf $(GENERATED)/man
	# tagrouter.tags.list.1 becomes tagrouter-tags-list.1 (`man tagrouter-tags-list`, as git does), named so in NAME for
	# whatis and apropos while its synopsis keeps the command as typed (`tagrouter tags list`); `help` needs no page.
	scripts/man-pages .build/plugins/GenerateManual/outputs/tagrouter $(GENERATED)/man
	touch $@

completions: release
	rm -rf $(GENERATED)/completions && mkdir -p $(GENERATED)/completions
	for shell in bash zsh fish; do $(RELEASE_BIN) --generate-completion-script $$shell \
		> $(GENERATED)/completions/tagrouter.$$shell; done

install: release manuals completions
	install -D -m 0755 $(RELEASE_BIN) $(DESTDIR)$(BINDIR)/tagrouter
	for unit in tagrouter.service:$(UNITDIR)/tagrouter.service tagrouter-user.service:$(USERUNITDIR)/tagrouter.service; do \
		install -d $(DESTDIR)$$(dirname $${unit#*:}) && \
		sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' contrib/systemd/$${unit%%:*} \
			> $(DESTDIR)$${unit#*:} && chmod 0644 $(DESTDIR)$${unit#*:}; done
	install -D -m 0644 contrib/sysusers/tagrouter.conf $(DESTDIR)$(SYSUSERSDIR)/tagrouter.conf
	install -D -m 0644 contrib/tmpfiles/tagrouter.conf $(DESTDIR)$(TMPFILESDIR)/tagrouter.conf
	install -D -m 0644 contrib/polkit/50-tagrouter.rules $(DESTDIR)$(POLKITDIR)/50-tagrouter.rules
	install -D -m 0644 contrib/modprobe/blacklist-pn533.conf $(DESTDIR)$(MODPROBEDIR)/tagrouter-blacklist-pn533.conf
	test -e $(DESTDIR)$(RULESDIR)/00-example.yaml || \
		install -D -m 0644 contrib/rules/00-example.yaml $(DESTDIR)$(RULESDIR)/00-example.yaml
	install -d $(DESTDIR)$(MANDIR)/man1
	for page in $(GENERATED)/man/*.1; do gzip -9n < $$page > $(DESTDIR)$(MANDIR)/man1/$$(basename $$page).gz; done
	install -D -m 0644 $(GENERATED)/completions/tagrouter.bash $(DESTDIR)$(BASHCOMPDIR)/tagrouter
	install -D -m 0644 $(GENERATED)/completions/tagrouter.zsh $(DESTDIR)$(ZSHCOMPDIR)/_tagrouter
	install -D -m 0644 $(GENERATED)/completions/tagrouter.fish $(DESTDIR)$(FISHCOMPDIR)/tagrouter.fish
	install -D -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	install -d $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR)/examples
	install -m 0644 docs/*.md $(DESTDIR)$(DOCDIR)/docs/
	install -m 0644 rules/*.yaml contrib/home-assistant/automation.yaml contrib/home-assistant/music-box.yaml \
		contrib/home-assistant/door.yaml $(DESTDIR)$(DOCDIR)/examples/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tagrouter $(DESTDIR)$(UNITDIR)/tagrouter.service \
		$(DESTDIR)$(USERUNITDIR)/tagrouter.service $(DESTDIR)$(SYSUSERSDIR)/tagrouter.conf \
		$(DESTDIR)$(TMPFILESDIR)/tagrouter.conf $(DESTDIR)$(POLKITDIR)/50-tagrouter.rules \
		$(DESTDIR)$(MODPROBEDIR)/tagrouter-blacklist-pn533.conf $(DESTDIR)$(MANDIR)/man1/tagrouter.1.gz \
		$(DESTDIR)$(MANDIR)/man1/tagrouter-*.1.gz $(DESTDIR)$(BASHCOMPDIR)/tagrouter $(DESTDIR)$(ZSHCOMPDIR)/_tagrouter \
		$(DESTDIR)$(FISHCOMPDIR)/tagrouter.fish
	rm -rf $(DESTDIR)$(DOCDIR)

deb:
	scripts/setup package
	scripts/deb

package-test: deb
	scripts/package-test
