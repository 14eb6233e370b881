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

# The scrypt cost of a passcode slot (version, log2 N, r, p; the salt left out), read from the file.
cost() {
    python3 -c 'import sqlite3, sys
c = sqlite3.connect("file:" + sys.argv[1] + "/vault.sqlite?mode=ro", uri=True)
print(c.execute("SELECT hex(parameters) FROM slots WHERE name = ?", ("passcode",)).fetchone()[0][:26])' "$1"
}
make_vault() { # side [flags]
    local side=$1; shift
    rm -rf "${WORK:?}/$side"; mkdir -m 700 "$WORK/$side"
    printf '%s\n%s\n' "$PASSCODE" "$PASSCODE" \
        | FINGERLOCK_DATA_DIR="$WORK/$side" "$BIN" passcode set "$@" --passcode-stdin | cat >/dev/null
}
# Calibration picks scrypt's cost per vault (N = 2^17 or more, whatever reaches half a second now):
# the bound vault is made again until its cost is the unbound one's, so only the TPM differs.
make_vault unbound
for attempt in $(seq 8); do
    make_vault bound --tpm
    [ "$(cost "$WORK/bound")" = "$(cost "$WORK/unbound")" ] && break
    [ "$attempt" = 8 ] && { echo "tpm-bench: calibration gave the two vaults different scrypt costs 8 times" >&2; exit 2; }
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
echo "(both vaults: scrypt parameters $(cost "$WORK/unbound") (version, log2 N, r, p); $ITERATIONS iterations, interleaved; wall time fork to wait4; $(basename "$BIN"), swtpm $(swtpm --version 2>/dev/null | grep -o 'version [0-9.]*' | head -1))"
