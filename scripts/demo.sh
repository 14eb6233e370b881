#!/usr/bin/env bash
# fingerlock's main job on this machine: enroll a finger and verify it, on the connected reader or,
# when none is connected, on the simulated reader. Uses a throwaway data directory.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${FINGERLOCK_BIN:-.build/release/fingerlock}
data=$(mktemp -d "${TMPDIR:-/tmp}/fingerlock-demo.XXXXXX")
trap 'rm -rf "$data"' EXIT
export FINGERLOCK_DATA_DIR="$data/data"
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

say fingerlock readers
"$bin" readers
if "$bin" readers --json | grep -q '"id"'; then
    echo; echo "A fingerprint reader is connected: follow the prompts on it."
    say fingerlock enroll right-index-finger
    "$bin" enroll right-index-finger
    say fingerlock verify
    "$bin" verify && echo "(exit $?)" || echo "(exit $?)"
    exit 0
fi

echo; echo "No reader is connected: showing the same flow with the simulated reader (--reader simulated)."
export FINGERLOCK_READER=simulated
say 'FINGERLOCK_SIMULATED_TOUCHES="right-index-finger*2,left-thumb,right-index-finger*3" fingerlock enroll right-index-finger'
FINGERLOCK_SIMULATED_TOUCHES="right-index-finger*2,left-thumb,right-index-finger*3" "$bin" enroll right-index-finger
say fingerlock fingers
"$bin" fingers
say 'FINGERLOCK_SIMULATED_TOUCHES=right-index-finger fingerlock verify'
FINGERLOCK_SIMULATED_TOUCHES=right-index-finger "$bin" verify
echo "(exit $?: the enrolled finger matches)"
say 'FINGERLOCK_SIMULATED_TOUCHES=left-thumb fingerlock verify'
status=0
FINGERLOCK_SIMULATED_TOUCHES=left-thumb "$bin" verify || status=$?
echo "(exit $status: a finger that was never enrolled does not match)"
[ "$status" -eq 1 ]
