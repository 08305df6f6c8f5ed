# Prints the reference values pasted into ../unary_ops_test.cc (Erfinv), ../clip_by_value_op_test.cc
# (ClipByValue) and ../../reduction/l2_loss_op_test.cc (L2Loss), from TensorFlow, and Erfinv's
# from mpmath at 40 digits (TensorFlow's float64 erfinv is off by 1e-5 at 0.999999999999):
#   ~/.venvs/duet/bin/python gen_erfinv_l2_clip_expected.py
import mpmath
import numpy as np
import tensorflow as tf

mpmath.mp.dps = 40

def L(a):
    return "{" + ", ".join(repr(float(v)) for v in np.asarray(a).ravel()) + "}"

x = np.array([-0.999999, -0.9, -0.5, -1e-8, 0.0, 0.1, 0.5, 0.75, 0.99, 0.999999999999])
print("Erfinv x:", L(x))
print("Erfinv float64 (TensorFlow):", L(tf.math.erfinv(tf.constant(x, tf.float64))))
def Erfinv(v):
    return [float(mpmath.erfinv(mpmath.mpf(float(e)))) if abs(e) < 1 else float("inf") for e in v]
print("Erfinv float64 (mpmath):", L(Erfinv(x)))
print("Erfinv float32:", L(tf.math.erfinv(tf.constant(x, tf.float32))))

t = np.array([[-3.0, -0.5, 0.0], [0.25, 2.0, 7.5]])
print("ClipByValue t:", L(t))
print("ClipByValue scalars [-1, 2]:", L(tf.clip_by_value(t, -1.0, 2.0)))
lo = np.array([[-4.0, 0.0, 0.5], [0.0, 2.5, -1.0]])
hi = np.array([[-3.5, 1.0, 1.0], [0.2, 3.0, 7.0]])
print("ClipByValue tensors lo:", L(lo), "hi:", L(hi), "->",
      L(tf.raw_ops.ClipByValue(t=t, clip_value_min=lo, clip_value_max=hi)))
print("L2Loss t:", repr(float(tf.nn.l2_loss(tf.constant(t)))))
# float32 is checked against the float64 erfinv of the float32-rounded inputs (TensorFlow's own
# float32 kernel gives 0 for -1e-8, where erfinv is -8.86e-9).
x32 = x.astype(np.float32).astype(np.float64)
print("Erfinv of float32(x) (mpmath):", L(Erfinv(x32)))
