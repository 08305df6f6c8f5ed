"""Writes the IDX and .npz fixtures of idx_test and npz_test with NumPy.

Run from the repository root: ~/.venvs/duet/bin/python tests/io/formats/make_fixtures.py
"""
import gzip
import struct

import numpy as np

OUT = "tests/io/formats/testdata/"
# IDX type byte and big-endian NumPy dtype for each element type.
TYPES = {"uint8": (0x08, ">u1"), "int8": (0x09, ">i1"), "int16": (0x0B, ">i2"),
         "int32": (0x0C, ">i4"), "float32": (0x0D, ">f4"), "float64": (0x0E, ">f8")}
VALUES = {"uint8": [0, 1, 127, 128, 254, 255], "int8": [-128, -1, 0, 1, 2, 127],
          "int16": [-32768, -300, 0, 1, 300, 32767],
          "int32": [-2147483648, -70000, 0, 1, 70000, 2147483647],
          "float32": [-1.5, 0.0, 0.25, 3.0, 1e-3, 65504.0],
          "float64": [-1.5, 0.0, 0.1, 3.0, 1e-300, 1e300]}


def idx_bytes(name):
    code, dtype = TYPES[name]
    values = np.array(VALUES[name], dtype=dtype).reshape(2, 3)
    return struct.pack(">BBBB", 0, 0, code, 2) + struct.pack(">II", 2, 3) + values.tobytes()


for name in TYPES:
    with open(OUT + name + ".idx", "wb") as f:
        f.write(idx_bytes(name))
    with gzip.open(OUT + name + ".idx.gz", "wb") as f:
        f.write(idx_bytes(name))

arrays = {"a": np.arange(6, dtype=np.float32).reshape(2, 3) / 4,
          "b": np.array([-1, 0, 1 << 40, 7], dtype=np.int64),
          "c": np.array([[0, 255], [7, 128]], dtype=np.uint8)}
np.savez(OUT + "arrays.npz", **arrays)
np.savez_compressed(OUT + "arrays_compressed.npz", **arrays)
