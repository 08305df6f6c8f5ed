"""Writes testdata/tf_bundle.{index,data-00000-of-00001} with TensorFlow's own SaveV2, for
tests/io/checkpoint/tensor_bundle_test.cc (which checks these values). Run with TensorFlow:
  ~/.venvs/duet/bin/python tests/io/checkpoint/testdata/make_tf_bundle.py
"""
import os

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))

TENSORS = {
    "float32": tf.constant([[1.5, -2.0, 3.25], [0.0, 1e-3, -7.0]], tf.float32),
    "int64": tf.constant([1, -2, 3000000000, -9000000000000000000], tf.int64),
    "int32": tf.constant([[7], [-8]], tf.int32),
    "float64": tf.constant([3.141592653589793, -0.5], tf.float64),
    "float16": tf.constant([0.5, -1.25, 65504.0], tf.float16),
    "bfloat16": tf.constant([1.0, -2.5, 256.0], tf.bfloat16),
    "bool": tf.constant([True, False, True], tf.bool),
    "scalar": tf.constant(42.0, tf.float32),
    "empty": tf.zeros([0, 3], tf.float32),
    "strings": tf.constant([["a", ""], ["x" * 200, "nul\0byte"]], tf.string),
    "empty_strings": tf.zeros([0], tf.string),
    "scalar_string": tf.constant("hello", tf.string),
    "model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE": tf.constant(
        np.arange(12, dtype=np.float32).reshape(3, 4)),
}

if __name__ == "__main__":
    names = sorted(TENSORS)
    tf.raw_ops.SaveV2(prefix=os.path.join(HERE, "tf_bundle"), tensor_names=names,
                      shape_and_slices=[""] * len(names), tensors=[TENSORS[n] for n in names])
