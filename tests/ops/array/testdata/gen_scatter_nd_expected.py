"""Prints the expected values of tests/ops/array/scatter_nd_ops_test.cc, computed by TensorFlow.

    ~/.venvs/duet/bin/python tests/ops/array/testdata/gen_scatter_nd_expected.py

x is np.arange(24).reshape(2, 3, 4), as testing::SequenceTensor makes it.
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

x = np.arange(24).reshape(2, 3, 4)


def show(name, t):
    t = np.asarray(t)
    print(f"{name}: shape {list(t.shape)} values {t.reshape(-1).tolist()}")


show("gather_nd(x, [[1, 2], [0, 1]])", tf.gather_nd(x, [[1, 2], [0, 1]]))
show("gather_nd(x, [[[1, 0, 3]], [[0, 2, 1]]])", tf.gather_nd(x, [[[1, 0, 3]], [[0, 2, 1]]]))
show("gather_nd(x, [[1]])", tf.gather_nd(x, [[1]]))
show("gather_nd(x, zeros((2, 0)))", tf.gather_nd(x, np.zeros((2, 0), np.int32)))
show("scatter_nd([[1], [3], [1]], [9, 10, 11], [5])",
     tf.scatter_nd([[1], [3], [1]], [9, 10, 11], [5]))
show("scatter_nd([[0, 1], [2, 0]], [[1, 2], [3, 4]], [3, 2, 2])",
     tf.scatter_nd([[0, 1], [2, 0]], [[1, 2], [3, 4]], [3, 2, 2]))
show("tensor_scatter_update(x, [[1, 2], [0, 0], [1, 2]], 100 + arange(12).reshape(3, 4))",
     tf.tensor_scatter_nd_update(x, [[1, 2], [0, 0], [1, 2]], 100 + np.arange(12).reshape(3, 4)))
show("tensor_scatter_add(x, [[1, 2, 3], [0, 0, 0], [1, 2, 3]], [10, 20, 30])",
     tf.tensor_scatter_nd_add(x, [[1, 2, 3], [0, 0, 0], [1, 2, 3]], [10, 20, 30]))
