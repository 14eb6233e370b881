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

test:
	$(SWIFT) test

clean:
	rm -rf .build
