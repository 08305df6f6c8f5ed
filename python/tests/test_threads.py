"""Ops from several Python threads at once (the GIL is released around large kernels)."""

import threading

import numpy as np

import duet


def _in_threads(work, count=4):
    """work(k) on `count` threads at once; {k: its result}, or the first exception raised."""
    results, errors = {}, []

    def run(k):
        try:
            results[k] = work(k)
        except Exception as e:  # noqa: BLE001 (raised below)
            errors.append(e)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def test_ops_from_several_threads_agree_with_one_thread():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(256, 256)).astype(np.float32)
    expected = (a @ a + a).sum(axis=1)

    def work(k):
        x = duet.constant(a)
        for _ in range(5):
            y = duet.reduce_sum(duet.matmul(x, x) + x, axis=1)
        with duet.GradientTape() as tape:
            tape.watch(x)
            loss = duet.reduce_sum(x * x)
        (dx,) = tape.gradient(loss, [x])
        return y.numpy(), dx.numpy()

    for y, dx in _in_threads(work).values():
        np.testing.assert_allclose(y, expected, rtol=1e-4)
        np.testing.assert_array_equal(dx, 2 * a)


def test_device_copies_from_several_threads():
    # DUET_VIRTUAL_DEVICES=2 (python/BUILD.bazel): cpu:1 is memory of its own; copies release the
    # GIL while they run.
    a = np.arange(1 << 20, dtype=np.float32)

    def work(k):
        there = duet.constant(a + k)._to("cpu:1")
        assert there.device.endswith("CPU:1"), there.device
        return (there * 2)._to("cpu:0").numpy()

    for k, values in _in_threads(work).items():
        np.testing.assert_array_equal(values, (a + k) * 2)
