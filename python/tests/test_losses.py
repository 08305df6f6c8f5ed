"""duet.losses from Python against Keras in the same run (a subprocess that imports both), and
their errors."""

import numpy as np
import pytest

import duet
from peers import require, run_python

KERAS = """
    import numpy as np
    import tensorflow as tf
    import duet
    rng = np.random.default_rng(5)
    logits = rng.normal(size=(4, 3)).astype(np.float32)
    probs = tf.nn.softmax(logits).numpy()
    ids = np.array([0, 2, 1, 2], np.int64)
    onehot = np.eye(3, dtype=np.float32)[ids]
    binary = (rng.uniform(size=(4, 3)) > 0.5).astype(np.float32)
    sig = tf.sigmoid(logits).numpy()
    target = rng.normal(size=(4, 3)).astype(np.float32) * 2
    cases = [
        ("SparseCategoricalCrossentropy", dict(from_logits=True), ids, logits),
        ("SparseCategoricalCrossentropy", dict(), ids, probs),
        ("CategoricalCrossentropy", dict(from_logits=True, label_smoothing=0.1), onehot, logits),
        ("CategoricalCrossentropy", dict(reduction="sum"), onehot, probs),
        ("BinaryCrossentropy", dict(from_logits=True), binary, logits),
        ("BinaryCrossentropy", dict(label_smoothing=0.2, reduction="none"), binary, sig),
        ("MeanSquaredError", dict(), target, logits),
        ("MeanAbsoluteError", dict(reduction="none"), target, logits),
        ("Huber", dict(delta=0.5), target, logits),
    ]
    for name, kwargs, y_true, y_pred in cases:
        ours = getattr(duet.losses, name)(**kwargs)(y_true, y_pred).numpy()
        theirs = getattr(tf.keras.losses, name)(**kwargs)(y_true, y_pred).numpy()
        assert np.allclose(ours, theirs, rtol=1e-5, atol=1e-6), (name, kwargs, ours, theirs)
    # The functions are the per-sample losses: Keras' classes with reduction="none".
    functions = [("sparse_categorical_crossentropy", "SparseCategoricalCrossentropy", ids, logits,
                  dict(from_logits=True)),
                 ("categorical_crossentropy", "CategoricalCrossentropy", onehot, probs, {}),
                 ("binary_crossentropy", "BinaryCrossentropy", binary, sig, {}),
                 ("mean_squared_error", "MeanSquaredError", target, logits, {}),
                 ("mean_absolute_error", "MeanAbsoluteError", target, logits, {}),
                 ("huber", "Huber", target, logits, dict(delta=2.0))]
    for name, keras_name, y_true, y_pred, kwargs in functions:
        ours = getattr(duet.losses, name)(y_true, y_pred, **kwargs).numpy()
        keras_loss = getattr(tf.keras.losses, keras_name)(reduction="none", **kwargs)
        theirs = keras_loss(y_true, y_pred).numpy()
        assert ours.shape == (4,) and np.allclose(ours, theirs, rtol=1e-5, atol=1e-6), (name,)
    print("ok")
"""


def test_every_loss_matches_keras():
    require("tensorflow")
    assert run_python(KERAS).strip() == "ok"


def test_losses_are_differentiable_and_traced_alike():
    logits = duet.Variable(np.array([[2.0, -1.0, 0.5]], np.float32))
    loss_fn = duet.losses.SparseCategoricalCrossentropy(from_logits=True)
    with duet.GradientTape() as tape:
        loss = loss_fn([1], logits)
    (grad,) = tape.gradient(loss, [logits])
    p = np.exp(logits.numpy()) / np.exp(logits.numpy()).sum()
    np.testing.assert_allclose(grad.numpy(), p - np.eye(3)[[1]], rtol=1e-5)
    traced = duet.function(lambda y, x: loss_fn(y, x))
    np.testing.assert_allclose(traced(duet.constant([1]), logits.read_value()).numpy(),
                               loss.numpy(), rtol=1e-6)


def test_loss_errors_name_the_loss():
    with pytest.raises(duet.errors.InvalidArgumentError, match="reduction"):
        duet.losses.MeanSquaredError(reduction="mean")([1.0], [1.0])
    with pytest.raises(duet.errors.InvalidArgumentError, match="sparse_categorical_crossentropy"):
        duet.losses.sparse_categorical_crossentropy([0.5], [[1.0, 0.0]])  # float labels
