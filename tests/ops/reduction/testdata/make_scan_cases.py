# Prints the Cumsum/Cumprod table pasted into ../scan_ops_test.cc (needs TensorFlow):
#   ~/.venvs/duet/bin/python make_scan_cases.py
import numpy as np
import tensorflow as tf

x = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])
def L(a):
    return "{" + ", ".join(repr(float(v)) for v in np.asarray(a).ravel()) + "}"
print("// x = " + L(x) + " as (2, 3)")
print("// {axis, exclusive, reverse, cumsum, cumprod}")
for axis in [0, 1, -1]:
    for exclusive in [False, True]:
        for reverse in [False, True]:
            s = tf.math.cumsum(x, axis, exclusive=exclusive, reverse=reverse).numpy()
            p = tf.math.cumprod(x, axis, exclusive=exclusive, reverse=reverse).numpy()
            print(f"    {{{axis}, {str(exclusive).lower()}, {str(reverse).lower()}, {L(s)}, {L(p)}}},")
