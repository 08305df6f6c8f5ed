"""TensorBoard reads the event file export_duet_summaries wrote: its EventAccumulator finds every
scalar, histogram, image, the text and the graph, with the values TensorFlow computes for the same
inputs (TF1's histogram op, tf.summary.image's uint8 conversion and PNG decoding).
Usage: check_duet_summaries_in_tb.py LOGDIR"""
import sys

import numpy as np
import tensorflow as tf
from tensorboard.backend.event_processing import event_accumulator

logdir = sys.argv[1]
acc = event_accumulator.EventAccumulator(logdir, size_guidance={
    event_accumulator.SCALARS: 0, event_accumulator.HISTOGRAMS: 0,
    event_accumulator.IMAGES: 0, event_accumulator.TENSORS: 0})
acc.Reload()
tags = acc.Tags()
print("tags:", tags)
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def scalars(tag):
    return [(e.step, e.value) for e in acc.Scalars(tag)]


check(scalars("loss") == [(s, np.float32(1.0 / (s + 1))) for s in range(5)],
      "scalar loss from a traced step: %s" % scalars("loss"))
check(scalars("lr") == [(s, np.float32(0.01 * (s + 1))) for s in range(5)],
      "scalar lr from a C++ number: %s" % scalars("lr"))

# Histograms: what TensorFlow's own HistogramSummary op makes of the same float32 values.
histograms = acc.Histograms("w")
check([h.step for h in histograms] == [0, 1], "histogram steps %s" % [h.step for h in histograms])
for h in histograms:
    values = ((np.arange(101, dtype=np.float32) - 50) / np.float32(25.0) * np.float32(h.step + 1))
    serialized = tf.compat.v1.summary.histogram("w", tf.constant(values)).numpy()
    expected = tf.compat.v1.Summary.FromString(serialized).value[0].histo
    got = h.histogram_value
    check(list(got.bucket_limit) == list(expected.bucket_limit) and
          list(got.bucket) == list(expected.bucket) and
          (got.min, got.max, got.num) == (expected.min, expected.max, expected.num) and
          np.isclose(got.sum, expected.sum) and np.isclose(got.sum_squares, expected.sum_squares),
          "histogram w at step %d equals TensorFlow's (%d buckets)" % (h.step, len(got.bucket)))

# Images: decoded PNGs equal tf.summary.image's conversion of the same floats.
h, w, c = np.meshgrid(np.arange(4), np.arange(5), np.arange(3), indexing="ij")
first = ((h * 15 + w * 3 + c) / np.float32(60.0)).astype(np.float32)
for n, floats in enumerate([first, np.float32(1.0) - first]):
    events = acc.Images("x/image/%d" % n)
    check(len(events) == 1 and events[0].step == 3 and events[0].width == 5 and
          events[0].height == 4, "image x/image/%d: one at step 3, 5x4" % n)
    decoded = tf.io.decode_png(events[0].encoded_image_string).numpy()
    expected = tf.image.convert_image_dtype(floats, tf.uint8, saturate=True).numpy()
    check(decoded.shape == (4, 5, 3) and np.array_equal(decoded, expected),
          "image x/image/%d pixels equal tf.summary.image's" % n)

# Text: a string tensor of the text plugin.
texts = acc.Tensors("notes")
check(len(texts) == 1 and texts[0].step == 0 and
      tf.make_ndarray(texts[0].tensor_proto) == b"hello **TensorBoard**",
      "text notes reads back")
check(acc.SummaryMetadata("notes").plugin_data.plugin_name == "text", "text has plugin 'text'")

# The graph of the traced step.
graph = acc.Graph()
ops = sorted({node.op for node in graph.node})
check("DuetHostFunction" in ops and len(graph.node) > 2, "graph reads back, ops %s" % ops)

if failures:
    print("%d checks failed" % len(failures))
    sys.exit(1)
print("all checks passed")
