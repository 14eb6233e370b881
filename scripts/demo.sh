#!/usr/bin/env bash
# fingerlock's main job on this machine, in a throwaway data directory: set a passcode, enroll a
# finger, add a note and read it back by touch, see a wrong finger fall back to the passcode. On the
# connected reader when there is one (you touch it and type at the prompts), else on the simulated
# reader, scripted.
set -euo pipefail
# The binary: $FINGERLOCK_BIN, else the release build beside this script (make demo), else the
# installed one (the Debian package ships this script as /usr/share/fingerlock/demo.sh).
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${FINGERLOCK_BIN:-}" ]; then
    bin=$FINGERLOCK_BIN
elif [ -x "$here/../.build/release/fingerlock" ]; then
    bin="$here/../.build/release/fingerlock"
elif bin=$(command -v fingerlock); then
    :
else
    echo "demo: fingerlock is not installed and not built here (make release)." >&2
    exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/fingerlock-demo.XXXXXX")
export FINGERLOCK_DATA_DIR="$work/data"
# The demo's keys stay apart from yours, so its `lock` (which forgets every key in its namespace)
# leaves a real vault of yours unlocked as it was.
export FINGERLOCK_KEYRING_NAMESPACE="demo-$$"
cleanup() { "$bin" lock >/dev/null 2>&1 </dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

say fingerlock readers
"$bin" readers
if "$bin" readers --json | grep -q '"id"' && [ -t 0 ]; then
    echo; echo "A fingerprint reader is connected: follow the prompts (this vault is thrown away afterwards)."
    say fingerlock passcode set;                  "$bin" passcode set
    say fingerlock enroll right-index-finger;     "$bin" enroll right-index-finger
    say fingerlock verify;                        "$bin" verify || echo "(exit $?)"
    say 'echo "my first secret" | fingerlock notes add --title demo'
    echo "my first secret" | "$bin" notes add --title demo
    say fingerlock notes list;                    "$bin" notes list
    exit 0
fi

echo; echo "No reader is connected: the same flow with the simulated reader (--reader simulated), scripted."
export FINGERLOCK_READER=simulated
passcode="blue pot 2026"
printf '%s\n' "$passcode" >"$work/passcode"
chmod 600 "$work/passcode"

say 'fingerlock passcode set --passcode-stdin     # new passcode + confirmation on stdin'
printf '%s\n%s\n' "$passcode" "$passcode" | "$bin" passcode set --passcode-stdin

say 'FINGERLOCK_SIMULATED_TOUCHES="right-index-finger*2,left-thumb,right-index-finger*3" fingerlock enroll right-index-finger --passcode-fd 3'
FINGERLOCK_SIMULATED_TOUCHES="right-index-finger*2,left-thumb,right-index-finger*3" \
    "$bin" enroll right-index-finger --passcode-fd 3 3<"$work/passcode"

say 'FINGERLOCK_SIMULATED_TOUCHES=right-index-finger fingerlock verify'
FINGERLOCK_SIMULATED_TOUCHES=right-index-finger "$bin" verify
echo "(exit $?: the enrolled finger matches)"

say 'FINGERLOCK_SIMULATED_TOUCHES=left-thumb fingerlock verify'
status=0
FINGERLOCK_SIMULATED_TOUCHES=left-thumb "$bin" verify || status=$?
echo "(exit $status: a finger that was never enrolled does not match)"
[ "$status" -eq 1 ]

say 'echo "the spare key is under the blue pot" | FINGERLOCK_SIMULATED_TOUCHES=right-index-finger fingerlock notes add --title garden --tag home'
echo "the spare key is under the blue pot" | FINGERLOCK_SIMULATED_TOUCHES=right-index-finger "$bin" notes add --title garden --tag home

say 'fingerlock notes list      # titles: no touch while the key is cached (a body takes one)'
"$bin" notes list

id=$("$bin" notes list --json | sed -n 's/.*"id" : "\([0-9a-f]\{6\}\).*/\1/p' | head -1)
say "FINGERLOCK_SIMULATED_TOUCHES=right-index-finger fingerlock notes show $id      # unlocked by the enrolled finger"
FINGERLOCK_SIMULATED_TOUCHES=right-index-finger "$bin" notes show "$id"

say "FINGERLOCK_SIMULATED_TOUCHES=\"left-thumb*3\" fingerlock notes show $id          # a finger never enrolled"
status=0
# setsid: no controlling terminal, as in a script or cron job; in a terminal fingerlock would
# ask for the passcode there (it asks on /dev/tty, whatever stdin is).
FINGERLOCK_SIMULATED_TOUCHES="left-thumb*3" setsid -w "$bin" notes show "$id" </dev/null || status=$?
echo "(exit $status: no match; at a terminal fingerlock would now ask for the passcode)"
[ "$status" -eq 1 ]

say "FINGERLOCK_SIMULATED_TOUCHES=\"left-thumb*3\" fingerlock notes show $id --passcode-fd 3    # the passcode instead"
FINGERLOCK_SIMULATED_TOUCHES="left-thumb*3" "$bin" notes show "$id" --passcode-fd 3 3<"$work/passcode"

say fingerlock lock
"$bin" lock
status=0
FINGERLOCK_SIMULATED_TOUCHES=right-index-finger setsid -w "$bin" notes list </dev/null || status=$?
echo "(exit $status: after lock a touch is not enough until the passcode is entered again)"
[ "$status" -eq 8 ]
# The hint names the binary as the user can run it: `fingerlock` when it is on PATH, else its path.
name=fingerlock
if [ "$(command -v fingerlock 2>/dev/null)" != "$bin" ]; then name=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin"); fi
echo
echo "Try it yourself at a terminal, in a throwaway vault (at each touch, type a finger's name, or press Enter for the passcode):"
echo "  export FINGERLOCK_DATA_DIR=\$(mktemp -d)/data FINGERLOCK_READER=simulated"
echo "  $name passcode set && $name enroll right-index-finger && $name generate mail && $name show mail"
