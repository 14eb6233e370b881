#!/usr/bin/env bash
# The whole test suite, as `make test` runs it: two processes of the one test binary, started together.
#
# The second process runs the long serialized suites that mostly wait: libfprint's own tests (serialized
# because the FP_VIRTUAL_* variables are process-wide; they wait on the virtual devices) and the
# real-users suites of system mode (each test starts fingerlockd and runs commands as other users).
# Inside the main run they started late and were its last minutes, with a core idle; started at
# once in a process of their own, they wait alongside everything else.
set -uo pipefail
cd "$(dirname "$0")/.."
WIDTH=${1:-3}
TESTS=.build/debug/fingerlockPackageTests.xctest
SECOND='LibfprintTests|SystemModeCommandsTests|RealUsersTests'

[ -x "$TESTS" ] || { echo "scripts/test.sh: $TESTS is missing; run 'swift build --build-tests' first." >&2; exit 1; }
log=$(mktemp "${TMPDIR:-/tmp}/fingerlock-second-tests.XXXXXX")
"$TESTS" --testing-library swift-testing --filter "$SECOND" >"$log" 2>&1 &
second=$!
trap 'kill "$second" 2>/dev/null; rm -f "$log"' EXIT
trap 'exit 130' INT TERM

"$TESTS" --testing-library swift-testing --experimental-maximum-parallelization-width "$WIDTH" --skip "$SECOND"
main_status=$?
wait "$second"
second_status=$?

echo
echo "── libfprint and the real-users suites (run in a second process) ──"
cat "$log"
echo
echo "Main run: exit $main_status. Second run: exit $second_status."
[ "$main_status" -eq 0 ] && [ "$second_status" -eq 0 ]
