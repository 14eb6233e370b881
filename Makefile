# fingerlock — build, test and try it.
SWIFT ?= swift
CONFIG ?= release
# The binary `install` copies; override (e.g. BIN=path/to/prebuilt) to install another build.
BIN ?= .build/$(CONFIG)/fingerlock
# Written by swift-argument-parser's generate-manual plugin (`make man`).
MANPAGE ?= .build/plugins/GenerateManual/outputs/fingerlock/fingerlock.1

# Installation layout. DESTDIR stages everything under another root (packaging, tests).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
# udev reads only /etc/udev/rules.d, /run/udev/rules.d and /usr/lib/udev/rules.d, never
# /usr/local: the rules go here whatever PREFIX is.
UDEVRULESDIR ?= /etc/udev/rules.d
# The rules to install as 70-fingerlock.rules: the logind (uaccess) variant, or
# udev/70-fingerlock-plugdev.rules on systems without systemd-logind.
UDEV_RULES ?= udev/70-fingerlock.rules
UDEVADM ?= udevadm
INSTALL ?= install
PYTHON ?= python3

INSTALLED_FILES = \
	$(DESTDIR)$(BINDIR)/fingerlock \
	$(DESTDIR)$(MANDIR)/man1/fingerlock.1 \
	$(DESTDIR)$(BASHCOMPDIR)/fingerlock \
	$(DESTDIR)$(ZSHCOMPDIR)/_fingerlock \
	$(DESTDIR)$(FISHCOMPDIR)/fingerlock.fish \
	$(DESTDIR)$(UDEVRULESDIR)/70-fingerlock.rules

.PHONY: all deps build release man test demo clean install uninstall udev-rules

all: release man

# Debian packages the build needs (run as root, or with sudo available).
deps:
	@bash .ci/install-deps

build:
	$(SWIFT) build

# The binary the README installs: static Swift stdlib for a fast start.
release:
	$(SWIFT) build -c release --static-swift-stdlib

# The whole test suite (installs the Debian packages first when missing).
# Swift Testing starts every test at once by default; on a 2-core machine the end-to-end tests
# (which wait on child processes) would then starve quick ones past their time limits.
TEST_WIDTH ?= 3
test: deps
	$(SWIFT) build --build-tests
	.build/debug/fingerlockPackageTests.xctest --testing-library swift-testing \
		--experimental-maximum-parallelization-width $(TEST_WIDTH)

# Enroll and verify a finger: on the connected reader, else on the simulated one.
demo: deps release
	@bash scripts/demo.sh

# The man page, generated from the command definitions. A debug build is enough (same commands)
# and leaves the static release binary alone.
man:
	$(SWIFT) package plugin generate-manual --configuration debug


# Regenerate the udev rules from the installed libfprint's hwdb (commit the result).
udev-rules:
	$(PYTHON) udev/generate-rules.py --variant uaccess -o udev/70-fingerlock.rules
	$(PYTHON) udev/generate-rules.py --variant plugdev -o udev/70-fingerlock-plugdev.rules

# Installs what `make` built; it never builds, so `sudo make install` leaves no root-owned files
# in .build. Completions come from the binary itself (swift-argument-parser).
install:
	@test -x "$(BIN)" || { echo "make install: $(BIN) is missing; run 'make' first (as yourself, not root)." >&2; exit 1; }
	@test -f "$(MANPAGE)" || { echo "make install: $(MANPAGE) is missing; run 'make man' first." >&2; exit 1; }
	@test -f "$(UDEV_RULES)" || { echo "make install: $(UDEV_RULES) is missing." >&2; exit 1; }
	$(INSTALL) -d -m 0755 "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(BASHCOMPDIR)" \
		"$(DESTDIR)$(ZSHCOMPDIR)" "$(DESTDIR)$(FISHCOMPDIR)" "$(DESTDIR)$(UDEVRULESDIR)"
	$(INSTALL) -m 0755 "$(BIN)" "$(DESTDIR)$(BINDIR)/fingerlock"
	$(INSTALL) -m 0644 "$(MANPAGE)" "$(DESTDIR)$(MANDIR)/man1/fingerlock.1"
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	for shell in bash zsh fish; do "$(BIN)" --generate-completion-script $$shell > "$$tmp/$$shell"; done; \
	$(INSTALL) -m 0644 "$$tmp/bash" "$(DESTDIR)$(BASHCOMPDIR)/fingerlock"; \
	$(INSTALL) -m 0644 "$$tmp/zsh" "$(DESTDIR)$(ZSHCOMPDIR)/_fingerlock"; \
	$(INSTALL) -m 0644 "$$tmp/fish" "$(DESTDIR)$(FISHCOMPDIR)/fingerlock.fish"; \
	echo "installed completions for bash, zsh and fish"
	$(INSTALL) -m 0644 "$(UDEV_RULES)" "$(DESTDIR)$(UDEVRULESDIR)/70-fingerlock.rules"
	@$(udev_reload)

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
