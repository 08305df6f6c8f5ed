"""Timing for the Python peers (torch_bench.py, tf_bench.py), as the C++ benchmarks time duet.

median_seconds_per_call: the median over DUET_BENCH_REPS (7) repetitions of a loop lasting at
least DUET_BENCH_MIN_MS (20 ms), after a calibration that doubles as the warm-up. emit prints a
`name<TAB>value<TAB>unit` line; run_benchmark runs a C++ benchmark and collects its lines.
"""

import os
import statistics
import subprocess
import time

REPS = max(1, int(os.environ.get("DUET_BENCH_REPS", "7")))
MIN_REP_SECONDS = max(1.0, float(os.environ.get("DUET_BENCH_MIN_MS", "20"))) / 1000.0


def median_seconds_per_call(fn):
    """Median over REPS of the seconds one fn() takes; calibration doubles as the warm-up."""

    def time_calls(calls):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        return time.perf_counter() - start

    calls = 1
    while True:
        seconds = time_calls(calls)
        if seconds >= MIN_REP_SECONDS:
            break
        per_call = seconds / calls
        nxt = calls * 2
        if seconds > 1e-4 and per_call > 0:
            nxt = max(nxt, int(1.2 * MIN_REP_SECONDS / per_call) + 1)
        calls = nxt
    return statistics.median(time_calls(calls) / calls for _ in range(REPS))


def emit(name, value, unit):
    if isinstance(value, int):
        print(f"{name}\t{value}\t{unit}", flush=True)
        return
    fmt = "{}\t{:.1f}\t{}" if value >= 100 else "{}\t{:.3f}\t{}"
    print(fmt.format(name, value, unit), flush=True)


def run_benchmark(command):
    """Runs a benchmark process; returns its `name<TAB>value<TAB>unit` lines as
    {(name, unit): value}, echoing them."""
    lines = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    values = {}
    for line in lines.splitlines():
        print(line, flush=True)
        if line.startswith("#"):
            continue
        name, value, unit = line.split("\t")
        values[(name, unit)] = float(value)
    return values
