"""Writes the SavedModels duet loads (tests/interop/keras_saved_model_test.cc).

Keras 3's model.export(dir) of an MLP and of a small CNN (conv, batch norm, pooling, dense),
trained a few steps so that the batch norm statistics are not their initial values, with an
input batch x.npy and the serving signature's outputs for it, y.npy, computed by TensorFlow
from the exported directory.

Run: ~/.venvs/duet/bin/python tests/interop/make_keras_saved_models.py tests/interop/testdata/keras_saved_models
"""
import os
import shutil
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def mlp():
    return keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                             keras.layers.Dense(3, activation="softmax")])


def cnn():
    return keras.Sequential([
        keras.Input((8, 8, 1)),
        keras.layers.Conv2D(4, 3, padding="same"),
        keras.layers.BatchNormalization(),
        keras.layers.ReLU(),
        keras.layers.MaxPooling2D(),
        keras.layers.Flatten(),
        keras.layers.Dense(3),
    ])


def write(out, name, model, input_shape):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(4,) + input_shape).astype(np.float32)
    y = rng.integers(0, 3, size=(4,))
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(
        from_logits=name == "cnn"))
    model.fit(x, y, epochs=3, verbose=0)
    folder = os.path.join(out, name)
    shutil.rmtree(folder, ignore_errors=True)
    model.export(os.path.join(folder, "model"), verbose=False)
    loaded = tf.saved_model.load(os.path.join(folder, "model"))
    outputs = loaded.signatures["serving_default"](tf.constant(x))
    (output,) = outputs.values()
    np.save(os.path.join(folder, "x.npy"), x)
    np.save(os.path.join(folder, "y.npy"), output.numpy())
    print("wrote", folder, sorted(outputs))


def main():
    keras.utils.set_random_seed(3)
    out = sys.argv[1]
    write(out, "mlp", mlp(), (6,))
    write(out, "cnn", cnn(), (8, 8, 1))


if __name__ == "__main__":
    main()
