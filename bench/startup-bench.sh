#!/usr/bin/env bash
# Start-up and size of two builds of fingerlock side by side, in one interleaved run (issue 29): each
# iteration runs every row for both builds, in the same order, so both see the same machine load.
# Whole-process wall time (fork to wait4, bench/runstat.c) and peak RSS; median and min-max.
#
#   --version    prints the version and exits
#   --help       the command tree's help
#   verify       `fingerlock verify` of a user-mode vault on the simulated reader: one matching touch
#
# Usage: bench/startup-bench.sh BINARY_A BINARY_B [ITERATIONS]      (default 40)
#   e.g. the release build as `make` leaves it against the one the Debian package installs:
#   bench/startup-bench.sh .build/release/fingerlock /usr/bin/fingerlock
# Needs cc.
set -euo pipefail

[ $# -ge 2 ] || { sed -n '2,13p' "$0" >&2; exit 64; }
A=$(realpath "$1"); B=$(realpath "$2")
ITERATIONS=${3:-40}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/fl-startup-bench.XXXXXX)
export FINGERLOCK_KEYRING_NAMESPACE="startup-bench-$$"
PASSCODE="bench secret 1"
cleanup() {
    for side in a b; do
        [ -d "$WORK/$side" ] && FINGERLOCK_DATA_DIR="$WORK/$side" setsid -w "$WORK/bin-$side" lock </dev/null >/dev/null 2>&1
    done
    rm -rf "$WORK"
}
trap cleanup EXIT
cc -O2 -Wall -o "$WORK/runstat" "$ROOT/bench/runstat.c"
# shellcheck source=bench/two-builds.sh
source "$ROOT/bench/two-builds.sh"
ln -s "$A" "$WORK/bin-a"; ln -s "$B" "$WORK/bin-b"

# One vault per build, a finger enrolled on the simulated reader, the key cached (as after a
# passcode unlock), so `verify` is one touch.
export FINGERLOCK_READER=simulated
for side in a b; do
    mkdir -m 700 "$WORK/$side"
    printf '%s\n%s\n' "$PASSCODE" "$PASSCODE" \
        | FINGERLOCK_DATA_DIR="$WORK/$side" "$WORK/bin-$side" passcode set --passcode-stdin | cat >/dev/null
    printf '%s\n' "$PASSCODE" | FINGERLOCK_DATA_DIR="$WORK/$side" FINGERLOCK_SIMULATED_TOUCHES="right-index-finger*8" \
        "$WORK/bin-$side" enroll right-index-finger --passcode-stdin >/dev/null
done

rows=(version help verify)
run_row() { # side row
    local side=$1 row=$2 status=0
    case $row in
        version) FINGERLOCK_DATA_DIR="$WORK/$side" "$WORK/runstat" "$WORK/$side.$row" "$WORK/bin-$side" --version ;;
        help) FINGERLOCK_DATA_DIR="$WORK/$side" "$WORK/runstat" "$WORK/$side.$row" "$WORK/bin-$side" --help ;;
        verify) FINGERLOCK_DATA_DIR="$WORK/$side" FINGERLOCK_SIMULATED_TOUCHES=right-index-finger \
            "$WORK/runstat" "$WORK/$side.$row" "$WORK/bin-$side" verify ;;
    esac >/dev/null 2>"$WORK/err" </dev/null || status=$?
    [ "$status" = 0 ] || { echo "startup-bench: $row ($side) failed:" >&2; cat "$WORK/err" >&2; exit 2; }
}
for ((i = 0; i < ITERATIONS; i++)); do
    for row in "${rows[@]}"; do run_row a "$row"; run_row b "$row"; done
done

report_rows "${rows[@]}"
printf '%-10s %10s bytes %29s bytes\n' "size" "$(stat -c %s "$A")" "$(stat -c %s "$B")"
echo "($ITERATIONS iterations, interleaved; wall time fork to wait4, median (min-max), peak RSS)"
