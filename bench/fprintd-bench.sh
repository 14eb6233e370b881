#!/usr/bin/env bash
# `verify` through fprintd (issue 40), in one interleaved run, each row labelled warm or cold:
#
#   fprintd-verify (warm)        fprintd's own client; fprintd already running
#   fingerlock fprintd (warm)    `fingerlock verify --reader fprintd` of a vault that took fprintd's fingers
#   fprintd-verify (cold)        fprintd stopped before the run: the call starts it (D-Bus activation)
#   fingerlock fprintd (cold)    the same for fingerlock
#   fingerlock direct            `fingerlock verify --reader virtual_device`: libfprint in fingerlock's process
#
# Debian's real fprintd on a private bus (activatable from a service file, as on a desktop), dbusmock's
# polkit granting verify and enroll, libfprint's virtual_device behind both; one matching touch per
# run (bench/vfeed.c). Whole-process wall time, fork to wait4 (bench/runstat.c); median (min-max).
#
# Usage: bench/fprintd-bench.sh [ITERATIONS] [FINGERLOCK] [BASELINE]  (default 20, .build/release/fingerlock)
#   BASELINE: another build of fingerlock (e.g. the previous commit's) whose fprintd rows, warm and
#   cold, run in the same interleaved run, on the same vault.
# Needs cc, fprintd, python3-dbusmock (root: fprintd runs as root, as on a desktop).
set -euo pipefail

ITERATIONS=${1:-20}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FINGERLOCK=$(realpath "${2:-$ROOT/.build/release/fingerlock}")
BASELINE=${3:+$(realpath "$3")}
[ -x "$FINGERLOCK" ] || { echo "fprintd-bench: $FINGERLOCK is missing (make release)" >&2; exit 2; }
WORK=$(mktemp -d /tmp/fl-fprintd-bench.XXXXXX)
chmod 755 "$WORK"
export FINGERLOCK_KEYRING_NAMESPACE="fprintd-bench-$$"
PASSCODE="bench secret 1"
SCAN_ID="FP1-20260101-7-00000001-bench"
BUS_PID=""; POLKIT_PID=""
cleanup() {
    FINGERLOCK_DATA_DIR="$WORK/fprintd-vault" setsid -w "$FINGERLOCK" lock </dev/null >/dev/null 2>&1 || true
    pkill -f "STATE_DIRECTORY=$WORK/state" 2>/dev/null || true
    pkill -x fprintd -P "$BUS_PID" 2>/dev/null || true
    [ -n "$POLKIT_PID" ] && kill "$POLKIT_PID" 2>/dev/null
    [ -n "$BUS_PID" ] && kill "$BUS_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
cc -O2 -Wall -o "$WORK/runstat" "$ROOT/bench/runstat.c"
cc -O2 -Wall -o "$WORK/vfeed" "$ROOT/bench/vfeed.c"

# A bus that can start fprintd on demand, as the system bus does on a desktop.
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$WORK/bus"
mkdir -p "$WORK/services" "$WORK/state"
cat >"$WORK/services/net.reactivated.Fprint.service" <<SERVICE
[D-BUS Service]
Name=net.reactivated.Fprint
Exec=/usr/bin/env DBUS_SYSTEM_BUS_ADDRESS=$DBUS_SYSTEM_BUS_ADDRESS FP_VIRTUAL_DEVICE=$WORK/fprintd.sock STATE_DIRECTORY=$WORK/state /usr/libexec/fprintd
SERVICE
cat >"$WORK/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path=$WORK/bus</listen><auth>EXTERNAL</auth>
<servicedir>$WORK/services</servicedir>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy></busconfig>
CONF
dbus-daemon --config-file="$WORK/bus.conf" --nofork --nopidfile 2>/dev/null & BUS_PID=$!
for _ in $(seq 100); do [ -S "$WORK/bus" ] && break; sleep 0.05; done
/usr/bin/python3 -m dbusmock --system --template polkitd >/dev/null 2>&1 & POLKIT_PID=$!
for _ in $(seq 100); do
    dbus-send --system --print-reply --dest=org.freedesktop.PolicyKit1 /org/freedesktop/PolicyKit1/Authority \
        org.freedesktop.DBus.Mock.SetAllowed array:string:net.reactivated.fprint.device.verify,net.reactivated.fprint.device.enroll \
        >/dev/null 2>&1 && break
    sleep 0.05
done

stop_fprintd() { pkill -f "STATE_DIRECTORY=$WORK/state" 2>/dev/null || true; pkill -x fprintd 2>/dev/null || true; sleep 0.2; }

# fprintd's finger (enrolled with fprintd, as the desktop's settings would), and a vault that takes it.
"$WORK/vfeed" "$WORK/fprintd.sock" "SLEEP 0" "SCAN $SCAN_ID" "SCAN $SCAN_ID" "SCAN $SCAN_ID" "SCAN $SCAN_ID" "SCAN $SCAN_ID" &
FEEDER=$!
fprintd-enroll -f right-index-finger >"$WORK/enroll.log" 2>&1 || { cat "$WORK/enroll.log" >&2; exit 2; }
wait "$FEEDER"
mkdir -m 700 "$WORK/fprintd-vault" "$WORK/direct-vault"
printf '%s\n%s\n' "$PASSCODE" "$PASSCODE" | FINGERLOCK_DATA_DIR="$WORK/fprintd-vault" FINGERLOCK_READER=fprintd \
    setsid -w "$FINGERLOCK" passcode set --passcode-stdin | cat >/dev/null
printf '%s\n' "$PASSCODE" | FINGERLOCK_DATA_DIR="$WORK/fprintd-vault" FINGERLOCK_READER=fprintd \
    setsid -w "$FINGERLOCK" enroll --passcode-stdin >/dev/null
# fingerlock's own template on libfprint's virtual_device, on a socket of its own (fprintd never opens it).
export FP_VIRTUAL_DEVICE="$WORK/direct.sock"
printf '%s\n%s\n' "$PASSCODE" "$PASSCODE" | FINGERLOCK_DATA_DIR="$WORK/direct-vault" \
    setsid -w "$FINGERLOCK" --reader virtual_device passcode set --passcode-stdin | cat >/dev/null
"$WORK/vfeed" "$WORK/direct.sock" "SLEEP 0" "SCAN $SCAN_ID" "SCAN $SCAN_ID" "SCAN $SCAN_ID" "SCAN $SCAN_ID" "SCAN $SCAN_ID" &
FEEDER=$!
printf '%s\n' "$PASSCODE" | FINGERLOCK_DATA_DIR="$WORK/direct-vault" \
    setsid -w "$FINGERLOCK" --reader virtual_device enroll right-index-finger --passcode-stdin >/dev/null
wait "$FEEDER"

rows=("fprintd-verify (warm)" "fingerlock fprintd (warm)" "fprintd-verify (cold)" "fingerlock fprintd (cold)" "fingerlock direct"
    "baseline fprintd (warm)" "baseline fprintd (cold)")
row_numbers=(0 1 2 3 4)
[ -n "$BASELINE" ] && row_numbers+=(5 6)
run_row() { # index
    local row=$1 socket="$WORK/fprintd.sock" command status=0
    case $row in
        0 | 2) command=(fprintd-verify -f right-index-finger) ;;
        1 | 3) command=(env FINGERLOCK_DATA_DIR="$WORK/fprintd-vault" "$FINGERLOCK" --reader fprintd verify) ;;
        4) command=(env FINGERLOCK_DATA_DIR="$WORK/direct-vault" "$FINGERLOCK" --reader virtual_device verify); socket="$WORK/direct.sock" ;;
        5 | 6) command=(env FINGERLOCK_DATA_DIR="$WORK/fprintd-vault" "$BASELINE" --reader fprintd verify) ;;
    esac
    if [ "$row" = 2 ] || [ "$row" = 3 ] || [ "$row" = 6 ]; then stop_fprintd; fi
    if [ "$row" = 0 ] || [ "$row" = 1 ] || [ "$row" = 5 ]; then
        # Warm: fprintd is up (a call that does not claim the reader starts it if needed).
        busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call net.reactivated.Fprint /net/reactivated/Fprint/Manager \
            net.reactivated.Fprint.Manager GetDevices >/dev/null
    fi
    "$WORK/vfeed" "$socket" "SLEEP 0" "SCAN $SCAN_ID" &
    local feeder=$!
    "$WORK/runstat" "$WORK/row.$row" "${command[@]}" </dev/null >"$WORK/out" 2>&1 || status=$?
    wait "$feeder" || true
    grep -q -i "match" "$WORK/out" && [ "$status" = 0 ] || {
        echo "fprintd-bench: ${rows[$row]} failed ($status):" >&2; cat "$WORK/out" >&2; exit 2; }
}
for ((i = 0; i < ITERATIONS; i++)); do
    for row in "${row_numbers[@]}"; do run_row "$row"; done
done

stats() { sort -n -k1 "$1" | awk '{t[NR]=$1} END {m=int((NR+1)/2); printf "%.2f ms (%.2f-%.2f)", t[m]/1000, t[1]/1000, t[NR]/1000}'; }
echo
for row in "${row_numbers[@]}"; do printf '%-28s %s\n' "${rows[$row]}" "$(stats "$WORK/row.$row")"; done
echo "($ITERATIONS iterations, interleaved; whole-process wall time, median (min-max))"
