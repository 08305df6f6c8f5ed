"""Checks checkpoints duet wrote (export_duet_checkpoints) with TensorFlow. Exits 1 on a mismatch.

    python check_duet_checkpoints_in_tf.py DIR

For each case: tf.train.load_checkpoint lists exactly duet's keys (and the object graph) with
duet's values, bit for bit; and tf.train.Checkpoint(model=..., optimizer=...).restore() puts them
into the equivalent tf_keras (Keras 2) model and Adam optimizer, slots and step count included:
every Keras variable then equals duet's value under the key Keras itself would save it as.
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

try:
    import tf_keras as keras  # noqa: E402
except ImportError:
    keras = None


class MLP(tf.Module if keras is None else keras.Model):
    def __init__(self):
        super().__init__()
        self.d1 = keras.layers.Dense(4, activation="relu")
        self.d2 = keras.layers.Dense(2)

    def call(self, x):
        return self.d2(self.d1(x))


def sequential():
    return keras.Sequential([keras.layers.Dense(4, activation="relu"), keras.layers.Dense(2)])


def check_values(case_dir):
    expected = {}
    for line in open(os.path.join(case_dir, "values")).read().splitlines():
        key, file = line.split("\t")
        expected[key] = np.load(os.path.join(case_dir, file))
    prefix = tf.train.latest_checkpoint(case_dir)
    assert prefix == os.path.join(case_dir, "ckpt-1"), prefix
    reader = tf.train.load_checkpoint(prefix)
    keys = set(reader.get_variable_to_shape_map())
    assert keys == set(expected) | {"_CHECKPOINTABLE_OBJECT_GRAPH"}, keys ^ set(expected)
    for key, value in expected.items():
        got = reader.get_tensor(key)
        assert got.dtype == value.dtype and got.shape == value.shape, (key, got, value)
        assert np.array_equal(got, value), (key, got, value)
    return prefix, expected


def check_keras_restore(prefix, expected, model):
    opt = keras.optimizers.Adam(0.01)
    status = tf.train.Checkpoint(model=model, optimizer=opt).restore(prefix)
    model(np.zeros((1, 3), np.float32))
    opt.build(model.trainable_variables)
    # Keras' learning rate is a variable, which duet's checkpoint lacks (a schedule in duet);
    # everything else is compared below.
    status.expect_partial()
    # Where Keras keeps each value: written by Keras itself, keyed as duet's keys must be.
    scratch = prefix + "_keras"
    tf.train.Checkpoint(model=model, optimizer=opt).write(scratch)
    reader = tf.train.load_checkpoint(scratch)
    for key in reader.get_variable_to_shape_map():
        if key.startswith("_CHECKPOINTABLE") or key == "optimizer/_learning_rate/.ATTRIBUTES/VARIABLE_VALUE":
            continue
        assert key in expected, f"Keras has {key}, duet's checkpoint does not"
        assert np.array_equal(reader.get_tensor(key), expected[key]), key
    assert int(opt.iterations.numpy()) == 2


def main():
    out = sys.argv[1]
    for case, make in [("sequential", sequential), ("subclassed", MLP)]:
        case_dir = os.path.join(out, case)
        prefix, expected = check_values(case_dir)
        print(f"{case}: TensorFlow reads {len(expected)} values, all equal")
        if keras is None:
            print(f"{case}: SKIPPED the Keras restore: tf_keras is not installed (pip install --no-deps tf-keras)")
            continue
        check_keras_restore(prefix, expected, make())
        print(f"{case}: tf_keras restores the model and its Adam slots")


if __name__ == "__main__":
    main()
