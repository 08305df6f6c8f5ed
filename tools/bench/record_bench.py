#!/usr/bin/env python3
"""TFRecord read + Example parse: duet's record_bench against TensorFlow on the same file of
10,000 Examples (784 float32 "image" values and an int64 "label").

    bazel build //tools/bench:record_bench
    ~/.venvs/duet/bin/python tools/bench/record_bench.py bazel-bin/tools/bench/record_bench \
        [--rounds 5] [--dir DIR]

duet: io::RecordReader + data::parse_example in batches of 64, one thread. TensorFlow:
tf.data.TFRecordDataset(path).batch(64).map(tf.io.parse_example) iterated eagerly over one
epoch (tf.data's own threads, no num_parallel_calls). Both with the file in the page cache.
Each round runs the duet binary (itself a median of DUET_BENCH_REPS passes), then times
TensorFlow's pipeline (the median of as many passes). Prints every round's lines, the median over
rounds, and the ratio of records/s duet/TensorFlow (above 1: duet is faster), as
`name<TAB>value<TAB>unit`.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from peer_timing import emit  # noqa: E402

RECORDS = 10000
REPS = max(1, int(os.environ.get("DUET_BENCH_REPS", "7")))


def run_duet(binary, path):
    out = subprocess.run([binary, path], check=True, capture_output=True, text=True).stdout
    lines = {}
    for line in out.splitlines():
        name, value, unit = line.split("\t")
        lines[name] = (float(value), unit)
    return lines


def time_tensorflow(path):
    import tensorflow as tf

    spec = {"image": tf.io.FixedLenFeature([784], tf.float32),
            "label": tf.io.FixedLenFeature([], tf.int64)}
    ds = tf.data.TFRecordDataset(path).batch(64).map(lambda s: tf.io.parse_example(s, spec))

    def epoch():
        total = 0
        for batch in ds:
            total += int(tf.reduce_sum(batch["label"]))
        assert total == RECORDS // 10 * 45, total

    epoch()  # warm-up: page cache, graph tracing of the map function
    times = []
    for _ in range(REPS):
        start = time.perf_counter()
        epoch()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dir", default=None)
    args = parser.parse_args()
    dir_ = args.dir or tempfile.mkdtemp(prefix="record_bench")
    path = os.path.join(dir_, "examples.tfrecord")
    duet_rates, tf_rates = [], []
    for r in range(args.rounds):
        lines = run_duet(args.binary, path)  # writes the file on the first round
        for name, (value, unit) in lines.items():
            emit(f"round{r}_{name}", value, unit)
        duet_rates.append(lines["duet_read_parse"][0])
        seconds = time_tensorflow(path)
        tf_rates.append(RECORDS / seconds)
        emit(f"round{r}_tensorflow_read_parse_epoch", seconds * 1e3, "ms")
        emit(f"round{r}_tensorflow_read_parse", RECORDS / seconds, "records/s")
    duet_median, tf_median = statistics.median(duet_rates), statistics.median(tf_rates)
    emit("duet_read_parse", duet_median, "records/s")
    emit("tensorflow_read_parse", tf_median, "records/s")
    emit("ratio_duet_over_tensorflow", duet_median / tf_median, "x")


if __name__ == "__main__":
    main()
