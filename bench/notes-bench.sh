#!/usr/bin/env bash
# Whole-process wall time of `fingerlock notes list` unlocked by a touch on libfprint's
# virtual_device, at 1,000 and 100,000 notes of ~1 KB, and of `fingerlock --help` (start-up).
# The release binary is built as the README installs it (static Swift stdlib).
#
# Usage: bench/notes-bench.sh [ITERATIONS] [SIZES...]    (default 10 iterations; sizes 1000 100000)
set -euo pipefail

ITERATIONS=${1:-10}
shift || true
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(1000 100000)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/fl-notes-bench.XXXXXX)
SOCKET="$WORK/virtual_device.sock"
SCAN_ID="FP1-20260101-7-00000001-bench"
PASSCODE="bench secret 1"
export FP_DRIVERS_WHITELIST=virtual_device FP_VIRTUAL_DEVICE="$SOCKET"

echo "building (release, static Swift stdlib)…"
cc -O2 -Wall -o "$WORK/vfeed" "$ROOT/bench/vfeed.c"
(cd "$ROOT" && FINGERLOCK_STATIC_LIBSTDCXX=1 swift build -c release --static-swift-stdlib --product fingerlock >"$WORK/build.log" 2>&1 &&
    FINGERLOCK_STATIC_LIBSTDCXX=1 swift build -c release --static-swift-stdlib --product vault-bench >>"$WORK/build.log" 2>&1) || { cat "$WORK/build.log"; exit 2; }
FINGERLOCK="$ROOT/.build/release/fingerlock"
BENCH="$ROOT/.build/release/vault-bench"
DATA_DIRS=()
cleanup() {
    for dir in "${DATA_DIRS[@]}"; do setsid -w "$FINGERLOCK" --data-dir "$dir" lock </dev/null >/dev/null 2>&1 || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

# Runs "$@" with the feeder touching the reader once it opens; prints the wall time in µs.
fed_run() {
    "$WORK/vfeed" "$SOCKET" "SLEEP 0" "SCAN $SCAN_ID" &
    local feeder=$! start end
    start=$EPOCHREALTIME
    setsid -w "$@" </dev/null >"$WORK/out" 2>"$WORK/err" || { echo "run failed: $*" >&2; cat "$WORK/err" >&2; kill $feeder; exit 2; }
    end=$EPOCHREALTIME
    wait "$feeder"
    echo $(( ${end/./} - ${start/./} ))
}
timed() {
    local start end
    start=$EPOCHREALTIME
    "$@" >/dev/null 2>&1 </dev/null
    end=$EPOCHREALTIME
    echo $(( ${end/./} - ${start/./} ))
}
median_ms() { sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] / 1000 }'; }

for ((i = 0; i < ITERATIONS; i++)); do timed "$FINGERLOCK" --help; done | median_ms >"$WORK/help"
printf '\n%-28s %10s\n' "measurement" "median ms"
printf '%-28s %10s\n' "fingerlock --help" "$(cat "$WORK/help")"

for size in "${SIZES[@]}"; do
    dir="$WORK/data-$size"
    DATA_DIRS+=("$dir")
    printf '%s\n%s\n' "$PASSCODE" "$PASSCODE" | setsid -w "$FINGERLOCK" --data-dir "$dir" --reader virtual_device passcode set --passcode-stdin | cat >/dev/null
    "$WORK/vfeed" "$SOCKET" "SLEEP 0" "SCAN $SCAN_ID" "SCAN $SCAN_ID" "SCAN $SCAN_ID" "SCAN $SCAN_ID" "SCAN $SCAN_ID" &
    printf '%s\n' "$PASSCODE" | setsid -w "$FINGERLOCK" --data-dir "$dir" --reader virtual_device enroll right-index-finger --passcode-stdin >/dev/null
    wait
    printf '%s\n' "$PASSCODE" | "$BENCH" --populate "$dir" "$size"
    fed_run "$FINGERLOCK" --data-dir "$dir" --reader virtual_device notes list >/dev/null   # warm-up
    lines=$(wc -l <"$WORK/out")
    for ((i = 0; i < ITERATIONS; i++)); do fed_run "$FINGERLOCK" --data-dir "$dir" --reader virtual_device notes list; done | median_ms >"$WORK/list"
    printf '%-28s %10s   (%s notes listed)\n' "notes list by touch, $size" "$(cat "$WORK/list")" "$lines"
done
