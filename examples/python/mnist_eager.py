"""The eager guide's MNIST training loop on Fashion-MNIST (Debian's dataset-fashion-mnist
package): a Dataset pipeline, apply_gradients with a global step, tfe.metrics, contrib.summary
every 10 steps and a tfe.Checkpoint.

    python examples/python/mnist_eager.py [--steps N] [--logdir DIR]"""

import argparse
import os
import tempfile

import numpy as np

import duet.compat.v1 as tf

tf.enable_eager_execution()
tfe = tf.contrib.eager

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=300)
parser.add_argument("--logdir", default=tempfile.mkdtemp())
args = parser.parse_args()
tf.set_random_seed(0)

(train_images, train_labels), (test_images, test_labels) = \
    tf.keras.datasets.fashion_mnist.load_data()
train_images = (train_images.reshape(-1, 784) / 255.0).astype(np.float32)
test_images = (test_images.reshape(-1, 784) / 255.0).astype(np.float32)
dataset = (tf.data.Dataset.from_tensor_slices((train_images, train_labels.astype(np.int32)))
           .shuffle(10000, seed=1).repeat().batch(64).take(args.steps))


class MNISTModel(tf.keras.Model):
    def __init__(self):
        super(MNISTModel, self).__init__()
        self.dense1 = tf.keras.layers.Dense(units=128, activation=tf.nn.relu)
        self.dense2 = tf.keras.layers.Dense(units=10)

    def call(self, input):
        return self.dense2(self.dense1(input))


def loss(model, x, y):
    return tf.losses.sparse_softmax_cross_entropy(labels=y, logits=model(x))


model = MNISTModel()
optimizer = tf.train.AdamOptimizer(learning_rate=1e-3)
global_step = tf.train.get_or_create_global_step()
mean_loss = tfe.metrics.Mean("loss")
writer = tf.contrib.summary.create_file_writer(args.logdir, flush_millis=10000)

with writer.as_default(), tf.contrib.summary.record_summaries_every_n_global_steps(10):
    for (batch, (images, labels)) in enumerate(dataset):
        with tf.GradientTape() as tape:
            loss_value = loss(model, images, labels)
        grads = tape.gradient(loss_value, model.variables)
        optimizer.apply_gradients(zip(grads, model.variables), global_step=global_step)
        mean_loss(loss_value)
        tf.contrib.summary.scalar("loss", loss_value)
        if batch % 100 == 0:
            print("step %d: loss %.4f" % (batch, mean_loss.result().numpy()))

logits = model(test_images[:2000])
accuracy = np.mean(np.argmax(logits.numpy(), axis=1) == test_labels[:2000])
print("steps %d, test accuracy %.3f" % (int(global_step.numpy()), accuracy))
checkpoint = tfe.Checkpoint(optimizer=optimizer, model=model, optimizer_step=global_step)
print("checkpoint", os.path.basename(checkpoint.save(os.path.join(args.logdir, "ckpt"))))
writer.flush()
