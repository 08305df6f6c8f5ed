#!/usr/bin/env python3
"""Training steps: duet's training_bench against PyTorch (eager, torch.compile) and TensorFlow
(Keras 3 layers and optimizer in a tf.function), the same models, batches and optimizer.

    bazel build //tools/bench:training_bench
    ~/.venvs/duet/bin/python tools/bench/training_bench.py bazel-bin/tools/bench/training_bench \
        [--rounds 3] [--no-compile] [--cases lstm]

Cases (training_bench.cc):
  mlp_adam_b64     784-256-10 relu MLP, batch 64, sparse cross-entropy from logits, Adam(1e-3)
  cnn_bn_adam_b64  conv(32,3,same)-bn-relu, conv(64,3,same)-bn-relu, maxpool 2, dense(10) on
                   28x28x1, batch 64, training mode (batch-norm statistics updated), Adam(1e-3)
  lstm128_t50_b32_adam  LSTM(128) over 50 steps of 32 features, dense(10) on the last output,
                   batch 32, Adam(1e-3) (PyTorch's nn.LSTM, Keras' LSTM)
Each round runs the duet binary once, then each peer (peer_timing.py's medians) in a process of
its own (PyTorch and TensorFlow abort when both load LLVM into one process); the output is
every round's lines, then per case the median over rounds and the ratios peer / duet traced
(above 1: duet is faster), as `name<TAB>value<TAB>unit`.

On a shared or small machine, rounds differ by whole processes (a process that competes for a
CPU is slow throughout): take five rounds or more, lengthen every peer's timing windows alike with
DUET_BENCH_REPS=11 DUET_BENCH_MIN_MS=100, and compare on one thread with OMP_NUM_THREADS=1
(TensorFlow's thread pools follow it; docs/benchmarks.md, "Recurrent layers").
"""
import argparse
import os
import statistics
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

from peer_timing import emit, median_seconds_per_call  # noqa: E402

CASES = ["mlp_adam_b64", "cnn_bn_adam_b64", "lstm128_t50_b32_adam"]

rng = np.random.default_rng(0)


def data(shape, batch):
    x = rng.standard_normal((batch,) + shape).astype(np.float32)
    y = rng.integers(0, 10, batch).astype(np.int64)
    return x, y


def torch_mlp():
    return torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))


def torch_cnn():
    n = torch.nn
    return n.Sequential(n.Conv2d(1, 32, 3, padding=1), n.BatchNorm2d(32), n.ReLU(),
                        n.Conv2d(32, 64, 3, padding=1), n.BatchNorm2d(64), n.ReLU(),
                        n.MaxPool2d(2), n.Flatten(), n.Linear(64 * 14 * 14, 10))


def torch_rnn():
    """nn.LSTM(32, 128, batch_first) and a Linear(128, 10) on the last step's output."""

    class Rnn(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(32, 128, batch_first=True)
            self.head = torch.nn.Linear(128, 10)

        def forward(self, x):
            return self.head(self.lstm(x)[0][:, -1])

    return Rnn()


def keras_rnn():
    L = keras.layers
    return keras.Sequential([keras.Input((50, 32)), L.LSTM(128), L.Dense(10)])


def keras_mlp():
    L = keras.layers
    return keras.Sequential([keras.Input((784,)), L.Dense(256, activation="relu"), L.Dense(10)])


def keras_cnn():
    L = keras.layers
    return keras.Sequential([keras.Input((28, 28, 1)), L.Conv2D(32, 3, padding="same"),
                             L.BatchNormalization(), L.ReLU(), L.Conv2D(64, 3, padding="same"),
                             L.BatchNormalization(), L.ReLU(), L.MaxPooling2D(2), L.Flatten(),
                             L.Dense(10)])


def torch_steps(make, x, y, compile_step):
    model = make()
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    xs, ys = torch.from_numpy(x), torch.from_numpy(y)
    if xs.dim() == 4:
        xs = xs.permute(0, 3, 1, 2).contiguous()  # NCHW, PyTorch's native layout

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(xs), ys)
        loss.backward()
        opt.step()
        return loss

    return torch.compile(step) if compile_step else step


def tf_step(make, x, y):
    model = make()
    opt = keras.optimizers.Adam(1e-3)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    xs, ys = tf.constant(x), tf.constant(y)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = loss_fn(ys, model(xs, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return step


def time_peer(framework, compile_ok, cases):
    """Times every case in one framework and prints its lines (run in a process of its own)."""
    global torch, tf, keras
    if framework == "pytorch":
        import torch
    else:
        import tensorflow as tf
        import keras
        # OMP_NUM_THREADS limits duet and PyTorch; TensorFlow's own pools follow it here.
        if threads := int(os.environ.get("OMP_NUM_THREADS", "0")):
            tf.config.threading.set_intra_op_parallelism_threads(threads)
            tf.config.threading.set_inter_op_parallelism_threads(threads)
    shapes = {"mlp_adam_b64": ((784,), 64), "cnn_bn_adam_b64": ((28, 28, 1), 64),
              "lstm128_t50_b32_adam": ((50, 32), 32)}
    models = {"mlp_adam_b64": (torch_mlp, keras_mlp), "cnn_bn_adam_b64": (torch_cnn, keras_cnn),
              "lstm128_t50_b32_adam": (torch_rnn, keras_rnn)}
    for case in cases:
        x, y = data(*shapes[case])
        if framework == "pytorch":
            make = models[case][0]
            steps = {"pytorch_eager": torch_steps(make, x, y, False)}
            if compile_ok:
                steps["pytorch_compile"] = torch_steps(make, x, y, True)
        else:
            steps = {"tensorflow_function": tf_step(models[case][1], x, y)}
        for peer, step in steps.items():
            emit(f"{peer}.{case}", median_seconds_per_call(step) * 1e6, "us")


def run(command):
    """Runs a benchmark process; returns its `name<TAB>value` lines as a dict, echoing them."""
    lines = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    values = {}
    for line in lines.splitlines():
        name, value, _ = line.split("\t")
        values[name] = float(value)
        print(line, flush=True)
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-compile", action="store_true")
    parser.add_argument("--cases", default="", help="only the cases whose names contain this")
    parser.add_argument("--peer", choices=["pytorch", "tensorflow"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    cases = [case for case in CASES if args.cases in case]
    if args.peer:
        time_peer(args.peer, not args.no_compile, cases)
        return
    results = {}
    me = [sys.executable, os.path.abspath(__file__), args.binary, "--cases", args.cases]
    if args.no_compile:
        me.append("--no-compile")
    for _ in range(args.rounds):
        for command in ([args.binary, args.cases], me + ["--peer", "pytorch"],
                        me + ["--peer", "tensorflow"]):
            for name, value in run(command).items():
                results.setdefault(name, []).append(value)
    print("# medians over rounds")
    medians = {name: statistics.median(v) for name, v in results.items()}
    for name, value in sorted(medians.items()):
        emit("median." + name, value, "us" if not name.startswith("ratio") else "x")
    for case in cases:
        traced = medians[f"duet_traced.{case}"]
        for name, value in sorted(medians.items()):
            if name.endswith("." + case) and not name.startswith(("duet", "ratio")):
                emit(f"ratio.{name.split('.')[0]}_to_duet_traced.{case}", value / traced, "x")


if __name__ == "__main__":
    main()
