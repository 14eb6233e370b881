#!/usr/bin/env python3
"""Generate fingerlock's udev rules from libfprint's hwdb.

libfprint ships /lib/udev/hwdb.d/60-autosuspend-libfprint-2.hwdb, which lists every USB id its
drivers support (one "# Supported by libfprint driver NAME" section per driver) followed by a
"# Known unsupported devices" section. It only sets autosuspend: nothing there lets a user open the
device. This script turns the supported ids (and only those) into udev rules that do.

Variants:
  uaccess  TAG+="uaccess": systemd-logind grants the user of the active local seat an ACL on the
           device node (73-seat-late.rules applies the tag, so the file must sort before it).
  plugdev  GROUP="plugdev", MODE="0660": for systems without logind; members of plugdev get access.
  system   GROUP="fingerlockd", MODE="0660", no uaccess: system mode, where only the service
           (fingerlockd, whose group systemd/fingerlockd.sysusers creates) opens the reader and no
           logged-in user's process can.

The output depends only on the hwdb and the libfprint version, so regenerating on the same
libfprint gives the same bytes (the tests check the committed rules against it).
Standard library only: python3 is on every Debian machine.
"""

import argparse
import re
import shutil
import subprocess
import sys

DEFAULT_HWDB = "/lib/udev/hwdb.d/60-autosuspend-libfprint-2.hwdb"
SUPPORTED_HEADER = re.compile(r"^# Supported by libfprint driver (\S+)\s*$")
UNSUPPORTED_HEADER = re.compile(r"^# Known unsupported devices\s*$")
MATCH_LINE = re.compile(r"^usb:v([0-9A-Fa-f]{4})p([0-9A-Fa-f]{4})\*$")
PROPERTY_LINE = re.compile(r"^\s+[A-Z0-9_]+=")
END_LABEL = "fingerlock_end"
SERVICE_GROUP = "fingerlockd"
ACTIONS = {
    "uaccess": 'TAG+="uaccess"',
    "plugdev": 'GROUP="plugdev", MODE="0660"',
    "system": f'GROUP="{SERVICE_GROUP}", MODE="0660"',
}


class HwdbError(Exception):
    pass


def parse_hwdb(text):
    """Returns (supported, unsupported): supported maps (vendor, product) -> driver; ids lower-case."""
    supported = {}
    unsupported = set()
    section = None  # ("supported", driver) or ("unsupported", None)
    for number, line in enumerate(text.splitlines(), start=1):
        match = SUPPORTED_HEADER.match(line)
        if match:
            section = ("supported", match.group(1))
            continue
        if UNSUPPORTED_HEADER.match(line):
            section = ("unsupported", None)
            continue
        if line.strip() == "" or line.startswith("#") or PROPERTY_LINE.match(line):
            continue
        match = MATCH_LINE.match(line)
        if not match:
            # A format we do not understand must not silently drop readers.
            raise HwdbError(f"line {number}: unexpected hwdb line: {line!r}")
        if section is None:
            raise HwdbError(f"line {number}: device id before any section header")
        device = (match.group(1).lower(), match.group(2).lower())
        if section[0] == "supported":
            # An id listed by two drivers is still one device: keep the first driver by name.
            previous = supported.get(device)
            if previous is None or section[1] < previous:
                supported[device] = section[1]
        else:
            unsupported.add(device)
    both = sorted(set(supported) & unsupported)
    if both:
        ids = ", ".join(f"{v}:{p}" for v, p in both)
        raise HwdbError(f"ids listed as both supported and unsupported: {ids}")
    if not supported:
        raise HwdbError("no supported device ids found")
    return supported, unsupported


def upstream_version(debian_version):
    """1:1.94.5-1 -> 1.94.5 (drop the epoch and the Debian revision)."""
    version = debian_version.split(":", 1)[-1]
    if "-" in version:
        version = version.rsplit("-", 1)[0]
    return version


def installed_libfprint_version():
    if shutil.which("pkg-config"):
        result = subprocess.run(["pkg-config", "--modversion", "libfprint-2"],
                                capture_output=True, text=True)
        if result.returncode == 0 and result.stdout.strip():
            return result.stdout.strip()
    if shutil.which("dpkg-query"):
        result = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "libfprint-2-2"],
                                capture_output=True, text=True)
        if result.returncode == 0 and result.stdout.strip():
            return upstream_version(result.stdout.strip())
    raise HwdbError("cannot find the libfprint version: install libfprint-2-dev (pkg-config) "
                    "or libfprint-2-2 (dpkg), or pass --libfprint-version")


def render(supported, variant, hwdb_path, version):
    command = "udev/generate-rules.py"
    if variant != "uaccess":
        command += f" --variant {variant}"
    if hwdb_path != DEFAULT_HWDB:
        command += f" --hwdb {hwdb_path}"
    action = ACTIONS[variant]
    purpose = (
        f"# fingerlock (system mode): give every USB fingerprint reader libfprint supports to {SERVICE_GROUP}."
        if variant == "system"
        else "# fingerlock: let a local user open every USB fingerprint reader libfprint supports."
    )
    lines = [
        purpose,
        f"# Generated by: {command}",
        f"# From: {hwdb_path} (libfprint {version}), supported ids only.",
        "# Do not edit: regenerate with `make udev-rules` after a libfprint upgrade.",
    ]
    if variant == "uaccess":
        lines += [
            "# systemd-logind gives the user of the active local seat an ACL on the device node;",
            "# 73-seat-late.rules applies the uaccess tag, so this file must sort before it.",
            '# Without logind use the plugdev variant (70-fingerlock-plugdev.rules), which sets',
            '# GROUP="plugdev", MODE="0660" instead.',
        ]
    elif variant == "plugdev":
        lines += [
            "# For systems without systemd-logind: members of the plugdev group may open the reader",
            "# (sudo usermod -aG plugdev USER, then log in again). With logind prefer 70-fingerlock.rules.",
        ]
    else:
        lines += [
            f"# Only the service's group ({SERVICE_GROUP}) may open the reader; no logged-in user gets",
            "# an ACL (no uaccess tag), so users' own processes cannot claim or read it.",
            "# Installed as 70-fingerlock.rules by `sudo make install-system`, in place of the",
            "# uaccess rules: then only fingerlockd can open a reader.",
        ]
    lines += [
        "",
        f'ACTION=="remove", GOTO="{END_LABEL}"',
        f'SUBSYSTEM!="usb", GOTO="{END_LABEL}"',
        f'ENV{{DEVTYPE}}!="usb_device", GOTO="{END_LABEL}"',
    ]
    by_driver = {}
    for device, driver in supported.items():
        by_driver.setdefault(driver, []).append(device)
    for driver in sorted(by_driver):
        lines.append("")
        lines.append(f"# libfprint driver {driver}")
        for vendor, product in sorted(by_driver[driver]):
            lines.append(f'ATTRS{{idVendor}}=="{vendor}", ATTRS{{idProduct}}=="{product}", {action}')
    lines += ["", f'LABEL="{END_LABEL}"']
    return "\n".join(lines) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hwdb", default=DEFAULT_HWDB, help=f"libfprint's hwdb (default {DEFAULT_HWDB})")
    parser.add_argument("--variant", choices=sorted(ACTIONS), default="uaccess")
    parser.add_argument("--libfprint-version", help="default: pkg-config, else dpkg-query")
    parser.add_argument("-o", "--output", help="write here instead of stdout")
    args = parser.parse_args(argv)
    try:
        with open(args.hwdb, encoding="utf-8") as handle:
            supported, _ = parse_hwdb(handle.read())
        version = args.libfprint_version or installed_libfprint_version()
    except (OSError, HwdbError) as error:
        print(f"generate-rules: {error}", file=sys.stderr)
        return 1
    text = render(supported, args.variant, args.hwdb, version)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
