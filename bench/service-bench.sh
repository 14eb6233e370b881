#!/usr/bin/env bash
# System mode's speed (issue 14): a touch unlock through fingerlockd, side by side with the C floor
# and with user mode, in one interleaved run; then the service's idle cost.
#
# Rows (one touch on libfprint's virtual_device each; whole-process wall time, fork to wait4, and the
# child's peak RSS, from bench/runstat.c; median and min-max over ITERATIONS runs):
#   verify-c        bench/verify-c.c: libfprint start-up, enumerate, open, verify one print, close
#   system verify   `fingerlock verify` of a system-mode vault: the service, already running with its
#                   libfprint context, scans and matches; the CLI only connects and waits
#   user verify     `fingerlock verify` of a user-mode vault (the CLI does everything)
#   fprintd-verify  `fprintd-verify` against fprintd with its daemon warm (started with --no-timeout, the
#                   finger enrolled through it), on a private system bus with python3-dbusmock's polkit:
#                   the desktop's own daemon doing the same job. When fprintd, dbus-daemon and
#                   python3-dbusmock are installed (FPRINTD=0 leaves the row out). System verify's goal:
#                   no slower than it. fprintd's time includes its polkit check, answered here by the
#                   Python mock (a real polkitd answers in C).
# Then, with no client: fingerlockd's resident memory, and its CPU time and context switches (wake-ups)
# over IDLE_SECONDS (default 10), IDLE_SETTLE seconds (default 65) after the last scan. One wake-up a
# second remains: libdispatch's workqueue monitor (_dispatch_workq_monitor_pools), part of the Swift
# runtime on Linux, in every process that uses Swift concurrency.
#
# With BASELINE=DIR (a directory holding an older build's release `fingerlock` and `fingerlockd`), the
# old build runs beside the new one in the same interleaved iterations, with its own service, state,
# vaults and virtual device ("base system verify", "base user verify"), and the idle part reports
# both services' resident memory, and both builds' binary sizes (as built, and stripped).
#
# Usage: sudo bench/service-bench.sh [ITERATIONS]      (default 20)
#   Runs as root: the CLI talks only to a service that is root's or a system user's, never the
#   caller's own (root may use its own). BENCH_NO_BUILD=1 uses the release binaries already built.
# Needs cc, pkg-config, libfprint-2-dev (make deps installs them).
set -euo pipefail

ITERATIONS=${1:-20}
IDLE_SECONDS=${IDLE_SECONDS:-10}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "service-bench.sh: run as root (see the header)." >&2; exit 64; }
WORK=$(mktemp -d /tmp/fl-service-bench.XXXXXX)
DEVICE="$WORK/virtual_device.sock"
BASE_DEVICE="$WORK/base_virtual_device.sock"
FPRINTD_DEVICE="$WORK/fprintd_virtual_device.sock"
SCAN_ID="FP1-20260101-7-00000001-bench"
PASSCODE="bench secret 1"
export FP_DRIVERS_WHITELIST=virtual_device FP_VIRTUAL_DEVICE="$DEVICE"
export FINGERLOCK_KEYRING_NAMESPACE="service-bench-$$"
SERVICE_PID=""
BASE_SERVICE_PID=""
FPRINTD_PIDS=()
cleanup() {
    # Every step, whatever the one before did (a killed job's wait returns 143, which set -e would end on).
    set +e
    local pid
    for ((i = ${#FPRINTD_PIDS[@]} - 1; i >= 0; i--)); do
        pid=${FPRINTD_PIDS[i]}
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    [ -n "$SERVICE_PID" ] && kill "$SERVICE_PID" 2>/dev/null && wait "$SERVICE_PID" 2>/dev/null
    [ -n "$BASE_SERVICE_PID" ] && kill "$BASE_SERVICE_PID" 2>/dev/null && wait "$BASE_SERVICE_PID" 2>/dev/null
    [ -x "${FINGERLOCK:-}" ] && setsid -w "$FINGERLOCK" --data-dir "$WORK/user" lock </dev/null >/dev/null 2>&1
    # A feeder is a background function's child: killing the function's subshell leaves it waiting
    # (for up to 20 s) on a device nobody opens, writing into whatever took this run's output.
    pkill -f "^$WORK/vfeed " 2>/dev/null
    rm -rf "$WORK"
    return 0
}
trap cleanup EXIT

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at start"
cc -O2 -Wall -o "$WORK/runstat" "$ROOT/bench/runstat.c"
cc -O2 -Wall -o "$WORK/vfeed" "$ROOT/bench/vfeed.c"
cc -O2 -Wall -o "$WORK/verify-c" "$ROOT/bench/verify-c.c" $(pkg-config --cflags --libs libfprint-2)
if [ "${BENCH_NO_BUILD:-0}" != 1 ]; then
    echo "building fingerlock and fingerlockd (release, static Swift stdlib, as make install ships them)…"
    (cd "$ROOT" && nice -n 19 env FINGERLOCK_STATIC_LIBSTDCXX=1 swift build -c release --static-swift-stdlib >"$WORK/build.log" 2>&1) || {
        cat "$WORK/build.log"; exit 2; }
fi
FINGERLOCK="$ROOT/.build/release/fingerlock"
FINGERLOCKD="$ROOT/.build/release/fingerlockd"

feed() { "$WORK/vfeed" "${FEED_DEVICE:-$DEVICE}" "SLEEP 0" "$@"; }
scans() { local n=$1 out=(); while [ "$n" -gt 0 ]; do out+=("SCAN $SCAN_ID"); n=$((n - 1)); done; printf '%s\n' "${out[@]}"; }

# --- the service, as make install runs it (here by hand): its own reader, its own state -------------
mkdir -m 700 "$WORK/state"
# fingerlockd scans only for the user at the reader's seat, as logind says (issue 38), and the bench
# runs as root: it is given no system bus and told to scan without logind, so the seat check costs a
# failed connect here (with logind, a round trip of a few calls before each scan, not measured).
DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent/no-bus "$FINGERLOCKD" --socket "$WORK/socket" --state-dir "$WORK/state" \
    --reader virtual_device --allow-scans-without-logind 2>"$WORK/service.log" &
SERVICE_PID=$!
for _ in $(seq 100); do [ -S "$WORK/socket" ] && break; sleep 0.05; done
[ -S "$WORK/socket" ] || { cat "$WORK/service.log"; exit 2; }
SYSTEM=("$FINGERLOCK" --data-dir "$WORK/system" --socket "$WORK/socket")
USER_MODE=("$FINGERLOCK" --data-dir "$WORK/user" --reader virtual_device)
VARIANTS=(new)
if [ -n "${BASELINE:-}" ]; then
    VARIANTS+=(base)
    mkdir -m 700 "$WORK/base_state"
    FP_VIRTUAL_DEVICE="$BASE_DEVICE" "$BASELINE/fingerlockd" --socket "$WORK/base_socket" --state-dir "$WORK/base_state" \
        --reader virtual_device 2>"$WORK/base_service.log" &
    BASE_SERVICE_PID=$!
    for _ in $(seq 100); do [ -S "$WORK/base_socket" ] && break; sleep 0.05; done
    [ -S "$WORK/base_socket" ] || { cat "$WORK/base_service.log"; exit 2; }
fi
# cli VARIANT MODE: the command line of one build against one vault.
cli_of() {
    local binary=$FINGERLOCK socket="$WORK/socket" prefix=""
    if [ "$1" = base ]; then binary="$BASELINE/fingerlock" socket="$WORK/base_socket" prefix="base_"; fi
    if [ "$2" = system ]; then
        echo "$binary --data-dir $WORK/${prefix}system --socket $socket"
    else
        echo "$binary --data-dir $WORK/${prefix}user --reader virtual_device"
    fi
}
device_of() { [ "$1" = base ] && echo "$BASE_DEVICE" || echo "$DEVICE"; }

# --- set-up, not timed: a system-mode vault with a finger enrolled through the service and its key
# held there (a passcode unlock), a user-mode vault the same, and the C program's print -------------
for variant in "${VARIANTS[@]}"; do
    for vault in system user; do
        read -r -a cli <<<"$(cli_of "$variant" "$vault")"
        # A user-mode CLI opens the virtual device itself: the variant's own.
        export FP_VIRTUAL_DEVICE FEED_DEVICE
        FP_VIRTUAL_DEVICE=$(device_of "$variant")
        FEED_DEVICE=$FP_VIRTUAL_DEVICE
        printf '%s\n%s\n' "$PASSCODE" "$PASSCODE" | setsid -w "${cli[@]}" passcode set --passcode-stdin | cat >/dev/null
        [ "$vault" = system ] && printf '%s\n' "$PASSCODE" | setsid -w "${cli[@]}" system enable --passcode-stdin >/dev/null
        mapfile -t five < <(scans 5)
        feed "${five[@]}" &
        feeder=$!
        printf '%s\n' "$PASSCODE" | setsid -w "${cli[@]}" enroll right-index-finger --passcode-stdin >"$WORK/enroll.log" 2>&1 ||
            { cat "$WORK/enroll.log"; exit 2; }
        wait "$feeder"   # not a bare wait: fingerlockd is a background job too
        printf '%s\n' "$PASSCODE" | setsid -w "${cli[@]}" unlock --passcode-stdin >/dev/null
    done
done
export FP_VIRTUAL_DEVICE="$DEVICE" FEED_DEVICE="$DEVICE"
mapfile -t five < <(scans 5)
feed "${five[@]}" &
feeder=$!
"$WORK/verify-c" enroll "$WORK/print.fp" </dev/null >/dev/null
wait "$feeder"

# --- fprintd, warm, on a private system bus (its own virtual device, state and polkit mock) ----------
USE_FPRINTD=0
if [ "${FPRINTD:-1}" = 1 ] && [ -x /usr/libexec/fprintd ] && command -v fprintd-verify >/dev/null &&
    command -v dbus-daemon >/dev/null && /usr/bin/python3 -c 'import dbusmock' 2>/dev/null; then
    USE_FPRINTD=1
    cat >"$WORK/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$WORK/system_bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/> <allow own="*"/>
    <allow send_type="method_call"/> <allow send_type="signal"/> <allow send_type="method_return"/> <allow send_type="error"/>
    <allow receive_type="method_call"/> <allow receive_type="signal"/> <allow receive_type="method_return"/> <allow receive_type="error"/>
  </policy>
</busconfig>
CONF
    dbus-daemon --config-file="$WORK/bus.conf" --nofork 2>"$WORK/bus.log" &
    FPRINTD_PIDS+=($!)
    for _ in $(seq 100); do [ -S "$WORK/system_bus" ] && break; sleep 0.05; done
    [ -S "$WORK/system_bus" ] || { echo "the private system bus did not start:" >&2; cat "$WORK/bus.log" >&2; exit 2; }
    export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$WORK/system_bus"
    /usr/bin/python3 -m dbusmock --system --template polkitd >"$WORK/polkit.log" 2>&1 &
    FPRINTD_PIDS+=($!)
    allowed=0
    for _ in $(seq 100); do
        dbus-send --system --print-reply --dest=org.freedesktop.PolicyKit1 /org/freedesktop/PolicyKit1/Authority \
            org.freedesktop.DBus.Mock.AllowUnknown boolean:true >/dev/null 2>&1 && { allowed=1; break; }
        sleep 0.1
    done
    [ "$allowed" = 1 ] || { echo "the polkit mock did not answer:" >&2; cat "$WORK/polkit.log" >&2; exit 2; }
    mkdir -m 700 "$WORK/fprint"
    STATE_DIRECTORY="$WORK/fprint" FP_VIRTUAL_DEVICE="$FPRINTD_DEVICE" /usr/libexec/fprintd --no-timeout \
        >"$WORK/fprintd.log" 2>&1 &
    FPRINTD_PIDS+=($!)
    owned=0
    for _ in $(seq 100); do
        dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
            org.freedesktop.DBus.NameHasOwner string:net.reactivated.Fprint 2>/dev/null | grep -q 'boolean true' &&
            { owned=1; break; }
        sleep 0.1
    done
    [ "$owned" = 1 ] || { echo "fprintd did not take its bus name:" >&2; cat "$WORK/fprintd.log" >&2; exit 2; }
    mapfile -t five < <(scans 5)
    FEED_DEVICE="$FPRINTD_DEVICE" feed "${five[@]}" &
    feeder=$!
    fprintd-enroll -f right-index-finger "$(id -un)" </dev/null >"$WORK/fprintd-enroll.log" 2>&1 ||
        { cat "$WORK/fprintd-enroll.log" "$WORK/fprintd.log"; kill "$feeder" 2>/dev/null; exit 2; }
    wait "$feeder"
fi

# run ROW COMMAND...: one timed run with one touch, appended to $WORK/rows/ROW.
mkdir -p "$WORK/rows"
run() {
    local row=$1
    shift
    feed "SCAN $SCAN_ID" &
    local feeder=$!
    "$WORK/runstat" "$WORK/rows/$row" "$@" </dev/null >"$WORK/out" 2>"$WORK/err" || {
        echo "run failed: $*" >&2; cat "$WORK/err" >&2; kill "$feeder" 2>/dev/null; exit 2; }
    wait "$feeder" || { echo "the feeder failed: did $row open the device?" >&2; exit 2; }
}
iteration() {
    run verify-c "$WORK/verify-c" verify "$WORK/print.fp"
    local variant vault cli label
    for variant in "${VARIANTS[@]}"; do
        FP_VIRTUAL_DEVICE=$(device_of "$variant")
        FEED_DEVICE=$FP_VIRTUAL_DEVICE
        for vault in system user; do
            read -r -a cli <<<"$(cli_of "$variant" "$vault")"
            label="$vault verify"
            [ "$variant" = base ] && label="base $label"
            run "$label" "${cli[@]}" verify right-index-finger
        done
    done
    FP_VIRTUAL_DEVICE=$DEVICE FEED_DEVICE=$DEVICE
    if [ "$USE_FPRINTD" = 1 ]; then
        FEED_DEVICE=$FPRINTD_DEVICE
        run fprintd-verify fprintd-verify -f right-index-finger "$(id -un)"
        grep -q 'verify-match' "$WORK/out" || { echo "fprintd-verify did not match:" >&2; cat "$WORK/out" >&2; exit 2; }
        FEED_DEVICE=$DEVICE
    fi
}
iteration
rm -f "$WORK"/rows/*
echo "timing $ITERATIONS interleaved iterations…"
for ((i = 0; i < ITERATIONS; i++)); do iteration; done

stats() {  # FILE -> "median min max peak_rss_mb"
    sort -n "$1" | awk '{ t[NR] = $1; if ($2 > rss) rss = $2 } END {
        printf "%.2f %.2f %.2f %.1f", t[int((NR + 1) / 2)] / 1000, t[1] / 1000, t[NR] / 1000, rss / 1024 }'
}
read -r floor _ <<<"$(stats "$WORK/rows/verify-c")"
echo
echo "fingerlock $(git -C "$ROOT" describe --always --dirty 2>/dev/null), $ITERATIONS iterations, load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
printf '| %-14s | %9s | %-15s | %11s | %13s | %-10s |\n' row "median ms" "min-max ms" "peak RSS MB" "vs verify-c" goal
printf '|%s|%s|%s|%s|%s|%s|\n' ---------------- ----------- ----------------- ------------- --------------- ------------
ROWS=(verify-c "system verify" "user verify")
[ "$USE_FPRINTD" = 1 ] && ROWS+=(fprintd-verify)
[ -n "${BASELINE:-}" ] && ROWS+=("base system verify" "base user verify")
for row in "${ROWS[@]}"; do
    read -r median low high rss <<<"$(stats "$WORK/rows/$row")"
    goal=""
    [ "$row" = "system verify" ] && [ "$USE_FPRINTD" = 1 ] && goal="<= fprintd"
    [ "$row" = "base system verify" ] && goal="(before)"
    printf '| %-14s | %9s | %-15s | %11s | %13s | %-10s |\n' "$row" "$median" "$low-$high" "$rss" \
        "$(awk -v a="$median" -v b="$floor" 'BEGIN { printf "%.2fx", a / b }')" "$goal"
done

# --- the idle service ----------------------------------------------------------------------------------
switches() { cat /proc/"$SERVICE_PID"/task/*/status | awk '/ctxt_switches/ { n += $2 } END { print n }'; }
cpu_ticks() { awk '{ print $14 + $15 }' /proc/"$SERVICE_PID"/stat; }
# fingerlockd lets libfprint's context (and GUsb's thread, which wakes every 2 s) go 30-60 s after the
# last scan: measure after that.
sleep "${IDLE_SETTLE:-65}"
before_switches=$(switches) before_ticks=$(cpu_ticks)
sleep "$IDLE_SECONDS"
after_switches=$(switches) after_ticks=$(cpu_ticks)
rss_kb=$(awk '/^VmRSS/ { print $2 }' /proc/"$SERVICE_PID"/status)
threads=$(ls /proc/"$SERVICE_PID"/task | wc -l)
size_mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f", b / 1048576 }'; }
stripped_mb() { strip -o "$WORK/stripped" "$1" && size_mb "$WORK/stripped"; }
libraries() { ldd "$1" | awk '{ print $1 }' | grep -E 'sqlite|keyutils|fprint' | tr '\n' ' '; }
echo
echo "binaries (as built / stripped MB; the libraries of note they link):"
echo "  fingerlockd $(size_mb "$FINGERLOCKD") / $(stripped_mb "$FINGERLOCKD"); links: $(libraries "$FINGERLOCKD")"
echo "  fingerlock  $(size_mb "$FINGERLOCK") / $(stripped_mb "$FINGERLOCK"); links: $(libraries "$FINGERLOCK")"
if [ -n "${BASELINE:-}" ]; then
    echo "  base fingerlockd $(size_mb "$BASELINE/fingerlockd") / $(stripped_mb "$BASELINE/fingerlockd"); links: $(libraries "$BASELINE/fingerlockd")"
    echo "  base fingerlock  $(size_mb "$BASELINE/fingerlock") / $(stripped_mb "$BASELINE/fingerlock"); links: $(libraries "$BASELINE/fingerlock")"
    base_rss_kb=$(awk '/^VmRSS/ { print $2 }' /proc/"$BASE_SERVICE_PID"/status)
    echo "base fingerlockd idle: resident $((base_rss_kb / 1024)) MB (${base_rss_kb} kB), $(ls /proc/"$BASE_SERVICE_PID"/task | wc -l) threads"
fi
echo
echo "fingerlockd idle for ${IDLE_SECONDS} s (a key cached, a reader present): $((after_switches - before_switches)) context switches" \
    "(wake-ups), $(((after_ticks - before_ticks) * 1000 / $(getconf CLK_TCK))) ms CPU; resident $((rss_kb / 1024)) MB (${rss_kb} kB), $threads threads"
