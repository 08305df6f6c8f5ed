"""duet.Tensor from Python: making tensors, dtypes and shapes, NumPy, numbers, printing."""

import numpy as np
import pytest

import duet


def test_constant_from_lists_follows_tf_constant():
    x = duet.constant([[1., 2.], [3., 4.]])
    assert x.dtype == duet.float32
    assert x.shape == (2, 2) and x.shape.as_list() == [2, 2]
    assert x.device == "/device:CPU:0"
    np.testing.assert_array_equal(x.numpy(), [[1, 2], [3, 4]])
    assert duet.constant([1, 2]).dtype == duet.int32
    assert duet.constant([2**40]).dtype == duet.int64
    assert duet.constant(3.5).dtype == duet.float32
    assert duet.constant([True, False]).dtype == duet.bool


def test_numpy_arrays_keep_their_dtype():
    for dtype in [np.float32, np.float64, np.float16, np.int32, np.int64, np.uint8, np.bool_]:
        a = np.arange(6).reshape(2, 3).astype(dtype)
        t = duet.constant(a)
        assert t.dtype == dtype
        np.testing.assert_array_equal(t.numpy(), a)


def test_numpy_is_a_read_only_view_of_host_memory():
    t = duet.constant(np.ones((1000, 1000), np.float32))
    a, b = t.numpy(), t.numpy()
    assert np.shares_memory(a, b)
    assert not a.flags.writeable
    np.testing.assert_array_equal(np.asarray(t), a)


def test_python_numbers_from_scalars():
    assert float(duet.constant(2.5)) == 2.5
    assert int(duet.constant(7)) == 7
    assert bool(duet.constant(True)) is True
    assert [10, 20, 30][duet.constant(1)] == 20
    with pytest.raises(duet.errors.InvalidArgumentError, match="one element"):
        float(duet.constant([1., 2.]))
    with pytest.raises(duet.errors.InvalidArgumentError, match="integer"):
        [1, 2][duet.constant(1.)]


def test_len_iteration_and_indexing():
    x = duet.constant([[1, 2, 3], [4, 5, 6]])
    assert len(x) == 2
    rows = [r.numpy().tolist() for r in x]
    assert rows == [[1, 2, 3], [4, 5, 6]]
    np.testing.assert_array_equal(x[1, ::2].numpy(), [4, 6])
    np.testing.assert_array_equal(x[..., None].numpy(), x.numpy()[..., None])
    with pytest.raises(TypeError):
        len(duet.constant(1.))


def test_printing_as_tensorflow():
    x = duet.constant([[2., 6.], [12., 20.]])
    assert repr(x) == "duet.Tensor(\n[[ 2.  6.]\n [12. 20.]], shape=(2, 2), dtype=float32)"
    assert str(x) == repr(x)
    assert repr(duet.float32) == "duet.float32"


def test_bad_values_are_errors_not_crashes():
    with pytest.raises(duet.errors.InvalidArgumentError, match="None"):
        duet.add(None, 1.)
    with pytest.raises(duet.errors.InvalidArgumentError, match="ragged"):
        duet.constant([[1., 2.], [3.]])
    with pytest.raises(duet.errors.InvalidArgumentError):
        duet.constant(np.array([object(), 1], dtype=object))
    with pytest.raises(ValueError):  # InvalidArgumentError is a ValueError
        duet.constant([1, "a"])


def test_conversion_errors_name_the_op_and_the_argument():
    with pytest.raises(duet.errors.InvalidArgumentError, match=r"^AddV2: y: None"):
        duet.add(duet.constant(1.), None)
    with pytest.raises(duet.errors.InvalidArgumentError, match=r"^Relu: features: cannot make"):
        duet.nn.relu(object())
    with pytest.raises(duet.errors.InvalidArgumentError, match=r"^AddN: input inputs is a list"):
        duet.add_n(duet.constant(1.))
    with pytest.raises(TypeError):
        duet.constant(1.) + None


def test_dlpack_both_ways_without_a_copy():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = duet.from_dlpack(a)
    assert t.dtype == duet.float32 and t.shape == (3, 4)
    assert np.shares_memory(t.numpy(), a)
    np.testing.assert_array_equal((t * 2).numpy(), a * 2)
    b = np.from_dlpack(t)
    assert np.shares_memory(b, t.numpy())
    np.testing.assert_array_equal(b, a)
    assert t.__dlpack_device__() == (1, 0)
    for dtype in [np.float64, np.int32, np.int64, np.uint8, np.bool_, np.float16]:
        x = np.ones((2, 3), dtype)
        np.testing.assert_array_equal(np.from_dlpack(duet.from_dlpack(x)), x)
    del a, b  # the tensor keeps the producer's memory alive
    np.testing.assert_array_equal(t.numpy()[2], [8., 9., 10., 11.])
    with pytest.raises(duet.errors.InvalidArgumentError, match="DLPack"):
        duet.from_dlpack([1, 2])


def test_symbolic_tensors_have_no_value_outside_a_session():
    g = duet.Graph()
    with g.as_default():
        p = duet.placeholder(duet.float32, [2], name="p")
    for read in (p.numpy, lambda: np.asarray(p), lambda: float(p), p.__dlpack__):
        with pytest.raises(duet.errors.InvalidArgumentError, match="symbolic"):
            read()
    with pytest.raises(duet.errors.InvalidArgumentError, match="symbolic graph tensor"):
        p + 1  # used outside its graph
    with pytest.raises(TypeError):
        duet.constant([1., 2.])[1.5]


def test_dlpack_of_a_virtual_device_tensor_says_to_copy_it_first():
    with duet.device("/cpu:1"):  # DUET_VIRTUAL_DEVICES=2 (python/BUILD.bazel)
        y = duet.constant([1., 2.]) * 2
    with pytest.raises(duet.errors.InvalidArgumentError, match=r"cpu:1.*copy it to the host first"):
        np.from_dlpack(y)
    np.testing.assert_array_equal(np.from_dlpack(y.to("cpu:0")), [2., 4.])


def test_device_scopes_place_ops_and_copy_inputs():
    assert duet.num_cpu_devices() == 2  # DUET_VIRTUAL_DEVICES=2 (python/BUILD.bazel)
    x = duet.constant([1., 2.])
    with duet.device("/cpu:1"):
        y = x * 2
    assert y.device == "/device:CPU:1" and x.device == "/device:CPU:0"
    np.testing.assert_array_equal(y.numpy(), [2., 4.])  # copied back to the host to read
    z = y.to("cpu:0") + x
    assert z.device == "/device:CPU:0"
    np.testing.assert_array_equal(z.numpy(), [3., 6.])
    with pytest.raises(duet.errors.InvalidArgumentError):
        with duet.device("/tpu:0"):
            pass


def test_string_tensors_give_numpy_bytes_as_tensorflow():
    s = duet.constant([["a", "bc"], ["", "d"]])
    array = s.numpy()
    assert array.dtype == object and array.shape == (2, 2)
    assert array.tolist() == [[b"a", b"bc"], [b"", b"d"]]
    assert duet.constant("hi").numpy()[()] == b"hi"
