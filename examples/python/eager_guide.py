"""TensorFlow 1.x's eager execution guide, as its readers wrote it, on duet: tensors and NumPy,
Python control flow on tensor values, a custom layer (build/add_variable), Sequential and
subclassed models, linear regression with a tfe.Variable and assign_sub, gradients_function to
third order, custom_gradient, metrics, checkpoints and devices.

    python examples/python/eager_guide.py

Only the import differs from the guide's programs; tf.contrib is TensorFlow 1.x's own (TF 2's
compat.v1 lacks it), so this file runs on duet and TensorFlow 1.x."""

import os
import tempfile

import numpy as np

import duet.compat.v1 as tf

tf.enable_eager_execution()
tfe = tf.contrib.eager
tf.set_random_seed(0)

# Tensors and NumPy.
a = tf.constant([[1, 2], [3, 4]])
b = tf.add(a, 1)
print("a*b", (a * b).numpy().tolist())
print("numpy", np.multiply(a.numpy(), b.numpy()).tolist())


# Python control flow on tensor values.
def fizzbuzz(max_num):
    out = []
    for num in range(1, max_num + 1):
        num = tf.constant(num)
        if int(num % 15) == 0:
            out.append("FizzBuzz")
        elif int(num % 3) == 0:
            out.append("Fizz")
        elif int(num % 5) == 0:
            out.append("Buzz")
        else:
            out.append(str(num.numpy()))
    return out


print("fizzbuzz", " ".join(fizzbuzz(15)))


# A custom layer.
class MySimpleLayer(tf.keras.layers.Layer):
    def __init__(self, output_units):
        super(MySimpleLayer, self).__init__()
        self.output_units = output_units

    def build(self, input_shape):
        self.kernel = self.add_variable("kernel", [int(input_shape[-1]), self.output_units],
                                        initializer=tf.ones_initializer())

    def call(self, input):
        return tf.matmul(input, self.kernel)


layer = MySimpleLayer(3)
print("layer", layer(tf.ones([2, 4])).numpy().tolist(), [v.name for v in layer.variables])

# Sequential and subclassed models.
sequential = tf.keras.Sequential([tf.keras.layers.Dense(10, input_shape=(784,)),
                                  tf.keras.layers.Dense(10)])


class MNISTModel(tf.keras.Model):
    def __init__(self):
        super(MNISTModel, self).__init__()
        self.dense1 = tf.keras.layers.Dense(units=10)
        self.dense2 = tf.keras.layers.Dense(units=10)

    def call(self, input):
        return self.dense2(tf.nn.relu(self.dense1(input)))


model = MNISTModel()
print("models", sequential(tf.zeros([1, 784])).shape.as_list(),
      model(tf.zeros([1, 784])).shape.as_list(), len(model.variables))

# Linear regression: a tfe.Variable, gradients from a tape, assign_sub.
NUM_EXAMPLES = 1000
inputs = tf.random_normal([NUM_EXAMPLES])
noise = tf.random_normal([NUM_EXAMPLES])
outputs = inputs * 3 + 2 + noise
W = tfe.Variable(5.0, name="weight")
B = tfe.Variable(10.0, name="bias")


def loss(inputs, targets):
    return tf.reduce_mean(tf.square(inputs * W + B - targets))


for i in range(300):
    with tf.GradientTape() as tape:
        loss_value = loss(inputs, outputs)
    dW, dB = tape.gradient(loss_value, [W, B])
    W.assign_sub(dW * 0.01)
    B.assign_sub(dB * 0.01)
print("regression W=%.2f B=%.2f loss=%.2f" % (W.numpy(), B.numpy(), loss(inputs, outputs)))


# Higher-order gradients.
def f(x):
    return x * x * x


d1 = tfe.gradients_function(f)
d2 = tfe.gradients_function(lambda x: d1(x)[0])
d3 = tfe.gradients_function(lambda x: d2(x)[0])
print("derivatives", d1(2.0)[0].numpy(), d2(2.0)[0].numpy(), d3(2.0)[0].numpy())


# custom_gradient: a numerically stable gradient of log(1 + e^x).
@tf.custom_gradient
def log1pexp(x):
    e = tf.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))
    return tf.log(1 + e), grad


grad_log1pexp = tfe.gradients_function(log1pexp)
print("log1pexp'", grad_log1pexp(0.0)[0].numpy(), grad_log1pexp(100.0)[0].numpy())

# Metrics, checkpoints, devices.
mean = tfe.metrics.Mean("loss")
mean(2.0)
mean(4.0)
print("mean", mean.result().numpy())
optimizer = tf.train.GradientDescentOptimizer(0.1)
step = tf.train.get_or_create_global_step()
directory = tempfile.mkdtemp()
checkpoint = tfe.Checkpoint(optimizer=optimizer, model=model, optimizer_step=step)
model.dense1.kernel.assign(tf.ones([784, 10]))
path = checkpoint.save(os.path.join(directory, "ckpt"))
model.dense1.kernel.assign(tf.zeros([784, 10]))
checkpoint.restore(tf.train.latest_checkpoint(directory))
print("restored", float(tf.reduce_sum(model.dense1.kernel)), os.path.basename(path))
with tf.device("/cpu:0"):
    print("device", tf.matmul(tf.ones([2, 2]), tf.ones([2, 2])).numpy().tolist(),
          "gpus", tfe.num_gpus())
