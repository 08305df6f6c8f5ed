"""GradientTape and Variable from Python, checked against calculus and float64 finite
differences."""

import gc
import weakref

import numpy as np
import pytest

import duet


def test_variable_state_and_operators():
    w = duet.Variable([[0.5], [-1.]], name="w")
    assert w.name == "w" and w.trainable and w.dtype == duet.float32 and w.shape == (2, 1)
    np.testing.assert_array_equal((w * 2).numpy(), [[1.], [-2.]])
    np.testing.assert_array_equal((1 - w).numpy(), [[0.5], [2.]])
    w.assign([[1.], [2.]])
    w.assign_add([[1.], [1.]])
    w.assign_sub(duet.constant([[0.5], [0.5]]))
    np.testing.assert_array_equal(np.asarray(w), [[1.5], [2.5]])
    assert "duet.Variable 'w' shape=(2, 1) dtype=float32" in repr(w)
    assert not duet.Variable(1., trainable=False).trainable
    assert duet.Variable(1, dtype=duet.float64).dtype == duet.float64
    # Python numbers as tf.Variable types them: float32, int32 (int64 beyond int32's range).
    assert duet.Variable(1.).dtype == duet.float32 and duet.Variable(1).dtype == duet.int32
    assert duet.Variable(2**40).dtype == duet.int64 and duet.Variable(True).dtype == duet.bool
    v = duet.Variable(1.)
    v.assign_add(0.5)  # a Python value takes the variable's dtype, as in TensorFlow
    assert float(v) == 1.5
    with pytest.raises(duet.errors.InvalidArgumentError, match="float64"):
        v.assign(duet.constant(2., dtype=duet.float64))  # a tensor of another dtype does not
    with pytest.raises(duet.errors.InvalidArgumentError):
        w.assign([1., 2., 3.])  # the wrong shape


def test_tape_gradient_of_a_variable_matches_calculus():
    x = np.array([[1., 2.], [3., 4.], [5., 6.]], np.float32)
    w = duet.Variable([[0.5], [-1.]], name="w")
    with duet.GradientTape() as tape:
        loss = duet.reduce_mean(duet.square(duet.matmul(x, w)))
    (dw,) = tape.gradient(loss, [w])
    expected = 2 / 3 * x.T @ (x @ w.numpy())
    np.testing.assert_allclose(dw.numpy(), expected, rtol=1e-6)


def test_watched_tensors_nested_sources_and_output_gradients():
    x = duet.constant([1., 2., 3.])
    y = duet.constant(2.)
    with duet.GradientTape(persistent=True) as tape:
        tape.watch([x, {"y": y}])
        z = x * x * y
    grads = tape.gradient(z, {"a": x, "b": (y,)})
    np.testing.assert_allclose(grads["a"].numpy(), 2 * np.array([1., 2., 3.]) * 2)
    assert isinstance(grads["b"], tuple)
    np.testing.assert_allclose(grads["b"][0].numpy(), 14.)
    (dx,) = tape.gradient(z, [x], output_gradients=[duet.constant([1., 0., 2.])])
    np.testing.assert_allclose(dx.numpy(), [4., 0., 24.])


def test_watch_accessed_variables_false_watches_only_what_watch_names():
    a, b = duet.Variable(2.), duet.Variable(3.)

    def grads():
        with duet.GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(b)
            y = a * b
        return tape.gradient(y, [a, b])

    da, db = grads()
    assert da is None and float(db) == 2.
    assert not duet.GradientTape(watch_accessed_variables=False).watch_accessed_variables

    @duet.function
    def traced():
        da, db = grads()
        assert da is None  # at trace time
        return db

    assert float(traced()) == 2.


def test_unconnected_sources_stop_recording_and_one_shot_tapes():
    x, unused = duet.constant(3.), duet.constant(4.)
    with duet.GradientTape() as tape:
        tape.watch([x, unused])
        y = x * x
        with tape.stop_recording():
            z = y * x  # not recorded: a constant to the tape
        t = y + z + duet.stop_gradient(y)
    dx, du = tape.gradient(t, [x, unused])
    assert float(dx) == 6. and du is None
    with pytest.raises(RuntimeError, match="once"):
        tape.gradient(y, [x])


def test_float64_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(3, 4))

    def f(x):
        return duet.reduce_sum(duet.tanh(x) * x ** 2 + duet.exp(-x) / (1 + x * x))

    x = duet.constant(a)
    with duet.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    (g,) = tape.gradient(y, [x])
    eps = 1e-6
    numeric = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        up, down = a.copy(), a.copy()
        up[i] += eps
        down[i] -= eps
        numeric[i] = (float(f(duet.constant(up))) - float(f(duet.constant(down)))) / (2 * eps)
    np.testing.assert_allclose(g.numpy(), numeric, rtol=1e-7, atol=1e-9)


def test_a_dropped_tape_is_freed():
    x = duet.constant(1.)
    with duet.GradientTape() as tape:
        tape.watch(x)
        _ = x * x
    ref = weakref.ref(tape)
    del tape
    gc.collect()
    assert ref() is None


def test_gradients_function_and_value_and_gradients_function():
    def f(x, y):
        return x * x * y

    dx, dy = duet.gradients_function(f)(3., 2.)
    assert float(dx) == 12. and float(dy) == 9.
    value, (dy_only,) = duet.value_and_gradients_function(f, params=[1])(3., 2.)
    assert float(value) == 18. and float(dy_only) == 9.


def test_custom_gradient_eagerly_and_in_a_graph():
    @duet.custom_gradient
    def clipped_identity(x):
        def grad(dy):
            return duet.clip_by_value(dy, -1., 1.)
        return duet.identity(x), grad

    x = duet.constant([1., 2.])
    with duet.GradientTape() as tape:
        tape.watch(x)
        y = duet.reduce_sum(clipped_identity(x) * 5.)
    (dx,) = tape.gradient(y, [x])
    np.testing.assert_array_equal(dx.numpy(), [1., 1.])  # 5 clipped to 1

    g = duet.Graph()
    with g.as_default():
        p = duet.placeholder(duet.float32, [2], name="p")
        (dp,) = duet.gradients(duet.reduce_sum(clipped_identity(p) * -3.), [p])
    with duet.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(dp, {p: [1., 2.]}).numpy(), [-1., -1.])


def test_custom_gradient_errors_from_python_reach_the_caller():
    @duet.custom_gradient
    def bad(x):
        return duet.identity(x), lambda dy: (dy, dy)  # two gradients for one input

    x = duet.constant(1.)
    with duet.GradientTape() as tape:
        tape.watch(x)
        y = bad(x)
    with pytest.raises(duet.errors.InvalidArgumentError, match="2 gradients for 1 inputs"):
        tape.gradient(y, [x])
