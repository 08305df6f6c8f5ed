"""duet.function tracing Python callables: eager == traced, the cache key, retrace reasons."""

import gc
import weakref

import numpy as np
import pytest

import duet


def test_traced_equals_eager_and_a_hit_runs_no_python():
    calls = []

    def step(x, w, scale):
        calls.append(1)
        return duet.reduce_sum(duet.nn.relu(duet.matmul(x, w)) * scale, axis=1)

    traced = duet.function(step)
    rng = np.random.default_rng(2)
    x = duet.constant(rng.normal(size=(4, 3)).astype(np.float32))
    w = duet.constant(rng.normal(size=(3, 2)).astype(np.float32))
    eager = step(x, w, 2.)
    np.testing.assert_allclose(traced(x, w, 2.).numpy(), eager.numpy(), rtol=1e-6)
    before = len(calls)
    for _ in range(3):
        traced(x, w, 2.)
    assert len(calls) == before  # cache hits ran the plan, not Python
    assert traced.trace_count() == 1


def test_the_cache_key_is_tensorflows():
    @duet.function
    def f(x, n, opts):
        return x * n + opts["bias"]

    x = duet.constant([1., 2.])
    f(x, 2, {"bias": 1.})
    f(x, 2, {"bias": 1.})
    assert f.trace_count() == 1
    f(x, 3, {"bias": 1.})  # a Python int by value
    f(duet.constant([1., 2., 3.]), 3, {"bias": 1.})  # a new shape
    f(x, 3, {"bias": 1., "extra": None})  # a new structure
    assert f.trace_count() == 4
    reasons = f.retrace_reasons()
    assert any("argument 'n'" in r and "2 -> 3" in r for r in reasons), reasons
    assert any("argument 'x'" in r and "shape" in r for r in reasons), reasons


def test_variables_outputs_structures_and_numpy_arguments():
    v = duet.Variable([1., 2.], name="v")

    @duet.function
    def update(delta):
        v.assign_add(delta)
        return {"value": v.read_value(), "pair": (delta * 2, None)}

    out = update(np.array([1., 1.], np.float32))
    np.testing.assert_array_equal(out["value"].numpy(), [2., 3.])
    assert out["pair"][1] is None
    update(np.array([1., 1.], np.float32))
    np.testing.assert_array_equal(v.numpy(), [3., 4.])  # the traced graph updates the variable
    assert update.trace_count() == 1


def test_gradients_through_a_traced_function():
    w = duet.Variable([[0.5], [-1.]], name="w")
    x = np.array([[1., 2.], [3., 4.]], np.float32)

    @duet.function
    def loss_fn(x):
        return duet.reduce_mean(duet.square(duet.matmul(x, w)))

    with duet.GradientTape() as tape:
        loss = loss_fn(x)
    (dw,) = tape.gradient(loss, [w])
    np.testing.assert_allclose(dw.numpy(), x.T @ (x @ w.numpy()), rtol=1e-6)


def test_get_concrete_function_traces_once_for_specs_without_running():
    v = duet.Variable(1.)
    runs = []

    @duet.function
    def step(x, scale, mode="sum"):
        runs.append(1)
        v.assign_add(1.)  # a run would change v
        y = x * scale
        return {"out": duet.reduce_sum(y, axis=1) if mode == "sum" else y, "n": duet.size(x)}

    concrete = step.get_concrete_function(duet.TensorSpec([None, 3], duet.float32), 2.)
    assert float(v) == 1. and step.trace_count() == 0  # traced apart from step, not run
    args, kwargs = concrete.structured_input_signature
    assert args == (duet.TensorSpec([None, 3], duet.float32), 2., "sum") and kwargs == {}
    assert concrete.structured_outputs["out"].shape == [None]
    assert concrete.structured_outputs["out"].dtype == duet.float32
    traces = len(runs)
    for n in (1, 4, 7):
        x = np.ones((n, 3), np.float32)
        out = concrete(x, 2.)
        np.testing.assert_array_equal(out["out"].numpy(), np.full(n, 6., np.float32))
        assert int(out["n"]) == 3 * n
    assert len(runs) == traces and concrete.trace_count() == 1 and float(v) == 4.
    with pytest.raises(TypeError, match="traced for"):
        concrete(np.ones((1, 3), np.float32), 3.)  # another Python value
    with pytest.raises(duet.errors.OpError, match="input_signature"):
        concrete(np.ones((1, 4), np.float32), 2.)  # an incompatible shape
    gd = concrete.graph_def()
    assert isinstance(gd, bytes) and b"Placeholder" in gd

    @duet.function(input_signature=[duet.TensorSpec([2], duet.int32)])
    def twice(x):
        return x * 2
    np.testing.assert_array_equal(twice.get_concrete_function()(np.array([1, 2], np.int32)),
                                  [2, 4])


def test_input_signature_reduce_retracing_and_eager_switch():
    @duet.function(input_signature=[duet.TensorSpec([None], duet.float32)])
    def double(x):
        return x * 2

    for n in (1, 2, 5):
        assert double(np.ones(n, np.float32)).shape == (n,)
    assert double.trace_count() == 1
    with pytest.raises(duet.errors.OpError):
        double(np.ones((2, 2), np.float32))

    relaxed = duet.function(lambda x: x + 1, reduce_retracing=True)
    for n in (1, 2, 3, 4):
        relaxed(np.ones(n, np.float32))
    assert relaxed.trace_count() == 2  # the second size relaxes the dim

    duet.run_functions_eagerly(True)
    try:
        seen = []
        eager_f = duet.function(lambda x: seen.append(duet.executing_eagerly()) or x)
        eager_f(duet.constant(1.))
        assert seen == [True]
    finally:
        duet.run_functions_eagerly(False)


def test_methods_graph_def_and_errors_in_the_traced_function():
    class Model:
        def __init__(self):
            self.w = duet.Variable([[2.]], name="w")

        @duet.function
        def __call__(self, x):
            return duet.matmul(x, self.w)

    m = Model()
    np.testing.assert_array_equal(m(np.array([[3.]], np.float32)).numpy(), [[6.]])
    gd = duet.function(lambda x: duet.nn.relu(x)).graph_def(np.ones(2, np.float32))
    assert isinstance(gd, bytes) and b"Relu" in gd

    @duet.function
    def bad(x):
        return x + duet.constant([1., 2., 3.])

    with pytest.raises(duet.errors.InvalidArgumentError, match="AddV2"):
        bad(duet.constant([1., 2.]))

    @duet.function
    def raises(x):
        raise KeyError("from the traced function")

    with pytest.raises(KeyError, match="from the traced function"):
        raises(duet.constant(1.))


def test_a_warning_after_five_traces_in_ten_calls_quotes_the_reasons():
    f = duet.function(lambda x, n: x * n)
    x = duet.constant(1.)
    with pytest.warns(UserWarning, match=r"5 of the last 5 calls traced.*argument 'n': value"):
        for n in range(5):
            f(x, n)


def test_a_dropped_function_is_freed():
    v = duet.Variable(1.)

    @duet.function
    def f(x):
        return x * v

    class Model:
        def __init__(self):
            self.w = duet.Variable(2.)

        @duet.function
        def __call__(self, x):
            return x * self.w

    f(duet.constant(2.))
    concrete = f.get_concrete_function(duet.TensorSpec([None]))
    model = Model()
    model(duet.constant(3.))
    refs = [weakref.ref(f), weakref.ref(concrete), weakref.ref(model)]
    del f, concrete, model
    gc.collect()
    assert all(r() is None for r in refs)
