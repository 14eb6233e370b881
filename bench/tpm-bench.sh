#!/usr/bin/env bash
# A passcode unlock with and without the TPM binding, side by side, in one interleaved run (issue
# 30): one fingerlock binary, two vaults with the same passcode and scrypt costs calibrated on this
# machine, one unbound and one bound to a swtpm started here (as nobody, stopped cleanly). Each
# iteration locks both and unlocks both, alternating which goes first. Whole-process wall time
# (bench/runstat.c), median and min-max; the TPM's share is the bound median minus the unbound one.
# Rows:
#   unlock       `fingerlock unlock --passcode-stdin` after `lock`: scrypt, then (bound) the TPM
#   tpm-status   `fingerlock tpm status`: the CLI and one TPM round trip (GetCapability), no scrypt
#
# Usage: bench/tpm-bench.sh [BINARY] [ITERATIONS]      (default .build/release/fingerlock, 20)
# Needs cc, swtpm, tpm2-tools (for a clean stop), root or a user that may run swtpm.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(realpath "${1:-$ROOT/.build/release/fingerlock}")
ITERATIONS=${2:-20}
WORK=$(mktemp -d /tmp/fl-tpm-bench.XXXXXX)
chmod 755 "$WORK"
export FINGERLOCK_KEYRING_NAMESPACE="tpm-bench-$$" FINGERLOCK_READER=simulated TSS2_LOG=all+none
PASSCODE="bench secret 1"
TPMDIR="$WORK/tpm"
mkdir "$TPMDIR"
export FINGERLOCK_TPM_TCTI="swtpm:path=$TPMDIR/sock"
stop_tpm() {
    TPM2TOOLS_TCTI="$FINGERLOCK_TPM_TCTI" tpm2_shutdown -c >/dev/null 2>&1 || true
    swtpm_ioctl --unix "$TPMDIR/sock.ctrl" -s >/dev/null 2>&1 || true
}
cleanup() {
    for side in unbound bound; do
        [ -d "$WORK/$side" ] && FINGERLOCK_DATA_DIR="$WORK/$side" setsid -w "$BIN" lock </dev/null >/dev/null 2>&1 || true
    done
    stop_tpm
    rm -rf "$WORK"
}
trap cleanup EXIT
as_nobody=()
if [ "$(id -u)" -eq 0 ]; then chown 65534:65534 "$TPMDIR"; as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi
"${as_nobody[@]}" swtpm socket --tpm2 --tpmstate dir="$TPMDIR" --server type=unixio,path="$TPMDIR/sock" \
    --ctrl type=unixio,path="$TPMDIR/sock.ctrl" --flags startup-clear >"$WORK/swtpm.log" 2>&1 &
for _ in $(seq 100); do [ -S "$TPMDIR/sock.ctrl" ] && break; sleep 0.05; done
cc -O2 -Wall -o "$WORK/runstat" "$ROOT/bench/runstat.c"
printf '%s\n' "$PASSCODE" >"$WORK/passcode"

for side in unbound bound; do
    mkdir -m 700 "$WORK/$side"
    flags=(); [ "$side" = bound ] && flags=(--tpm)
    printf '%s\n%s\n' "$PASSCODE" "$PASSCODE" \
        | FINGERLOCK_DATA_DIR="$WORK/$side" "$BIN" passcode set "${flags[@]}" --passcode-stdin | cat >/dev/null
done
FINGERLOCK_DATA_DIR="$WORK/bound" "$BIN" tpm status | grep -q "is bound" || { echo "tpm-bench: the vault is not bound" >&2; exit 2; }

run_row() { # side row
    local side=$1 row=$2 status=0
    case $row in
        unlock)
            FINGERLOCK_DATA_DIR="$WORK/$side" "$BIN" lock >/dev/null </dev/null
            FINGERLOCK_DATA_DIR="$WORK/$side" "$WORK/runstat" "$WORK/$side.$row" "$BIN" unlock --passcode-stdin <"$WORK/passcode" ;;
        tpm-status) FINGERLOCK_DATA_DIR="$WORK/$side" "$WORK/runstat" "$WORK/$side.$row" "$BIN" tpm status </dev/null ;;
    esac >/dev/null 2>"$WORK/err" || status=$?
    [ "$status" = 0 ] || { echo "tpm-bench: $row ($side) failed:" >&2; cat "$WORK/err" >&2; exit 2; }
}
rows=(unlock tpm-status)
for ((i = 0; i < ITERATIONS; i++)); do
    for row in "${rows[@]}"; do
        if ((i % 2)); then run_row bound "$row"; run_row unbound "$row"; else run_row unbound "$row"; run_row bound "$row"; fi
    done
done

stats() { # file -> "median min max"
    sort -n -k1 "$1" | awk '{t[NR]=$1} END {m=int((NR+1)/2); printf "%.1f %.1f %.1f", t[m]/1000, t[1]/1000, t[NR]/1000}'
}
printf '\n%-11s %-28s %-28s %s\n' "" "unbound" "bound to swtpm" "TPM adds"
for row in "${rows[@]}"; do
    read -r ma mina maxa <<<"$(stats "$WORK/unbound.$row")"
    read -r mb minb maxb <<<"$(stats "$WORK/bound.$row")"
    printf '%-11s %8s ms (%s-%s)      %8s ms (%s-%s)      %+.1f ms (%.1f%% of the bound run)\n' "$row" "$ma" "$mina" "$maxa" \
        "$mb" "$minb" "$maxb" "$(awk -v a="$ma" -v b="$mb" 'BEGIN {print b - a}')" \
        "$(awk -v a="$ma" -v b="$mb" 'BEGIN {print 100 * (b - a) / b}')"
done
echo "($ITERATIONS iterations, interleaved; wall time fork to wait4; $(basename "$BIN"), swtpm $(swtpm --version 2>/dev/null | head -1 | awk '{print $NF}'))"
