"""Prints the NumPy einsum values that einsum_test.cc ("Einsum matches NumPy's einsum") checks.

    python gen_einsum_expected.py
"""
import numpy as np

x = np.array([1, -2, 3, 0.5, 4, -1, 2, 2, -3, 1, 0, 1], np.float32).reshape(2, 2, 3)
w = np.array([1, 0.5, -1, 2, 0, 3], np.float32).reshape(3, 2)
x4 = x.reshape(1, 2, 2, 3)
for equation, operands in [("abc,cd->abd", (x, w)), ("...b,bc->...c", (x, w)),
                           ("aecd,abcd->acbe", (x4, x4)), ("abc->ca", (x,))]:
    y = np.einsum(equation, *operands)
    print(equation, y.shape, y.ravel().tolist())
