#!/usr/bin/env python3
"""Writes tests/ops/state/testdata/training_ops_expected.txt, the reference values of
tests/ops/state/training_ops_test.cc: TensorFlow's own fused updates (tf.raw_ops.ResourceApplyAdam
etc. on tf.Variables) run for three steps, one line "key : values" per variable after the last
step, for float32 and float64.

Inputs, which the test builds the same way (shape [2, 3], element i in row-major order):
    var     0.25 * (i - 2) + 0.125          grad at step k (0, 1, 2)  ((7 * i + 3 * k) % 11 - 5) / 4
    slots that hold squares (accum, v, vhat, ms): 0.1 * (i + 1);  the others (m, mom, mg): 0.05 * (i - 2)
Run with TensorFlow installed:
    ~/.venvs/duet/bin/python tests/ops/state/testdata/gen_training_ops_expected.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

N = 6
STEPS = 3
SQUARE_SLOTS = {"accum", "v", "vhat", "ms"}

LINES = []


def initial(name):
    i = np.arange(N, dtype=np.float64)
    if name == "var":
        return 0.25 * (i - 2) + 0.125
    if name in SQUARE_SLOTS:
        return 0.1 * (i + 1)
    return 0.05 * (i - 2)


def grad(k):
    i = np.arange(N)
    return (((7 * i + 3 * k) % 11) - 5) / 4.0


def run(key, op, variables, scalars, dtype, step_scalars=None, **attrs):
    """Runs `op` for STEPS steps and records every variable. `scalars` maps hyper-parameter names
    to values; `step_scalars(k)` adds those that change per step (Adam's beta powers)."""
    vs = {name: tf.Variable(initial(name).reshape(2, 3).astype(dtype)) for name in variables}
    for k in range(STEPS):
        args = {name: v.handle for name, v in vs.items()}
        values = dict(scalars, **(step_scalars(k) if step_scalars else {}))
        args.update({name: tf.constant(value, dtype=dtype) for name, value in values.items()})
        args["grad"] = tf.constant(grad(k).reshape(2, 3), dtype=dtype)
        op(**args, **attrs)
    suffix = "f32" if dtype == np.float32 else "f64"
    for name, v in vs.items():
        values = " ".join(f"{x:.17g}" for x in v.numpy().astype(np.float64).ravel())
        LINES.append(f"{key} {suffix} {name} : {values}")


def adam_powers(k):
    return {"beta1_power": 0.9 ** (k + 1), "beta2_power": 0.999 ** (k + 1)}


ADAM = {"lr": 0.01, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-7}
RMSPROP = {"lr": 0.01, "rho": 0.9, "momentum": 0.5, "epsilon": 1e-7}


def cases(dtype):
    raw = tf.raw_ops
    for nesterov in (False, True):
        run(f"KerasMomentum nesterov={int(nesterov)}", raw.ResourceApplyKerasMomentum,
            ["var", "accum"], {"lr": 0.1, "momentum": 0.9}, dtype, use_nesterov=nesterov)
        run(f"Adam nesterov={int(nesterov)}", raw.ResourceApplyAdam, ["var", "m", "v"], ADAM,
            dtype, adam_powers, use_nesterov=nesterov)
    run("AdamWithAmsgrad", raw.ResourceApplyAdamWithAmsgrad, ["var", "m", "v", "vhat"], ADAM, dtype,
        adam_powers)
    run("RMSProp", raw.ResourceApplyRMSProp, ["var", "ms", "mom"], RMSPROP, dtype)
    run("CenteredRMSProp", raw.ResourceApplyCenteredRMSProp, ["var", "mg", "ms", "mom"], RMSPROP,
        dtype)
    for update_slots in (True, False):
        run(f"AdagradV2 update_slots={int(update_slots)}", raw.ResourceApplyAdagradV2,
            ["var", "accum"], {"lr": 0.1, "epsilon": 1e-3}, dtype, update_slots=update_slots)


def main():
    for dtype in (np.float32, np.float64):
        cases(dtype)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "training_ops_expected.txt")
    with open(path, "w") as f:
        f.write("# Written by gen_training_ops_expected.py (TensorFlow "
                f"{tf.__version__}); do not edit.\n")
        f.write("\n".join(LINES) + "\n")
    print("\n".join(LINES))


if __name__ == "__main__":
    main()
