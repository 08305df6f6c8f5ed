#!/usr/bin/env python3
"""Fashion-MNIST, whole training runs: duet's examples/fashion_mnist against the same models in
PyTorch (eager and torch.compile) and TensorFlow/Keras (model.fit), batch 64, on this machine.

    ~/.venvs/duet/bin/python tools/bench/fashion_mnist_bench.py bazel-bin/examples/fashion_mnist \
        [--models mlp,cnn] [--epochs 5] [--frameworks duet,duet_eager,torch,torch_compile,keras]
        [--duet_out DIR]

What every run trains (examples/fashion_mnist.cc): the 60000 training images (uint8 / 255 as
float32, 28x28x1), shuffled each epoch, in batches of 64 (938 steps, the last one of 32), the
10000 test images evaluated after each epoch in batches of 500; sparse categorical
cross-entropy from logits, with accuracy as the metric; Adam (epsilon 1e-7, as Keras and duet)
whose rate decays from 1e-3 to 0 along a cosine over epochs * steps_per_epoch steps.
  mlp  flatten, dense 256 relu, dense 128 relu, dense 10
  cnn  conv 32 3x3 same, batch norm, relu, conv 64 3x3 same, batch norm, relu, max-pool 2,
       dropout 0.25, flatten, dense 10 (batch norm: momentum 0.99, epsilon 1e-3, as Keras')

The frameworks, each model in a process of its own (PyTorch and TensorFlow abort when both load
LLVM into one process), everything on the CPU:
  duet           the binary: fit with the step traced into one duet::function on the first
                 batch; its data pipeline is from_tensor_slices.shuffle(60000).batch(64)
                 .prefetch(2); its epochs also write TensorBoard logs and a checkpoint
  duet_eager     the binary with --eager: every op of the step runs eagerly
  duet_python    the same model, pipeline and schedule written in Python (duet.nn.Sequential,
                 duet.data, duet.fit: one traced step); the duet package must be importable
  torch          a loop over an index permutation of the in-memory tensors (NCHW for the CNN),
                 forward + metric, backward, Adam (foreach), LambdaLR stepped per batch;
                 validation under no_grad in eval mode; torch.set_num_threads(<cores>)
  torch_compile  the same loop with the forward + loss + metric under torch.compile (AOTAutograd
                 compiles the backward) and the Adam step under torch.compile (a tensor
                 learning rate, so the schedule does not recompile it)
  keras          model.fit(x, y, batch_size=64, validation_data=..., validation_batch_size=500)
                 on the numpy arrays: Keras 3 runs each step as a tf.function (jit_compile off,
                 Keras' default on a CPU); keras.optimizers.schedules.CosineDecay; TensorFlow's
                 default threading
The peers initialize as Keras does (Glorot-uniform kernels, zero biases), PyTorch included.

Seconds per epoch are wall time from epoch begin to epoch end, the validation included (as
Keras' progress bar and the duet binary report them), averaged over all the run's epochs, the
first included (duet's tracing, torch.compile's compilation, tf.function's tracing);
first_epoch_seconds is the first alone and later_epochs_seconds the mean of the others (with
--epochs above 1; for duet from when its progress lines arrive). test_accuracy is the last
epoch's validation accuracy. The output is `name<TAB>value<TAB>unit` lines,
fashion_mnist_<model>/<framework>/<value>, then fashion_mnist_<model>/ratio_to_duet/<framework>:
the framework's seconds per epoch over duet's (traced; above 1: duet is faster), and the same
for later epochs. Progress goes to stderr. --limit_steps N (a quick check) caps the training
and validation batches of each epoch at N in every framework (--steps=N for duet).
"""
import argparse
import gzip
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

from peer_timing import emit  # noqa: E402

MODELS = ["mlp", "cnn"]
FRAMEWORKS = ["duet", "duet_eager", "duet_python", "torch", "torch_compile", "keras"]
# Run by this script in a worker process (duet_python: the same model written in Python).
PEERS = ["duet_python", "torch", "torch_compile", "keras"]
BATCH = 64
VALIDATION_BATCH = 500
LEARNING_RATE = 1e-3
DATA_DIR = os.environ.get("DUET_FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist")


def read_idx(name):
    """A gzipped IDX file of unsigned bytes as a numpy array of its shape."""
    with gzip.open(os.path.join(DATA_DIR, name), "rb") as f:
        raw = f.read()
    zero, dtype, ndim = struct.unpack(">HBB", raw[:4])
    if zero != 0 or dtype != 0x08:
        raise ValueError(f"{name}: not an IDX file of unsigned bytes")
    shape = struct.unpack(">" + "I" * ndim, raw[4:4 + 4 * ndim])
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * ndim).reshape(shape)


def fashion_mnist():
    """((train images, labels), (test images, labels)): float32 (N, 28, 28, 1) in [0, 1], int64."""

    def split(prefix):
        images = read_idx(f"{prefix}-images-idx3-ubyte.gz")
        labels = read_idx(f"{prefix}-labels-idx1-ubyte.gz")
        return (images.astype(np.float32) / 255.0).reshape(-1, 28, 28, 1), labels.astype(np.int64)

    return split("train"), split("t10k")


def steps_per_epoch(examples, batch, limit):
    steps = math.ceil(examples / batch)
    return min(steps, limit) if limit else steps


# ---- PyTorch ---------------------------------------------------------------------------------


def torch_model(model):
    nn = torch.nn
    if model == "mlp":
        net = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128),
                            nn.ReLU(), nn.Linear(128, 10))
    else:
        # Keras' BatchNormalization(momentum=0.99) keeps 0.99 of the old statistics; PyTorch's
        # momentum is the weight of the new batch.
        net = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32, 1e-3, 0.01),
                            nn.ReLU(), nn.Conv2d(32, 64, 3, padding=1),
                            nn.BatchNorm2d(64, 1e-3, 0.01), nn.ReLU(), nn.MaxPool2d(2),
                            nn.Dropout(0.25), nn.Flatten(), nn.Linear(64 * 14 * 14, 10))
    for layer in net.modules():
        if isinstance(layer, (nn.Linear, nn.Conv2d)):  # Keras' initializers
            nn.init.xavier_uniform_(layer.weight)
            nn.init.zeros_(layer.bias)
    return net


def train_torch(model, compiled, epochs, limit):
    """Trains `model`; returns (seconds of each epoch, last validation accuracy)."""
    torch.manual_seed(1)
    torch.set_num_threads(os.cpu_count())
    (x_train, y_train), (x_test, y_test) = [(torch.from_numpy(x), torch.from_numpy(y))
                                            for x, y in fashion_mnist()]
    if model == "cnn":  # NCHW, PyTorch's native layout
        x_train = x_train.permute(0, 3, 1, 2).contiguous()
        x_test = x_test.permute(0, 3, 1, 2).contiguous()
    net = torch_model(model)
    steps = steps_per_epoch(len(y_train), BATCH, limit)
    validation_steps = steps_per_epoch(len(y_test), VALIDATION_BATCH, limit)
    total_steps = epochs * steps
    # A tensor rate: the compiled step reads it instead of recompiling for each new value.
    opt = torch.optim.Adam(net.parameters(), lr=torch.tensor(LEARNING_RATE) if compiled else
                           LEARNING_RATE, eps=1e-7)
    # Keras' CosineDecay: step k (from 0) runs at 1e-3 * (1 + cos(pi * k / total)) / 2.
    schedule = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda k: 0.5 * (1 + math.cos(math.pi * min(k, total_steps) / total_steps)))

    def forward(x, y):  # the loss, and how many predictions are right
        logits = net(x)
        loss = torch.nn.functional.cross_entropy(logits, y)
        return loss, (logits.argmax(1) == y).sum()

    def update():
        opt.step()

    if compiled:
        forward, update = torch.compile(forward), torch.compile(update)
    generator = torch.Generator().manual_seed(1)
    seconds, accuracy = [], 0.0
    for epoch in range(epochs):
        start = time.perf_counter()
        net.train()
        order = torch.randperm(len(y_train), generator=generator)
        loss_sum, correct, seen = torch.zeros(()), torch.zeros((), dtype=torch.int64), 0
        for step in range(steps):
            batch = order[step * BATCH:(step + 1) * BATCH]
            x, y = x_train[batch], y_train[batch]
            loss, right = forward(x, y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            update()
            schedule.step()
            loss_sum += loss.detach() * len(y)
            correct += right
            seen += len(y)
        net.eval()
        val_correct, val_seen = torch.zeros((), dtype=torch.int64), 0
        with torch.no_grad():
            for step in range(validation_steps):
                x = x_test[step * VALIDATION_BATCH:(step + 1) * VALIDATION_BATCH]
                y = y_test[step * VALIDATION_BATCH:(step + 1) * VALIDATION_BATCH]
                val_correct += forward(x, y)[1]
                val_seen += len(y)
        accuracy = val_correct.item() / val_seen
        seconds.append(time.perf_counter() - start)
        print(f"epoch {epoch + 1}/{epochs}: {seconds[-1]:.2f} s, loss {loss_sum.item() / seen:.4f},"
              f" accuracy {correct.item() / seen:.4f}, val_accuracy {accuracy:.4f}",
              file=sys.stderr, flush=True)
    return seconds, accuracy


# ---- Keras -----------------------------------------------------------------------------------


def keras_model(model):
    L = keras.layers
    if model == "mlp":
        layers = [L.Flatten(), L.Dense(256, activation="relu"), L.Dense(128, activation="relu"),
                  L.Dense(10)]
    else:
        layers = [L.Conv2D(32, 3, padding="same"), L.BatchNormalization(), L.ReLU(),
                  L.Conv2D(64, 3, padding="same"), L.BatchNormalization(), L.ReLU(),
                  L.MaxPooling2D(2), L.Dropout(0.25), L.Flatten(), L.Dense(10)]
    return keras.Sequential([keras.Input((28, 28, 1))] + layers)


def train_keras(model, epochs, limit):
    """Trains `model` with model.fit; returns (seconds of each epoch, last validation accuracy)."""
    keras.utils.set_random_seed(1)
    (x_train, y_train), (x_test, y_test) = fashion_mnist()
    steps = steps_per_epoch(len(y_train), BATCH, limit)
    net = keras_model(model)
    net.compile(optimizer=keras.optimizers.Adam(
                    keras.optimizers.schedules.CosineDecay(LEARNING_RATE, epochs * steps)),
                loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                metrics=["accuracy"], jit_compile=False)

    class EpochTimer(keras.callbacks.Callback):  # Keras validates before on_epoch_end
        def __init__(self):
            super().__init__()
            self.seconds = []

        def on_epoch_begin(self, epoch, logs=None):
            self.start = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            self.seconds.append(time.perf_counter() - self.start)

    timer = EpochTimer()
    history = net.fit(x_train, y_train, batch_size=BATCH, epochs=epochs, shuffle=True,
                      steps_per_epoch=limit or None, validation_data=(x_test, y_test),
                      validation_batch_size=VALIDATION_BATCH, validation_steps=limit or None,
                      callbacks=[timer], verbose=2)
    return timer.seconds, history.history["val_accuracy"][-1]


# ---- duet from Python -------------------------------------------------------------------------


def duet_python_model(model):
    nn = duet.nn
    if model == "mlp":
        layers = [nn.Flatten(), nn.Dense(256, activation="relu"),
                  nn.Dense(128, activation="relu"), nn.Dense(10)]
    else:
        layers = [nn.Conv2D(32, 3, padding="same"), nn.BatchNormalization(), nn.relu,
                  nn.Conv2D(64, 3, padding="same"), nn.BatchNormalization(), nn.relu,
                  nn.MaxPooling2D(2), nn.Dropout(0.25, seed=1), nn.Flatten(), nn.Dense(10)]
    return nn.Sequential(layers, name=model)


def train_duet_python(model, epochs, limit):
    """Trains `model` with duet.fit; returns (seconds of each epoch, last validation accuracy)."""
    duet.set_random_seed(1)
    (x_train, y_train), (x_test, y_test) = fashion_mnist()
    steps = steps_per_epoch(len(y_train), BATCH, limit)
    train = (duet.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(60000, seed=1)
             .batch(BATCH).prefetch(2))
    test = duet.data.Dataset.from_tensor_slices((x_test, y_test)).batch(VALIDATION_BATCH)
    optimizer = duet.optimizers.Adam(
        duet.optimizers.schedules.CosineDecay(LEARNING_RATE, epochs * steps))

    class EpochTimer(duet.callbacks.Callback):  # duet.fit validates before on_epoch_end
        seconds = []

        def on_epoch_begin(self, epoch, logs=None):
            self.start = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            self.seconds.append(time.perf_counter() - self.start)

    timer = EpochTimer()
    history = duet.fit(duet_python_model(model),
                       duet.losses.SparseCategoricalCrossentropy(from_logits=True), optimizer,
                       train, epochs=epochs, validation=test,
                       metrics=[duet.metrics.SparseCategoricalAccuracy(name="accuracy")],
                       callbacks=[timer], steps_per_epoch=limit or None,
                       validation_steps=limit or None, verbose=1)
    return timer.seconds, history.history["val_accuracy"][-1]


# ---- the worker and the driver ---------------------------------------------------------------


def measurements(prefix, seconds, accuracy):
    """The (name, value, unit) lines of a run with these epoch times and this accuracy."""
    lines = [(f"{prefix}/seconds_per_epoch", sum(seconds) / len(seconds), "s"),
             (f"{prefix}/first_epoch_seconds", seconds[0], "s")]
    if len(seconds) > 1:
        lines.append((f"{prefix}/later_epochs_seconds", sum(seconds[1:]) / (len(seconds) - 1),
                      "s"))
    return lines + [(f"{prefix}/test_accuracy", float(accuracy), "fraction")]


def worker(framework, model, epochs, limit):
    """Trains one model in one peer framework and prints its lines (a process of its own).
    Whatever else writes to stdout (Keras' progress, library warnings) goes to stderr."""
    global torch, keras, duet
    results = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    if framework == "duet_python":
        import duet
        seconds, accuracy = train_duet_python(model, epochs, limit)
    elif framework == "keras":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        os.environ["KERAS_BACKEND"] = "tensorflow"
        import keras
        seconds, accuracy = train_keras(model, epochs, limit)
    else:
        import torch
        seconds, accuracy = train_torch(model, framework == "torch_compile", epochs, limit)
    sys.stdout = results
    for line in measurements(f"fashion_mnist_{model}/{framework}", seconds, accuracy):
        emit(*line)
    results.flush()


def stream(command, on_line):
    """Runs `command`, calling on_line(line, arrival time) for each line of its stdout (stderr
    passes through); returns its exit status."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, bufsize=1)
    for line in process.stdout:
        on_line(line.rstrip("\n"), time.perf_counter())
    return process.wait()


def collect(line, values):
    """Echoes a `name<TAB>value<TAB>unit` line to stdout and keeps its value; anything else goes
    to stderr."""
    fields = line.split("\t")
    if len(fields) == 3 and fields[0].startswith("fashion_mnist_"):
        print(line, flush=True)
        values[fields[0]] = float(fields[1])
    else:
        print(line, file=sys.stderr, flush=True)


def run_duet(binary, framework, model, epochs, limit, values, keep_dir=None):
    out = keep_dir or tempfile.mkdtemp(prefix="duet_fashion_mnist_bench_")
    command = [binary, f"--model={model}", f"--epochs={epochs}", f"--out={out}"]
    if framework == "duet_eager":
        command.append("--eager")
    if limit:
        command.append(f"--steps={limit}")
    epoch_begins, result = [], []

    def on_line(line, now):
        print(line, file=sys.stderr, flush=True)
        if re.match(r"Epoch \d+/\d+$", line):
            epoch_begins.append(now)
        elif line.startswith("result "):
            result.append(line)

    try:
        status = stream(command, on_line)
    finally:
        if not keep_dir:
            shutil.rmtree(out, ignore_errors=True)
    match = re.search(r"seconds_per_epoch=([\d.]+) test_accuracy=([\d.]+)", result[-1]) \
        if result else None
    if not match:
        raise RuntimeError(f"{' '.join(command)} exited with {status} and no result line")
    if status != 0:  # its SavedModel check failed; the training it timed is still valid
        print(f"# {framework} {model}: exit status {status} after its result line",
              file=sys.stderr)
    mean, accuracy = float(match.group(1)), float(match.group(2))
    # The mean is the binary's own timing; the first epoch is from when its progress lines came.
    first = epoch_begins[1] - epoch_begins[0] if len(epoch_begins) > 1 else mean
    seconds = [first]
    if epochs > 1:
        seconds += [(mean * epochs - first) / (epochs - 1)] * (epochs - 1)
    for name, value, unit in measurements(f"fashion_mnist_{model}/{framework}", seconds,
                                          accuracy):
        emit(name, value, unit)
        values[name] = value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary", help="bazel-bin/examples/fashion_mnist")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--frameworks", default=",".join(FRAMEWORKS))
    parser.add_argument("--limit_steps", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--duet_out", help="keep the traced duet runs' logs, checkpoints and "
                        "exports here (the binary's --out), e.g. for tools/plot_training.py")
    parser.add_argument("--worker", help=argparse.SUPPRESS)  # framework,model
    args = parser.parse_args()
    if args.worker:
        framework, model = args.worker.split(",")
        worker(framework, model, args.epochs, args.limit_steps)
        return
    models, frameworks = args.models.split(","), args.frameworks.split(",")
    for name in models:
        if name not in MODELS:
            parser.error(f"--models: {name} is none of {','.join(MODELS)}")
    for name in frameworks:
        if name not in FRAMEWORKS:
            parser.error(f"--frameworks: {name} is none of {','.join(FRAMEWORKS)}")
    binary = os.path.abspath(args.binary)
    values, failed = {}, []
    for model in models:
        for framework in frameworks:
            print(f"== {framework} {model}", file=sys.stderr, flush=True)
            try:
                if framework in PEERS:
                    command = [sys.executable, os.path.abspath(__file__), binary,
                               f"--epochs={args.epochs}", f"--limit_steps={args.limit_steps}",
                               f"--worker={framework},{model}"]
                    status = stream(command, lambda line, _: collect(line, values))
                    if status != 0:
                        raise RuntimeError(f"the worker exited with {status}")
                else:
                    keep = args.duet_out if framework == "duet" else None
                    run_duet(binary, framework, model, args.epochs, args.limit_steps, values, keep)
            except (RuntimeError, OSError) as e:
                failed.append(f"{framework} {model}")
                print(f"# {framework} {model} failed: {e}", flush=True)
        duet = values.get(f"fashion_mnist_{model}/duet/seconds_per_epoch")
        duet_later = values.get(f"fashion_mnist_{model}/duet/later_epochs_seconds")
        for framework in frameworks:
            prefix = f"fashion_mnist_{model}/{framework}"
            if framework == "duet" or f"{prefix}/seconds_per_epoch" not in values or not duet:
                continue
            emit(f"fashion_mnist_{model}/ratio_to_duet/{framework}",
                 values[f"{prefix}/seconds_per_epoch"] / duet, "x")
            if duet_later and f"{prefix}/later_epochs_seconds" in values:
                emit(f"fashion_mnist_{model}/later_epochs_ratio_to_duet/{framework}",
                     values[f"{prefix}/later_epochs_seconds"] / duet_later, "x")
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
