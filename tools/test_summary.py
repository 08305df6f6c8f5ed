#!/usr/bin/env python3
"""Totals Catch2 test cases over a `bazel test` run and prints "N passed, N failed".

Usage: test_summary.py [--plus "N passed, N failed"] BAZEL_OUTPUT_LOG TESTLOGS_DIR. A target whose
log has no Catch2 summary counts as one case: passed if Bazel says it passed (a script test), else
failed (it crashed, timed out or failed to build). --plus adds an earlier run's summary line to the
totals: a second `bazel test` run of the same targets (tools/dev.sh reruns the nn kernel tests)
replaces their logs under TESTLOGS_DIR, so each run is totalled before the next one starts.
"""
import argparse
import os
import re
import sys

TARGET = re.compile(r"^(//\S+)\s+(?:\(cached\)\s+)?(PASSED|FAILED|TIMEOUT|FLAKY|NO STATUS|"
                    r"FAILED TO BUILD|INCOMPLETE)", re.M)
ALL_PASSED = re.compile(r"All tests passed \(\d+ assertions? in (\d+) test cases?\)")
# Catch2 omits "| N failed" when none failed (e.g. a run with only warnings).
MIXED = re.compile(r"test cases:\s*(\d+)\s*\|\s*(\d+) passed(?:\s*\|\s*(\d+) failed)?")


def count_log(path):
    """(passed, failed) test cases from one Catch2 log, or None without a summary."""
    try:
        text = open(path, errors="replace").read()
    except OSError:
        return None
    if m := ALL_PASSED.search(text):
        return int(m.group(1)), 0
    if m := MIXED.search(text):
        return int(m.group(2)), int(m.group(3) or 0)
    return None


SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed$")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--plus", help='an earlier run\'s "N passed, N failed", added in')
    parser.add_argument("log")
    parser.add_argument("testlogs", nargs="?", default="bazel-testlogs")
    args = parser.parse_args()
    output = open(args.log, errors="replace").read()
    testlogs = args.testlogs
    passed = failed = 0
    if args.plus is not None:
        m = SUMMARY.match(args.plus.strip())
        if not m:
            parser.error(f"--plus {args.plus!r} is not 'N passed, N failed'")
        passed, failed = int(m.group(1)), int(m.group(2))
    for target, status in TARGET.findall(output):
        package, _, name = target[2:].partition(":")
        counts = count_log(os.path.join(testlogs, package, name, "test.log"))
        if status in ("PASSED", "FLAKY") and counts:
            passed += counts[0]
            failed += counts[1]
        elif status in ("PASSED", "FLAKY"):
            passed += 1
        elif counts and counts[1] > 0:
            passed += counts[0]
            failed += counts[1]
        else:
            failed += 1
            print(f"{target}: {status}", file=sys.stderr)
    print(f"{passed} passed, {failed} failed")


if __name__ == "__main__":
    main()
