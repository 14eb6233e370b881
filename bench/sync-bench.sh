#!/usr/bin/env bash
# Sync over git (issue 42), measured on one machine with a local bare repository as the remote:
#
#   join          `sync join` of a NOTES-note vault on a new data directory (once: it includes the
#                 calibrated key derivation of the new machine's passcode)
#   git-fetch     git's own fetch of the remote's branch, and
#   git-push      git's own push of one new commit, in the same run: what any git sync costs
#   sync-send     `fingerlock sync` after one note was changed (touch, fetch, merge, push)
#   sync-receive  `fingerlock sync` on the other machine, which takes that change
#
# Each iteration runs every row in the same order (interleaved), so all see the same load. Then the
# repository's size as a new clone fetches it (git clone --bare), before and after `sync compact`,
# and its growth per edit.
#
# Usage: bench/sync-bench.sh [BINARY] [ITERATIONS] [NOTES]   (default .build/release/fingerlock, 20, 10000)
# Needs cc and git.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(realpath "${1:-$ROOT/.build/release/fingerlock}")
ITERATIONS=${2:-20}
NOTES=${3:-10000}
WORK=$(mktemp -d /tmp/fl-sync-bench.XXXXXX)
export FINGERLOCK_KEYRING_NAMESPACE="sync-bench-$$" FINGERLOCK_READER=simulated GIT_CONFIG_NOSYSTEM=1
PASSCODE="bench secret 1"
TOUCH=right-index-finger
cleanup() {
    for side in a b; do [ -d "$WORK/$side" ] && FINGERLOCK_DATA_DIR="$WORK/$side" setsid -w "$BIN" lock </dev/null >/dev/null 2>&1; done
    [ -n "${SYNC_BENCH_KEEP:-}" ] && { echo "kept $WORK" >&2; return; }
    rm -rf "$WORK"
}
trap cleanup EXIT
cc -O2 -Wall -o "$WORK/runstat" "$ROOT/bench/runstat.c"
# shellcheck source=bench/two-builds.sh
source "$ROOT/bench/two-builds.sh"
REMOTE=$WORK/remote.git
git init --quiet --bare "$REMOTE"
fl() { # side args... (one matching touch)
    local side=$1; shift
    FINGERLOCK_DATA_DIR="$WORK/$side" FINGERLOCK_SIMULATED_TOUCHES=$TOUCH "$BIN" "$@" </dev/null
}
timed() { # row side args...
    local row=$1 side=$2; shift 2
    FINGERLOCK_DATA_DIR="$WORK/$side" FINGERLOCK_SIMULATED_TOUCHES=$TOUCH "$WORK/runstat" "$WORK/$row" "$BIN" "$@" \
        >"$WORK/out" 2>"$WORK/err" </dev/null || { echo "sync-bench: $row failed:" >&2; cat "$WORK/err" >&2; exit 2; }
}
clone_size() { # bytes a new clone of the remote fetches
    rm -rf "$WORK/fresh.git"
    git clone --quiet --no-local --bare --single-branch --branch main "$REMOTE" "$WORK/fresh.git"
    du -sb "$WORK/fresh.git/objects" | cut -f1
}

# Machine a: a vault of NOTES notes, a finger, then `sync init`.
{
    echo "["
    for ((n = 0; n < NOTES; n++)); do
        printf '%s{"id":"%s","title":"f%02d/n%05d","tags":[],"created":"2026-01-01T00:00:00Z","modified":"2026-01-01T00:00:00Z","body":"password-%d\\nuser: someone\\nurl: https://example.com/%d\\n"}\n' \
            "$([ "$n" = 0 ] || echo ,)" "$(cat /proc/sys/kernel/random/uuid)" $((n % 20)) "$n" "$n" "$n"
    done
    echo "]"
} >"$WORK/notes.json"
mkdir -m 700 "$WORK/a" "$WORK/b"
RECOVERY=$(printf '%s\n%s\n' "$PASSCODE" "$PASSCODE" | FINGERLOCK_DATA_DIR="$WORK/a" "$BIN" passcode set --passcode-stdin 2>/dev/null \
    | sed -n 's/^Recovery key[^:]*: //p')
printf '%s\n' "$PASSCODE" | FINGERLOCK_DATA_DIR="$WORK/a" FINGERLOCK_SIMULATED_TOUCHES="$TOUCH*8" "$BIN" enroll $TOUCH --passcode-stdin >/dev/null
fl a notes import --format json "$WORK/notes.json" >/dev/null
start=$(date +%s%N)
fl a sync init "$REMOTE" --name a >/dev/null
init_ms=$(( ($(date +%s%N) - start) / 1000000 ))
size_init=$(clone_size)

# Machine b joins with the recovery key (timed once), then enrolls its own finger.
rmdir "$WORK/b"
printf '%s\n%s\n%s\n' "$RECOVERY" "$PASSCODE" "$PASSCODE" >"$WORK/join-input"
FINGERLOCK_DATA_DIR="$WORK/b" "$WORK/runstat" "$WORK/join" "$BIN" sync join "$REMOTE" --name b --passcode-stdin \
    <"$WORK/join-input" >"$WORK/out" 2>"$WORK/err" || { echo "sync-bench: join failed:" >&2; cat "$WORK/err" >&2; exit 2; }
printf '%s\n' "$PASSCODE" | FINGERLOCK_DATA_DIR="$WORK/b" FINGERLOCK_SIMULATED_TOUCHES="$TOUCH*8" "$BIN" enroll $TOUCH --passcode-stdin >/dev/null
[ "$(fl b notes list | wc -l)" = "$NOTES" ] || { echo "sync-bench: b did not get $NOTES notes" >&2; exit 2; }

# git's own fetch and push against the same remote, from a scratch repository (its own branch).
SCRATCH=$WORK/scratch.git
git init --quiet --bare "$SCRATCH"
parent=""
edit_round() { # i: change one note on a (not timed), then the rows
    local i=$1
    fl a notes edit f03/n00003 --add-tag "t$i" >/dev/null
    tree=$(printf 'bench %s\n' "$i" | git --git-dir="$SCRATCH" hash-object -w --stdin | xargs printf '100644 blob %s\tfile\n' | git --git-dir="$SCRATCH" mktree)
    parent=$(git --git-dir="$SCRATCH" -c user.name=b -c user.email=b@b commit-tree "$tree" ${parent:+-p "$parent"} -m "$i" </dev/null)
    "$WORK/runstat" "$WORK/git-fetch" git --git-dir="$SCRATCH" fetch --quiet --no-tags "$REMOTE" "+refs/heads/main:refs/remotes/r/main" </dev/null
    "$WORK/runstat" "$WORK/git-push" git --git-dir="$SCRATCH" push --quiet "$REMOTE" "$parent:refs/heads/bench" </dev/null
    timed sync-send a sync
    grep -q "sent 1 change" "$WORK/out" || { echo "sync-bench: a did not send its change: $(cat "$WORK/out")" >&2; exit 2; }
    timed sync-receive b sync
    grep -q "1 changed" "$WORK/out" || { echo "sync-bench: b did not take the change: $(cat "$WORK/out")" >&2; exit 2; }
}
for ((i = 0; i < ITERATIONS; i++)); do edit_round "$i"; done
size_edits=$(clone_size)
fl a sync compact >"$WORK/compact"
size_compacted=$(clone_size)
for ((i = ITERATIONS; i < 2 * ITERATIONS; i++)); do fl a notes edit f03/n00003 --add-tag "t$i" >/dev/null; fl a sync >/dev/null; done
size_after=$(clone_size)

row() { # name file
    read -r median min max rss <<<"$(stats "$WORK/$2")"
    printf '%-14s %9s ms (%s-%s) %5s MB\n' "$1" "$median" "$min" "$max" "$rss"
}
echo
echo "sync over git: $NOTES notes, $ITERATIONS interleaved iterations, local bare remote; median (min-max), peak RSS"
row git-fetch git-fetch
row git-push git-push
row sync-send sync-send
row sync-receive sync-receive
fetch=$(stats "$WORK/git-fetch" | cut -d' ' -f1); push=$(stats "$WORK/git-push" | cut -d' ' -f1)
send=$(stats "$WORK/sync-send" | cut -d' ' -f1)
awk -v f="$fetch" -v p="$push" -v s="$send" 'BEGIN {printf "sync-send above git fetch+push: %.2f ms (goal: at most 50)\n", s - f - p}'
printf 'sync init (%s notes): %s ms\n' "$NOTES" "$init_ms"
read -r join _ <<<"$(stats "$WORK/join")"
printf 'sync join (%s notes, one run, with the passcode derivation): %s ms (goal: under 10000)\n' "$NOTES" "$join"
echo
echo "what a new clone fetches (objects, bytes):"
printf '  after init:                %10d\n' "$size_init"
printf '  after %3d edits:           %10d  (%d bytes per edit)\n' "$ITERATIONS" "$size_edits" $(( (size_edits - size_init) / ITERATIONS ))
printf '  after sync compact:        %10d  (%s)\n' "$size_compacted" "$(cat "$WORK/compact")"
printf '  after %3d more edits:      %10d  (%d bytes per edit)\n' "$ITERATIONS" "$size_after" $(( (size_after - size_compacted) / ITERATIONS ))
