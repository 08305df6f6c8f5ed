#!/usr/bin/env python3
"""Prints the TensorFlow reference values pasted into tests/ops/nn/depthwise_conv_ops_test.cc.

Inputs follow the tests' ModPattern() helper (see gen_expected.py):
    pattern(n, mul, mod, shift, div)[i] = ((i * mul) % mod - shift) / div
Forward values come from tf.nn.depthwise_conv2d (EXPLICIT as a list of paddings); the gradients
are tf.GradientTape's of sum(depthwise_conv2d(x, f) * dy), i.e. TensorFlow's
DepthwiseConv2dNativeBackpropInput / DepthwiseConv2dNativeBackpropFilter.
Run: ~/.venvs/duet/bin/python gen_depthwise_expected.py
"""
import numpy as np
import tensorflow as tf


def pattern(n, mul, mod, shift, div):
    return np.array([((i * mul) % mod - shift) / div for i in range(n)], dtype=np.float64)


def tensor(shape, mul, mod, shift, div):
    return tf.constant(pattern(int(np.prod(shape)), mul, mod, shift, div).reshape(shape))


def x_of(shape):
    return tensor(shape, 7, 11, 5, 4)


def f_of(shape):
    return tensor(shape, 5, 9, 4, 3)


def dy_of(shape):
    return tensor(shape, 3, 7, 3, 2)


def show(name, t):
    values = ", ".join("%.9g" % v for v in np.round(np.asarray(t).ravel(), 12) + 0.0)
    print("%s %s:\n  {%s}" % (name, list(t.shape), values))


def conv(x, f, strides, padding, dilations=(1, 1)):
    return tf.nn.depthwise_conv2d(x, f, [1, strides[0], strides[1], 1], padding,
                                  dilations=list(dilations))


FORWARD = [
    ("multiplier 1 SAME stride 2", (1, 5, 4, 2), (3, 3, 2, 1), (2, 2), "SAME", (1, 1)),
    ("multiplier 2 VALID", (1, 5, 4, 2), (3, 3, 2, 2), (1, 1), "VALID", (1, 1)),
    ("multiplier 2 VALID dilation 2", (1, 5, 4, 2), (2, 2, 2, 2), (1, 1), "VALID", (2, 2)),
    # TensorFlow's kernels take equal strides only (duet's take any).
    ("multiplier 3 SAME stride 2, batch 2", (2, 3, 4, 1), (2, 2, 1, 3), (2, 2), "SAME", (1, 1)),
    ("multiplier 2 EXPLICIT stride 2", (1, 5, 4, 2), (3, 3, 2, 2), (2, 2),
     [[0, 0], [1, 2], [2, 0], [0, 0]], (1, 1)),
]

BACKPROP = [
    ("multiplier 2 SAME stride 2", (1, 5, 4, 2), (3, 3, 2, 2), (2, 2), "SAME", (1, 1)),
    ("multiplier 2 VALID dilation 2", (1, 5, 4, 2), (2, 2, 2, 2), (1, 1), "VALID", (2, 2)),
]

for name, xs, fs, strides, padding, dil in FORWARD:
    print("//", name)
    show("output", conv(x_of(xs), f_of(fs), strides, padding, dil))

for name, xs, fs, strides, padding, dil in BACKPROP:
    x, f = tf.Variable(x_of(xs)), tf.Variable(f_of(fs))
    with tf.GradientTape() as tape:
        y = conv(x, f, strides, padding, dil)
        dy = dy_of(y.shape)
        loss = tf.reduce_sum(y * dy)
    dx, df = tape.gradient(loss, [x, f])
    print("//", name)
    show("out_backprop", dy)
    show("d_input", dx)
    show("d_filter", df)
