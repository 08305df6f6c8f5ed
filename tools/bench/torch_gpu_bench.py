#!/usr/bin/env python3
"""gpu_bench's cases through PyTorch on cuda:0, same shapes, lines named torch.<case>.

    python3 tools/bench/torch_gpu_bench.py [--no-compile]

Needs pip's `torch` with CUDA. Prints `name<TAB>value<TAB>unit` lines:
  torch.device                        the GPU's name
  torch.matmul_4096_{f32,bf16}        4096^3 matmul, TFLOP/s (TF32 off)
  torch.conv_bn_relu_32x56x56x64_f32  3x3 conv 64->64 + inference batch norm + relu,
                                      channels_last, us per block (cuDNN's TF32 off too)
  torch.chain_50_64x64_f32            gpu_bench's 50-op elementwise chain, us per call
  torch.mlp_train_step_b{64,256}_f32  784-256-10 MLP forward, backward, SGD update, us per step
  torch.add_4_f32_launch              x + y on 4 elements: 10,000 calls, then one synchronize;
                                      us per op
and torch_compile.<case> for the chain and the training step (not with --no-compile; a failing
torch.compile prints a `#` note instead). Each timed batch is bracketed by torch.cuda.synchronize();
the median of max(10, DUET_BENCH_REPS) batches of at least DUET_BENCH_MIN_MS (20) ms each, peers
interleaved, as in gpu_bench. Without torch or without a GPU it prints why it skips and exits 0.
"""

import argparse
import contextlib
import os
import statistics
import sys
import time

try:
    import torch
except ImportError as e:
    print(f"# torch_gpu_bench skipped: torch is not importable ({e})")
    sys.exit(0)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_bench import emit  # noqa: E402

F = torch.nn.functional
REPS = max(10, int(os.environ.get("DUET_BENCH_REPS", "7")))
MIN_REP_SECONDS = max(1.0, float(os.environ.get("DUET_BENCH_MIN_MS", "20"))) / 1000.0
CUDA = torch.device("cuda:0")


def gpu_seconds_per_call(fns, fixed_calls=0):
    """gpu_bench's GpuSecondsPerCall: per fn, the median seconds per call over REPS batches."""
    calls = [max(fixed_calls, 1)] * len(fns)

    def time_calls(i):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls[i]):
            fns[i]()
        torch.cuda.synchronize()
        return time.perf_counter() - start

    for i in range(len(fns)):  # warm-up (cuBLAS/cuDNN setup, allocator) doubling as calibration
        seconds = time_calls(i)
        while not fixed_calls and seconds < MIN_REP_SECONDS:
            calls[i] *= 2
            seconds = time_calls(i)
    times = [[] for _ in fns]
    for _ in range(REPS):
        for i in range(len(fns)):
            times[i].append(time_calls(i) / calls[i])
    return [statistics.median(t) for t in times]


class CaseFailed(Exception):
    """A case whose result is wrong: reported, and the run goes on to the next case."""


def check_near(what, got, expected, tol):
    """gpu_bench's CheckNear: |got - expected| <= tol * max(1, rms(expected), |expected|)
    elementwise. The bound scales with the entries' RMS: an entry of a long dot product that
    cancels to near 0 carries the rounding of its large terms (a 4096-term float32 product on an
    H200 differed by 1.2e-4 at an entry of -0.16, where the RMS is 64)."""
    got, expected = got.detach().float().cpu(), expected.detach().float().cpu()
    rms = float(expected.square().mean().sqrt()) if expected.numel() else 0.0
    bound = tol * torch.clamp(expected.abs(), min=max(1.0, rms))
    bad = ~((got - expected).abs() <= bound)
    if bad.any():
        i = int(bad.flatten().nonzero()[0])
        g, e = float(got.flatten()[i]), float(expected.flatten()[i])
        raise CaseFailed(f"{what}: element {i} is {g}, expected {e}")


def compile_failed(case, e):
    """A failing torch.compile (no Triton, no compiler) is a note, not a failure of the run."""
    first_line = (str(e).splitlines() or [""])[0]
    print(f"# torch.compile unavailable for {case}: {type(e).__name__}: {first_line}", flush=True)


def matmul_case(dtype, case, tol):
    """(a) 4096^3; the check compares a 64x64 corner with the CPU's float32 product."""
    n, k = 4096, 64
    gen = torch.Generator().manual_seed(1)
    a, b = (torch.randn(n, n, generator=gen).to(dtype) for _ in range(2))
    ga, gb = a.to(CUDA), b.to(CUDA)
    check_near(case, (ga @ gb)[:k, :k], a[:k].float() @ b[:, :k].float(), tol)
    seconds = gpu_seconds_per_call([lambda: ga @ gb])[0]
    emit(f"torch.{case}", 2.0 * n**3 / seconds / 1e12, "TFLOP/s")


def conv_bn_relu_case():
    """(b) gpu_bench's NHWC block as NCHW tensors in channels_last memory (NHWC underneath)."""
    gen = torch.Generator().manual_seed(2)
    x = torch.randn(32, 64, 56, 56, generator=gen).to(memory_format=torch.channels_last)
    w = (torch.randn(64, 64, 3, 3, generator=gen) * 0.06).to(memory_format=torch.channels_last)
    scale, var = torch.rand(64, generator=gen) + 0.5, torch.rand(64, generator=gen) + 0.5
    offset, mean = torch.randn(64, generator=gen) * 0.1, torch.randn(64, generator=gen) * 0.1

    def block(x, w, scale, offset, mean, var):
        y = F.conv2d(x, w, padding=1)
        return F.relu(F.batch_norm(y, mean, var, scale, offset, training=False, eps=1e-3))

    cpu_args = (x, w, scale, offset, mean, var)
    gpu_args = tuple(t.to(CUDA) for t in cpu_args)
    # Checked with cuDNN's default algorithm, timed with the fastest (as a tuned model would run):
    # benchmark mode may pick Winograd or FFT, whose rounding the check's bound is not made for.
    torch.backends.cudnn.benchmark = False
    check_near("conv_bn_relu", block(*gpu_args), block(*cpu_args), 1e-4)
    torch.backends.cudnn.benchmark = True
    seconds = gpu_seconds_per_call([lambda: block(*gpu_args)])[0]
    emit("torch.conv_bn_relu_32x56x56x64_f32", seconds * 1e6, "us")


# elementwise_chain.h's kTanhCycle: op i of the chain is CYCLE[i % 10]; p and q are 64x64 tensors.
CYCLE = (
    lambda y, p, q: y * 0.9,
    lambda y, p, q: y + p,
    lambda y, p, q: torch.maximum(y, q),
    lambda y, p, q: y * q,
    lambda y, p, q: y + 0.1,
    lambda y, p, q: torch.clamp_min(y, -0.5),
    lambda y, p, q: y * 0.9,
    lambda y, p, q: y + p,
    lambda y, p, q: y + 0.1,
    lambda y, p, q: torch.tanh(y),
)


def chain(x, p, q):
    y = x
    for i in range(50):
        y = CYCLE[i % 10](y, p, q)
    return y


def chain_case(use_compile):
    """(c) eager (50 kernels) and torch.compile (Inductor fuses them into one Triton kernel)."""
    case = "chain_50_64x64_f32"
    gen = torch.Generator().manual_seed(3)
    cpu_args = tuple(torch.rand(64, 64, generator=gen) * 3 - 1.5 for _ in range(3))
    args = tuple(t.to(CUDA) for t in cpu_args)
    expected = chain(*cpu_args)
    variants = [("torch", chain)]
    if use_compile:
        try:
            compiled = torch.compile(chain)
            compiled(*args)  # compiles now, not inside the timing
            variants.append(("torch_compile", compiled))
        except Exception as e:  # noqa: BLE001
            compile_failed(case, e)
    for name, fn in variants:
        check_near(f"{name}.{case}", fn(*args), expected, 1e-5)
    seconds = gpu_seconds_per_call([lambda fn=fn: fn(*args) for _, fn in variants])
    for (name, _), s in zip(variants, seconds):
        emit(f"{name}.{case}", s * 1e6, "us")


def train_step_case(batch, use_compile):
    """(d) gpu_bench's step; eager and compiled each train parameters of their own, same start."""
    case = f"mlp_train_step_b{batch}_f32"
    gen = torch.Generator().manual_seed(4)
    x = torch.randn(batch, 784, generator=gen).to(CUDA)
    labels = torch.randint(0, 10, (batch,), generator=gen, dtype=torch.int64).to(CUDA)
    init = [torch.randn(256, 784, generator=gen) * 0.05, torch.zeros(256),
            torch.randn(10, 256, generator=gen) * 0.05, torch.zeros(10)]

    def loss_of(xs, ys, w1, b1, w2, b2):
        return F.cross_entropy(F.linear(F.relu(F.linear(xs, w1, b1)), w2, b2), ys)

    def step_with(loss_fn):
        params = [t.to(CUDA, copy=True).requires_grad_(True) for t in init]

        def step():
            loss = loss_fn(x, labels, *params)
            loss.backward()
            with torch.no_grad():
                for p in params:
                    p.add_(p.grad, alpha=-0.01)
                    p.grad = None
            return loss

        return step

    eager = step_with(loss_of)
    variants = [("torch", eager)]
    if use_compile:
        try:
            compiled = step_with(torch.compile(loss_of))
            # The first call compiles forward and backward; two steps from one start must agree.
            for _ in range(2):
                check_near(f"torch_compile.{case}", compiled(), eager(), 1e-5)
            variants.append(("torch_compile", compiled))
        except Exception as e:  # noqa: BLE001
            compile_failed(case, e)
    seconds = gpu_seconds_per_call([fn for _, fn in variants])
    for (name, _), s in zip(variants, seconds):
        emit(f"{name}.{case}", s * 1e6, "us")


def launch_case():
    """(e) the host's cost per eager op: 10,000 tiny adds, then one synchronize."""
    x, y = torch.randn(4, device=CUDA), torch.randn(4, device=CUDA)
    check_near("add_4", x + y, x.cpu() + y.cpu(), 1e-6)
    seconds = gpu_seconds_per_call([lambda: x + y], fixed_calls=10_000)[0]
    emit("torch.add_4_f32_launch", seconds * 1e6, "us")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    use_compile = not parser.parse_args().no_compile
    if not torch.cuda.is_available():
        print(f"# torch_gpu_bench skipped: no CUDA device (torch {torch.__version__}, "
              f"torch.cuda.is_available() is False)")
        return
    print(f"torch.device\t{torch.cuda.get_device_name(0)}\tname", flush=True)
    # gpu_bench's float32 is true float32: no TF32 in matmuls (off by default) or in cuDNN's
    # convolutions (on by default in PyTorch).
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    cases = [
        ("matmul_4096_f32", lambda: matmul_case(torch.float32, "matmul_4096_f32", 1e-4)),
        ("matmul_4096_bf16", lambda: matmul_case(torch.bfloat16, "matmul_4096_bf16", 1e-2)),
        ("conv_bn_relu_32x56x56x64_f32", conv_bn_relu_case),
        ("add_4_f32_launch", launch_case),
        # Last: torch.compile's first compilations may take a minute of a time limit.
        ("chain_50_64x64_f32", lambda: chain_case(use_compile)),
        ("mlp_train_step_b64_f32", lambda: train_step_case(64, use_compile)),
        ("mlp_train_step_b256_f32", lambda: train_step_case(256, use_compile)),
    ]
    failed = 0
    for name, case in cases:  # a failing case is reported; the others still run
        try:
            with torch.no_grad() if "train_step" not in name else contextlib.nullcontext():
                case()
        except Exception as e:  # noqa: BLE001 -- any failure of one case
            failed += 1
            print(f"# torch.{name} FAILED: {type(e).__name__}: {e}", flush=True)
        if name == "matmul_4096_bf16":
            torch.cuda.empty_cache()  # the 4096x4096 blocks are not needed again
    if failed:
        sys.exit(f"torch_gpu_bench: {failed} case(s) failed")


if __name__ == "__main__":
    main()
