"""Write once, run eagerly or as a graph ("eager loves graph"): the same TensorFlow 1.x program
trains a tree of keras.Models with an optimizer loop and runs a py_func. The only difference
between the modes is whether tf.enable_eager_execution() is called (--eager).

    python examples/python/write_once.py            # builds a graph, a Session runs it
    python examples/python/write_once.py --eager    # runs every op at once

It uses only TensorFlow 1.x's names, so the same file runs under tensorflow.compat.v1
(python/tests/test_compat_v1.py runs both and compares the losses)."""

import sys

import numpy as np

import duet.compat.v1 as tf

if "--eager" in sys.argv:
    tf.enable_eager_execution()

rng = np.random.RandomState(0)
W1, W2, W3 = (rng.normal(0, 0.3, shape).astype(np.float32)
              for shape in [(8, 8), (8, 8), (8, 3)])


class Block(tf.keras.Model):
    """A residual block: x + dense(relu(dense(x)))."""

    def __init__(self, w):
        super(Block, self).__init__()
        self.inner = tf.keras.layers.Dense(8, activation=tf.nn.relu,
                                           kernel_initializer=tf.constant_initializer(w))
        self.outer = tf.keras.layers.Dense(8, kernel_initializer=tf.constant_initializer(w.T))

    def call(self, x):
        return x + self.outer(self.inner(x))


class Net(tf.keras.Model):
    """A tree of models: two blocks and a head."""

    def __init__(self):
        super(Net, self).__init__()
        self.block1 = Block(W1)
        self.block2 = Block(W2)
        self.head = tf.keras.layers.Dense(3, kernel_initializer=tf.constant_initializer(W3))

    def call(self, x):
        return self.head(self.block2(self.block1(x)))


features = rng.rand(32, 8).astype(np.float32)
labels = (features.sum(axis=1) * 3 / 8).astype(np.int32) % 3
dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(8).repeat(3)
net = Net()
optimizer = tf.train.AdamOptimizer(learning_rate=0.01)
global_step = tf.train.get_or_create_global_step()
losses = []

if tf.executing_eagerly():
    for x, y in dataset:
        with tf.GradientTape() as tape:
            loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=net(x))
        grads = tape.gradient(loss, net.trainable_variables)
        optimizer.apply_gradients(zip(grads, net.trainable_variables), global_step=global_step)
        losses.append(float(loss))
    steps = int(global_step.numpy())
    doubled = tf.py_func(lambda a: a * 2, [tf.constant([1.0, 2.0])], tf.float32).numpy()
else:
    x, y = tf.data.make_one_shot_iterator(dataset).get_next()
    loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=net(x))
    train_op = optimizer.minimize(loss, global_step=global_step)
    doubled_op = tf.py_func(lambda a: a * 2, [tf.constant([1.0, 2.0])], tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        while True:
            try:
                _, value = sess.run([train_op, loss])
            except tf.errors.OutOfRangeError:
                break
            losses.append(float(value))
        steps = int(sess.run(global_step))
        doubled = sess.run(doubled_op)

print("mode", "eager" if tf.executing_eagerly() else "graph")
print("steps", steps)
print("losses", " ".join(f"{v:.6f}" for v in losses))
print("py_func", doubled.tolist())
