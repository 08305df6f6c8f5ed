"""duet.optimizers from Python: Keras' numbers (NumPy's formulas here, Keras itself in a
subprocess when TensorFlow is installed), eager == traced, and bad arguments."""

import numpy as np
import pytest

import duet
from peers import require, run_python

GRADS = [np.array([0.5, -1.0, 2.0], np.float32) * (t + 1) for t in range(3)]
START = np.array([1.0, -2.0, 3.0], np.float32)


def test_adam_and_momentum_follow_kerass_formulas():
    w = duet.Variable(START)
    adam = duet.optimizers.Adam(learning_rate=0.01)
    m = v = np.zeros(3)
    expected = START.astype(np.float64)
    for t, g in enumerate(GRADS, start=1):
        adam.apply_gradients([(duet.constant(g), w)])
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        rate = 0.01 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        expected = expected - rate * m / (np.sqrt(v) + 1e-7)
    np.testing.assert_allclose(w.numpy(), expected, rtol=1e-5)
    assert int(adam.iterations.numpy()) == 3
    assert [s.name for s in adam.variables[1:]] == ["Variable/m", "Variable/v"]

    w = duet.Variable(START)
    sgd = duet.optimizers.SGD(learning_rate=0.1, momentum=0.9)
    velocity, expected = np.zeros(3), START.astype(np.float64)
    for g in GRADS:
        sgd.apply_gradients(zip([duet.constant(g)], [w]))
        velocity = 0.9 * velocity - 0.1 * g
        expected = expected + velocity
    np.testing.assert_allclose(w.numpy(), expected, rtol=1e-6)


def test_a_traced_step_with_a_schedule_equals_the_eager_one():
    def train(traced):
        w = duet.Variable(START)
        opt = duet.optimizers.SGD(
            learning_rate=duet.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5), momentum=0.5)

        def step(g):
            return opt.apply_gradients([(g, w)])
        step = duet.function(step) if traced else step
        for g in GRADS:
            step(duet.constant(g))
        return w.numpy(), step

    eager, _ = train(False)
    traced, step = train(True)
    np.testing.assert_allclose(traced, eager, rtol=1e-6)
    assert step.trace_count() == 1  # the schedule reads the step count: one trace serves all


def test_minimize_and_bad_arguments():
    w = duet.Variable([3.0])
    opt = duet.optimizers.SGD(learning_rate=0.25)
    opt.minimize(lambda: duet.reduce_sum(w * w), [w])  # d/dw w^2 = 6: 3 - 0.25 * 6
    np.testing.assert_allclose(w.numpy(), [1.5])
    with pytest.raises(duet.errors.InvalidArgumentError, match="pair"):
        opt.apply_gradients([duet.constant([1.0])])
    with pytest.raises(duet.errors.InvalidArgumentError, match="learning_rate"):
        duet.optimizers.Adam(learning_rate="fast")
    unused = duet.Variable([1.0])
    opt.apply_gradients([(None, unused), (duet.constant([1.0]), w)])  # None skips, as Keras
    np.testing.assert_allclose(unused.numpy(), [1.0])


KERAS = """
    import numpy as np
    import tensorflow as tf
    import duet
    grads = [np.array([0.5, -1.0, 2.0], np.float32) * (t + 1) for t in range(3)]
    start = np.array([1.0, -2.0, 3.0], np.float32)
    schedule = lambda mod: mod.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5)
    cases = [("SGD", dict(learning_rate=0.1, momentum=0.9, nesterov=True)),
             ("SGD", dict(learning_rate=schedule)),
             ("Adam", dict(learning_rate=0.01, amsgrad=True)),
             ("Adam", dict(learning_rate=0.01, clipnorm=0.5)),
             ("Adam", dict(learning_rate=0.01, global_clipnorm=0.5)),
             ("AdamW", dict(learning_rate=0.01, weight_decay=0.1)),
             ("RMSprop", dict(learning_rate=0.01, momentum=0.5, centered=True)),
             ("Adagrad", dict(learning_rate=0.1))]
    for name, kwargs in cases:
        ours, theirs = duet.Variable(start), tf.Variable(start)
        args = {k: v(duet) if callable(v) else v for k, v in kwargs.items()}
        opt = getattr(duet.optimizers, name)(**args)
        args = {k: v(tf.keras) if callable(v) else v for k, v in kwargs.items()}
        keras_opt = getattr(tf.keras.optimizers, name)(**args)
        for g in grads:
            opt.apply_gradients([(duet.constant(g), ours)])
            keras_opt.apply_gradients([(tf.constant(g), theirs)])
        assert np.allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6), (
            name, kwargs, ours.numpy(), theirs.numpy())
    print("ok")
"""


def test_every_optimizer_matches_keras():
    require("tensorflow")
    assert run_python(KERAS).strip() == "ok"
