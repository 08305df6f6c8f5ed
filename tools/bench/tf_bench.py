#!/usr/bin/env python3
"""TensorFlow peers of duet's eager and training-step benchmarks, from Python.

    python3 tools/bench/tf_bench.py    # with pip's tensorflow-cpu (tools/dev.sh puts it in ~/.venvs/duet)

Prints `name<TAB>value<TAB>unit` lines prefixed `tensorflow.` (eager) and `tf_function.`
(tf.function): a 4x4 float32 add (eager_bench's duet.add_4x4_f32), and the 784-256-10 MLP
training step on a batch of 64 with plain SGD (autodiff_bench's duet.mlp_step_f32, eager, and
function_bench's traced step), written as a TensorFlow user writes it: GradientTape, then
assign_sub per variable. Timing as torch_bench.py (peer_timing.py).
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402

from peer_timing import emit, median_seconds_per_call  # noqa: E402

MLP_BATCH, MLP_IN, MLP_HIDDEN, MLP_CLASSES = 64, 784, 256, 10
MLP_LEARNING_RATE = 0.01


def ramp(*shape):
    """Varied float32 values, as in eager_bench, so no kernel can shortcut on zeros."""
    n = 1
    for d in shape:
        n *= d
    return tf.reshape(tf.cast(tf.range(n) % 7, tf.float32) * 0.25 - 0.5, shape)


def mlp_step_fn():
    """The training step and its data: relu(x w1 + b1) w2 + b2, sparse cross-entropy, SGD."""
    gen = tf.random.Generator.from_seed(1)
    x = gen.normal((MLP_BATCH, MLP_IN))
    labels = gen.uniform((MLP_BATCH,), 0, MLP_CLASSES, dtype=tf.int64)
    w1 = tf.Variable(gen.normal((MLP_IN, MLP_HIDDEN)) * 0.05)
    b1 = tf.Variable(tf.zeros(MLP_HIDDEN))
    w2 = tf.Variable(gen.normal((MLP_HIDDEN, MLP_CLASSES)) * 0.05)
    b2 = tf.Variable(tf.zeros(MLP_CLASSES))
    variables = [w1, b1, w2, b2]

    def step():
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, w1) + b1)
            logits = tf.matmul(h, w2) + b2
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        for v, g in zip(variables, tape.gradient(loss, variables)):
            v.assign_sub(MLP_LEARNING_RATE * g)
        return loss

    return step


def main():
    a44, b44 = ramp(4, 4), ramp(4, 4)
    emit("tensorflow.add_4x4_f32", median_seconds_per_call(lambda: tf.add(a44, b44)) * 1e9, "ns")
    step = mlp_step_fn()
    emit("tensorflow.mlp_step_f32", median_seconds_per_call(step) * 1e6, "us")
    traced = tf.function(mlp_step_fn())
    traced()  # traces now, not inside the timing
    emit("tf_function.mlp_step_f32", median_seconds_per_call(lambda: traced()) * 1e6, "us")


if __name__ == "__main__":
    main()
