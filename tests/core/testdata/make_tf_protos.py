#!/usr/bin/env python3
"""Writes TensorProtos serialized by real TensorFlow (pip install tensorflow-cpu) for
tests/core/tensor_proto_test.cc. Run from this folder: python3 make_tf_protos.py.

make_tensor_proto uses tensor_content for most arrays and the typed *_val fields for scalars and
constant-filled tensors; the cases below get both kinds.
"""
import numpy as np
import tensorflow as tf


def save(name, value, dtype=None, shape=None):
    proto = tf.make_tensor_proto(value, dtype=dtype, shape=shape)
    with open("tf_" + name + ".pb", "wb") as f:
        f.write(proto.SerializeToString())
    print(name, proto)


def main():
    save("f32_2x3", np.array([[1.5, -2.0, 3.25], [0.0, 1e-3, -7.0]], dtype=np.float32))
    save("f32_fill", 2.5, dtype=tf.float32, shape=[2, 2])
    save("f64_scalar", np.float64(3.141592653589793))
    save("f16_vec", np.array([0.5, -1.0, 65504.0], dtype=np.float16))
    save("f16_scalar", np.float16(0.1))
    save("bf16_vec", tf.constant([0.5, -1.0, 3.0], dtype=tf.bfloat16).numpy())
    save("bf16_scalar", tf.constant(0.1, dtype=tf.bfloat16).numpy())
    save("i32_vec", np.array([1, -2, 2147483647], dtype=np.int32))
    save("i64_fill", 7, dtype=tf.int64, shape=[3])
    save("i64_vec", np.array([-(2**62), 5, 2**40], dtype=np.int64))
    save("bool_vec", np.array([True, False, True]))
    save("bool_scalar", True)
    save("u8_vec", np.array([0, 255, 7], dtype=np.uint8))
    save("u8_fill", 200, dtype=tf.uint8, shape=[2, 2])
    save("string_vec", np.array([b"abc", b"", b"a\x00b\xff"], dtype=object))
    save("string_fill", b"hi", dtype=tf.string, shape=[3])


if __name__ == "__main__":
    main()
