#!/usr/bin/env python3
"""duet from Python beside its peers in the same process and run (issue 38's measured items):

    ~/.venvs/duet/bin/python tools/bench/python_bench.py [--instructions] \
        [bazel-bin/tools/bench/function_bench]
    # after tools/dev.sh test (pip install .) and bazel build //tools/bench:function_bench

- python.<engine>.add_4x4_f32 (us): `x + y` on 4x4 float32 tensors, eager, from Python; duet's
  operators call the C++ op function directly (Note [Fast paths] in python/src/ops.cc).
- python.<engine>.add_op_4x4_f32 (us): the same through the op function (duet.add, tf.add,
  torch.add) and, for duet, through a generated raw op (duet.raw_ops.AddV2).
- python.duet.numpy_100mb (us): `t.numpy()` of a 100 MB float32 tensor, with whether it copied.
- python.duet.mlp_train_step_b64_f32 (us): the 784-256-10 MLP training step of function_bench.cc
  (forward, a GradientTape's backward, ResourceApplyGradientDescent per variable), batch 64,
  written in Python and traced by duet.function; with function_bench's path as the argument, the
  same step traced from C++ runs in the same script, alternating with the Python step over three
  rounds (cpp.traced.mlp_train_step_b64_f32.round<i>), and the median of the rounds' ratios is
  printed.
- python.duet.import (ms): `python -c "import duet"`, the median of 5 (warm file cache), beside
  python.startup (`python -c pass`); python.duet.import_cold: the first import after the kernel's
  page cache is dropped (needs root; left out otherwise).
- python.duet.installed_size (MB): the installed package's files.
- With --instructions (needs valgrind; minutes): python.<engine>.add_4x4_f32_instructions, the
  instructions one `x + y` executes (callgrind: 200000 calls less as many empty ones): unlike
  times, the same on a busy machine.
Engines that are not installed are left out, saying so. Timing as the other peers
(peer_timing.py: medians over repetitions).
"""

import os
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import emit, median_seconds_per_call, run_benchmark  # noqa: E402

A = np.arange(16, dtype=np.float32).reshape(4, 4) * 0.25 - 0.5


def bench_duet():
    import duet
    x, y = duet.constant(A), duet.constant(A + 1)
    emit("python.duet.add_4x4_f32", median_seconds_per_call(lambda: x + y) * 1e6, "us")
    emit("python.duet.add_op_4x4_f32", median_seconds_per_call(lambda: duet.add(x, y)) * 1e6,
         "us")
    emit("python.duet.raw_op_4x4_f32",
         median_seconds_per_call(lambda: duet.raw_ops.AddV2(x=x, y=y)) * 1e6, "us")
    big = duet.constant(np.ones(25_000_000, np.float32))
    emit("python.duet.numpy_100mb", median_seconds_per_call(big.numpy) * 1e6, "us")
    emit("python.duet.numpy_100mb_copied", int(not np.shares_memory(big.numpy(), big.numpy())),
         "bool")


def bench_mlp_step(function_bench):
    import duet
    rng = np.random.default_rng(1)
    x = duet.constant(rng.normal(size=(64, 784)).astype(np.float32))
    y = duet.constant(rng.integers(0, 10, size=64).astype(np.int64))
    v = [duet.Variable(rng.normal(size=(784, 256)).astype(np.float32) * 0.05, name="w1"),
         duet.Variable(np.zeros(256, np.float32), name="b1"),
         duet.Variable(rng.normal(size=(256, 10)).astype(np.float32) * 0.05, name="w2"),
         duet.Variable(np.zeros(10, np.float32), name="b2")]
    rate = duet.constant(np.float32(0.01))

    @duet.function
    def step(xs, ys):
        with duet.GradientTape() as tape:
            h = duet.nn.relu(duet.nn.bias_add(duet.matmul(xs, v[0]), v[1]))
            logits = duet.nn.bias_add(duet.matmul(h, v[2]), v[3])
            loss = duet.reduce_mean(duet.nn.sparse_softmax_cross_entropy_with_logits(ys, logits))
        for var, g in zip(v, tape.gradient(loss, v)):
            duet.raw_ops.ResourceApplyGradientDescent(var=var.handle, alpha=rate, delta=g)
        return loss

    for _ in range(200):  # traces, then warms the plan's caches, outside the timing
        step(x, y)
    if not function_bench:
        emit("python.duet.mlp_train_step_b64_f32",
             median_seconds_per_call(lambda: step(x, y)) * 1e6, "us")
        return
    # The VM's speed drifts over minutes: Python and C++ alternate, and the ratio of each round's
    # pair is the figure (its median over the rounds).
    ratios = []
    for round_ in range(3):
        python_us = median_seconds_per_call(lambda: step(x, y)) * 1e6
        cpp_us = run_benchmark([function_bench])[("traced.mlp_train_step_b64_f32", "us")]
        emit(f"python.duet.mlp_train_step_b64_f32.round{round_}", python_us, "us")
        emit(f"cpp.traced.mlp_train_step_b64_f32.round{round_}", cpp_us, "us")
        ratios.append(python_us / cpp_us)
    emit("ratio.python_to_cpp.mlp_train_step_b64_f32", statistics.median(ratios), "x")


def bench_tensorflow():
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        import tensorflow as tf
    except ImportError:
        print("# tensorflow is not installed: left out", flush=True)
        return
    x, y = tf.constant(A), tf.constant(A + 1)
    emit("python.tensorflow.add_4x4_f32", median_seconds_per_call(lambda: x + y) * 1e6, "us")
    emit("python.tensorflow.add_op_4x4_f32",
         median_seconds_per_call(lambda: tf.add(x, y)) * 1e6, "us")


def bench_torch():
    try:
        import torch
    except ImportError:
        print("# torch is not installed: left out", flush=True)
        return
    torch.set_num_threads(1)
    x, y = torch.tensor(A), torch.tensor(A + 1)
    emit("python.torch.add_4x4_f32", median_seconds_per_call(lambda: x + y) * 1e6, "us")
    emit("python.torch.add_op_4x4_f32", median_seconds_per_call(lambda: torch.add(x, y)) * 1e6,
         "us")


def bench_import():
    def median_ms(code, runs=5):
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, cwd="/")
            times.append(time.perf_counter() - start)
        return statistics.median(times) * 1e3
    try:
        subprocess.run(["sync"], check=True)
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        emit("python.duet.import_cold", median_ms("import duet", runs=1), "ms")
    except OSError:
        print("# the page cache cannot be dropped (not root): import_cold left out", flush=True)
    emit("python.startup", median_ms("pass"), "ms")
    emit("python.duet.import", median_ms("import duet"), "ms")


def bench_installed_size():
    import duet
    folder = os.path.dirname(duet.__file__)
    size = sum(os.path.getsize(os.path.join(root, name))
               for root, _, names in os.walk(folder) for name in names)
    emit("python.duet.installed_size", size / 1e6, "MB")


# One engine's `x + y` loop, run under callgrind by bench_instructions.
INSTRUCTIONS_LOOP = """
import sys, numpy as np
A = np.arange(16, dtype=np.float32).reshape(4, 4) * 0.25 - 0.5
engine, calls = sys.argv[1], int(sys.argv[2])
if engine == "torch":
    import torch
    torch.set_num_threads(1)
    x, y = torch.tensor(A), torch.tensor(A + 1)
else:
    import duet
    x, y = duet.constant(A), duet.constant(A + 1)
f = (lambda: x + y) if calls > 0 else (lambda: None)
for _ in range(abs(calls) or 1000):
    f()
"""


def bench_instructions():
    def instructions(engine, calls):
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
             "-c", INSTRUCTIONS_LOOP, engine, str(calls)], capture_output=True, text=True)
        line = [l for l in out.stderr.splitlines() if "Collected" in l]
        return int(line[0].split()[-1]) if line else None

    for engine in ("duet", "torch"):
        counts = [instructions(engine, c) for c in (1000, 201000, -1000, -201000)]
        if None in counts:
            print(f"# {engine}: callgrind failed (not installed?): left out", flush=True)
            continue
        per_call = ((counts[1] - counts[0]) - (counts[3] - counts[2])) / 200000
        emit(f"python.{engine}.add_4x4_f32_instructions", int(per_call), "instructions")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--instructions"]
    if "--instructions" in sys.argv:
        bench_instructions()
    bench_duet()
    bench_mlp_step(args[0] if args else None)
    bench_torch()
    bench_tensorflow()  # last: its import starts threads that would tax the others
    bench_import()
    bench_installed_size()
