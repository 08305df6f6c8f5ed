#!/usr/bin/env python3
"""Writes the optimizer reference trajectories of tests/optimizers/testdata/ (see README.md there):
Keras 3 optimizers (TensorFlow backend) on one fixed quadratic problem, ten steps each, in float32
and float64.

Problem: variables a [2, 3] and b [4];
    loss = sum(ca * (a - ta)^2) + sum(cb * (b - tb)^2)
with the constants below, gradients by tf.GradientTape and opt.apply_gradients once per step.
Each case writes <case>_f32.npy and <case>_f64.npy: a float64 array [11, 10], row 0 the initial
values and row k the values after step k, columns a.flatten() (6) then b (4).

`adagrad` is the one case not from Keras 3: Keras 3's Adagrad divides by sqrt(accum + epsilon),
while TensorFlow's ResourceApplyAdagradV2 (what duet implements) divides by sqrt(accum) + epsilon.
It comes from tf_keras.optimizers.legacy.Adagrad, which runs ResourceApplyAdagradV2; install it
with `~/.venvs/duet/bin/pip install tf-keras==2.21.0`.

Run: ~/.venvs/duet/bin/python tests/optimizers/testdata/gen_trajectories.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

STEPS = 10
A0 = [[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]]
B0 = [1.0, -2.0, 0.25, 3.0]
TA = [[1, 2, 3], [-1, -2, -3]]
CA = [[1, 0.5, 2], [0.25, 1, 3]]
TB = [0.5, 0.5, -1, 2]
CB = [2, 1, 0.5, 4]

S = keras.optimizers.schedules
CASES = {
    "sgd": lambda: keras.optimizers.SGD(0.1),
    "sgd_momentum": lambda: keras.optimizers.SGD(0.1, momentum=0.9),
    "sgd_nesterov": lambda: keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    "adam": lambda: keras.optimizers.Adam(0.01),
    "adam_amsgrad": lambda: keras.optimizers.Adam(0.01, amsgrad=True),
    "adamw": lambda: keras.optimizers.AdamW(0.01, weight_decay=0.1),
    "rmsprop": lambda: keras.optimizers.RMSprop(0.01),
    "rmsprop_centered_momentum": lambda: keras.optimizers.RMSprop(0.01, momentum=0.5,
                                                                  centered=True),
    "adagrad": None,  # tf_keras.optimizers.legacy.Adagrad(0.1): see the module docstring
    "adam_exponential_decay": lambda: keras.optimizers.Adam(
        S.ExponentialDecay(0.01, decay_steps=3, decay_rate=0.5)),
    "sgd_piecewise": lambda: keras.optimizers.SGD(
        S.PiecewiseConstantDecay([3, 6], [0.1, 0.05, 0.01])),
    "adam_cosine_warmup": lambda: keras.optimizers.Adam(
        S.CosineDecay(initial_learning_rate=0.0, decay_steps=10, warmup_target=0.02,
                      warmup_steps=3)),
    "sgd_clipnorm": lambda: keras.optimizers.SGD(0.1, clipnorm=0.5),
    "adam_global_clipnorm": lambda: keras.optimizers.Adam(0.01, global_clipnorm=0.5),
}


def legacy_adagrad():
    import tf_keras

    return tf_keras.optimizers.legacy.Adagrad(0.1)


def trajectory(make_optimizer, dtype):
    """[STEPS + 1, 10] float64: the variables before and after each step."""
    a = tf.Variable(np.array(A0, dtype=dtype), name="a")
    b = tf.Variable(np.array(B0, dtype=dtype), name="b")
    ta, ca, tb, cb = (tf.constant(x, dtype=dtype) for x in (TA, CA, TB, CB))
    optimizer = make_optimizer()

    def row():
        return np.concatenate([a.numpy().ravel(), b.numpy()]).astype(np.float64)

    rows = [row()]
    for _ in range(STEPS):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(ca * (a - ta) ** 2) + tf.reduce_sum(cb * (b - tb) ** 2)
        grads = tape.gradient(loss, [a, b])
        optimizer.apply_gradients(zip(grads, [a, b]))
        rows.append(row())
    return np.stack(rows)


def main():
    folder = os.path.dirname(os.path.abspath(__file__))
    for case, make in CASES.items():
        for dtype, suffix in ((np.float32, "f32"), (np.float64, "f64")):
            result = trajectory(make or legacy_adagrad, dtype)
            assert result.shape == (STEPS + 1, 10) and np.isfinite(result).all(), case
            np.save(os.path.join(folder, f"{case}_{suffix}.npy"), result)
        print(f"{case}: step 10 (f64) {np.array2string(result[-1], precision=6)}")


if __name__ == "__main__":
    main()
