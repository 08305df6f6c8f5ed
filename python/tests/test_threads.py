"""Ops from several Python threads at once (the GIL is released around large kernels)."""

import threading

import numpy as np

import duet


def test_ops_from_several_threads_agree_with_one_thread():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(256, 256)).astype(np.float32)
    expected = (a @ a + a).sum(axis=1)
    results, errors = {}, []

    def work(k):
        try:
            x = duet.constant(a)
            for _ in range(5):
                y = duet.reduce_sum(duet.matmul(x, x) + x, axis=1)
            with duet.GradientTape() as tape:
                tape.watch(x)
                loss = duet.reduce_sum(x * x)
            (dx,) = tape.gradient(loss, [x])
            results[k] = (y.numpy(), dx.numpy())
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for y, dx in results.values():
        np.testing.assert_allclose(y, expected, rtol=1e-4)
        np.testing.assert_array_equal(dx, 2 * a)


def test_device_copies_from_several_threads():
    # DUET_VIRTUAL_DEVICES=2 (python/BUILD.bazel): cpu:1 is memory of its own; copies release the
    # GIL while they run.
    a = np.arange(1 << 20, dtype=np.float32)
    results, errors = {}, []

    def work(k):
        try:
            there = duet.constant(a + k)._to("cpu:1")
            assert there.device.endswith("CPU:1"), there.device
            results[k] = (there * 2)._to("cpu:0").numpy()
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k, values in results.items():
        np.testing.assert_array_equal(values, (a + k) * 2)
