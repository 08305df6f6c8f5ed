"""duet.cond, duet.while_loop and duet.py_function: eagerly, in graphs, in traced functions."""

import numpy as np

import duet


def collatz_steps(n):
    def cond(i, k):
        return i > 1

    def body(i, k):
        odd = duet.equal(i % 2, 1)
        return duet.where(odd, 3 * i + 1, i // 2), k + 1

    return duet.while_loop(cond, body, [n, duet.constant(0)])[1]


def test_eager_traced_and_session_agree():
    assert int(collatz_steps(duet.constant(27))) == 111
    traced = duet.function(collatz_steps)
    assert int(traced(duet.constant(27))) == 111
    assert int(traced(duet.constant(6))) == 8
    assert traced.trace_count() == 1
    g = duet.Graph()
    with g.as_default():
        n = duet.placeholder(duet.int32, [], name="n")
        steps = collatz_steps(n)
    with duet.Session(g) as sess:
        assert int(sess.run(steps, {n: 27})) == 111


def test_cond_runs_one_branch_eagerly_and_both_trace():
    ran = []

    def choose(p, x):
        return duet.cond(p, lambda: ran.append("t") or x * 2, lambda: ran.append("f") or x - 1)

    x = duet.constant([1., 2.])
    np.testing.assert_array_equal(choose(duet.constant(True), x).numpy(), [2., 4.])
    assert ran == ["t"]
    traced = duet.function(choose)
    np.testing.assert_array_equal(traced(duet.constant(False), x).numpy(), [0., 1.])
    np.testing.assert_array_equal(traced(duet.constant(True), x).numpy(), [2., 4.])
    assert traced.trace_count() == 1


def test_cond_gradients():
    x = duet.constant(3.)
    with duet.GradientTape() as tape:
        tape.watch(x)
        y = duet.cond(x > 0, lambda: x * x, lambda: -x)
    (dx,) = tape.gradient(y, [x])
    assert float(dx) == 6.


def test_while_loop_gradients_eager_and_traced():
    def loss(h, w):
        _, h = duet.while_loop(lambda i, h: duet.reduce_sum(h * h) < 0.5,
                               lambda i, h: (i + 1, duet.tanh(h * w + 0.25)),
                               [duet.constant(0), h], maximum_iterations=10)
        return duet.reduce_sum(h * h)

    def grads(fn, h, w):
        with duet.GradientTape() as tape:
            tape.watch(h)
            tape.watch(w)
            y = fn(h, w)
        return [g.numpy() for g in tape.gradient(y, [h, w])]

    h = duet.constant([0.1, 0.2, -0.3], dtype=duet.float64)
    w = duet.constant([0.9, 1.1, 0.8], dtype=duet.float64)
    eager = grads(loss, h, w)
    traced = grads(duet.function(loss), h, w)
    for e, t in zip(eager, traced):
        np.testing.assert_allclose(t, e, rtol=1e-12)
    # Central differences in float64.
    eps = 1e-6
    for i in range(3):
        step = np.zeros(3)
        step[i] = eps
        up = float(loss(duet.constant(h.numpy() + step), w))
        down = float(loss(duet.constant(h.numpy() - step), w))
        assert abs((up - down) / (2 * eps) - eager[0][i]) < 1e-6


def test_while_loop_maximum_iterations():
    steps = duet.while_loop(lambda i: i < 100, lambda i: i + 1, [duet.constant(0)],
                            maximum_iterations=7)[0]
    assert int(steps) == 7
    traced = duet.function(lambda n: duet.while_loop(lambda i: i < n, lambda i: i + 1,
                                                     [duet.constant(0)], maximum_iterations=7)[0])
    assert int(traced(duet.constant(100))) == 7
    assert int(traced(duet.constant(3))) == 3


def test_py_function_runs_python_when_the_node_runs():
    seen = []

    def host(a, b):
        seen.append(1)
        return np.asarray(a) + np.asarray(b) * 10

    g = duet.Graph()
    with g.as_default():
        a = duet.placeholder(duet.float32, [2], name="a")
        out = duet.py_function(host, [a, a], duet.float32)
    assert seen == []
    with duet.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(out, {a: [1., 2.]}).numpy(), [11., 22.])
        sess.run(out, {a: [1., 2.]})
    assert len(seen) == 2
    eager = duet.py_function(host, [duet.constant([1.]), duet.constant([2.])], duet.float32)
    np.testing.assert_array_equal(eager.numpy(), [21.])
