#!/usr/bin/env python3
"""Writes the .npy fixtures of tests/core/npy_test.cc with real NumPy.

Run from this folder: python3 make_fixtures.py. The expected values in npy_test.cc are the
arrays below; keep the two in step.
"""
import numpy as np
from numpy.lib import format as npformat


def save(name, array, version=None):
    with open(name, "wb") as f:
        npformat.write_array(f, array, version=version, allow_pickle=False)


def main():
    save("f4_2x3.npy", np.array([[1.5, -2.0, 3.25], [0.0, 1e-3, -7.0]], dtype="<f4"))
    save("f8_scalar.npy", np.array(3.141592653589793, dtype="<f8"))
    save("f2_vec.npy", np.array([0.5, -1.0, 65504.0], dtype="<f2"))
    save("i4_vec.npy", np.array([1, -2, 2147483647], dtype="<i4"))
    save("i8_2x2.npy", np.array([[-(2**62), 5], [6, 2**40]], dtype="<i8"))
    save("b1_vec.npy", np.array([True, False, True], dtype="|b1"))
    save("empty_0x3.npy", np.zeros((0, 3), dtype="<f4"))
    save("v2_f4.npy", np.arange(4, dtype="<f4"), version=(2, 0))
    save("v3_i8.npy", np.arange(3, dtype="<i8"), version=(3, 0))
    save("fortran_2x3.npy", np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3)))
    save("bigendian.npy", np.arange(3, dtype=">f4"))
    save("u1_vec.npy", np.arange(3, dtype="|u1"))
    save("u1_2x3.npy", np.array([[0, 255, 7], [128, 1, 200]], dtype=np.uint8))
    with open("f4_2x3.npy", "rb") as f:
        whole = f.read()
    with open("truncated.npy", "wb") as f:
        f.write(whole[:-4])


if __name__ == "__main__":
    main()
