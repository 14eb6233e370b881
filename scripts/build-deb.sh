#!/usr/bin/env bash
# Builds fingerlock_<version>_<arch>.deb (and fingerlock-dbgsym_<version>_<arch>.ddeb with the
# debug symbols, and fingerlock-<version>-linux-<arch>.tar.gz with the same files) from what `make`
# built, with Debian's own tools: `make install` into a staging root, objcopy to split the debug
# symbols off, dpkg-shlibdeps for the dependencies, dpkg-deb to pack. No debian/ source tree: the
# package is binary-only, as the project ships its own build.
#
# Usage: scripts/build-deb.sh [OUTPUT_DIR]   (default: .build/deb)
# Reads BIN, DAEMON_BIN, MANPAGE, COMPLETIONS from the environment (the Makefile passes its own).
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-.build/deb}
bin=${BIN:-.build/release/fingerlock}
daemon=${DAEMON_BIN:-.build/release/fingerlockd}
manpage=${MANPAGE:-.build/generated/fingerlock.1}
completions=${COMPLETIONS:-.build/generated/completions}

for tool in dpkg-deb dpkg-shlibdeps objcopy fakeroot; do
    command -v "$tool" >/dev/null || { echo "build-deb: $tool is missing (apt-get install dpkg-dev binutils fakeroot)." >&2; exit 1; }
done
for file in "$bin" "$daemon" "$manpage"; do
    [ -f "$file" ] || { echo "build-deb: $file is missing; run 'make' first." >&2; exit 1; }
done

version=$("$bin" --version | awk '{print $2}')
arch=$(dpkg --print-architecture)
package=fingerlock
work=$(mktemp -d "${TMPDIR:-/tmp}/fingerlock-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
root="$work/root"
dbgroot="$work/dbgsym"

# The files, laid out as Debian does: /usr, units and sysusers under /usr/lib, the udev rules in
# /usr/lib/udev/rules.d (user mode: the logged-in user may open the reader). System mode puts its
# own rules file of the same name in /etc/udev/rules.d, which overrides this one. fingerlockd's
# polkit rule (fprintd's verify and setusername for the service user) in
# /usr/share/polkit-1/rules.d, where packages put theirs (/etc/polkit-1/rules.d is the admin's);
# dpkg leaves that directory's 0700 and owner, polkitd's, as they are.
make --no-print-directory install DESTDIR="$root" PREFIX=/usr \
    BIN="$bin" DAEMON_BIN="$daemon" MANPAGE="$manpage" COMPLETIONS="$completions" \
    UDEVRULESDIR=/usr/lib/udev/rules.d SYSTEMDUNITDIR=/usr/lib/systemd/system \
    SYSUSERSDIR=/usr/lib/sysusers.d POLKITRULESDIR=/usr/share/polkit-1/rules.d >/dev/null
install -d -m 0755 "$root/usr/share/doc/$package" "$root/usr/share/fingerlock"
install -m 0644 udev/70-fingerlock-system.rules "$root/usr/share/fingerlock/70-fingerlock-system.rules"
install -m 0755 scripts/demo.sh "$root/usr/share/fingerlock/demo.sh"
# What the postinst points to where systemd does not run (it creates the service user otherwise).
install -m 0644 docs/system-mode-without-systemd.md "$root/usr/share/doc/$package/system-mode-without-systemd.md"

# Debug symbols apart, found by build id (/usr/lib/debug/.build-id/xx/rest.debug), as Debian's
# dh_strip does; the binaries keep a debuglink to them.
for exe in "$root/usr/bin/fingerlock" "$root/usr/bin/fingerlockd"; do
    build_id=$(readelf -n "$exe" | awk '/Build ID:/ {print $3; exit}')
    [ -n "$build_id" ] || { echo "build-deb: $exe has no build id." >&2; exit 1; }
    debug="$dbgroot/usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug"
    install -d -m 0755 "$(dirname "$debug")"
    objcopy --only-keep-debug --compress-debug-sections "$exe" "$debug"
    chmod 0644 "$debug"
    objcopy --strip-all --remove-section=.comment --remove-section=.note.gnu.gold-version \
        --add-gnu-debuglink="$debug" "$exe"
done

# bash-completion sources the file; it is not a script (no #! line).
sed -i '1{/^#!/d}' "$root/usr/share/bash-completion/completions/fingerlock"

# Man pages compressed as policy asks (gzip -9n: no name or time stamp, the same bytes each build).
find "$root/usr/share/man" -type f -name '*.[0-9]' -exec gzip -9n {} +

cat > "$root/usr/share/doc/$package/copyright" <<'EOF'
fingerlock — private notes in an encrypted store, unlocked with a fingerprint reader.

Copyright 2026 the fingerlock authors.
No licence has been chosen yet: all rights reserved.

The binaries link statically the Swift runtime and standard library, Foundation,
swift-argument-parser, swift-crypto (with BoringSSL), swift-log, swift-system and GRDB.swift,
under the Apache License 2.0 (Swift, Foundation, argument-parser, crypto, log, system), the
OpenSSL/ISC licences (BoringSSL) and the MIT licence (GRDB). On Debian systems the Apache
License 2.0 is in /usr/share/common-licenses/Apache-2.0.
EOF
# A native package (no Debian revision): its changelog is changelog.gz.
changelog="$root/usr/share/doc/$package/changelog"
{
    echo "$package ($version) unstable; urgency=medium"
    echo
    echo "  * Built from the project's own sources (commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown))."
    echo
    echo " -- fingerlock maintainers <maintainers@fingerlock.invalid>  $(date -R -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")"
} > "$changelog"
gzip -9n "$changelog"

# Dependencies: what the binaries link (dpkg-shlibdeps, which wants a debian/control to sit in),
# plus libfprint, which fingerlock opens only when a reader is used, and tpm2-tss, opened only when a TPM
# is asked (dlopen: invisible to shlibdeps).
mkdir -p "$work/src/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$package" "$package" > "$work/src/debian/control"
shlibs=$(cd "$work/src" && dpkg-shlibdeps -O -e"$root/usr/bin/fingerlock" -e"$root/usr/bin/fingerlockd" 2>/dev/null \
    | sed -n 's/^shlibs:Depends=//p')
[ -n "$shlibs" ] || { echo "build-deb: dpkg-shlibdeps found no dependencies." >&2; exit 1; }
installed_size=$(du -sk --apparent-size "$root" | cut -f1)

install -d -m 0755 "$root/DEBIAN"
cat > "$root/DEBIAN/control" <<EOF
Package: $package
Version: $version
Architecture: $arch
Maintainer: fingerlock maintainers <maintainers@fingerlock.invalid>
Installed-Size: $installed_size
Depends: $shlibs, libfprint-2-2, libtss2-esys-3.0.2-0, libtss2-tctildr0, libtss2-mu0, libtss2-rc0
Recommends: keyutils, git
Suggests: pass, xclip | wl-clipboard
Section: utils
Priority: optional
Homepage: https://fingerlock.invalid/
Description: private notes unlocked with a USB fingerprint reader
 fingerlock keeps private notes in an encrypted store (SQLite, AES-GCM, a key
 sealed by an app passcode) and unlocks them with a fingerprint reader through
 libfprint, falling back to the passcode when the finger fails, is cancelled or
 no reader is connected. A simulated reader makes it usable without hardware.
 .
 User mode (the default) treats the finger as a presence check; system mode,
 with the fingerlockd service shipped here (socket-activated, off until
 enabled), keeps the reader, prints, counters and keys in the service's custody.
EOF

# Maintainer scripts: reload udev and create the service user only where that can work (a running
# udevd, a booted systemd). Without systemd the service user is not made behind the admin's back:
# the script says, once, how to make it (system mode is optional; user mode needs no user).
cat > "$root/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = "configure" ]; then
    if [ -d /run/systemd/system ]; then
        systemd-sysusers fingerlockd.conf || true
        systemctl daemon-reload || true
    elif ! getent passwd fingerlockd >/dev/null 2>&1; then
        echo "fingerlock: system mode (optional) needs the fingerlockd system user, which systemd-sysusers makes where systemd runs. Here, as root:"
        echo "  useradd --system --home-dir /var/lib/fingerlockd --shell /usr/sbin/nologin fingerlockd"
        echo "  usermod -aG tss fingerlockd   # only for a passcode bound to the TPM (tss opens /dev/tpmrm0)"
        echo "The rest: /usr/share/doc/fingerlock/system-mode-without-systemd.md"
    fi
    if command -v udevadm >/dev/null 2>&1 && udevadm control --ping >/dev/null 2>&1; then
        udevadm control --reload || true
        udevadm trigger --subsystem-match=usb --action=change || true
    fi
fi
exit 0
EOF
cat > "$root/DEBIAN/prerm" <<'EOF'
#!/bin/sh
set -e
# The socket is enabled by the administrator (`systemctl enable`), not by this package, so only
# systemctl can take that back; deb-systemd-helper knows only what it enabled itself.
if [ "$1" = "remove" ] && [ -d /run/systemd/system ]; then
    systemctl stop fingerlockd.socket fingerlockd.service >/dev/null 2>&1 || true
    systemctl disable fingerlockd.socket >/dev/null 2>&1 || true
fi
exit 0
EOF
install -d -m 0755 "$root/usr/share/lintian/overrides"
cat > "$root/usr/share/lintian/overrides/$package" <<'EOF'
# prerm disables the socket the administrator enabled with systemctl (see prerm).
fingerlock: maintainer-script-calls-systemctl [prerm:*]
EOF
chmod 0644 "$root/usr/share/lintian/overrides/$package"
cat > "$root/DEBIAN/postrm" <<'EOF'
#!/bin/sh
set -e
case "$1" in
    remove|purge)
        if [ -d /run/systemd/system ]; then
            systemctl daemon-reload || true
        fi
        if command -v udevadm >/dev/null 2>&1 && udevadm control --ping >/dev/null 2>&1; then
            udevadm control --reload || true
        fi
        ;;
esac
# Purge keeps /var/lib/fingerlockd and the fingerlockd user: the state holds the passcode slots of
# system-mode vaults, which only their recovery keys could open again without it.
exit 0
EOF
chmod 0755 "$root/DEBIAN/postinst" "$root/DEBIAN/prerm" "$root/DEBIAN/postrm"
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

mkdir -p "$out"
deb="$out/${package}_${version}_${arch}.deb"
fakeroot dpkg-deb --build -Zxz "$root" "$deb" >/dev/null

# The debug symbols: Debian's automatic dbgsym package format (a .ddeb).
install -d -m 0755 "$dbgroot/DEBIAN" "$dbgroot/usr/share/doc"
ln -s "$package" "$dbgroot/usr/share/doc/$package-dbgsym"
cat > "$dbgroot/DEBIAN/control" <<EOF
Package: $package-dbgsym
Source: $package
Version: $version
Architecture: $arch
Maintainer: fingerlock maintainers <maintainers@fingerlock.invalid>
Installed-Size: $(du -sk --apparent-size "$dbgroot" | cut -f1)
Depends: $package (= $version)
Section: debug
Priority: optional
Description: debug symbols for fingerlock
 Build-id-indexed debug symbols for fingerlock and fingerlockd.
EOF
fakeroot dpkg-deb --build -Zxz "$dbgroot" "$out/${package}-dbgsym_${version}_${arch}.ddeb" >/dev/null

# The same files for other distributions: usr/... as installed, plus the maintainer scripts' work
# described in a README inside.
tarball="$out/${package}-${version}-linux-${arch}.tar.xz"
# xz on every core (dpkg-deb already does): a single-threaded xz took 40 s of CI's time for 88 MB. The
# output does not depend on the number of threads (xz splits the input into fixed-size blocks).
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}" \
    -C "$root" -cf - usr | xz -T0 > "$tarball"
echo "$deb"
echo "$out/${package}-dbgsym_${version}_${arch}.ddeb"
echo "$tarball"
