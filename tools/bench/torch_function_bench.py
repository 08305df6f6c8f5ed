#!/usr/bin/env python3
"""The function_bench cases through PyTorch: eager, torch.jit.trace and torch.compile.

    python3 tools/bench/torch_function_bench.py [--no-compile]

Needs pip's `torch`. Prints `name<TAB>value<TAB>unit` lines (us per call) named
pytorch_<variant>.<case>, where the cases are function_bench's:
  chain_50_64x64_f32        50 elementwise ops on 64x64 (a tanh every ten)
  mlp_forward_b32_h128_f32  784-128-128-10 relu MLP forward, batch 32
  mlp_train_step_b64_f32    784-256-10 MLP: forward, backward, SGD update (and _b256)
Timing is torch_bench.py's (medians of DUET_BENCH_REPS repetitions).
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_bench import emit, median_seconds_per_call  # noqa: E402

CHAIN_OPS = 50
F = torch.nn.functional


def chain(x, t):
    """function_bench's Chain: op i is a tanh every ten ops, else y*0.9, y+t, max(y,-0.5), y+0.01."""
    y = x
    for i in range(CHAIN_OPS):
        if i % 10 == 9:
            y = torch.tanh(y)
        elif i % 4 == 0:
            y = y * 0.9
        elif i % 4 == 1:
            y = y + t
        elif i % 4 == 2:
            y = torch.clamp_min(y, -0.5)
        else:
            y = y + 0.01
    return y


def variants(fn, example_args, use_compile):
    """(name, callable) for eager, torch.jit.trace and torch.compile of an inference fn."""
    result = [("eager", fn)]
    try:
        traced = torch.jit.trace(fn, example_args)
        result.append(("jit_trace", traced))
    except Exception as e:  # noqa: BLE001
        print(f"# jit.trace failed: {e}", file=sys.stderr)
    if use_compile:
        try:
            compiled = torch.compile(fn)
            compiled(*example_args)  # compiles now, not inside the timing
            result.append(("compile", compiled))
        except Exception as e:  # noqa: BLE001 - a missing toolchain is not fatal
            print(f"# torch.compile unavailable: {type(e).__name__}: {e}", file=sys.stderr)
    return result


def time_variants(case, fn, args, use_compile):
    for name, f in variants(fn, args, use_compile):
        emit(f"pytorch_{name}.{case}", median_seconds_per_call(lambda: f(*args)) * 1e6, "us")


def mlp_forward(use_compile):
    gen = torch.Generator().manual_seed(1)
    w1, w2, w3 = (torch.randn(o, i, generator=gen) * 0.05 for o, i in ((128, 784), (128, 128), (10, 128)))
    b1, b2, b3 = torch.zeros(128), torch.zeros(128), torch.zeros(10)

    def mlp(x):
        h = F.relu(F.linear(x, w1, b1))
        h = F.relu(F.linear(h, w2, b2))
        return F.linear(h, w3, b3)

    time_variants("mlp_forward_b32_h128_f32", mlp, (torch.randn(32, 784, generator=gen),), use_compile)


def train_step(batch, use_compile):
    gen = torch.Generator().manual_seed(2)
    x = torch.randn(batch, 784, generator=gen)
    labels = torch.randint(0, 10, (batch,), generator=gen, dtype=torch.int64)
    params = [
        (torch.randn(256, 784, generator=gen) * 0.05).requires_grad_(True),
        torch.zeros(256).requires_grad_(True),
        (torch.randn(10, 256, generator=gen) * 0.05).requires_grad_(True),
        torch.zeros(10).requires_grad_(True),
    ]

    def loss_of(xs, ys):
        w1, b1, w2, b2 = params
        return F.cross_entropy(F.linear(F.relu(F.linear(xs, w1, b1)), w2, b2), ys)

    def step_with(loss_fn):
        def step():
            loss = loss_fn(x, labels)
            loss.backward()
            with torch.no_grad():
                for p in params:
                    p.add_(p.grad, alpha=-0.01)
                    p.grad = None
            return loss

        return step

    case = f"mlp_train_step_b{batch}_f32"
    emit(f"pytorch_eager.{case}", median_seconds_per_call(step_with(loss_of)) * 1e6, "us")
    if use_compile:
        try:
            compiled = torch.compile(loss_of)
            step_with(compiled)()  # compiles forward and backward now
            emit(f"pytorch_compile.{case}", median_seconds_per_call(step_with(compiled)) * 1e6, "us")
        except Exception as e:  # noqa: BLE001
            print(f"# torch.compile unavailable: {type(e).__name__}: {e}", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    use_compile = not parser.parse_args().no_compile
    emit("pytorch.threads", torch.get_num_threads(), "threads")
    with torch.no_grad():
        gen = torch.Generator().manual_seed(0)
        x, t = torch.randn(64, 64, generator=gen), torch.randn(64, 64, generator=gen) * 0.1
        time_variants("chain_50_64x64_f32", chain, (x, t), use_compile)
        mlp_forward(use_compile)
    for batch in (64, 256):
        train_step(batch, use_compile)


if __name__ == "__main__":
    main()
