"""RevNet's reversible block (Gomez et al., 2017) written as the RevNet-with-eager-execution
article wrote it: the backward pass reconstructs the block's input from its output instead of
storing activations, and its gradients equal ordinary backpropagation's.

    python examples/python/revnet_block.py

The article's tensors are channels-first (N, C, H, W) as on GPUs; duet's layers take
channels-last (NHWC) ones, so this block splits the channels on axis 3."""

import numpy as np

import duet.compat.v1 as tf

tf.enable_eager_execution()
tf.set_random_seed(0)


class Residual(tf.keras.Model):
    """F and G of the block: batch norm, ReLU, 3x3 convolution."""

    def __init__(self, filters):
        super(Residual, self).__init__()
        self.norm = tf.keras.layers.BatchNormalization()
        self.conv = tf.keras.layers.Conv2D(filters, 3, padding="same", use_bias=False)

    def call(self, x, training=True):
        return self.conv(tf.nn.relu(self.norm(x, training=training)))


class RevBlock(tf.keras.Model):
    """y1 = x1 + F(x2), y2 = x2 + G(y1): invertible, so activations need not be kept."""

    def __init__(self, filters):
        super(RevBlock, self).__init__()
        self.f = Residual(filters)
        self.g = Residual(filters)

    def call(self, x, training=True):
        x1, x2 = tf.split(x, 2, axis=3)
        y1 = x1 + self.f(x2, training)
        y2 = x2 + self.g(y1, training)
        return tf.concat([y1, y2], axis=3)

    def backward_grads(self, y, dy, training=True):
        """From the output y and its gradient dy: the reconstructed input, its gradient, and the
        gradients of F's then G's variables."""
        dy1, dy2 = tf.split(dy, 2, axis=3)
        y1, y2 = tf.split(y, 2, axis=3)
        with tf.GradientTape() as g_tape:
            g_tape.watch(y1)
            gy1 = self.g(y1, training)
        grads = g_tape.gradient(gy1, [y1] + self.g.trainable_variables, output_gradients=dy2)
        dx1 = dy1 + grads[0]
        dg = grads[1:]
        x2 = y2 - gy1
        with tf.GradientTape() as f_tape:
            f_tape.watch(x2)
            fx2 = self.f(x2, training)
        grads = f_tape.gradient(fx2, [x2] + self.f.trainable_variables, output_gradients=dx1)
        dx2 = dy2 + grads[0]
        df = grads[1:]
        x1 = y1 - fx2
        return tf.concat([x1, x2], axis=3), tf.concat([dx1, dx2], axis=3), df + dg


rng = np.random.RandomState(0)
x = tf.constant(rng.normal(size=(2, 8, 8, 4)).astype(np.float32))
dy = tf.constant(rng.normal(size=(2, 8, 8, 4)).astype(np.float32))
block = RevBlock(2)

with tf.GradientTape() as tape:
    tape.watch(x)
    y = block(x)
    objective = tf.reduce_sum(y * dy)
expected = tape.gradient(objective, [x] + block.trainable_variables)

x_rebuilt, dx, dw = block.backward_grads(y, dy)
print("reconstruction error", float(tf.reduce_max(tf.abs(x_rebuilt - x))))
print("input gradient error", float(tf.reduce_max(tf.abs(dx - expected[0]))))
print("weight gradient error", max(float(tf.reduce_max(tf.abs(a - b)))
                                   for a, b in zip(dw, expected[1:])))
print("variables", len(block.trainable_variables))
