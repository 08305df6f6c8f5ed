#!/usr/bin/env python3
"""The TensorFlow 1.x eager guide's training loops, eagerly, on duet.compat.v1 and on TensorFlow
2's own tensorflow.compat.v1 (issue 39's measured item), each engine in a process of its own:

    PYTHONPATH=<the duet package> ~/.venvs/duet/bin/python tools/bench/compat_v1_bench.py

- compat_v1.<engine>.linear_regression_step (us): the guide's linear regression, 1000 examples:
  the loss under a GradientTape, tape.gradient for W and B, two assign_sub.
- compat_v1.<engine>.mnist_step (us): the guide's MNIST model (dense 128 relu, dense 10) on a
  batch of 64 random 784-float images: the loss under a tape, gradients,
  AdamOptimizer.apply_gradients with the global step.
Both are the program as written (every op eager; no defun), timed as the other peers
(peer_timing.py: medians over repetitions), then compat_v1.ratio.<loop>: TensorFlow's time over
duet's (above 1: duet is faster). TensorFlow runs with Keras 2 (TF_USE_LEGACY_KERAS=1), the
tf.keras TensorFlow 1.x programs used."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import emit, median_seconds_per_call  # noqa: E402

LOOPS = ["linear_regression_step", "mnist_step"]


def worker(engine):
    import numpy as np
    if engine == "duet":
        import duet.compat.v1 as tf
    else:
        import tensorflow.compat.v1 as tf
    tf.enable_eager_execution()
    tfe = tf.contrib.eager if engine == "duet" else tf

    inputs = tf.constant(np.random.RandomState(0).normal(size=1000).astype(np.float32))
    outputs = inputs * 3 + 2
    W = tfe.Variable(5.0)
    B = tfe.Variable(10.0)

    def regression_step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(inputs * W + B - outputs))
        dW, dB = tape.gradient(loss, [W, B])
        W.assign_sub(dW * 0.01)
        B.assign_sub(dB * 0.01)

    class MNISTModel(tf.keras.Model):
        def __init__(self):
            super(MNISTModel, self).__init__()
            self.dense1 = tf.keras.layers.Dense(units=128, activation=tf.nn.relu)
            self.dense2 = tf.keras.layers.Dense(units=10)

        def call(self, input):
            return self.dense2(self.dense1(input))

    model = MNISTModel()
    optimizer = tf.train.AdamOptimizer(learning_rate=1e-3)
    step = tf.train.get_or_create_global_step()
    images = tf.constant(np.random.RandomState(1).rand(64, 784).astype(np.float32))
    labels = tf.constant(np.random.RandomState(2).randint(0, 10, 64).astype(np.int32))

    def mnist_step():
        with tf.GradientTape() as tape:
            loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=model(images))
        grads = tape.gradient(loss, model.variables)
        optimizer.apply_gradients(zip(grads, model.variables), global_step=step)

    for name, fn in (("linear_regression_step", regression_step), ("mnist_step", mnist_step)):
        emit(f"compat_v1.{engine}.{name}", median_seconds_per_call(fn) * 1e6, "us")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        return worker(sys.argv[2])
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TF_USE_LEGACY_KERAS="1")
    values = {}
    for engine in ("duet", "tensorflow"):
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", engine],
                             env=env, check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            print(line, flush=True)
            name, value, _ = line.split("\t")
            values[name] = float(value)
    for loop in LOOPS:
        emit(f"compat_v1.ratio.{loop}",
             values[f"compat_v1.tensorflow.{loop}"] / values[f"compat_v1.duet.{loop}"], "x")


if __name__ == "__main__":
    main()
