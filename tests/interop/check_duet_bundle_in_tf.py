"""TensorFlow reads the bundle duet wrote (export_duet_bundle.cc): every tensor's dtype, shape and
values, through tf.train.load_checkpoint; then SaveV2 writes the same tensors, in the same order,
and the files must be byte-identical to duet's. Usage: check_duet_bundle_in_tf.py DIR"""
import os
import sys

import numpy as np
import tensorflow as tf


def halves(n, dtype):
    return (np.arange(n) * 0.5 - 3).astype(dtype)


EXPECTED = [  # in duet's add order
    ("model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE", halves(12, np.float32).reshape(3, 4)),
    ("float32", halves(6, np.float32).reshape(2, 3)),
    ("float64", np.array([3.141592653589793, -1e300, 5e-324], np.float64)),
    ("float16", halves(5, np.float16)),
    ("bfloat16", tf.constant(halves(4, np.float32).reshape(2, 2), tf.bfloat16)),
    ("int32", np.array([[2147483647], [-2147483648], [0]], np.int32)),
    ("int64", np.array([1, -9000000000000000000, 3000000000], np.int64)),
    ("bool", np.array([True, False, False, True])),
    ("scalar", np.float32(42.5)),
    ("empty", np.zeros([0, 3], np.float32)),
    ("strings", np.array([[b"a", b""], [b"x" * 300, b"nul\0byte"]], object)),
    ("scalar_string", np.array(b"hello", object)),
    ("empty_strings", np.zeros([0], object)),
] + [("many/%d" % i, np.array([i], np.int32)) for i in range(20000)]


def main(directory):
    prefix = os.path.join(directory, "duet_bundle")
    reader = tf.train.load_checkpoint(prefix)
    shapes = reader.get_variable_to_shape_map()
    dtypes = reader.get_variable_to_dtype_map()
    assert sorted(shapes) == sorted(k for k, _ in EXPECTED), "keys differ"
    for key, value in EXPECTED:
        want = tf.constant(value)
        got = reader.get_tensor(key)
        assert dtypes[key] == want.dtype, (key, dtypes[key], want.dtype)
        assert list(shapes[key]) == want.shape.as_list(), (key, shapes[key], want.shape)
        if want.dtype == tf.string:
            # Strings come back as bytes objects; NULs and lengths must survive.
            assert np.asarray(got).tolist() == np.asarray(want.numpy()).tolist(), (key, got)
        else:
            assert np.array_equal(np.asarray(got), want.numpy()), (key, got, want.numpy())
            assert np.asarray(got).dtype == want.dtype.as_numpy_dtype, (key, np.asarray(got).dtype)
    print("TensorFlow read all %d tensors of duet's bundle" % len(EXPECTED))

    tf_prefix = os.path.join(directory, "tf_bundle")
    tf.raw_ops.SaveV2(prefix=tf_prefix, tensor_names=[k for k, _ in EXPECTED],
                      shape_and_slices=[""] * len(EXPECTED),
                      tensors=[tf.constant(v) for _, v in EXPECTED])
    for suffix in (".index", ".data-00000-of-00001"):
        with open(prefix + suffix, "rb") as a, open(tf_prefix + suffix, "rb") as b:
            duet_bytes, tf_bytes = a.read(), b.read()
        assert duet_bytes == tf_bytes, "%s differs from TensorFlow's (%d vs %d bytes)" % (
            suffix, len(duet_bytes), len(tf_bytes))
    print("duet's bundle is byte-identical to TensorFlow's SaveV2 of the same tensors")


if __name__ == "__main__":
    main(sys.argv[1])
