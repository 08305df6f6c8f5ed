#!/usr/bin/env python3
"""Writes resize_expected.txt beside this script: TensorFlow's values that
tests/ops/nn/resize_ops_test.cc reads.

Inputs follow the tests' Pattern() helper: pattern(n, mul, mod, shift, div)[i] =
((i * mul) % mod - shift) / div; images use (7, 11, 5, 4), gradients (3, 7, 3, 2).
Each case runs the raw ops with (align_corners, half_pixel_centers) in the three allowed modes.
One line per result:
    <op> <align_corners> <half_pixel_centers> <n> <h> <w> <c> <out_h> <out_w> : <values>
where (n, h, w, c) is the image's shape and (out_h, out_w) the resized size; the gradients take
the resized pattern (3, 7, 3, 2) and give the image's shape.
Run: ~/.venvs/duet/bin/python gen_resize_expected.py
"""
import os

import numpy as np
import tensorflow as tf

raw = tf.raw_ops


def pattern(shape, mul, mod, shift, div):
    n = int(np.prod(shape))
    return np.array([((i * mul) % mod - shift) / div for i in range(n)],
                    dtype=np.float32).reshape(shape)


lines = []


def record(op, align, half, shape, size, t):
    values = " ".join("%.9g" % v for v in np.asarray(t).ravel())
    lines.append("%s %d %d %d %d %d %d %d %d : %s" % ((op, align, half) + tuple(shape) +
                                                      tuple(size) + (values,)))


MODES = [(False, False), (True, False), (False, True)]
CASES = [((1, 3, 4, 2), (5, 7)), ((2, 4, 5, 1), (2, 3))]

for shape, size in CASES:
    x = pattern(shape, 7, 11, 5, 4)
    dy = pattern((shape[0], size[0], size[1], shape[3]), 3, 7, 3, 2)
    for align, half in MODES:
        kw = dict(align_corners=align, half_pixel_centers=half)
        record("ResizeBilinear", align, half, shape, size,
               raw.ResizeBilinear(images=x, size=size, **kw))
        record("ResizeNearestNeighbor", align, half, shape, size,
               raw.ResizeNearestNeighbor(images=x, size=size, **kw))
        record("ResizeBilinearGrad", align, half, shape, size,
               raw.ResizeBilinearGrad(grads=dy, original_image=x, **kw))
        record("ResizeNearestNeighborGrad", align, half, shape, size,
               raw.ResizeNearestNeighborGrad(grads=dy, size=shape[1:3], **kw))

# Keras freezes UpSampling2D(interpolation="bilinear") (and Resizing) to ResizeBilinear with
# half_pixel_centers; the test checks the layer's output as a ResizeBilinear line.
layer = tf.keras.layers.UpSampling2D(interpolation="bilinear")
fn = tf.function(layer).get_concrete_function(tf.TensorSpec([1, 3, 4, 2]))
resize = [n for n in fn.graph.as_graph_def().node if n.op.startswith("Resize")]
assert [(n.op, n.attr["align_corners"].b, n.attr["half_pixel_centers"].b) for n in resize] == [
    ("ResizeBilinear", False, True)], resize
record("ResizeBilinear", False, True, (1, 3, 4, 2), (6, 8),
       layer(pattern((1, 3, 4, 2), 7, 11, 5, 4)))

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "resize_expected.txt"),
          "w") as f:
    f.write("\n".join(lines) + "\n")
