"""Prints the expected values of tests/ops/nn/top_k_op_test.cc, computed by TensorFlow.

    ~/.venvs/duet/bin/python tests/ops/nn/testdata/gen_top_k_expected.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

# Ties: equal values come out lower index first.
x = np.array([[3, 1, 4, 1, 5, 9, 2, 6], [5, 3, 5, 8, 9, 7, 9, 3], [2, 2, 2, 2, 1, 1, 1, 1]],
             np.float32)
for k in (3, 8, 0):
    v, i = tf.math.top_k(x, k)
    print(f"top_k(x, {k}): values {v.numpy().reshape(-1).tolist()} indices "
          f"{i.numpy().reshape(-1).tolist()}")
y = (np.arange(24) * 7 % 11).reshape(2, 3, 4)
v, i = tf.math.top_k(y, 2)
print(f"top_k(y, 2): values {v.numpy().reshape(-1).tolist()} indices {i.numpy().reshape(-1).tolist()}")
