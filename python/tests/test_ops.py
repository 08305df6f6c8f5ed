"""The op functions: generated from the registry, TensorFlow's names, operators, errors."""

import inspect
import os

import numpy as np
import pytest

import duet
from duet import _core


def test_operators_broadcast_and_take_python_scalars():
    x = duet.constant([[1., 2.], [3., 4.]])
    y = duet.add(x, 1) * x
    np.testing.assert_array_equal(y.numpy(), [[2, 6], [12, 20]])
    np.testing.assert_array_equal((2 - x).numpy(), [[1, 0], [-1, -2]])
    np.testing.assert_array_equal((x / 2).numpy(), [[.5, 1], [1.5, 2]])
    np.testing.assert_array_equal((x ** 2).numpy(), x.numpy() ** 2)
    np.testing.assert_array_equal((-x).numpy(), -x.numpy())
    np.testing.assert_array_equal(abs(-x).numpy(), x.numpy())
    np.testing.assert_array_equal((x @ x).numpy(), x.numpy() @ x.numpy())
    np.testing.assert_array_equal((x > 2).numpy(), x.numpy() > 2)
    np.testing.assert_array_equal(((x > 1) & (x < 4)).numpy(), [[False, True], [True, False]])
    np.testing.assert_array_equal((~(x > 2)).numpy(), x.numpy() <= 2)
    np.testing.assert_array_equal((duet.constant([7, -7]) // 2).numpy(), [3, -4])
    np.testing.assert_array_equal((duet.constant([7, -7]) % 3).numpy(), [1, 2])
    np.testing.assert_array_equal((x + np.float32(1)).numpy(), x.numpy() + 1)


def test_reductions_and_tf_names():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = duet.constant(a)
    assert float(duet.reduce_sum(x)) == a.sum()
    np.testing.assert_allclose(duet.reduce_mean(x, axis=1).numpy(), a.mean(1))
    np.testing.assert_allclose(duet.reduce_max(x, axis=0, keepdims=True).numpy(),
                               a.max(0, keepdims=True))
    np.testing.assert_allclose(duet.matmul(x, x, transpose_b=True).numpy(), a @ a.T)
    np.testing.assert_allclose(duet.transpose(x).numpy(), a.T)
    np.testing.assert_allclose(duet.nn.relu(x - 5).numpy(), np.maximum(a - 5, 0))
    s = duet.nn.softmax(x).numpy()
    np.testing.assert_allclose(s, np.exp(a) / np.exp(a).sum(1, keepdims=True), rtol=1e-6)
    np.testing.assert_array_equal(duet.range(5).numpy(), np.arange(5))
    assert [t.shape for t in duet.split(x, 2, axis=1)] == [(3, 2), (3, 2)]
    np.testing.assert_array_equal(duet.cast(x, duet.int32).numpy(), a.astype(np.int32))
    np.testing.assert_array_equal(duet.squared_difference(x, 1.).numpy(), (a - 1) ** 2)


def test_every_registered_op_has_a_python_function():
    for op, doc, inputs, outputs, attrs, stateful in _core.op_defs():
        fn = getattr(duet.raw_ops, op)
        params = list(inspect.signature(fn).parameters)
        assert params[-1] == "name"
        assert len(params) == len(inputs) + len(attrs) + 1, op
        if not op.startswith(duet._INTERNAL_PREFIXES):
            assert callable(getattr(duet, duet._snake(op))), op


def test_raw_ops_take_the_opdef_argument_names():
    y = duet.raw_ops.Conv2D(input=np.ones((1, 4, 4, 1), np.float32),
                            filter=np.ones((2, 2, 1, 1), np.float32), strides=[1, 1, 1, 1],
                            padding="VALID")
    np.testing.assert_array_equal(y.numpy(), np.full((1, 3, 3, 1), 4.))


def test_op_errors_name_the_op_the_shapes_and_the_python_line():
    x, y = duet.constant([[1., 2.]]), duet.constant([1., 2., 3.])
    line = inspect.currentframe().f_lineno + 2
    with pytest.raises(duet.errors.InvalidArgumentError) as e:
        duet.add(x, y)
    message = str(e.value)
    assert "AddV2" in message and "(1, 2)" in message and "(3,)" in message
    assert f"{os.path.basename(__file__)}:{line})" in message
    assert isinstance(e.value, ValueError) and isinstance(e.value, duet.errors.OpError)


def test_unknown_dtype_and_attr_errors():
    with pytest.raises(duet.errors.InvalidArgumentError, match="keep_dims"):
        duet.raw_ops.Sum(duet.constant([1.]), 0, keep_dims="yes please")
    with pytest.raises(duet.errors.InvalidArgumentError, match="Cast"):
        duet.raw_ops.Cast(duet.constant([1.]), DstT="complex512")


def test_the_extension_ships_type_stubs():
    import ast
    folder = os.path.dirname(_core.__file__)
    with open(os.path.join(folder, "_core.pyi")) as f:
        stub = ast.parse(f.read())
    classes = {node.name for node in stub.body if isinstance(node, ast.ClassDef)}
    assert {"Tensor", "Variable", "Graph", "OpDef"} <= classes
    assert os.path.exists(os.path.join(folder, "py.typed"))


def test_named_binary_ops_in_a_graph_match_the_fast_path():
    g = duet.Graph()
    with g.as_default():
        i = duet.placeholder(duet.int32, [2], name="i")
        q = duet.divide(i, 2, name="q")  # integers: Div, as the unnamed fast path
        s = duet.add(i, 1, name="s")
    with duet.Session(g) as sess:
        q_value, s_value = sess.run([q, s], {i: [7, -7]})
    assert q.name == "q:0" and s.name == "s:0"
    np.testing.assert_array_equal(q_value.numpy(), duet.divide(duet.constant([7, -7]), 2).numpy())
    np.testing.assert_array_equal(s_value.numpy(), [8, -6])


def test_sort_argsort_and_boolean_mask_match_numpy():
    rng = np.random.default_rng(3)
    x = rng.integers(-3, 4, size=(4, 6)).astype(np.float64)  # ties
    for axis in (-1, 0):
        np.testing.assert_array_equal(duet.sort(x, axis=axis).numpy(), np.sort(x, axis=axis))
        np.testing.assert_array_equal(duet.argsort(x, axis=axis).numpy(),
                                      np.argsort(x, axis=axis, kind="stable"))
    np.testing.assert_array_equal(duet.sort(x, direction="DESCENDING").numpy(),
                                  -np.sort(-x, axis=-1))
    mask = x > 0
    np.testing.assert_array_equal(duet.boolean_mask(x, mask).numpy(), x[mask])
    rows = np.array([True, False, True, False])
    np.testing.assert_array_equal(duet.boolean_mask(x, rows).numpy(), x[rows])


def test_seedless_random_is_reproducible_after_set_random_seed():
    draw = duet.function(lambda: duet.random_normal([3], mean=1.0, stddev=2.0,
                                                    dtype=duet.float64))
    duet.set_random_seed(9)
    eager = [duet.random_normal([3], mean=1.0, stddev=2.0, dtype=duet.float64).numpy()
             for _ in range(2)]
    assert not np.array_equal(eager[0], eager[1])
    duet.set_random_seed(9)
    traced = [draw().numpy() for _ in range(2)]  # the same sequence, traced
    np.testing.assert_array_equal(traced[0], eager[0])
    np.testing.assert_array_equal(traced[1], eager[1])
    u = duet.random_uniform([1000], minval=2.0, maxval=4.0).numpy()
    assert u.min() >= 2.0 and u.max() < 4.0
    np.testing.assert_array_equal(duet.random_normal([2], seed=5).numpy(),
                                  duet.random_normal([2], seed=5).numpy())


def test_variable_index_put():
    v = duet.Variable(np.zeros((3, 4), np.float32))
    v.index_put((slice(0, 2),), np.ones((2, 4), np.float32))
    v.index_put((2, slice(None, None, 3)), np.array([5.0, 6.0], np.float32))
    expected = np.zeros((3, 4), np.float32)
    expected[:2] = 1
    expected[2, ::3] = [5, 6]
    np.testing.assert_array_equal(v.numpy(), expected)


def test_seeded_random_normal_is_the_stateless_op():
    np.testing.assert_array_equal(
        duet.random_normal([4], mean=1.0, stddev=3.0, seed=5).numpy(),
        (duet.stateless_random_normal([4], [5, 0]) * 3.0 + 1.0).numpy())
