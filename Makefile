# fingerlock — build, test and try it.
SWIFT ?= swift
CONFIG ?= release
BIN := .build/$(CONFIG)/fingerlock

.PHONY: all deps build release test demo clean

all: release

# Debian packages the build needs (run as root, or with sudo available).
deps:
	@bash .ci/install-deps

build:
	$(SWIFT) build

# The binary the README installs: static Swift stdlib for a fast start.
release:
	$(SWIFT) build -c release --static-swift-stdlib

# The whole test suite (installs the Debian packages first when missing).
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Enroll and verify a finger: on the connected reader, else on the simulated one.
demo: deps release
	@bash scripts/demo.sh

clean:
	rm -rf .build
