#!/usr/bin/env python3
"""The slowest tests of one or more Swift Testing xunit files (--xunit-output), and the count.

Usage: slowest-tests.py [-n 20] FILE.xml [FILE.xml ...]
Prints the total number of test cases and their summed time, then the N slowest, slowest first
("12.34 s  Suite.test()"). A test run in parallel overlaps others: the sum is CPU-ish, not wall time.
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
    total = sum(time for time, _ in cases)
    print(f"{len(cases)} test cases, {total:.1f} s summed over them; the {min(count, len(cases))} slowest:")
    for time, name in cases[:count]:
        print(f"{time:8.2f} s  {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
