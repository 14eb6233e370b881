#!/usr/bin/env python3
"""The longest test times in one or more Swift Testing xunit files (--xunit-output), and the count.

Usage: slowest-tests.py [-n 20] FILE.xml [FILE.xml ...]
Prints the number of test cases, then the N longest times, longest first ("12.34 s  Suite.test()").
Swift Testing times a test from when the run schedules it, which in a parallel run
(--experimental-maximum-parallelization-width) is the run's start for every test: there a time
includes the wait for a free slot, and the list shows the tests that ended last as much as the
slow ones. In a serialized run (the second one, libfprint's) a time is the test's own.
"""
import sys
import xml.etree.ElementTree as ElementTree


def main(arguments):
    count = 20
    if len(arguments) >= 2 and arguments[0] == "-n":
        count = int(arguments[1])
        arguments = arguments[2:]
    cases = []
    for path in arguments:
        try:
            root = ElementTree.parse(path).getroot()
        except (OSError, ElementTree.ParseError) as error:
            print(f"slowest-tests: {path}: {error}", file=sys.stderr)
            continue
        for case in root.iter("testcase"):
            cases.append((float(case.get("time", "0")), f"{case.get('classname', '?')}.{case.get('name', '?')}"))
    cases.sort(reverse=True)
    print(f"{len(cases)} test cases; the {min(count, len(cases))} longest times (from when each was scheduled to its end):")
    for time, name in cases[:count]:
        print(f"{time:8.2f} s  {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
