#!/usr/bin/env bash
# A pass user's everyday commands on two builds of fingerlock side by side, in one interleaved run
# (issue 41): each iteration runs every row for both builds, in the same order, so both see the same
# machine load. Whole-process wall time (fork to wait4, bench/runstat.c) and peak RSS; median and
# min-max. Each build has its own user-mode vault of NOTES notes in 20 folders (`f07/n0007`), a
# finger enrolled on the simulated reader and the key cached, as after a passcode unlock; every
# run is given one matching touch, which a build takes or leaves.
#
#   list       notes list                      (the titles: no touch while the key is cached, since issue 41)
#   find       notes search --title n00        (the same)
#   show       notes show f07/n0007 --line 1   (a body: one touch)
#   complete   TAB after `notes show f07/`     (what the shell asks the binary)
#
# Usage: bench/everyday-bench.sh BINARY_A BINARY_B [ITERATIONS] [NOTES]     (default 30, 1000)
#   e.g. the previous build against this one:
#   bench/everyday-bench.sh /tmp/baseline/fingerlock .build/release/fingerlock
# Needs cc.
set -euo pipefail

[ $# -ge 2 ] || { sed -n '2,17p' "$0" >&2; exit 64; }
A=$(realpath "$1"); B=$(realpath "$2")
ITERATIONS=${3:-30}
NOTES=${4:-1000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/fl-everyday-bench.XXXXXX)
export FINGERLOCK_KEYRING_NAMESPACE="everyday-bench-$$"
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

# The notes, as `export --format json` writes them, imported by each build in one transaction.
{
    echo "["
    for ((n = 0; n < NOTES; n++)); do
        printf '%s{"id":"%s","title":"f%02d/n%04d","tags":[],"created":"2026-01-01T00:00:00Z","modified":"2026-01-01T00:00:00Z","body":"password-%d\\nuser: someone\\n"}\n' \
            "$([ "$n" = 0 ] || echo ,)" "$(cat /proc/sys/kernel/random/uuid)" $((n % 20)) "$n" "$n"
    done
    echo "]"
} >"$WORK/notes.json"

export FINGERLOCK_READER=simulated
for side in a b; do
    mkdir -m 700 "$WORK/$side"
    printf '%s\n%s\n' "$PASSCODE" "$PASSCODE" \
        | FINGERLOCK_DATA_DIR="$WORK/$side" "$WORK/bin-$side" passcode set --passcode-stdin | cat >/dev/null
    printf '%s\n' "$PASSCODE" | FINGERLOCK_DATA_DIR="$WORK/$side" FINGERLOCK_SIMULATED_TOUCHES="right-index-finger*8" \
        "$WORK/bin-$side" enroll right-index-finger --passcode-stdin >/dev/null
    FINGERLOCK_DATA_DIR="$WORK/$side" FINGERLOCK_SIMULATED_TOUCHES=right-index-finger \
        "$WORK/bin-$side" notes import --format json "$WORK/notes.json" >/dev/null
done

rows=(list find show complete)
run_row() { # side row
    local side=$1 row=$2 status=0
    local -a command
    case $row in
        list) command=(notes list) ;;
        find) command=(notes search --title n00) ;;
        show) command=(notes show f07/n0007 --line 1) ;;
        complete) command=(---completion notes show -- positional@0 3 4 fingerlock notes show f07/) ;;
    esac
    FINGERLOCK_DATA_DIR="$WORK/$side" FINGERLOCK_SIMULATED_TOUCHES=right-index-finger \
        "$WORK/runstat" "$WORK/$side.$row" "$WORK/bin-$side" "${command[@]}" >"$WORK/out" 2>"$WORK/err" </dev/null || status=$?
    [ "$status" = 0 ] && [ -s "$WORK/out" ] || { echo "everyday-bench: $row ($side) failed ($status):" >&2; cat "$WORK/err" >&2; exit 2; }
}
for ((i = 0; i < ITERATIONS; i++)); do
    for row in "${rows[@]}"; do run_row a "$row"; run_row b "$row"; done
done

report_rows "${rows[@]}"
echo "($ITERATIONS iterations, $NOTES notes, interleaved; wall time fork to wait4, median (min-max), peak RSS)"
