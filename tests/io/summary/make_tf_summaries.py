"""Prints the TensorFlow values summary_test.cc checks against: the HistogramProto that TF1's
HistogramSummary op writes for a few inputs, and the uint8 pixels tf.summary.image stores for float
pixels. Run: ~/.venvs/duet/bin/python tests/io/summary/make_tf_summaries.py"""
import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()


def histogram(values):
    with tf.compat.v1.Session() as sess:
        serialized = sess.run(tf.compat.v1.summary.histogram("h", tf.constant(values, tf.float64)))
    summary = tf.compat.v1.Summary.FromString(serialized)
    return summary.value[0].histo


for values in ([1.0, 2.0, 3.0], [-0.5, 0.0, 0.25, 1e-13, 7.0], [0.0]):
    h = histogram(values)
    print("values", values)
    print("  min max num sum sum_squares", h.min, h.max, h.num, h.sum, h.sum_squares)
    print("  bucket_limit", [repr(x) for x in h.bucket_limit])
    print("  bucket", list(h.bucket))

pixels = tf.constant([0.0, 0.2, 0.5, 0.999, 1.0, 1.5, -0.1])
with tf.compat.v1.Session() as sess:
    print("convert_image_dtype",
          sess.run(tf.image.convert_image_dtype(pixels, tf.uint8, saturate=True)))
