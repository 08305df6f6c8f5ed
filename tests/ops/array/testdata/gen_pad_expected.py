#!/usr/bin/env python3
"""Prints the TensorFlow reference values pasted into tests/ops/array/slice_pad_ops_test.cc.

Inputs are sequences 1, 2, 3, ... (SequenceTensor(shape, 1)); MirrorPadGrad's dy is the sequence
1, 2, 3, ... of the padded shape. Run: ~/.venvs/duet/bin/python gen_pad_expected.py
"""
import numpy as np
import tensorflow as tf
from tensorflow.python.ops import gen_array_ops


def seq(shape):
    return tf.constant(np.arange(1, int(np.prod(shape)) + 1, dtype=np.float64).reshape(shape))


def show(name, t):
    values = ", ".join("%.9g" % v for v in np.asarray(t).ravel())
    print("%s %s:\n  {%s}" % (name, list(t.shape), values))


CASES = [
    ((2, 3), [[1, 1], [2, 2]]),
    ((2, 3, 4), [[1, 0], [0, 2], [3, 1]]),
]

for shape, paddings in CASES:
    print("// PadV2", shape, paddings, "constant -1.5")
    show("output", tf.pad(seq(shape), paddings, constant_values=-1.5))
    for mode in ("REFLECT", "SYMMETRIC"):
        if mode == "REFLECT":
            p = [[min(b, s - 1), min(a, s - 1)] for (b, a), s in zip(paddings, shape)]
        else:
            p = paddings
        print("// MirrorPad", mode, shape, p)
        show("output", tf.pad(seq(shape), p, mode=mode))
        padded = [s + b + a for s, (b, a) in zip(shape, p)]
        print("// MirrorPadGrad", mode, padded, p)
        show("output", gen_array_ops.mirror_pad_grad(seq(padded), p, mode=mode))
