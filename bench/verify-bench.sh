#!/usr/bin/env bash
# Whole-process wall time of `fingerlock verify` against a minimal C program (bench/verify-c.c: open +
# deserialize + verify + close), side by side in one run, on libfprint's virtual_device with one
# matching touch fed by bench/vfeed.c. Prints the medians and the ratio (the target is ≤ 1.5).
#
# Usage: bench/verify-bench.sh [ITERATIONS]      (default 30; needs cc, pkg-config, libfprint-2-dev)
#        SWIFT_BUILD_FLAGS="..." adds flags to the release builds (e.g. to try linker options).
# Exit status: 0, or 1 when the ratio is above 1.5, or 2 when a run fails.
set -euo pipefail

ITERATIONS=${1:-30}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/fl-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
SOCKET="$WORK/virtual_device.sock"
# The scan id: a verify matches when it scans the id the print was enrolled with.
SCAN_ID="FP1-20260101-7-00000001-bench"
export FP_DRIVERS_WHITELIST=virtual_device

echo "building the C baseline and the feeder…"
cc -O2 -Wall -o "$WORK/verify-c" "$ROOT/bench/verify-c.c" $(pkg-config --cflags --libs libfprint-2)
cc -O2 -Wall -o "$WORK/vfeed" "$ROOT/bench/vfeed.c"

echo "building fingerlock (release, static Swift stdlib, as the README installs it)…"
(cd "$ROOT" && FINGERLOCK_STATIC_LIBSTDCXX=1 swift build -c release --static-swift-stdlib ${SWIFT_BUILD_FLAGS:-} --product fingerlock >"$WORK/build.log" 2>&1) || {
    cat "$WORK/build.log"; exit 2; }
FINGERLOCK="$ROOT/.build/release/fingerlock"
# The reader layer alone (LibfprintContext + LibfprintReader, no CLI), built the same way.
(cd "$ROOT" && FINGERLOCK_STATIC_LIBSTDCXX=1 swift build -c release --static-swift-stdlib ${SWIFT_BUILD_FLAGS:-} --product fprint-probe >"$WORK/build.log" 2>&1) || {
    cat "$WORK/build.log"; exit 2; }
PROBE="$ROOT/.build/release/fprint-probe"

# ---------------------------------------------------------------------------------------------------
# HOOK — fingerlock's command lines. Adjust here if the CLI needs more (e.g. a passcode for the vault).
# Each runs with FP_VIRTUAL_DEVICE set, no terminal (setsid, stdin /dev/null), in the data directory below.
DATA_DIR="$WORK/data"
PASSFILE="$WORK/passcode"
printf 'bench secret 1\n' >"$PASSFILE"
fingerlock_available() { "$FINGERLOCK" --help 2>&1 | grep -qw verify; }
# The vault is created first (a test vault: the reader in effect is virtual); enrolling needs the
# passcode, from descriptor 3. Verify then runs as users run it after an unlock: the vault key comes
# from the kernel keyring, the templates are unsealed, and one touch is checked.
export PASSFILE
FINGERLOCK_SETUP() {
    printf 'bench secret 1\nbench secret 1\n' |
        FP_VIRTUAL_DEVICE="$SOCKET" setsid -w "$FINGERLOCK" --reader virtual_device --data-dir "$DATA_DIR" passcode set --passcode-stdin | cat >/dev/null
}
FINGERLOCK_TEARDOWN() { setsid -w "$FINGERLOCK" --data-dir "$DATA_DIR" lock </dev/null >/dev/null 2>&1 || true; }
FINGERLOCK_ENROLL=(sh -c 'exec "$0" "$@" 3<"$PASSFILE"' "$FINGERLOCK" --reader virtual_device --data-dir "$DATA_DIR" enroll right-index-finger --passcode-fd 3)
FINGERLOCK_VERIFY=("$FINGERLOCK" --reader virtual_device --data-dir "$DATA_DIR" verify right-index-finger)
# ---------------------------------------------------------------------------------------------------
C_ENROLL=("$WORK/verify-c" enroll "$WORK/print.fp")
C_VERIFY=("$WORK/verify-c" verify "$WORK/print.fp")
PROBE_ENROLL=("$PROBE" enroll virtual_device "$WORK/print.json")
PROBE_VERIFY=("$PROBE" verify virtual_device "$WORK/print.json")

# Runs "$@" with a feeder sending the commands in FEED (set by the caller) to the device once it opens.
# Prints the wall time of "$@" in microseconds.
fed_run() {
    "$WORK/vfeed" "$SOCKET" "${FEED[@]}" &
    local feeder=$! start end
    start=$EPOCHREALTIME
    if ! FP_VIRTUAL_DEVICE="$SOCKET" setsid -w "$@" </dev/null >"$WORK/out" 2>"$WORK/err"; then
        echo "run failed: $*" >&2; cat "$WORK/out" "$WORK/err" >&2
        kill "$feeder" 2>/dev/null || true
        exit 2
    fi
    end=$EPOCHREALTIME
    wait "$feeder" || { echo "the feeder failed: did $1 open the device?" >&2; exit 2; }
    echo $(( (${end/./} - ${start/./}) ))
}

median_ms() { sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] / 1000 }'; }

FEED=("SLEEP 0" "SCAN $SCAN_ID" "SCAN $SCAN_ID" "SCAN $SCAN_ID" "SCAN $SCAN_ID" "SCAN $SCAN_ID")
fed_run "${C_ENROLL[@]}" >/dev/null
fed_run "${PROBE_ENROLL[@]}" >/dev/null
HAVE_FINGERLOCK=0
if fingerlock_available; then
    HAVE_FINGERLOCK=1
    FINGERLOCK_SETUP
    trap 'FINGERLOCK_TEARDOWN; rm -rf "$WORK"' EXIT
    fed_run "${FINGERLOCK_ENROLL[@]}" >/dev/null
else
    echo "note: this fingerlock has no verify command yet; measuring the C baseline only (see HOOK)."
fi

FEED=("SLEEP 0" "SCAN $SCAN_ID")
fed_run "${C_VERIFY[@]}" >/dev/null                                   # warm-up (page cache)
fed_run "${PROBE_VERIFY[@]}" >/dev/null
[ "$HAVE_FINGERLOCK" = 1 ] && fed_run "${FINGERLOCK_VERIFY[@]}" >/dev/null
: >"$WORK/c.times"; : >"$WORK/probe.times"; : >"$WORK/fingerlock.times"
for ((i = 0; i < ITERATIONS; i++)); do                        # interleaved, so both see the same machine
    fed_run "${C_VERIFY[@]}" >>"$WORK/c.times"
    fed_run "${PROBE_VERIFY[@]}" >>"$WORK/probe.times"
    [ "$HAVE_FINGERLOCK" = 1 ] && fed_run "${FINGERLOCK_VERIFY[@]}" >>"$WORK/fingerlock.times"
done

C_MS=$(median_ms <"$WORK/c.times")
echo "verify on virtual_device, median of $ITERATIONS runs (whole process, one matching touch):"
P_MS=$(median_ms <"$WORK/probe.times")
echo "  C baseline (bench/verify-c.c):  $C_MS ms"
echo "  fprint-probe (reader layer):   $P_MS ms (ratio $(awk -v p="$P_MS" -v c="$C_MS" 'BEGIN { printf "%.2f", p / c }'))"
if [ "$HAVE_FINGERLOCK" = 1 ]; then
    F_MS=$(median_ms <"$WORK/fingerlock.times")
    RATIO=$(awk -v f="$F_MS" -v c="$C_MS" 'BEGIN { printf "%.2f", f / c }')
    echo "  fingerlock verify:             $F_MS ms"
    echo "  ratio fingerlock / C:          $RATIO (target ≤ 1.5)"
    awk -v r="$RATIO" 'BEGIN { exit !(r <= 1.5) }' || exit 1
fi
