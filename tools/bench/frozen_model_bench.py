#!/usr/bin/env python3
"""Frozen Keras models: `duet bench` against TensorFlow running the same GraphDef.

    bazel build //tools:duet
    ~/.venvs/duet/bin/python tools/bench/frozen_model_bench.py bazel-bin/tools/duet \
        [--models mobilenetv2,resnet50,transformer] [--batches 1,32] [--threads 2] [--rounds 3]

For each model (random weights, batch norm with non-trivial statistics, as tests/interop/
keras_zoo.py builds them) it freezes the inference graph as TensorFlow 2 writes it, checks that
`duet run` gives TensorFlow's outputs, then alternates, round by round, TensorFlow
(`tf.compat.v1.Session`, `intra_op_parallelism_threads` = `inter_op_parallelism_threads` =
--threads) and `duet bench --threads` on the same feeds, each the median of --runs runs after a
warm-up. Prints `name<TAB>value<TAB>unit` lines: each round's medians, then the median over rounds
and the ratio tensorflow/duet (above 1: duet is faster). onnxruntime joins when tf2onnx and
onnxruntime are importable; otherwise a line says it was skipped. --baseline adds another duet
binary (an older build, say) as `duet_baseline`, timed in the same rounds.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "interop"))
import keras_zoo  # noqa: E402

L = keras.layers
IMAGE = 96  # input height and width of the convolutional models


def transformer(seq=64, dim=128, heads=4, ff=256, blocks=2):
    """A pre-norm transformer encoder (MultiHeadAttention, LayerNormalization, GELU MLP)."""
    x = inputs = keras.Input((seq, dim))
    for _ in range(blocks):
        h = L.LayerNormalization(epsilon=1e-6)(x)
        h = L.MultiHeadAttention(num_heads=heads, key_dim=dim // heads)(h, h)
        x = L.Add()([x, h])
        h = L.LayerNormalization(epsilon=1e-6)(x)
        h = L.Dense(ff, activation="gelu")(h)
        x = L.Add()([x, L.Dense(dim)(h)])
    y = L.GlobalAveragePooling1D()(L.LayerNormalization(epsilon=1e-6)(x))
    return keras.Model(inputs, L.Dense(10)(y)), (seq, dim)


def application(constructor):
    def build():
        model = constructor(weights=None, input_shape=(IMAGE, IMAGE, 3), classes=10,
                            classifier_activation=None)
        return model, (IMAGE, IMAGE, 3)
    return build


MODELS = {
    "mobilenetv2": application(keras.applications.MobileNetV2),  # depthwise-separable
    "resnet50": application(keras.applications.ResNet50),  # residual
    "transformer": transformer,  # attention
}


def emit(name, value, unit):
    print(f"{name}\t{value:.4g}\t{unit}", flush=True)


def tf_session(graph_def, threads):
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=threads,
                                      inter_op_parallelism_threads=threads)
    return tf.compat.v1.Session(graph=graph, config=config)


def tf_median_ms(session, feeds, fetches, runs):
    session.run(fetches, feeds)  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        session.run(fetches, feeds)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def duet_bench_ms(duet_bin, model_path, feed_args, output, runs, threads):
    cmd = [duet_bin, "bench", model_path, *feed_args, "--output", output, "--runs", str(runs),
           "--threads", str(threads)]
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    fields = dict(line.split("\t")[:2] for line in r.stdout.splitlines())
    return float(fields["p50"])


def onnx_session(graph_def, input_names, output_names, threads):
    """An onnxruntime session of the frozen graph, or None with why it could not be made."""
    try:
        import onnxruntime
        import tf2onnx
    except ImportError as e:
        return None, f"not installed ({e.name})"
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    try:
        proto, _ = tf2onnx.convert.from_graph_def(graph_def, input_names=input_names,
                                                  output_names=output_names)
        return onnxruntime.InferenceSession(proto.SerializeToString(), options), None
    except Exception as e:  # noqa: BLE001: a model that does not convert is reported
        return None, f"the model does not convert: {type(e).__name__}: {str(e)[:200]}"


def bench_model(name, duet_bin, baseline_bin, batches, threads, runs, rounds, rng, workdir):
    keras.backend.clear_session()
    model, shape = MODELS[name]()
    keras_zoo.randomize_weights(model, rng)
    example = [np.zeros((1,) + shape, np.float32)]
    graph_def, input_names, output_names = keras_zoo.freeze(model, example)
    model_path = os.path.join(workdir, f"{name}.pb")
    with open(model_path, "wb") as f:
        f.write(graph_def.SerializeToString())
    session = tf_session(graph_def, threads)
    ort, why_not = onnx_session(graph_def, input_names, output_names, threads)
    if ort is None:
        print(f"# {name}: onnxruntime skipped: {why_not}", flush=True)
    for batch in batches:
        x = rng.uniform(size=(batch,) + shape).astype(np.float32)
        feeds = {input_names[0]: x}
        reference = session.run(output_names, feeds)
        duet_out, error = keras_zoo.run_duet(duet_bin, graph_def, input_names, output_names, [x],
                                             workdir)
        if error:
            sys.exit(f"{name}: duet run failed: {error}")
        diff, _ = keras_zoo.compare(duet_out, reference)
        emit(f"check.{name}_b{batch}.max_abs_diff", diff, "abs")
        feed_path = os.path.join(workdir, f"{name}_b{batch}.npy")
        np.save(feed_path, x)
        feed_args = ["--input", f"{input_names[0]}={feed_path}"]
        results = {"tensorflow": [], "duet": [], "duet_baseline": [], "onnxruntime": []}
        for r in range(rounds):
            results["tensorflow"].append(tf_median_ms(session, feeds, output_names, runs))
            results["duet"].append(duet_bench_ms(duet_bin, model_path, feed_args, output_names[0],
                                                 runs, threads))
            if baseline_bin:
                results["duet_baseline"].append(duet_bench_ms(baseline_bin, model_path, feed_args,
                                                              output_names[0], runs, threads))
            if ort is not None:
                ort_feeds = {input_names[0]: x}
                results["onnxruntime"].append(
                    tf_median_ms(_OrtRunner(ort), ort_feeds, None, runs))
            for peer, times in results.items():
                if times:
                    emit(f"{peer}.{name}_b{batch}.round{r}", times[-1], "ms")
        medians = {peer: statistics.median(t) for peer, t in results.items() if t}
        for peer, value in medians.items():
            emit(f"{peer}.{name}_b{batch}", value, "ms")
        for peer in ("tensorflow", "onnxruntime", "duet_baseline"):
            if peer in medians:
                emit(f"ratio.{name}_b{batch}.{peer}/duet", medians[peer] / medians["duet"], "x")
    session.close()


class _OrtRunner:
    """onnxruntime behind the `run(fetches, feeds)` call tf_median_ms makes."""

    def __init__(self, session):
        self.session = session

    def run(self, fetches, feeds):
        return self.session.run(fetches, feeds)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("duet_bin")
    parser.add_argument("--models", default="mobilenetv2,resnet50,transformer")
    parser.add_argument("--batches", default="1,32")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", metavar="DUET_BIN", help="another duet binary to time")
    parser.add_argument("--keep", metavar="DIR",
                        help="write the frozen models and feeds here (for duet optimize, profilers)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    keras.utils.set_random_seed(0)
    batches = [int(b) for b in args.batches.split(",")]
    print(f"# threads {args.threads}, runs {args.runs}, rounds {args.rounds}, "
          f"load {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        workdir = args.keep or scratch
        os.makedirs(workdir, exist_ok=True)
        for name in args.models.split(","):
            baseline = os.path.abspath(args.baseline) if args.baseline else None
            bench_model(name, os.path.abspath(args.duet_bin), baseline, batches, args.threads,
                        args.runs, args.rounds, rng, workdir)


if __name__ == "__main__":
    main()
