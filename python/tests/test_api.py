"""TensorFlow's composite functions and renamed ops at duet.* and duet.nn.*, against NumPy (and
float64 finite differences where a gradient is hand-shaped to avoid NaNs)."""

import numpy as np
import pytest

import duet

RNG = np.random.default_rng(7)


def test_gather_one_hot_and_top_k():
    params = RNG.normal(size=(4, 3)).astype(np.float32)
    np.testing.assert_array_equal(duet.gather(params, [2, 0]).numpy(), params[[2, 0]])
    np.testing.assert_array_equal(duet.gather(params, [1, 1], axis=1).numpy(), params[:, [1, 1]])
    np.testing.assert_array_equal(duet.nn.embedding_lookup(params, [[3], [0]]).numpy(),
                                  params[[[3], [0]]])
    hot = duet.one_hot([0, 2, -1], 3)
    assert hot.dtype == duet.float32
    np.testing.assert_array_equal(hot.numpy(), [[1, 0, 0], [0, 0, 1], [0, 0, 0]])
    np.testing.assert_array_equal(duet.one_hot([1], 2, on_value=5, off_value=-1,
                                               dtype=duet.int32).numpy(), [[-1, 5]])
    values, indices = duet.top_k([[1., 9., 3.], [4., 2., 8.]], k=2)
    np.testing.assert_array_equal(values.numpy(), [[9., 3.], [8., 4.]])
    np.testing.assert_array_equal(indices.numpy(), [[1, 2], [2, 0]])


def test_reduce_logsumexp_is_stable():
    x = np.array([[1000., 1000.], [-np.inf, -np.inf], [0., np.log(3.)]], np.float64)
    out = duet.reduce_logsumexp(x, axis=1).numpy()
    np.testing.assert_allclose(out[[0, 2]], [1000 + np.log(2.), np.log(4.)])
    assert out[1] == -np.inf
    kept = duet.reduce_logsumexp(x[2:], axis=1, keepdims=True)
    assert kept.shape == (1, 1)
    np.testing.assert_allclose(float(duet.reduce_logsumexp(x[2:])), np.log(4.))


def test_clip_by_norm_and_l2_normalize():
    t = np.array([[3., 4.], [0., 0.]], np.float32)
    np.testing.assert_allclose(duet.clip_by_norm(t, 1.).numpy(), [[0.6, 0.8], [0., 0.]])
    np.testing.assert_allclose(duet.clip_by_norm(t, 1., axes=[1]).numpy(),
                               [[0.6, 0.8], [0., 0.]])
    np.testing.assert_allclose(duet.clip_by_norm(t, 10.).numpy(), t)
    x = duet.constant(np.zeros((2,), np.float64))
    with duet.GradientTape() as tape:
        tape.watch(x)
        y = duet.reduce_sum(duet.clip_by_norm(x, 1.))
    assert np.isfinite(tape.gradient(y, x).numpy()).all()  # no NaN at a zero norm
    np.testing.assert_allclose(duet.nn.l2_normalize(t, axis=1).numpy(), [[0.6, 0.8], [0., 0.]])


def test_moments_sigmoid_cross_entropy_and_silu():
    x = RNG.normal(size=(5, 3))
    mean, variance = duet.nn.moments(x, axes=[0])
    np.testing.assert_allclose(mean.numpy(), x.mean(0))
    np.testing.assert_allclose(variance.numpy(), x.var(0))
    mean, variance = duet.nn.moments(x, axes=[0, 1], keepdims=True)
    assert mean.shape == (1, 1) and variance.shape == (1, 1)
    logits, labels = np.array([-50., -1., 0., 2., 60.]), np.array([0., 1., 0.5, 1., 0.])
    # -z log(sigmoid(x)) - (1 - z) log(1 - sigmoid(x)), with NumPy's exact log(1 + exp(.))
    expected = labels * np.logaddexp(0, -logits) + (1 - labels) * np.logaddexp(0, logits)
    np.testing.assert_allclose(
        duet.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits).numpy(),
        expected, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(duet.nn.silu(x).numpy(), x / (1 + np.exp(-x)))
    assert duet.nn.swish is duet.nn.silu


def test_pools_and_depthwise_conv2d():
    images = RNG.normal(size=(1, 4, 4, 2)).astype(np.float32)
    pooled = duet.nn.max_pool2d(images, 2, 2, "VALID").numpy()
    np.testing.assert_array_equal(pooled, images.reshape(1, 2, 2, 2, 2, 2).max(axis=(2, 4)))
    averaged = duet.nn.avg_pool(images, [2, 2], [2, 2], "VALID").numpy()
    np.testing.assert_allclose(averaged, images.reshape(1, 2, 2, 2, 2, 2).mean(axis=(2, 4)),
                               rtol=1e-6)
    filters = RNG.normal(size=(1, 1, 2, 3)).astype(np.float32)  # channel multiplier 3
    out = duet.nn.depthwise_conv2d(images, filters, [1, 1, 1, 1], "VALID").numpy()
    expected = (images[..., :, None] * filters[0, 0]).reshape(1, 4, 4, 6)
    np.testing.assert_allclose(out, expected, rtol=1e-5)


def test_int_of_a_float_scalar_follows_python():
    assert int(duet.constant(2.7)) == 2 and int(duet.constant(-2.7)) == -2
    with pytest.raises(ValueError):
        int(duet.constant(float("nan")))
    with pytest.raises(OverflowError):
        int(duet.constant(float("inf")))


def test_lists_holding_tensors_are_packed_as_tensorflow_packs_them():
    n = duet.constant(2)
    assert duet.zeros([n, 3]).shape == (2, 3)
    assert duet.convert_to_tensor([[n, 1], [3, n]]).numpy().tolist() == [[2, 1], [3, 2]]

    @duet.function
    def fill(k):
        return duet.fill([k, 2], 7.)
    assert fill(duet.constant(3)).shape == (3, 2)
