"""Prints the expected values of tests/ops/array/space_batch_ops_test.cc, computed by TensorFlow.

    ~/.venvs/duet/bin/python tests/ops/array/testdata/gen_space_batch_expected.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def show(name, t):
    t = np.asarray(t)
    print(f"{name}: shape {list(t.shape)} values {t.reshape(-1).tolist()}")


x = np.arange(48).reshape(2, 3, 4, 2)
show("space_to_batch_nd(x, [2, 2], [[1, 0], [0, 2]])",
     tf.space_to_batch_nd(x, [2, 2], [[1, 0], [0, 2]]))
show("batch_to_space_nd(arange(16).reshape(8, 1, 2, 1), [2, 2], [[0, 1], [1, 0]])",
     tf.batch_to_space(np.arange(16).reshape(8, 1, 2, 1), [2, 2], [[0, 1], [1, 0]]))
show("space_to_batch_nd(arange(10).reshape(2, 5, 1), [3], [[2, 2]])",
     tf.space_to_batch_nd(np.arange(10).reshape(2, 5, 1), [3], [[2, 2]]))
