#!/usr/bin/env python3
"""Checkpoint save and restore: duet's checkpoint_bench against TensorFlow's tf.train.Checkpoint
on the same variables (four 5000x5000 kernels and four 5000 biases, float32: 100,020,000
parameters, 400.08 MB), the same cache states and the same number of repetitions.

    bazel build //tools/bench:checkpoint_bench
    ~/.venvs/duet/bin/python tools/bench/checkpoint_bench.py bazel-bin/tools/bench/checkpoint_bench \
        [--rounds 3] [--dir DIR]

Each round runs the duet binary, then TensorFlow in a process of its own. TensorFlow's cases:
  tensorflow_save                  tf.train.Checkpoint.write(path) (same path every time)
  tensorflow_save_fsync            the same, then fsync of the files it wrote: TensorFlow's
                                   write does not fsync (see the strace note in docs/benchmarks.md),
                                   duet's does, so this is the like-for-like figure
  tensorflow_restore_hot           Checkpoint.restore(path) into the existing variables, files
                                   just written (page cache)
  tensorflow_restore_cold          the same after posix_fadvise(DONTNEED) on the checkpoint files
Repetitions interleave (save, save + fsync; restore hot; restore cold, each after a warm-up) and
the figure is their median ("_best": the fastest), as in checkpoint_bench.cc (DUET_BENCH_REPS,
default 5). The output is every round's lines, then the median over rounds of every line (with
its range) and the ratios duet/TensorFlow in GB/s (above 1: duet is faster), as
`name<TAB>value<TAB>unit`.
"""
import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from peer_timing import emit, run_benchmark  # noqa: E402

UNITS = 5000
LAYERS = 4
PARAMETERS = LAYERS * (UNITS * UNITS + UNITS)
BYTES = PARAMETERS * 4
REPS = max(1, int(os.environ.get("DUET_BENCH_REPS", "5")))


def gb_per_second(seconds):
    return BYTES / seconds / 1e9


def interleaved(cases):
    """cases: [(name, setup or None, run)]; (median, fastest) of the runs' seconds,
    repetitions interleaved after one warm-up each (checkpoint_bench.cc's Interleaved)."""
    for _, setup, run in cases:
        if setup:
            setup()
        run()
    times = [[] for _ in cases]
    for r in range(REPS):
        for k in range(len(cases)):
            i = k if r % 2 == 0 else len(cases) - 1 - k  # A, B, B, A, ...
            _, setup, run = cases[i]
            if setup:
                setup()
            start = time.perf_counter()
            run()
            times[i].append(time.perf_counter() - start)
    return [(statistics.median(t), min(t)) for t in times]


def emit_case(name, timing):
    emit(name, gb_per_second(timing[0]), "GB/s")
    emit(name + "_ms", timing[0] * 1e3, "ms")
    emit(name + "_best", gb_per_second(timing[1]), "GB/s")


def drop_cache(paths):
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)


def fsync_files(paths):
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)
    fd = os.open(os.path.dirname(paths[0]), os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def time_tensorflow(dir_):
    import numpy as np
    import tensorflow as tf

    rng = np.random.default_rng(0)
    module = tf.Module()
    # The shapes of checkpoint_bench.cc's four Dense layers.
    module.kernels = [tf.Variable(rng.standard_normal((UNITS, UNITS), dtype=np.float32))
                      for _ in range(LAYERS)]
    module.biases = [tf.Variable(rng.standard_normal((UNITS,), dtype=np.float32))
                     for _ in range(LAYERS)]
    saved = [v.numpy()[:4].copy() for v in module.kernels]
    ckpt = tf.train.Checkpoint(model=module)
    path = os.path.join(dir_, "tf_ckpt")

    def files():
        return sorted(glob.glob(path + ".*"))

    def save():
        ckpt.write(path)

    def save_fsync():
        ckpt.write(path)
        fsync_files(files())

    s = interleaved([("tensorflow_save", None, save),
                     ("tensorflow_save_fsync", None, save_fsync)])
    emit_case("tensorflow_save", s[0])
    emit_case("tensorflow_save_fsync", s[1])
    size = sum(os.path.getsize(f) for f in files())
    assert size >= BYTES, f"TensorFlow's checkpoint holds {size} bytes"

    def restore():
        # Eager: the values are assigned before restore returns. (assert_consumed would object
        # to save_counter, which write() does not save.)
        ckpt.restore(path)

    for v in module.kernels:
        v.assign(tf.zeros_like(v))
    s = interleaved([("tensorflow_restore_hot", None, restore)])
    emit_case("tensorflow_restore_hot", s[0])
    for v, head in zip(module.kernels, saved):
        assert (v.numpy()[:4] == head).all(), "restore did not assign the saved values"
    s = interleaved([("tensorflow_restore_cold", lambda: drop_cache(files()), restore)])
    emit_case("tensorflow_restore_cold", s[0])



def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", default=None, help="where the files go (default: under /tmp)")
    parser.add_argument("--peer", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.peer:
        dir_ = tempfile.mkdtemp(prefix="checkpoint_bench_tf_", dir=args.dir)
        try:
            time_tensorflow(dir_)
        finally:
            shutil.rmtree(dir_)
        return
    extra = ["--dir", args.dir] if args.dir else []
    me = [sys.executable, os.path.abspath(__file__), args.binary, "--peer"] + extra
    results = {}
    for _ in range(args.rounds):
        subprocess.run(["uptime"], check=False)
        for command in ([args.binary] + extra, me):
            for key, value in run_benchmark(command).items():
                results.setdefault(key, []).append(value)
    print("# medians over rounds (min-max)")
    medians = {}
    for (name, unit), values in results.items():
        medians[name, unit] = statistics.median(values)
        print(f"median.{name}\t{medians[name, unit]:.3f}\t{unit}\t"
              f"# {min(values):.3f}-{max(values):.3f}", flush=True)
    gb = {name: v for (name, unit), v in medians.items() if unit == "GB/s"}
    for duet, tf_name in [("checkpoint_save", "tensorflow_save_fsync"),
                          ("checkpoint_save", "tensorflow_save"),
                          ("checkpoint_restore_hot", "tensorflow_restore_hot"),
                          ("checkpoint_restore_cold", "tensorflow_restore_cold")]:
        emit(f"ratio.{duet}_to_{tf_name}", gb[duet] / gb[tf_name], "x")
        emit(f"ratio.{duet}_to_{tf_name}_best", gb[duet + "_best"] / gb[tf_name + "_best"], "x")


if __name__ == "__main__":
    main()
