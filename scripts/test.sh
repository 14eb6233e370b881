#!/usr/bin/env bash
# The whole test suite, as `make test` runs it: two processes of the one test binary, started together.
#
# libfprint's own tests run serialized (the FP_VIRTUAL_* variables are process-wide) and spend most of
# their time waiting on the virtual devices, so inside the main run they were its last minute or two
# with one core idle. In a second process they wait alongside everything else.
set -uo pipefail
cd "$(dirname "$0")/.."
WIDTH=${1:-3}
TESTS=.build/debug/fingerlockPackageTests.xctest
LIBFPRINT='LibfprintTests'

[ -x "$TESTS" ] || { echo "scripts/test.sh: $TESTS is missing; run 'swift build --build-tests' first." >&2; exit 1; }
log=$(mktemp "${TMPDIR:-/tmp}/fingerlock-libfprint-tests.XXXXXX")
"$TESTS" --testing-library swift-testing --filter "$LIBFPRINT" >"$log" 2>&1 &
libfprint=$!
trap 'kill "$libfprint" 2>/dev/null; rm -f "$log"' EXIT
trap 'exit 130' INT TERM

"$TESTS" --testing-library swift-testing --experimental-maximum-parallelization-width "$WIDTH" --skip "$LIBFPRINT"
main_status=$?
wait "$libfprint"
libfprint_status=$?

echo
echo "── libfprint's virtual devices (run in a second process) ──"
cat "$log"
echo
echo "Main run: exit $main_status. libfprint run: exit $libfprint_status."
[ "$main_status" -eq 0 ] && [ "$libfprint_status" -eq 0 ]
