#!/usr/bin/env python3
"""The slowest tests of a run, each by its own duration, and the count of tests that ran.

Usage: slowest-tests.py [-n 20] TIMINGS [RESULTS.xml ...]

TIMINGS is the file the `.timed` trait (Tests/FingerlockTestSupport/TimedTrait.swift) appends to
when FINGERLOCK_TEST_TIMINGS names it: one line per test case, "<seconds>\t<test id>", timed inside
the test's slot. Swift Testing's own times (the xunit files) count from when the run scheduled the
test, a slot's wait included, so they are used only to count the tests that ran and to name any
that no `.timed` suite covers.

Prints the time each test target's tests took together, then the N slowest tests (a parameterized
test's cases added up, their number shown).
"""
import collections
import sys
import xml.etree.ElementTree as ElementTree


def test_key(test_id):
    """'Module.Suite/Inner/name()/File.swift:1:2' -> ('Module.Suite.Inner', 'name()')."""
    parts = test_id.split("/")
    if len(parts) >= 3 and ".swift:" in parts[-1]:
        parts = parts[:-1]
    return ".".join(parts[:-1]), parts[-1]


def main(arguments):
    count = 20
    if len(arguments) >= 2 and arguments[0] == "-n":
        count = int(arguments[1])
        arguments = arguments[2:]
    if not arguments:
        print(__doc__, file=sys.stderr)
        return 2
    timings_path, results = arguments[0], arguments[1:]
    totals = collections.defaultdict(float)
    cases = collections.Counter()
    try:
        with open(timings_path, encoding="utf-8") as timings:
            for line in timings:
                seconds, _, test_id = line.rstrip("\n").partition("\t")
                try:
                    key = test_key(test_id)
                    totals[key] += float(seconds)
                    cases[key] += 1
                except ValueError:
                    continue
    except OSError as error:
        print(f"slowest-tests: {timings_path}: {error}", file=sys.stderr)

    ran = set()
    for path in results:
        try:
            root = ElementTree.parse(path).getroot()
        except (OSError, ElementTree.ParseError) as error:
            print(f"slowest-tests: {path}: {error}", file=sys.stderr)
            continue
        for case in root.iter("testcase"):
            ran.add((case.get("classname", "?"), case.get("name", "?")))

    by_target = collections.defaultdict(float)
    for (suite, _), seconds in totals.items():
        by_target[suite.split(".")[0]] += seconds
    if results:
        print(f"{len(ran)} tests ran; {sum(cases.values())} test cases timed, {sum(totals.values()):.0f} s of tests in all.")
    print("Time by test target (each test's own time, added up):")
    for target, seconds in sorted(by_target.items(), key=lambda item: -item[1]):
        print(f"{seconds:8.1f} s  {target}")
    slowest = sorted(totals.items(), key=lambda item: -item[1])[:count]
    print(f"The {len(slowest)} slowest tests:")
    for (suite, name), seconds in slowest:
        several = f" ({cases[(suite, name)]} cases)" if cases[(suite, name)] > 1 else ""
        print(f"{seconds:8.2f} s  {suite}.{name}{several}")
    untimed = sorted(ran - set(totals))
    if results and untimed:
        print(f"{len(untimed)} tests ran without a time (their top-level suite lacks `.timed`), e.g.:")
        for suite, name in untimed[:5]:
            print(f"          {suite}.{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
