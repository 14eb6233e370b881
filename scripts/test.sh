#!/usr/bin/env bash
# The whole test suite, as `make test` runs it: two processes of the one test binary, started together.
#
# The second process runs the tests that set something for their whole process: those on libfprint's
# virtual devices (libfprint's own and the policy's on a shared chip; the FP_VIRTUAL_* variables) and
# the one that sets the umask. They take turns (`.exclusive(to: .processSettings)`) and mostly wait on
# the virtual devices, so inside the main run they were its last minute or two with a core idle. With the real-users suites beside them as well, a libfprint test
# was starved past its time limit in CI: they stay in the main run.
set -uo pipefail
cd "$(dirname "$0")/.."
WIDTH=${1:-4}
TESTS=.build/debug/fingerlockPackageTests.xctest
SECOND='LibfprintTests|SharedChipPolicyTests|PermissiveUmaskTests'

# The descriptor limit of a new machine (1024), also where a session's shell allows more: a test
# helper that leaked two files per command (900 by the end) hung the run at that limit, and only there.
ulimit -Sn 1024 2>/dev/null || true

[ -x "$TESTS" ] || { echo "scripts/test.sh: $TESTS is missing; run 'make test' (or 'swift build --build-tests -Xcc -O2') first." >&2; exit 1; }
# What both runs ran (Swift Testing's xunit files) and each test's own duration (the `.timed` trait
# appends to FINGERLOCK_TEST_TIMINGS), for the slowest-tests list below.
RESULTS=.build/test-results
mkdir -p "$RESULTS"
rm -f "$RESULTS"/main.xml "$RESULTS"/second.xml "$RESULTS"/timings.tsv
export FINGERLOCK_TEST_TIMINGS=$PWD/$RESULTS/timings.tsv
log=$(mktemp "${TMPDIR:-/tmp}/fingerlock-second-tests.XXXXXX")
started=$SECONDS
"$TESTS" --testing-library swift-testing --filter "$SECOND" --xunit-output "$RESULTS/second.xml" >"$log" 2>&1 &
second=$!
trap 'kill "$second" 2>/dev/null; rm -f "$log"' EXIT
trap 'exit 130' INT TERM

"$TESTS" --testing-library swift-testing --experimental-maximum-parallelization-width "$WIDTH" --skip "$SECOND" \
    --xunit-output "$RESULTS/main.xml"
main_status=$?
main_seconds=$((SECONDS - started))
wait "$second"
second_status=$?

echo
echo "── libfprint's virtual devices (run in a second process) ──"
cat "$log"
echo
echo "── the slowest tests of both runs, each by its own time ($RESULTS/timings.tsv) ──"
python3 scripts/slowest-tests.py -n 20 "$RESULTS"/timings.tsv "$RESULTS"/main.xml "$RESULTS"/second.xml || true
echo
echo "Main run: exit $main_status, $main_seconds s. Second run: exit $second_status. Both: $((SECONDS - started)) s."
[ "$main_status" -eq 0 ] && [ "$second_status" -eq 0 ]
