"""Graph mode from Python: building, sessions, gradients, GraphDef files; eager == graph."""

import inspect

import numpy as np
import pytest

import duet


def mlp(x, w, b):
    return duet.nn.relu(duet.matmul(x, w) + b)


def test_the_same_ops_build_a_graph_and_a_session_runs_it():
    rng = np.random.default_rng(1)
    w = rng.normal(size=(3, 2)).astype(np.float32)
    b = np.array([0.1, -0.2], np.float32)
    batch = rng.normal(size=(4, 3)).astype(np.float32)
    g = duet.Graph()
    with g.as_default():
        x = duet.placeholder(duet.float32, [None, 3], name="x")
        y = mlp(x, w, b)
        assert x.name == "x:0" and x.shape.as_list() == [None, 3]
        z = duet.identity(y, name="z")
    with duet.Session(g) as sess:
        out = sess.run(y, feed_dict={x: batch})
        np.testing.assert_allclose(out.numpy(), mlp(batch, w, b).numpy(), rtol=1e-6)
        nested = sess.run({"a": [y, "z:0"], "b": (z,)}, feed_dict={"x:0": batch.tolist()})
        np.testing.assert_array_equal(nested["a"][1].numpy(), out.numpy())
        assert isinstance(nested["b"], tuple)
    assert [op.type for op in g.get_operations()][:1] == ["Placeholder"]
    assert g.get_tensor_by_name("z:0").shape.as_list() == [None, 2]


def test_feeds_are_converted_to_the_placeholder_dtype():
    g = duet.Graph()
    with g.as_default():
        x = duet.placeholder(duet.float32, [2], name="x")
        y = x * 2
    with duet.Session(g) as sess:
        out = sess.run(y, {x: np.array([1.5, 2.5])})  # float64 -> float32, as TensorFlow
        assert out.dtype == duet.float32
        np.testing.assert_array_equal(out.numpy(), [3., 5.])


def test_symbolic_gradients_match_the_tape():
    a = np.array([[1., 2.], [3., 4.]])
    g = duet.Graph()
    with g.as_default():
        x = duet.placeholder(duet.float64, [2, 2], name="x")
        loss = duet.reduce_sum(duet.tanh(x) * x)
        (dx,) = duet.gradients(loss, [x])
    with duet.Session(g) as sess:
        symbolic = sess.run(dx, {x: a}).numpy()
    xe = duet.constant(a)
    with duet.GradientTape() as tape:
        tape.watch(xe)
        le = duet.reduce_sum(duet.tanh(xe) * xe)
    (eager,) = tape.gradient(le, [xe])
    np.testing.assert_allclose(symbolic, eager.numpy(), rtol=1e-12)
    np.testing.assert_allclose(symbolic, np.tanh(a) + a / np.cosh(a) ** 2, rtol=1e-12)


def test_graph_def_files_round_trip_and_optimize(tmp_path):
    g = duet.Graph()
    with g.as_default():
        x = duet.placeholder(duet.float32, [None, 2], name="x")
        y = duet.identity(duet.nn.relu(x * 1. + 0.) * 2, name="y")
    path = str(tmp_path / "model.pb")
    duet.write_graph(g, path)
    g2 = duet.read_graph(path)
    report = duet.optimize(g2)
    assert report.nodes_after <= report.nodes_before and "nodes" in str(report).lower()
    with duet.Session(g2) as sess:
        out = sess.run("y:0", {"x:0": [[-1., 3.]]})
    np.testing.assert_array_equal(out.numpy(), [[0., 6.]])


def test_name_scopes_nest_and_as_graph_def_serializes():
    g = duet.Graph()
    with g.as_default():
        with duet.name_scope("layer1"):
            x = duet.placeholder(duet.float32, [2], name="x")
            with duet.name_scope("inner"):
                y = duet.identity(x * 2., name="y")
        z = duet.identity(y, name="z")
    assert x.name == "layer1/x:0" and y.name == "layer1/inner/y:0" and z.name == "z:0"
    gd = g.as_graph_def()
    assert isinstance(gd, bytes) and b"layer1/inner/y" in gd
    with duet.Session(g) as sess:
        np.testing.assert_array_equal(sess.run("layer1/inner/y:0", {x: [1., 2.]}).numpy(), [2., 4.])
    with duet.name_scope("eager"):  # nothing to name eagerly
        np.testing.assert_array_equal((duet.constant([1.]) * 3).numpy(), [3.])


def test_graph_errors_are_python_errors():
    g = duet.Graph()
    with g.as_default():
        x = duet.placeholder(duet.float32, [2], name="x")
        with pytest.raises(duet.errors.InvalidArgumentError, match="AddV2"):
            x + duet.constant([1., 2., 3.])
        with pytest.raises(AttributeError):
            duet.constant(1.).name  # eager tensors have no name
        y = x * 2
    with duet.Session(g) as sess:
        with pytest.raises(duet.errors.OpError):
            sess.run(y)  # x is not fed
        with pytest.raises(duet.errors.NotFoundError):
            sess.run("nope:0")
        with pytest.raises(duet.errors.InvalidArgumentError, match="cannot fetch"):
            sess.run(3.5)
    with pytest.raises(duet.errors.NotFoundError):
        duet.read_graph("/no/such/file.pb")


def test_nodes_built_from_python_name_the_python_line():
    g = duet.Graph()
    with g.as_default():
        x = duet.placeholder(duet.float32, [None], name="x")
        line = inspect.currentframe().f_lineno + 1
        y = duet.raw_ops.CheckNumerics(tensor=x * 2, message="bad value")
    with duet.Session(g) as sess:
        with pytest.raises(duet.errors.OpError) as e:
            sess.run(y, {x: [1., float("nan")]})
    assert f"test_graph.py:{line}" in str(e.value), str(e.value)
    with g.as_default():
        line = inspect.currentframe().f_lineno + 2
        with pytest.raises(duet.errors.InvalidArgumentError) as e:
            x + duet.constant([1, 2])  # a dtype error (int32 + float32) while building
    assert str(e.value).count("test_graph.py:") == 1 and f"test_graph.py:{line}" in str(e.value)
