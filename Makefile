# fingerlock — build, test and try it.
SWIFT ?= swift
CONFIG ?= release
# The binary `install` copies; override (e.g. BIN=path/to/prebuilt) to install another build.
BIN ?= .build/$(CONFIG)/fingerlock
# The system-mode service `install` copies (built by `make release` with the CLI).
DAEMON_BIN ?= .build/$(CONFIG)/fingerlockd
# `make` writes the man page and the completions here, both taken from the release binary itself
# (its command definitions), so nothing is built twice; `make install` copies them.
GENERATED ?= .build/generated
MANPAGE ?= $(GENERATED)/fingerlock.1
COMPLETIONS ?= $(GENERATED)/completions
# swift-argument-parser's man page writer (what its generate-manual plugin runs), built from the
# package's dependency in the same configuration as the binary.
GENERATE_MANUAL ?= .build/$(CONFIG)/generate-manual
# The man page's date: the last commit's, so the same sources give the same page.
MANDATE ?= $(shell git log -1 --format=%cs 2>/dev/null)

# Installation layout. DESTDIR stages everything under another root (packaging, tests).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
# systemd reads units and sysusers.d files under /usr/local/lib too, so these follow PREFIX.
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
# udev reads only /etc/udev/rules.d, /run/udev/rules.d and /usr/lib/udev/rules.d, never
# /usr/local: the rules go here whatever PREFIX is.
UDEVRULESDIR ?= /etc/udev/rules.d
# The rules to install as 70-fingerlock.rules: the logind (uaccess) variant, or
# udev/70-fingerlock-plugdev.rules on systems without systemd-logind, or
# udev/70-fingerlock-system.rules (what `make install-system` picks) where only fingerlockd's group
# may open the reader.
UDEV_RULES ?= udev/70-fingerlock.rules
SYSTEM_UDEV_RULES = udev/70-fingerlock-system.rules
UDEVADM ?= udevadm
# polkitd reads rules only from /usr/share/polkit-1/rules.d and /etc/polkit-1/rules.d, never
# /usr/local: fingerlockd's fprintd rule goes here whatever PREFIX is.
POLKITRULESDIR ?= /usr/share/polkit-1/rules.d
INSTALL ?= install
PYTHON ?= python3

INSTALLED_FILES = \
	$(DESTDIR)$(BINDIR)/fingerlock \
	$(DESTDIR)$(BINDIR)/fingerlockd \
	$(DESTDIR)$(SYSTEMDUNITDIR)/fingerlockd.socket \
	$(DESTDIR)$(SYSTEMDUNITDIR)/fingerlockd.service \
	$(DESTDIR)$(SYSUSERSDIR)/fingerlockd.conf \
	$(DESTDIR)$(MANDIR)/man1/fingerlock.1 \
	$(DESTDIR)$(MANDIR)/man8/fingerlockd.8 \
	$(DESTDIR)$(BASHCOMPDIR)/fingerlock \
	$(DESTDIR)$(ZSHCOMPDIR)/_fingerlock \
	$(DESTDIR)$(FISHCOMPDIR)/fingerlock.fish \
	$(DESTDIR)$(UDEVRULESDIR)/70-fingerlock.rules \
	$(DESTDIR)$(POLKITRULESDIR)/50-fingerlockd-fprintd.rules

.PHONY: all deps build release man manual-tool completions test lint format demo clean install install-system uninstall udev-rules deb

all: release man completions

# Debian packages the build needs (run as root, or with sudo available).
deps:
	@bash .ci/install-deps

# Debug builds compile C code optimised (Swift stays at -Onone): at -O0, BoringSSL's scrypt made
# each passcode of the tests' built binaries cost 2.7 s instead of 0.8 s, and scrypt was two thirds
# of the test suite's CPU time. The same flags for `build` and `test`, so neither rebuilds the other.
DEBUG_FLAGS ?= -Xcc -O2

build:
	$(SWIFT) build $(DEBUG_FLAGS)

# The binary the README installs: static Swift stdlib for a fast start.
# FINGERLOCK_STATIC_LIBSTDCXX=1: the CLI links libstdc++ in (its start-up; Package.swift says why).
# The two products the package ships, and what they need, nothing else: a plain `swift build` would
# also compile the test helpers and the benchmarks' tools in release (the benchmarks build their own).
release:
	FINGERLOCK_STATIC_LIBSTDCXX=1 $(SWIFT) build -c release --static-swift-stdlib --product fingerlock
	FINGERLOCK_STATIC_LIBSTDCXX=1 $(SWIFT) build -c release --static-swift-stdlib --product fingerlockd

# The whole test suite (installs the Debian packages first when missing).
# Swift Testing starts every test at once by default; on a 2-core machine the end-to-end tests
# (which wait on child processes) would then starve quick ones past their time limits. Four at a
# time keeps both cores busy while many tests wait on processes, timers and devices (no test
# blocks one of Swift's two pool threads while it waits).
TEST_WIDTH ?= 4
test: deps
	@start=$$(date +%s); $(SWIFT) build --build-tests $(DEBUG_FLAGS) \
		&& echo "make test: the debug build with its tests took $$(( $$(date +%s) - start )) s"
	@bash scripts/test.sh $(TEST_WIDTH)

# The code's layout and style as .swift-format says (swift-format ships with the toolchain); `lint`
# changes nothing and fails on any finding (CI runs it), `format` rewrites the files in place.
SWIFT_FORMAT_PATHS = Package.swift Sources Tests
lint:
	$(SWIFT) format lint --strict --parallel --recursive $(SWIFT_FORMAT_PATHS)

format:
	$(SWIFT) format format --in-place --parallel --recursive $(SWIFT_FORMAT_PATHS)

# fingerlock_<version>_<arch>.deb (+ -dbgsym .ddeb, + a tarball of the same files) in .build/deb,
# from the release build: stripped binaries, man pages, completions, udev rules, units, sysusers.
deb: all
	@BIN="$(BIN)" DAEMON_BIN="$(DAEMON_BIN)" MANPAGE="$(MANPAGE)" COMPLETIONS="$(COMPLETIONS)" \
		bash scripts/build-deb.sh .build/deb

# Enroll and verify a finger: on the connected reader, else on the simulated one.
demo: deps release
	@bash scripts/demo.sh

# The man page, from the release binary's `--experimental-dump-help`, finished by
# scripts/finish-manual.awk: the options of every command listed once, and the hand-written
# sections of docs/man/fingerlock.1.sections (EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES, SEE ALSO).
man: release manual-tool
	@test -x "$(BIN)" || { echo "make man: $(BIN) is missing." >&2; exit 1; }
	@mkdir -p "$(dir $(MANPAGE))"
	"$(GENERATE_MANUAL)" "$(BIN)" $(if $(MANDATE),--date $(MANDATE)) --output-directory - > "$(MANPAGE).raw"
	awk -v sections=docs/man/fingerlock.1.sections -f scripts/finish-manual.awk "$(MANPAGE).raw" > "$(MANPAGE).tmp"
	@rm -f "$(MANPAGE).raw"
	@mv "$(MANPAGE).tmp" "$(MANPAGE)"

# With the release's own flags and environment (FINGERLOCK_STATIC_LIBSTDCXX changes the manifest's
# flags): the same manifest as `make release`, so SwiftPM plans nothing anew and builds only the tool.
manual-tool:
	FINGERLOCK_STATIC_LIBSTDCXX=1 $(SWIFT) build -c $(CONFIG) --static-swift-stdlib --product generate-manual

# bash, zsh and fish completions, from the release binary (swift-argument-parser writes them).
completions: release
	@test -x "$(BIN)" || { echo "make completions: $(BIN) is missing." >&2; exit 1; }
	@mkdir -p "$(COMPLETIONS)"
	@set -e; for shell in bash zsh fish; do \
		"$(BIN)" --generate-completion-script $$shell > "$(COMPLETIONS)/fingerlock.$$shell.tmp"; \
		mv "$(COMPLETIONS)/fingerlock.$$shell.tmp" "$(COMPLETIONS)/fingerlock.$$shell"; \
	done; echo "completions for bash, zsh and fish in $(COMPLETIONS)"

# Regenerate the udev rules from the installed libfprint's hwdb (commit the result).
udev-rules:
	$(PYTHON) udev/generate-rules.py --variant uaccess -o udev/70-fingerlock.rules
	$(PYTHON) udev/generate-rules.py --variant plugdev -o udev/70-fingerlock-plugdev.rules
	$(PYTHON) udev/generate-rules.py --variant system -o $(SYSTEM_UDEV_RULES)

# Installs what `make` built; it never builds, so `sudo make install` leaves no root-owned files
# in .build.
install:
	@test -x "$(BIN)" || { echo "make install: $(BIN) is missing; run 'make' first (as yourself, not root)." >&2; exit 1; }
	@test -x "$(DAEMON_BIN)" || { echo "make install: $(DAEMON_BIN) is missing; run 'make' first (as yourself, not root)." >&2; exit 1; }
	@test -f "$(MANPAGE)" || { echo "make install: $(MANPAGE) is missing; run 'make' first (as yourself, not root)." >&2; exit 1; }
	@for shell in bash zsh fish; do test -f "$(COMPLETIONS)/fingerlock.$$shell" || { \
		echo "make install: $(COMPLETIONS)/fingerlock.$$shell is missing; run 'make' first (as yourself, not root)." >&2; exit 1; }; done
	@test -f "$(UDEV_RULES)" || { echo "make install: $(UDEV_RULES) is missing." >&2; exit 1; }
	$(INSTALL) -d -m 0755 "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(MANDIR)/man8" "$(DESTDIR)$(BASHCOMPDIR)" \
		"$(DESTDIR)$(ZSHCOMPDIR)" "$(DESTDIR)$(FISHCOMPDIR)" "$(DESTDIR)$(UDEVRULESDIR)" \
		"$(DESTDIR)$(SYSTEMDUNITDIR)" "$(DESTDIR)$(SYSUSERSDIR)"
	$(INSTALL) -m 0755 "$(BIN)" "$(DESTDIR)$(BINDIR)/fingerlock"
	$(INSTALL) -m 0755 "$(DAEMON_BIN)" "$(DESTDIR)$(BINDIR)/fingerlockd"
	sed 's|^ExecStart=/usr/local/bin/fingerlockd|ExecStart=$(BINDIR)/fingerlockd|' systemd/fingerlockd.service \
		> "$(DESTDIR)$(SYSTEMDUNITDIR)/fingerlockd.service.tmp"
	chmod 0644 "$(DESTDIR)$(SYSTEMDUNITDIR)/fingerlockd.service.tmp"
	mv "$(DESTDIR)$(SYSTEMDUNITDIR)/fingerlockd.service.tmp" "$(DESTDIR)$(SYSTEMDUNITDIR)/fingerlockd.service"
	$(INSTALL) -m 0644 systemd/fingerlockd.socket "$(DESTDIR)$(SYSTEMDUNITDIR)/fingerlockd.socket"
	$(INSTALL) -m 0644 systemd/fingerlockd.sysusers "$(DESTDIR)$(SYSUSERSDIR)/fingerlockd.conf"
	$(INSTALL) -m 0644 "$(MANPAGE)" "$(DESTDIR)$(MANDIR)/man1/fingerlock.1"
	$(INSTALL) -m 0644 docs/man/fingerlockd.8 "$(DESTDIR)$(MANDIR)/man8/fingerlockd.8"
	$(INSTALL) -m 0644 "$(COMPLETIONS)/fingerlock.bash" "$(DESTDIR)$(BASHCOMPDIR)/fingerlock"
	$(INSTALL) -m 0644 "$(COMPLETIONS)/fingerlock.zsh" "$(DESTDIR)$(ZSHCOMPDIR)/_fingerlock"
	$(INSTALL) -m 0644 "$(COMPLETIONS)/fingerlock.fish" "$(DESTDIR)$(FISHCOMPDIR)/fingerlock.fish"
	$(INSTALL) -m 0644 "$(UDEV_RULES)" "$(DESTDIR)$(UDEVRULESDIR)/70-fingerlock.rules"
# -D makes the directory only when it is missing: polkitd keeps its rules.d 0700 and its own,
# which `install -d -m 0755` would open to everyone. polkitd rereads its rules by itself.
	$(INSTALL) -D -m 0644 polkit/50-fingerlockd-fprintd.rules "$(DESTDIR)$(POLKITRULESDIR)/50-fingerlockd-fprintd.rules"
	@$(udev_reload)
	@echo "system mode (optional): systemd-sysusers && systemctl daemon-reload && systemctl enable --now fingerlockd.socket"

# `install` with the system-mode udev rules: the reader belongs to fingerlockd's group and no
# logged-in user gets access to it (the service, with the units installed alongside, opens it).
install-system:
	@$(MAKE) --no-print-directory install UDEV_RULES=$(SYSTEM_UDEV_RULES)

uninstall:
	rm -f $(foreach file,$(INSTALLED_FILES),"$(file)")
	@$(udev_reload)

# Reload udev and re-apply the rules to plugged-in readers, but only where that can work: as root,
# with a running udevd, installing into the real root. Otherwise say what was skipped.
define udev_reload
if [ -n "$(DESTDIR)" ]; then \
	echo "udev: reload skipped (DESTDIR is set)."; \
elif [ "$$(id -u)" != 0 ]; then \
	echo "udev: reload skipped (not root); run: sudo $(UDEVADM) control --reload && sudo $(UDEVADM) trigger --subsystem-match=usb"; \
elif ! $(UDEVADM) control --ping >/dev/null 2>&1; then \
	echo "udev: reload skipped (no running udevd, as in a container); replug the reader once udev runs."; \
else \
	$(UDEVADM) control --reload && $(UDEVADM) trigger --subsystem-match=usb && echo "udev: rules reloaded and USB devices re-triggered."; \
fi
endef

clean:
	rm -rf .build
