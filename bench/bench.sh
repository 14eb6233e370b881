#!/usr/bin/env bash
# Every row of the speed table (issue 15) against its reference, in one interleaved run: each
# iteration runs every command once, in the same order, so all of them see the same machine load.
# Whole-process wall time (fork to wait4, bench/runstat.c) and the child's peak RSS; the median and
# the spread (min-max) over ITERATIONS runs, and the median's ratio to the reference.
#
# Rows (fingerlock unlocked by one touch on libfprint's virtual_device, the vault key cached in the
# kernel keyring, as after a passcode unlock; notes of ~1 KB from vault-bench --populate):
#   --help             vs a C program that does nothing (bench/true-c.c)          goal <= 4 ms
#   verify             vs bench/verify-c.c (libfprint, no vault)                  goal <= 1.7x
#   notes list    @N   vs verify (the same touch, no notes)                       goal <= 1.3x verify @1k, <= 200 ms @100k
#   notes search  @N   vs the AES-GCM bound (bench/aesgcm-bound.c: open N headers
#                      and bodies in memory, 1 thread and all cores; crypto only)  goal <= 250 ms @100k
#   notes add     @N   vs `pass insert` (same run)                                 goal: faster, flat in N
#   pass ls / pass grep @P, jrnl list / jrnl search @J: the other tools, where installed
#
# Usage: bench/bench.sh [ITERATIONS] [SIZES...]     default 10 iterations, sizes 1000 10000 100000
#   BENCH_1M=1        adds 1,000,000 notes (slow: about 1 GB of vault, minutes of set-up)
#   PASS_SIZES="1000" sizes for the pass store ("" for none) (pass grep runs gpg once per entry: 5-20 ms each, so it
#                     is timed in the first PASS_GREP_RUNS=3 iterations only)
#   JRNL_SIZES="1000 10000"  sizes for jrnl ("" for none; a plain-text journal: jrnl's fastest case)
#   BENCH_NO_BUILD=1  use the release binaries already built
#   BASELINE=DIR      also time DIR/fingerlock (with its own vaults, made by DIR/vault-bench) in the
#                     same iterations, and print before/after: copy both from .build/release first
# Needs cc, pkg-config, libfprint-2-dev, libssl-dev (make deps installs the first three;
# `apt-get install libssl-dev pass` and `pip install jrnl` for the references, which are skipped
# with a note when missing).
set -euo pipefail

ITERATIONS=${1:-10}
shift || true
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(1000 10000 100000)
[ "${BENCH_1M:-0}" = 1 ] && SIZES+=(1000000)
read -r -a PASS_SIZES <<<"${PASS_SIZES-1000}"
read -r -a JRNL_SIZES <<<"${JRNL_SIZES-1000 10000}"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/fl-bench.XXXXXX)
SOCKET="$WORK/virtual_device.sock"
SCAN_ID="FP1-20260101-7-00000001-bench"   # a verify matches when it scans the enrolled id
PASSCODE="bench secret 1"
QUERY="Zebra-Not-There"                    # in no note: every body is opened
export FP_DRIVERS_WHITELIST=virtual_device FP_VIRTUAL_DEVICE="$SOCKET"
# Each run gets a keyring namespace of its own, so cached keys of other runs or users stay apart.
export FINGERLOCK_KEYRING_NAMESPACE="bench-$$"

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo "building the C helpers…"
cc -O2 -Wall -o "$WORK/runstat" "$ROOT/bench/runstat.c"
cc -O2 -Wall -o "$WORK/vfeed" "$ROOT/bench/vfeed.c"
cc -O2 -Wall -o "$WORK/true-c" "$ROOT/bench/true-c.c"
cc -O2 -Wall -o "$WORK/verify-c" "$ROOT/bench/verify-c.c" $(pkg-config --cflags --libs libfprint-2)
HAVE_AES=0
if cc -O2 -Wall -o "$WORK/aesgcm-bound" "$ROOT/bench/aesgcm-bound.c" -lcrypto -lpthread 2>/dev/null; then HAVE_AES=1; else
    echo "skipped: the AES-GCM bound (no libssl-dev: apt-get install libssl-dev)"; fi
if [ "${BENCH_NO_BUILD:-0}" != 1 ]; then
    echo "building fingerlock and vault-bench (release, static Swift stdlib, as the README installs it)…"
    (cd "$ROOT" && nice -n 19 env FINGERLOCK_STATIC_LIBSTDCXX=1 swift build -c release --static-swift-stdlib --product fingerlock >"$WORK/build.log" 2>&1 &&
        nice -n 19 env FINGERLOCK_STATIC_LIBSTDCXX=1 swift build -c release --static-swift-stdlib --product vault-bench >>"$WORK/build.log" 2>&1) || {
        cat "$WORK/build.log"; exit 2; }
fi
FINGERLOCK="$ROOT/.build/release/fingerlock"
VAULT_BENCH="$ROOT/.build/release/vault-bench"
# Variants: the build under test (rows named ROW) and, with BASELINE, the old one ("base ROW").
VARIANTS=(cur)
[ -n "${BASELINE:-}" ] && VARIANTS+=(base)
binary() { [ "$1" = base ] && echo "$BASELINE/fingerlock" || echo "$FINGERLOCK"; }
populator() { [ "$1" = base ] && echo "$BASELINE/vault-bench" || echo "$VAULT_BENCH"; }
prefix() { [ "$1" = base ] && echo "base " || true; }

DATA_DIRS=()
cleanup() {
    for dir in "${DATA_DIRS[@]}"; do setsid -w "$FINGERLOCK" --data-dir "${dir#* }" lock </dev/null >/dev/null 2>&1 || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

# run ROW [FED] -- COMMAND...: one timed run appended to $WORK/rows/ROW; FED=1 touches the reader
# once the command opens it. stdin is $STDIN (default /dev/null); exit 0 (or $OK_STATUS) expected.
run() {
    local row=$1 fed=$2 feeder=""
    shift 3
    [ "$fed" = 1 ] && { "$WORK/vfeed" "$SOCKET" "SLEEP 0" "SCAN $SCAN_ID" & feeder=$!; }
    local status=0
    "$WORK/runstat" "$WORK/rows/$row" "$@" <"${STDIN:-/dev/null}" >"$WORK/out" 2>"$WORK/err" || status=$?
    if [ "$status" != 0 ] && [ "$status" != "${OK_STATUS:-0}" ]; then
        echo "run failed ($status): $*" >&2; cat "$WORK/err" >&2
        [ -n "$feeder" ] && kill "$feeder" 2>/dev/null
        exit 2
    fi
    if [ -n "$feeder" ]; then wait "$feeder" || { echo "the feeder failed: did $1 open the device?" >&2; exit 2; }; fi
}
mkdir -p "$WORK/rows"
ROWS=()         # in print order: "ROW|REFERENCE-ROW|GOAL"
row() { ROWS+=("$1|$2|$3"); }

# --- fingerlock vaults: one per size (passcode set, enroll, populate) -----------------------------
fl() { local variant=$1 dir=$2; shift 2; echo "$(binary "$variant")" --data-dir "$dir" --reader virtual_device "$@"; }
for variant in "${VARIANTS[@]}"; do
    for size in "${SIZES[@]}"; do
        dir="$WORK/data-$variant-$size"
        DATA_DIRS+=("$variant $dir")
        printf '%s\n%s\n' "$PASSCODE" "$PASSCODE" | setsid -w $(fl "$variant" "$dir") passcode set --passcode-stdin | cat >/dev/null
        "$WORK/vfeed" "$SOCKET" "SLEEP 0" "SCAN $SCAN_ID" "SCAN $SCAN_ID" "SCAN $SCAN_ID" "SCAN $SCAN_ID" "SCAN $SCAN_ID" &
        printf '%s\n' "$PASSCODE" | setsid -w $(fl "$variant" "$dir") enroll right-index-finger --passcode-stdin >/dev/null
        wait
        start=$EPOCHREALTIME
        printf '%s\n' "$PASSCODE" | "$(populator "$variant")" --populate "$dir" "$size"
        echo "$variant vault of $size notes: $(du -sh "$dir" | cut -f1), populated in $(awk -v s="$start" -v e="$EPOCHREALTIME" 'BEGIN { printf "%.1f s", e - s }')"
    done
done
head -c 1000 /dev/urandom | base64 -w 76 >"$WORK/body"

# --- pass (gpg with a passphrase-less key in a scratch GNUPGHOME) ----------------------------------
HAVE_PASS=0
if command -v pass >/dev/null && command -v gpg >/dev/null; then
    HAVE_PASS=1
    export GNUPGHOME="$WORK/gnupg" PASSWORD_STORE_DIR_BASE="$WORK/pass"
    mkdir -m 700 "$GNUPGHOME"
    gpg --batch --quiet --passphrase '' --quick-generate-key "bench <bench@example.invalid>" ed25519 cert never 2>/dev/null
    fpr=$(gpg --list-keys --with-colons | awk -F: '/^fpr/ { print $10; exit }')
    gpg --batch --quiet --passphrase '' --quick-add-key "$fpr" cv25519 encr never 2>/dev/null
    for size in "${PASS_SIZES[@]}"; do
        store="$PASSWORD_STORE_DIR_BASE-$size"
        PASSWORD_STORE_DIR="$store" pass init "$fpr" >/dev/null
        mkdir -p "$store/notes"
        # The same ~1 KB entries pass insert writes, encrypted by one gpg (--multifile) for speed.
        for ((i = 0; i < size; i++)); do cp "$WORK/body" "$store/notes/entry-$i"; done
        (cd "$store/notes" && find . -name 'entry-*' -print0 | xargs -0 -n 2000 gpg --batch --quiet --yes -r "$fpr" --multifile --encrypt &&
            find . -name 'entry-*' ! -name '*.gpg' -delete)
    done
    gpgconf --launch gpg-agent
else
    echo "skipped: pass (not installed: apt-get install pass)"
fi

# --- jrnl (plain-text journal: no decryption, its fastest case) -------------------------------------
HAVE_JRNL=0
# pyenv's shim is a shell script that costs more than jrnl's own work: run the real entry point.
JRNL=$(pyenv which jrnl 2>/dev/null || command -v jrnl || true)
if [ -n "$JRNL" ] && "$JRNL" --version >/dev/null 2>&1; then
    HAVE_JRNL=1
    for size in "${JRNL_SIZES[@]}"; do
        mkdir -p "$WORK/jrnl-$size/jrnl"
        printf 'colors: {body: none, date: none, tags: none, title: none}\ndefault_hour: 9\ndefault_minute: 0\neditor: ""\nencrypt: false\nhighlight: false\nindent_character: "|"\njournals: {default: {journal: %s}}\nlinewrap: 79\ntagsymbols: "#@"\ntemplate: false\ntimeformat: "%%Y-%%m-%%d %%H:%%M"\nversion: \"4.6\"\n' \
            "$WORK/jrnl-$size/journal.txt" >"$WORK/jrnl-$size/jrnl/jrnl.yaml"
        body=$(tr '\n' ' ' <"$WORK/body")
        awk -v n="$size" -v body="$body" 'BEGIN { for (i = 0; i < n; i++) printf "[2026-01-%02d %02d:%02d] entry %d\n%s\n\n", i % 28 + 1, i / 60 % 24, i % 60, i, body }' >"$WORK/jrnl-$size/journal.txt"
    done
else
    echo "skipped: jrnl (not installed: pip install jrnl)"
fi

# --- the plan: every row of one iteration -----------------------------------------------------------
iteration() {
    run true-c 0 -- "$WORK/true-c"
    run verify-c 1 -- "$WORK/verify-c" verify "$WORK/print.fp"
    for variant in "${VARIANTS[@]}"; do
        local p
        p=$(prefix "$variant")
        run "${p}help" 0 -- "$(binary "$variant")" --help
        run "${p}verify" 1 -- $(fl "$variant" "$WORK/data-$variant-${SIZES[0]}") verify right-index-finger
        for size in "${SIZES[@]}"; do
            dir="$WORK/data-$variant-$size"
            run "${p}list@$size" 1 -- $(fl "$variant" "$dir") notes list
            OK_STATUS=1 run "${p}search@$size" 1 -- $(fl "$variant" "$dir") notes search "$QUERY"
            STDIN="$WORK/body" run "${p}add@$size" 1 -- $(fl "$variant" "$dir") notes add --title "bench add"
        done
    done
    if [ "$HAVE_AES" = 1 ]; then
        for size in "${SIZES[@]}"; do
            "$WORK/aesgcm-bound" "$size" 1 | awk '{ printf "%d 0 0\n", $1 * 1000 }' >>"$WORK/rows/aes1@$size"
            "$WORK/aesgcm-bound" "$size" "$(nproc)" | awk '{ printf "%d 0 0\n", $1 * 1000 }' >>"$WORK/rows/aesN@$size"
        done
    fi
    if [ "$HAVE_PASS" = 1 ]; then
        for size in "${PASS_SIZES[@]}"; do
            export PASSWORD_STORE_DIR="$PASSWORD_STORE_DIR_BASE-$size"
            run "pass-ls@$size" 0 -- pass ls
            # pass grep decrypts every entry with its own gpg process: a few runs are enough.
            [ "$ITER" -lt "${PASS_GREP_RUNS:-3}" ] && OK_STATUS=1 run "pass-grep@$size" 0 -- pass grep "$QUERY"
            STDIN="$WORK/body" run "pass-insert@$size" 0 -- pass insert -m -f "added/entry-$RANDOM$RANDOM"
        done
    fi
    if [ "$HAVE_JRNL" = 1 ]; then
        for size in "${JRNL_SIZES[@]}"; do
            XDG_CONFIG_HOME="$WORK/jrnl-$size" run "jrnl-list@$size" 0 -- "$JRNL" -n 1000000000 --format short
            OK_STATUS=1 XDG_CONFIG_HOME="$WORK/jrnl-$size" run "jrnl-search@$size" 0 -- "$JRNL" -contains "$QUERY"
        done
    fi
}

# Set-up runs (not timed): the C program's print, and one warm-up of everything (page cache).
"$WORK/vfeed" "$SOCKET" "SLEEP 0" "SCAN $SCAN_ID" "SCAN $SCAN_ID" "SCAN $SCAN_ID" "SCAN $SCAN_ID" "SCAN $SCAN_ID" &
"$WORK/verify-c" enroll "$WORK/print.fp" </dev/null >/dev/null
wait
ITER=0 iteration
rm -f "$WORK"/rows/*
echo "timing $ITERATIONS interleaved iterations…"
for ((ITER = 0; ITER < ITERATIONS; ITER++)); do iteration; done

# --- the table ----------------------------------------------------------------------------------------
row help true-c "<= 4 ms"
row verify verify-c "<= 1.7x"
for size in "${SIZES[@]}"; do
    row "list@$size" verify "$([ "$size" = 1000 ] && echo "<= 1.3x verify")$([ "$size" = 100000 ] && echo "<= 200 ms, flat RSS")"
    row "search@$size" "aes1@$size" "$([ "$size" = 100000 ] && echo "<= 250 ms")"
    [ "$HAVE_AES" = 1 ] && row "aesN@$size" "" "crypto only, $(nproc) threads"
    row "add@$size" "pass-insert@${PASS_SIZES[0]:-}" "faster than pass insert, flat"
done
if [ "$HAVE_PASS" = 1 ]; then
    for size in "${PASS_SIZES[@]}"; do row "pass-ls@$size" "" ""; row "pass-grep@$size" "" ""; row "pass-insert@$size" "" ""; done
fi
if [ "$HAVE_JRNL" = 1 ]; then
    for size in "${JRNL_SIZES[@]}"; do row "jrnl-list@$size" "" ""; row "jrnl-search@$size" "" ""; done
fi
stats() {  # FILE -> "median min max peak_rss_mb" (wall times in ms; the largest RSS of the runs)
    sort -n "$1" | awk '{ t[NR] = $1; if ($2 > rss) rss = $2 } END {
        printf "%.2f %.2f %.2f %.1f", t[int((NR + 1) / 2)] / 1000, t[1] / 1000, t[NR] / 1000, rss / 1024 }'
}
echo
echo "fingerlock $(git -C "$ROOT" describe --always --dirty 2>/dev/null), $ITERATIONS iterations, load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
printf '| %-18s | %9s | %-17s | %11s | %-18s | %9s | %6s | %-24s |\n' row "median ms" "min-max ms" "peak RSS MB" reference "ref ms" ratio goal
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' -------------------- ----------- ------------------- ------------- -------------------- ----------- -------- --------------------------
for entry in "${ROWS[@]}"; do
    IFS='|' read -r name reference goal <<<"$entry"
    [ -s "$WORK/rows/$name" ] || continue
    read -r median low high rss <<<"$(stats "$WORK/rows/$name")"
    case $name in aes*) rss="-" ;; esac
    ref_ms="" ratio=""
    if [ -n "$reference" ] && [ -s "$WORK/rows/$reference" ]; then
        read -r ref_ms _ <<<"$(stats "$WORK/rows/$reference")"
        ratio=$(awk -v a="$median" -v b="$ref_ms" 'BEGIN { printf "%.2fx", a / b }')
    else
        reference=""
    fi
    printf '| %-18s | %9s | %-17s | %11s | %-18s | %9s | %6s | %-24s |\n' "$name" "$median" "$low-$high" "$rss" "$reference" "$ref_ms" "$ratio" "$goal"
done
if [ -n "${BASELINE:-}" ]; then
    echo
    echo "before ($BASELINE) and after, same iterations:"
    printf '| %-14s | %-22s | %-22s | %7s |\n' row "before: median (min-max)" "after: median (min-max)" speed-up
    printf '|%s|%s|%s|%s|\n' ---------------- ------------------------ ------------------------ ---------
    for name in help verify $(for size in "${SIZES[@]}"; do echo "list@$size search@$size add@$size"; done); do
        [ -s "$WORK/rows/base $name" ] && [ -s "$WORK/rows/$name" ] || continue
        read -r b bl bh brss <<<"$(stats "$WORK/rows/base $name")"
        read -r a al ah arss <<<"$(stats "$WORK/rows/$name")"
        printf '| %-14s | %-22s | %-22s | %7s |\n' "$name" "$b ($bl-$bh) ${brss}MB" "$a ($al-$ah) ${arss}MB" "$(awk -v b="$b" -v a="$a" 'BEGIN { printf "%.2fx", b / a }')"
    done
fi
