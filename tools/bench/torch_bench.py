#!/usr/bin/env python3
"""The eager_bench cases through PyTorch from Python: the per-op cost a Python user sees.

    python3 tools/bench/torch_bench.py [--no-compile]

Needs pip's `torch`. Prints `name<TAB>value<TAB>unit` lines like the C++ benchmarks, prefixed
`pytorch.`; with torch.compile available (and not --no-compile) also `pytorch_compile.add_1e7_f32`.
The autograd cases (peers of autodiff_bench: a 4x4 add whose input requires grad, and a
784-256-10 MLP training step) run outside no_grad.
Timings are medians over repetitions of a loop lasting at least DUET_BENCH_MIN_MS (20 ms), after
a warm-up; DUET_BENCH_REPS (7) sets the repetitions, as for the C++ benchmarks.
"""

import argparse
import sys

import torch

from peer_timing import emit, median_seconds_per_call

LARGE_ADD_ELEMENTS = 10_000_000
LARGE_MATMUL_N = 1024
SMALL_MATMUL_N = 64
# The MLP of autodiff_bench: 784-256-10, batch 64, float32, SGD.
MLP_BATCH, MLP_IN, MLP_HIDDEN, MLP_CLASSES = 64, 784, 256, 10
MLP_LEARNING_RATE = 0.01

def ramp(*shape):
    """Varied float32 values, as in eager_bench, so no kernel can shortcut on zeros."""
    n = 1
    for d in shape:
        n *= d
    return (torch.arange(n, dtype=torch.float32) % 7 * 0.25 - 0.5).reshape(shape).contiguous()


def op_ns(fn):
    return median_seconds_per_call(fn) * 1e9


def autograd_cases():
    """The peers of autodiff_bench: a 4x4 add recorded by autograd, and an MLP training step."""
    # The input requires grad, so every add records a graph node (freed with the dropped result).
    a44, b44 = ramp(4, 4).requires_grad_(True), ramp(4, 4)
    emit("pytorch.add_4x4_f32_autograd", op_ns(lambda: a44 + b44), "ns")

    # Forward with torch.nn.functional (weights [out, in], as nn.Linear keeps them), backward(),
    # then p -= grad * lr under no_grad with the grads set to None, as an optimizer step would.
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(MLP_BATCH, MLP_IN, generator=gen)
    labels = torch.randint(0, MLP_CLASSES, (MLP_BATCH,), generator=gen, dtype=torch.int64)
    params = [
        (torch.randn(MLP_HIDDEN, MLP_IN, generator=gen) * 0.05).requires_grad_(True),
        torch.zeros(MLP_HIDDEN).requires_grad_(True),
        (torch.randn(MLP_CLASSES, MLP_HIDDEN, generator=gen) * 0.05).requires_grad_(True),
        torch.zeros(MLP_CLASSES).requires_grad_(True),
    ]
    w1, b1, w2, b2 = params
    F = torch.nn.functional

    def step():
        h = F.relu(F.linear(x, w1, b1))
        logits = F.linear(h, w2, b2)
        loss = F.cross_entropy(logits, labels)
        loss.backward()
        with torch.no_grad():
            for p in params:
                p.add_(p.grad, alpha=-MLP_LEARNING_RATE)  # torch.optim.SGD's update
                p.grad = None

    emit("pytorch.mlp_step_f32", median_seconds_per_call(step) * 1e6, "us")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-compile", action="store_true", help="skip the torch.compile case")
    args = parser.parse_args()

    emit("pytorch.threads", torch.get_num_threads(), "threads")
    # Inference, like duet's eager ops outside a tape: no autograd graph is recorded either way
    # (inputs do not require grad), so no_grad only mirrors what a benchmark user would write.
    with torch.no_grad():
        a44, b44 = ramp(4, 4), ramp(4, 4)
        emit("pytorch.add_4x4_f32", op_ns(lambda: a44 + b44), "ns")
        a1, b1 = ramp(1), ramp(1)
        emit("pytorch.add_1_f32", op_ns(lambda: a1 + b1), "ns")
        m1, m2 = ramp(SMALL_MATMUL_N, SMALL_MATMUL_N), ramp(SMALL_MATMUL_N, SMALL_MATMUL_N)
        emit("pytorch.matmul_64x64_f32", op_ns(lambda: torch.matmul(m1, m2)), "ns")

        n = LARGE_MATMUL_N
        a, b = ramp(n, n), ramp(n, n)
        seconds = median_seconds_per_call(lambda: torch.matmul(a, b))
        emit("pytorch.matmul_1024_f32", 2.0 * n**3 / seconds / 1e9, "GFLOP/s")

        n = LARGE_ADD_ELEMENTS
        a, b = ramp(n), ramp(n)
        add_bytes = 3 * 4 * n
        seconds = median_seconds_per_call(lambda: a + b)
        emit("pytorch.add_1e7_f32", add_bytes / seconds / 1e9, "GB/s")

        if not args.no_compile:
            try:
                compiled_add = torch.compile(lambda x, y: x + y)
                compiled_add(a, b)  # compiles now, not inside the timing
                seconds = median_seconds_per_call(lambda: compiled_add(a, b))
                emit("pytorch_compile.add_1e7_f32", add_bytes / seconds / 1e9, "GB/s")
            except Exception as e:  # noqa: BLE001 - a missing compiler toolchain is not fatal
                print(f"# torch.compile unavailable: {type(e).__name__}: {e}", file=sys.stderr)

    autograd_cases()


if __name__ == "__main__":
    main()
