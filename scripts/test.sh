#!/usr/bin/env bash
# The whole test suite, as `make test` runs it: two processes of the one test binary, started together.
#
# The second process runs libfprint's own tests: serialized (the FP_VIRTUAL_* variables are
# process-wide) and mostly waiting on the virtual devices, so inside the main run they were its last
# minute or two with a core idle. With the real-users suites beside them as well, a libfprint test
# was starved past its time limit in CI: they stay in the main run.
set -uo pipefail
cd "$(dirname "$0")/.."
WIDTH=${1:-3}
TESTS=.build/debug/fingerlockPackageTests.xctest
SECOND='LibfprintTests'

[ -x "$TESTS" ] || { echo "scripts/test.sh: $TESTS is missing; run 'make test' (or 'swift build --build-tests -Xcc -O2') first." >&2; exit 1; }
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
echo "── libfprint's virtual devices (run in a second process) ──"
cat "$log"
echo
echo "Main run: exit $main_status. Second run: exit $second_status."
[ "$main_status" -eq 0 ] && [ "$second_status" -eq 0 ]
