#!/usr/bin/env python3
"""Writes tests/ops/nn/testdata/ops3d_expected.txt, the reference values of
tests/ops/nn/pooling3d_test.cc and conv3d_test.cc, one line "key : values" per case: MaxPool3D, AvgPool3D and their gradients from TensorFlow; Conv3D and its backprops
from NumPy loops, checked against TensorFlow where its CPU kernels allow (no dilations).

Inputs follow the tests' ModPattern(n, mul, mod, shift, div)[i] = ((i * mul) % mod - shift) / div;
with mod prime and above n the values are distinct, so max-pooling windows have no ties (TensorFlow
and duet pick different maxima among ties). Run with TensorFlow installed:
    ~/.venvs/duet/bin/python tests/ops/nn/testdata/gen_3d_expected.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def pattern(shape, mul, mod, shift, div):
    n = int(np.prod(shape))
    return np.array([((i * mul) % mod - shift) / div for i in range(n)]).reshape(shape)


LINES = []


def show(key, t):
    values = " ".join(f"{v:.17g}" for v in np.asarray(t, dtype=np.float64).ravel())
    LINES.append(f"{key} : {values}")


def pool_cases():
    # TensorFlow's CPU pooling kernels are float32 only; these values are exact in float32.
    x = pattern((2, 3, 4, 3, 2), 37, 149, 70, 8).astype(np.float32)
    # SAME: window 2x3x2, stride 2; VALID: window 2x2x2, stride 1.
    for ksize, strides, padding in (((2, 3, 2), (2, 2, 2), "SAME"), ((2, 2, 2), (1, 1, 1), "VALID")):
        k, s = [1, *ksize, 1], [1, *strides, 1]
        y = tf.raw_ops.MaxPool3D(input=x, ksize=k, strides=s, padding=padding)
        show(f"MaxPool3D {padding}", y)
        show(f"AvgPool3D {padding}",
             tf.raw_ops.AvgPool3D(input=x, ksize=k, strides=s, padding=padding))
        dy = pattern(y.shape, 3, 7, 3, 2).astype(np.float32)
        show(f"MaxPool3DGrad {padding}",
             tf.raw_ops.MaxPool3DGrad(orig_input=x, orig_output=y,
                                      grad=dy, ksize=k, strides=s,
                                      padding=padding))
        show(f"AvgPool3DGrad {padding}",
             tf.raw_ops.AvgPool3DGrad(orig_input_shape=x.shape, grad=dy, ksize=k, strides=s,
                                      padding=padding))
        ddx = pattern(x.shape, 5, 11, 5, 4).astype(np.float32)
        show(f"MaxPool3DGradGrad {padding}",
             tf.raw_ops.MaxPool3DGradGrad(orig_input=x, orig_output=y,
                                          grad=ddx, ksize=k, strides=s,
                                          padding=padding))


def conv3d_numpy(x, f, strides, padding, dilations):
    """Conv3D and its two backprops as direct loops over the padded input, for the dilated case
    (TensorFlow's CPU Conv3D has no dilations); checked against TensorFlow on the others."""
    n, *size, _ = x.shape
    *window, _, out_c = f.shape
    out, before = [], []
    for i, k, st, d in zip(size, window, strides, dilations):
        eff = (k - 1) * d + 1
        o = -(-i // st) if padding == "SAME" else (i - eff) // st + 1
        total = max((o - 1) * st + eff - i, 0) if padding == "SAME" else 0
        out.append(o)
        before.append(total // 2)
    xp = np.pad(x, [(0, 0)] + [(b, max(0, (o - 1) * st + (k - 1) * d + 1 - i - b))
                               for b, o, st, k, d, i in zip(before, out, strides, window, dilations,
                                                             size)] + [(0, 0)])

    def taps():
        for o in np.ndindex(*out):
            for k in np.ndindex(*window):
                yield o, k, tuple(oi * st + ki * d for oi, ki, st, d in zip(o, k, strides, dilations))

    def forward(xv, fv):
        y = np.zeros((n, *out, out_c))
        xpv = np.pad(xv, [(0, 0)] + [(b, xp.shape[1 + j] - size[j] - b) for j, b in enumerate(before)]
                     + [(0, 0)])
        for o, k, p in taps():
            y[(slice(None), *o)] += xpv[(slice(None), *p)] @ fv[k]
        return y

    def backprop_input(fv, dy):
        dxp = np.zeros(xp.shape)
        for o, k, p in taps():
            dxp[(slice(None), *p)] += dy[(slice(None), *o)] @ fv[k].T
        return dxp[(slice(None),) + tuple(slice(b, b + i) for b, i in zip(before, size))]

    def backprop_filter(xv, dy):
        xpv = np.pad(xv, [(0, 0)] + [(b, xp.shape[1 + j] - size[j] - b) for j, b in enumerate(before)]
                     + [(0, 0)])
        df = np.zeros(f.shape)
        for o, k, p in taps():
            df[k] += xpv[(slice(None), *p)].T @ dy[(slice(None), *o)]
        return df

    return forward, backprop_input, backprop_filter


def conv_cases():
    x = pattern((2, 4, 3, 5, 2), 7, 11, 5, 4)
    f = pattern((2, 3, 2, 2, 3), 5, 7, 3, 4)
    for case, strides, padding, dilations in (("SAME", (1, 1, 1), "SAME", (1, 1, 1)),
                                              ("SAME_strides_212", (2, 1, 2), "SAME", (1, 1, 1)),
                                              ("VALID_dilations_212", (1, 1, 1), "VALID", (2, 1, 2)),
                                              ("VALID_strides_221", (2, 2, 1), "VALID", (1, 1, 1))):
        forward, backprop_input, backprop_filter = conv3d_numpy(x, f, strides, padding, dilations)
        y = forward(x, f)
        dy = pattern(y.shape, 3, 7, 3, 2)
        dx, df = backprop_input(f, dy), backprop_filter(x, dy)
        if dilations == (1, 1, 1):
            s = [1, *strides, 1]
            np.testing.assert_allclose(
                tf.raw_ops.Conv3D(input=x, filter=f, strides=s, padding=padding), y, atol=1e-12)
            np.testing.assert_allclose(
                tf.raw_ops.Conv3DBackpropInputV2(input_sizes=x.shape, filter=f, out_backprop=dy,
                                                 strides=s, padding=padding), dx, atol=1e-12)
            np.testing.assert_allclose(
                tf.raw_ops.Conv3DBackpropFilterV2(input=x, filter_sizes=f.shape, out_backprop=dy,
                                                  strides=s, padding=padding), df, atol=1e-12)
        show(f"Conv3D {case}", y)
        show(f"Conv3DBackpropInputV2 {case}", dx)
        show(f"Conv3DBackpropFilterV2 {case}", df)


if __name__ == "__main__":
    pool_cases()
    conv_cases()
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ops3d_expected.txt"),
              "w") as out:
        out.write("\n".join(LINES) + "\n")
