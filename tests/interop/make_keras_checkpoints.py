"""Writes the Keras checkpoints duet restores (tests/interop/keras_checkpoint_test.cc).

tf.train.Checkpoint(model=..., optimizer=...) of two tf_keras (Keras 2) MLPs after two Adam steps
(and, in recurrent/, of an LSTM -> Bidirectional(GRU) model with its output for a fixed input):
a Sequential and a subclassed model with layers d1, d2, and the Sequential with the legacy Adam
(keras.optimizers.legacy), whose checkpoints list slots against their variables. Beside each checkpoint, values.txt holds
every variable's values ("key : v1 v2 ...", the fixture format of tests/test_util.h) as Keras has
them, so the test checks that each value reached the right variable, and after_step.txt the same
after one more step, which duet takes from the restored state (slots and step count included).

Run: ~/.venvs/duet/bin/python tests/interop/make_keras_checkpoints.py tests/interop/testdata/keras_checkpoints
"""
import os
import shutil
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tf_keras as keras  # noqa: E402

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]], np.float32)
Y = np.array([1, 0], np.int64)


class MLP(keras.Model):
    def __init__(self):
        super().__init__()
        self.d1 = keras.layers.Dense(4, activation="relu")
        self.d2 = keras.layers.Dense(2)

    def call(self, x):
        return self.d2(self.d1(x))


def sequential():
    return keras.Sequential([keras.layers.Dense(4, activation="relu"), keras.layers.Dense(2)])


def train(model, opt, steps=2):
    for _ in range(steps):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(
                keras.losses.sparse_categorical_crossentropy(Y, model(X), from_logits=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))


def write(out, name, model, opt_class=None):
    tf.keras.utils.set_random_seed(7)
    opt = (opt_class or keras.optimizers.Adam)(0.01)
    train(model, opt)
    folder = os.path.join(out, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    prefix = tf.train.Checkpoint(model=model, optimizer=opt).save(os.path.join(folder, "ckpt"))
    dump(prefix, os.path.join(folder, "values.txt"))
    train(model, opt, steps=1)
    scratch = os.path.join(folder, "scratch")
    after = tf.train.Checkpoint(model=model, optimizer=opt).write(os.path.join(scratch, "ckpt"))
    dump(after, os.path.join(folder, "after_step.txt"))
    shutil.rmtree(scratch)
    print("wrote", prefix)


def dump(prefix, path):
    reader = tf.train.load_checkpoint(prefix)
    with open(path, "w") as f:
        for key in sorted(reader.get_variable_to_shape_map()):
            if key.startswith("_CHECKPOINTABLE"):
                continue
            values = np.asarray(reader.get_tensor(key)).reshape(-1)
            f.write(key + " : " + " ".join(repr(float(v)) for v in values) + "\n")


class Recurrent(keras.Model):
    """LSTM -> Bidirectional(GRU): the recurrent layers' variables as Keras lays them out."""

    def __init__(self):
        super().__init__()
        self.lstm = keras.layers.LSTM(3, return_sequences=True)
        self.bi = keras.layers.Bidirectional(keras.layers.GRU(2), merge_mode="sum")

    def call(self, x):
        return self.bi(self.lstm(x))


def write_recurrent(out):
    """A checkpoint of Recurrent's random initial weights, its values, and its output for a
    fixed input (output.txt: "input : ..." and "output : ..."), so duet checks both where each
    value went and that its layers compute Keras' result from them."""
    tf.keras.utils.set_random_seed(11)
    model = Recurrent()
    x = np.random.default_rng(3).normal(size=(2, 4, 5)).astype(np.float32)
    y = model(x).numpy()
    folder = os.path.join(out, "recurrent")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    prefix = tf.train.Checkpoint(model=model).save(os.path.join(folder, "ckpt"))
    dump(prefix, os.path.join(folder, "values.txt"))
    with open(os.path.join(folder, "output.txt"), "w") as f:
        for key, values in [("input", x), ("output", y)]:
            f.write(key + " : " + " ".join(repr(float(v)) for v in values.reshape(-1)) + "\n")
    print("wrote", prefix)


def main():
    out = sys.argv[1]
    write_recurrent(out)
    write(out, "sequential", sequential())
    write(out, "subclassed", MLP())
    # The optimizers before Keras 2.11 list each slot against its variable (slot_variables).
    write(out, "legacy_adam", sequential(), keras.optimizers.legacy.Adam)


if __name__ == "__main__":
    main()
