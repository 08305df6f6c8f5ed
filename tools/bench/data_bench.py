#!/usr/bin/env python3
"""data::Dataset against tf.data on the same Fashion-MNIST-shaped pipelines: synthetic uint8 images
(60000, 28, 28) and int64 labels, pixels cast to float32 and divided by 255, shuffle 60000,
batch 64, prefetch 2; elements per second over one epoch.

    bazel build //tools/bench:data_bench
    ~/.venvs/duet/bin/python tools/bench/data_bench.py bazel-bin/tools/bench/data_bench [--rounds 3]

The cases (data_bench.cc has the duet side):
  *_per_element_serial    map(normalise) per image in the iterating thread (tf.data:
                          num_parallel_calls=None), then shuffle, batch, prefetch
  *_per_element_parallel  the same on 2 threads (duet: 2 workers; tf.data: num_parallel_calls=2)
  *_batched               shuffle, batch, then map(normalise) per batch, prefetch
Each process times one warm-up epoch and then DUET_BENCH_REPS (5) epochs, taking their median;
each round runs duet, then TensorFlow in a process of its own. The output is every round's lines,
the median over rounds of every line (with its range) and the ratios duet/tf.data in elements/s
(above 1: duet is faster), as `name<TAB>value<TAB>unit`.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from peer_timing import emit, run_benchmark  # noqa: E402

IMAGES = 60000
REPS = max(1, int(os.environ.get("DUET_BENCH_REPS", "5")))


def time_tensorflow():
    import numpy as np
    import tensorflow as tf

    rng = np.random.default_rng(1)
    images = rng.integers(0, 256, size=(IMAGES, 28, 28)).astype(np.uint8)
    labels = rng.integers(0, 10, size=(IMAGES,)).astype(np.int64)

    def normalise(image, label):
        return tf.cast(image, tf.float32) / 255.0, label

    def per_element(parallel):
        return (tf.data.Dataset.from_tensor_slices((images, labels))
                .map(normalise, num_parallel_calls=parallel)
                .shuffle(IMAGES, seed=1).batch(64).prefetch(2))

    def batched():
        return (tf.data.Dataset.from_tensor_slices((images, labels))
                .shuffle(IMAGES, seed=1).batch(64).map(normalise).prefetch(2))

    def elements_per_second(ds):
        def epoch():
            n = 0
            start = time.perf_counter()
            for image, _ in ds:
                n += image.shape[0]
            seconds = time.perf_counter() - start
            assert n == IMAGES, n
            return n / seconds

        epoch()  # warm-up
        return statistics.median(epoch() for _ in range(REPS))

    emit("tfdata_per_element_serial", elements_per_second(per_element(None)), "elements/s")
    emit("tfdata_per_element_parallel", elements_per_second(per_element(2)), "elements/s")
    emit("tfdata_batched", elements_per_second(batched()), "elements/s")



def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--peer", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.peer:
        time_tensorflow()
        return
    me = [sys.executable, os.path.abspath(__file__), args.binary, "--peer"]
    results = {}
    for _ in range(args.rounds):
        subprocess.run(["uptime"], check=False)
        for command in ([args.binary], me):
            for key, value in run_benchmark(command).items():
                results.setdefault(key, []).append(value)
    print("# medians over rounds (min-max)")
    medians = {}
    for (name, unit), values in results.items():
        medians[name] = statistics.median(values)
        print(f"median.{name}\t{medians[name]:.1f}\t{unit}\t"
              f"# {min(values):.1f}-{max(values):.1f}", flush=True)
    for case in ["per_element_serial", "per_element_parallel", "batched"]:
        emit(f"ratio.data_{case}_to_tfdata", medians["data_" + case] / medians["tfdata_" + case],
             "x")


if __name__ == "__main__":
    main()
