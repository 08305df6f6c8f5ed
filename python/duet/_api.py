"""The public op functions, named and shaped as TensorFlow's (tf.add, tf.reduce_sum, tf.nn.relu):
each calls one op of the registry (duet.raw_ops). Ops with no entry here are still reachable under
their snake_case name (duet.squared_difference for SquaredDifference), which __init__ derives."""

import builtins
import operator

from duet import _core
from duet import dtypes
from duet._ops import raw_ops as _raw


def constant(value, dtype=None, shape=None, name=None):
    """A tensor holding `value`: a number (float32 or int32 unless `dtype` says otherwise, as in
    TensorFlow), a nested list, a NumPy array or a tensor."""
    t = _core._constant(value, dtype)
    if shape is not None:
        t = _raw.Reshape(t, list(shape)) if t.ndim else _raw.Fill(list(shape), t)
    return t


def convert_to_tensor(value, dtype=None, name=None):
    return constant(value, dtype=dtype, name=name)


def cast(x, dtype, name=None):
    return _raw.Cast(x, DstT=dtypes.as_dtype(dtype), name=name)


def _reduction(op):
    def reduce(input_tensor, axis=None, keepdims=False, name=None):
        x = convert_to_tensor(input_tensor)
        if axis is None and x.shape.rank is not None:
            axis = list(builtins.range(x.shape.rank))  # a constant: graph gradients read it
        elif axis is None:
            axis = _raw.Range(0, _raw.Rank(x), 1)
        return getattr(_raw, op)(x, axis, keep_dims=keepdims, name=name)
    reduce.__name__ = reduce.__qualname__ = "reduce_" + op.lower()
    reduce.__doc__ = f"{op} over `axis` (every axis when None)."
    return reduce


reduce_sum = _reduction("Sum")
reduce_mean = _reduction("Mean")
reduce_max = _reduction("Max")
reduce_min = _reduction("Min")
reduce_prod = _reduction("Prod")
reduce_all = _reduction("All")
reduce_any = _reduction("Any")
reduce_all.__name__, reduce_any.__name__ = "reduce_all", "reduce_any"


def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if a.ndim == 2 and b.ndim == 2:
        return _raw.MatMul(a, b, transpose_a=transpose_a, transpose_b=transpose_b, name=name)
    return _raw.BatchMatMulV2(a, b, adj_x=transpose_a, adj_y=transpose_b, name=name)


def _binary(fast, op, doc):
    """duet.<name>(x, y, name=None): the C++ fast path, or the op by name when a node name is
    given (graph mode); `op` picks the registry op from x's dtype."""
    def fn(x, y, name=None):
        if name is None:
            return fast(x, y)
        return getattr(_raw, op(convert_to_tensor(x)))(x, y, name=name)
    fn.__doc__ = doc
    return fn


add = _binary(_core.add, lambda x: "AddV2", "x + y, elementwise with NumPy broadcasting.")
subtract = _binary(_core.subtract, lambda x: "Sub", "x - y, elementwise.")
multiply = _binary(_core.multiply, lambda x: "Mul", "x * y, elementwise.")
divide = _binary(_core.divide, lambda x: "Div" if x.dtype.is_integer else "RealDiv",
                 "x / y, elementwise; integers truncate (Div), floats divide (RealDiv).")


def negative(x, name=None):
    return _raw.Neg(x, name=name)


def reshape(tensor, shape, name=None):
    return _raw.Reshape(tensor, shape, name=name)


def transpose(a, perm=None, name=None):
    a = convert_to_tensor(a)
    if perm is None:
        perm = list(reversed(builtins.range(a.ndim)))
    return _raw.Transpose(a, perm, name=name)


def concat(values, axis, name=None):
    return _raw.ConcatV2(values, axis, name=name)


def stack(values, axis=0, name=None):
    return _raw.Pack(values, axis=axis, name=name)


def unstack(value, num=None, axis=0, name=None):
    value = convert_to_tensor(value)
    if num is None:
        num = value.shape[axis]
    return list(_raw.Unpack(value, num=num, axis=axis, name=name))


def split(value, num_or_size_splits, axis=0, name=None):
    if isinstance(num_or_size_splits, int):
        return list(_raw.Split(axis, value, num_split=num_or_size_splits, name=name))
    sizes = list(num_or_size_splits)
    return list(_raw.SplitV(value, sizes, axis, num_split=len(sizes), name=name))


def zeros(shape, dtype=dtypes.float32, name=None):
    return _raw.Fill(list(shape), cast(0, dtype), name=name)


def ones(shape, dtype=dtypes.float32, name=None):
    return _raw.Fill(list(shape), cast(1, dtype), name=name)


def fill(dims, value, name=None):
    return _raw.Fill(dims, value, name=name)


def range(start, limit=None, delta=1, dtype=None, name=None):  # noqa: A001 (tf.range)
    if limit is None:
        start, limit = 0, start
    if dtype is None:
        floating = any(isinstance(v, float) for v in (start, limit, delta))
        dtype = dtypes.float32 if floating else dtypes.int32
    dtype = dtypes.as_dtype(dtype)
    return _raw.Range(cast(start, dtype), cast(limit, dtype), cast(delta, dtype), name=name)


def expand_dims(input, axis, name=None):  # noqa: A002 (tf.expand_dims)
    return _raw.ExpandDims(input, axis, name=name)


def squeeze(input, axis=None, name=None):  # noqa: A002 (tf.squeeze)
    if axis is not None and not isinstance(axis, (list, tuple)):
        axis = [axis]
    return _raw.Squeeze(input, squeeze_dims=axis or [], name=name)


def argmax(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    return _raw.ArgMax(input, 0 if axis is None else axis, output_type=output_type, name=name)


def argmin(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    return _raw.ArgMin(input, 0 if axis is None else axis, output_type=output_type, name=name)


def where(condition, x=None, y=None, name=None):
    if x is None and y is None:
        return _raw.Where(condition, name=name)
    return _raw.SelectV2(condition, x, y, name=name)


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """values sorted along `axis` (tf.sort; stable): the C++ sort, over TopKV2."""
    return _core._sort(values, axis, _descending(direction))


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort `values` along `axis` (tf.argsort; always stable)."""
    return _core._argsort(values, axis, _descending(direction))


def _descending(direction):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"direction must be 'ASCENDING' or 'DESCENDING', not {direction!r}")
    return direction == "DESCENDING"


def boolean_mask(tensor, mask, axis=None, name=None):
    """The elements (or slices) of `tensor` where `mask` is true (tf.boolean_mask)."""
    return _core._boolean_mask(tensor, mask, 0 if axis is None else axis)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """N(mean, stddev^2) samples: from the global generator duet.set_random_seed restarts, or,
    with `seed`, tf.random.stateless_normal(shape, [seed, 0])."""
    return _core._random_normal(list(shape), dtype, mean, stddev, seed)


def random_uniform(shape, minval=0.0, maxval=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Uniform [minval, maxval) samples, from the global generator or with `seed` stateless."""
    return _core._random_uniform(list(shape), dtype, minval, maxval, seed)


def _strided_spec(index):
    """StridedSlice's begin, end, strides and masks for x[index] (NumPy's basic indexing)."""
    if not isinstance(index, tuple):
        index = (index,)
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    for i, item in enumerate(index):
        bit = 1 << i
        if item is Ellipsis:
            ellipsis_mask |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif item is None:
            new_axis_mask |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif isinstance(item, slice):
            begin.append(0 if item.start is None else item.start)
            end.append(0 if item.stop is None else item.stop)
            strides.append(1 if item.step is None else item.step)
            if item.start is None:
                begin_mask |= bit
            if item.stop is None:
                end_mask |= bit
        else:
            k = operator.index(item)  # TypeError for floats, as Python's own indexing
            begin.append(k), end.append(k + 1), strides.append(1)
            shrink_axis_mask |= bit
    masks = dict(begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                 new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask)
    return begin, end, strides, masks


def getitem(x, index):
    """x[index]: ints, slices, Ellipsis and None (new axes), as NumPy's basic indexing."""
    begin, end, strides, masks = _strided_spec(index)
    return _raw.StridedSlice(x, begin, end, strides, **masks)


def index_put(variable, index, value):
    """variable[index] = value (ResourceStridedSliceAssign), as the C++ Variable::index_put."""
    begin, end, strides, masks = _strided_spec(index)
    _raw.ResourceStridedSliceAssign(variable.handle, begin, end, strides, value, **masks)
    return variable


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Slices of `params` along `axis` (default: batch_dims) at `indices`: tf.gather."""
    axis = batch_dims if axis is None else axis
    return _raw.GatherV2(params, indices, axis, batch_dims=batch_dims, name=name)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot rows of `depth` (tf.one_hot): float32 1s and 0s unless told otherwise."""
    if dtype is None:
        given = [v for v in (on_value, off_value) if isinstance(v, _core.Tensor)]
        dtype = given[0].dtype if given else dtypes.float32
    on = cast(1 if on_value is None else on_value, dtype)
    off = cast(0 if off_value is None else off_value, dtype)
    return _raw.OneHot(indices, depth, on, off, axis=-1 if axis is None else axis, name=name)


def top_k(input, k=1, sorted=True, name=None):  # noqa: A002 (tf.math.top_k)
    """(values, indices) of the k largest entries along the last axis."""
    return tuple(_raw.TopKV2(input, k, sorted=sorted, name=name))


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """log(sum(exp(x))) over `axis`, computed stably (the max is subtracted first)."""
    x = convert_to_tensor(input_tensor)
    top = stop_gradient(reduce_max(x, axis, keepdims=True))
    top = _raw.SelectV2(_raw.IsFinite(top), top, zeros_like(top))  # all -inf: no shift
    total = _raw.Log(reduce_sum(_raw.Exp(x - top), axis, keepdims=True))
    return reduce_sum(total + top, axis, keepdims=keepdims, name=name)  # drops the kept axes


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """t scaled so that its L2 norm over `axes` is at most clip_norm (tf.clip_by_norm)."""
    t = convert_to_tensor(t)
    squares = reduce_sum(t * t, axes, keepdims=True)
    positive = squares > 0
    safe = _raw.SelectV2(positive, squares, ones_like(squares))  # no NaN gradient at 0
    norm = _raw.SelectV2(positive, _raw.Sqrt(safe), squares)
    clip_norm = cast(clip_norm, t.dtype)
    return _raw.Identity(t * clip_norm / _raw.Maximum(norm, clip_norm), name=name)


def stop_gradient(input, name=None):  # noqa: A002 (tf.stop_gradient)
    return _raw.StopGradient(input, name=name)


def zeros_like(input, dtype=None, name=None):  # noqa: A002 (tf.zeros_like)
    x = convert_to_tensor(input)
    return _raw.ZerosLike(x if dtype is None else cast(x, dtype), name=name)


def ones_like(input, dtype=None, name=None):  # noqa: A002 (tf.ones_like)
    x = convert_to_tensor(input)
    return _raw.OnesLike(x if dtype is None else cast(x, dtype), name=name)


# tf.nn's names for the nn ops (also at duet.nn).
def _nhwc(v, data_format="NHWC"):
    """A 2-D window, stride or dilation as the format's four: n, [n], [h, w] or the four themselves
    ([1, h, w, 1] for NHWC, [1, 1, h, w] for NCHW, as tf.nn expands them)."""
    v = [v, v] if isinstance(v, int) else list(v)
    if len(v) == 1:
        v = v * 2
    if len(v) == 2:
        return [1, 1] + v if data_format == "NCHW" else [1] + v + [1]
    return v


def softmax(logits, axis=-1, name=None):
    if axis not in (-1, convert_to_tensor(logits).ndim - 1):
        raise NotImplementedError("duet.nn.softmax over an axis other than the last")
    return _raw.Softmax(logits, name=name)


def log_softmax(logits, axis=-1, name=None):
    if axis not in (-1, convert_to_tensor(logits).ndim - 1):
        raise NotImplementedError("duet.nn.log_softmax over an axis other than the last")
    return _raw.LogSoftmax(logits, name=name)


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None,
           name=None):  # noqa: A002 (tf.nn.conv2d)
    return _raw.Conv2D(input, filters, strides=_nhwc(strides, data_format), padding=padding,
                       data_format=data_format, dilations=_nhwc(dilations or 1, data_format),
                       name=name)


def bias_add(value, bias, data_format=None, name=None):
    return _raw.BiasAdd(value, bias, data_format=data_format or "NHWC", name=name)


def softmax_cross_entropy_with_logits(labels, logits, name=None):
    return _raw.SoftmaxCrossEntropyWithLogits(logits, labels, name=name)[0]


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    return _raw.SparseSoftmaxCrossEntropyWithLogits(logits, labels, name=name)[0]


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    return _raw.MaxPool(input, ksize=_nhwc(ksize, data_format),
                        strides=_nhwc(strides, data_format),
                        padding=padding, data_format=data_format, name=name)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    return _raw.AvgPool(input, ksize=_nhwc(ksize, data_format),
                        strides=_nhwc(strides, data_format),
                        padding=padding, data_format=data_format, name=name)


def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None,
                     name=None):  # noqa: A002 (tf.nn.depthwise_conv2d)
    data_format = data_format or "NHWC"
    return _raw.DepthwiseConv2dNative(input, filter, strides=_nhwc(strides, data_format),
                                      padding=padding, data_format=data_format,
                                      dilations=_nhwc(dilations or 1, data_format), name=name)


def embedding_lookup(params, ids, name=None):
    return gather(params, ids, name=name)


def moments(x, axes, shift=None, keepdims=False, name=None):
    """(mean, variance) of x over `axes` (tf.nn.moments)."""
    mean = reduce_mean(x, axes, keepdims=True)
    variance = reduce_mean(_raw.SquaredDifference(x, stop_gradient(mean)), axes, keepdims=True)
    if not keepdims:
        mean, variance = squeeze(mean, axes), squeeze(variance, axes)
    return mean, variance


def l2_normalize(x, axis=None, epsilon=1e-12, name=None):
    """x / sqrt(max(sum(x**2, axis), epsilon)) (tf.nn.l2_normalize)."""
    x = convert_to_tensor(x)
    squares = reduce_sum(x * x, axis, keepdims=True)
    return _raw.Mul(x, _raw.Rsqrt(_raw.Maximum(squares, cast(epsilon, x.dtype))), name=name)


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """max(x, 0) - x * z + log(1 + exp(-|x|)) for logits x and labels z, elementwise."""
    x, z = convert_to_tensor(logits), convert_to_tensor(labels)
    return _raw.AddV2(_raw.Relu(x) - x * z, _raw.Log1p(_raw.Exp(-_raw.Abs(x))), name=name)


def silu(features, beta=1.0, name=None):
    """features * sigmoid(beta * features) (tf.nn.silu, also tf.nn.swish)."""
    x = convert_to_tensor(features)
    return _raw.Mul(x, _raw.Sigmoid(x * beta if beta != 1.0 else x), name=name)


NN = ["relu", "relu6", "elu", "selu", "sigmoid", "tanh", "softplus", "softsign", "leaky_relu",
      "softmax", "log_softmax", "conv2d", "bias_add", "softmax_cross_entropy_with_logits",
      "sparse_softmax_cross_entropy_with_logits", "l2_loss", "max_pool2d", "avg_pool2d",
      "depthwise_conv2d", "embedding_lookup", "moments", "l2_normalize",
      "sigmoid_cross_entropy_with_logits", "silu", "swish", "max_pool", "avg_pool"]


swish = silu
max_pool, avg_pool = max_pool2d, avg_pool2d  # tf.nn's older names, NHWC
