#!/usr/bin/env python3
"""Prints the reference values pasted into tests/ops/array/strided_slice_ops_test.cc.

Each case is a NumPy basic-indexing expression on x = np.arange(n).reshape(shape). It is turned
into begin/end/strides and masks the way tf.Tensor.__getitem__ does (an int i: begin i, end i + 1,
shrink_axis_mask; None: new_axis_mask; ...: ellipsis_mask; an open slice end: begin_mask or
end_mask), run through TensorFlow's StridedSlice and StridedSliceGrad (dy = 1, 2, ...), and checked
against NumPy's x[expr]. Raw cases give begin/end/strides/masks directly (e.g. masked entries with
values that must be ignored). Run: ~/.venvs/duet/bin/python gen_strided_slice_expected.py
"""
import numpy as np
import tensorflow as tf


class Index:
    def __getitem__(self, key):
        return key


I = Index()


def spec_of(key):
    if not isinstance(key, tuple):
        key = (key,)
    begin, end, strides = [], [], []
    masks = dict(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0)
    for i, k in enumerate(key):
        bit = 1 << i
        if k is Ellipsis:
            begin.append(0), end.append(0), strides.append(1)
            masks["ellipsis_mask"] |= bit
        elif k is None:
            begin.append(0), end.append(0), strides.append(1)
            masks["new_axis_mask"] |= bit
        elif isinstance(k, slice):
            begin.append(0 if k.start is None else k.start)
            end.append(0 if k.stop is None else k.stop)
            strides.append(1 if k.step is None else k.step)
            if k.start is None:
                masks["begin_mask"] |= bit
            if k.stop is None:
                masks["end_mask"] |= bit
        else:
            begin.append(k), end.append(k + 1), strides.append(1)
            masks["shrink_axis_mask"] |= bit
    return begin, end, strides, masks


def run(shape, begin, end, strides, masks):
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    args = dict(begin=np.array(begin, np.int32), end=np.array(end, np.int32),
                strides=np.array(strides, np.int32), **masks)
    y = tf.raw_ops.StridedSlice(input=x, **args).numpy()
    dy = np.arange(1, y.size + 1, dtype=np.float64).reshape(y.shape)
    g = tf.raw_ops.StridedSliceGrad(shape=np.array(shape, np.int32), dy=dy, **args).numpy()
    return x, y, g


def ints(v):
    return "{" + ", ".join(str(int(a)) for a in v) + "}"


def masks_str(m):
    names = [("begin_mask", "begin"), ("end_mask", "end"), ("ellipsis_mask", "ellipsis"),
             ("new_axis_mask", "new_axis"), ("shrink_axis_mask", "shrink_axis")]
    return "{" + ", ".join(str(m[n]) for n, _ in names) + "}"


def emit(label, shape, begin, end, strides, masks, y, g):
    print(f'    {{"{label}", {ints(shape)}, {ints(begin)}, {ints(end)}, {ints(strides)}, '
          f'{masks_str(masks)},\n     {ints(y.shape)}, {ints(y.ravel())},\n     {ints(g.ravel())}}},')


EXPRS = [
    ((4,), "x[1:3]", I[1:3]),
    ((4,), "x[::2]", I[::2]),
    ((4,), "x[::-1]", I[::-1]),
    ((4,), "x[-1:]", I[-1:]),
    ((4,), "x[-3:-1]", I[-3:-1]),
    ((4,), "x[3:0:-1]", I[3:0:-1]),
    ((4,), "x[10:]", I[10:]),
    ((4,), "x[-10:2]", I[-10:2]),
    ((4,), "x[-10:10:3]", I[-10:10:3]),
    ((4,), "x[5:-10:-2]", I[5:-10:-2]),
    ((4,), "x[:-1:-1]", I[:-1:-1]),
    ((4,), "x[2:1]", I[2:1]),
    ((4,), "x[2]", I[2]),
    ((4,), "x[-1]", I[-1]),
    ((4,), "x[None, 1:]", I[None, 1:]),
    ((4,), "x[1:3:5]", I[1:3:5]),
    ((2, 3, 4), "x[1]", I[1]),
    ((2, 3, 4), "x[:, 1]", I[:, 1]),
    ((2, 3, 4), "x[..., 1]", I[..., 1]),
    ((2, 3, 4), "x[..., ::-1]", I[..., ::-1]),
    ((2, 3, 4), "x[1, ..., 2]", I[1, ..., 2]),
    ((2, 3, 4), "x[None, ..., None]", I[None, ..., None]),
    ((2, 3, 4), "x[:, None, 1:, ::-2]", I[:, None, 1:, ::-2]),
    ((2, 3, 4), "x[..., None]", I[..., None]),
    ((2, 3, 4), "x[..., None, 0]", I[..., None, 0]),
    ((2, 3, 4), "x[-1, -1, -1]", I[-1, -1, -1]),
    ((2, 3, 4), "x[0:2:1, ::-1, 1:3]", I[0:2:1, ::-1, 1:3]),
    ((2, 3, 4), "x[1:, :2]", I[1:, :2]),
    ((2, 3, 4), "x[::-1, ::-2, ::3]", I[::-1, ::-2, ::3]),
    ((2, 3, 4), "x[:, 5:0:-1]", I[:, 5:0:-1]),
    ((2, 3, 4), "x[0, None, ..., 1::2]", I[0, None, ..., 1::2]),
    ((2, 3, 4), "x[None, 0, ..., None, ::-1]", I[None, 0, ..., None, ::-1]),
    ((2, 3, 4), "x[1:, ..., ::-1, None, 2]", I[1:, ..., ::-1, None, 2]),
    ((2, 3, 4), "x[..., 1, :, :]", I[..., 1, :, :]),
    ((2, 3, 4), "x[1, 2, 3, ...]", I[1, 2, 3, ...]),
    ((2, 3, 4), "x[:, :, :, None]", I[:, :, :, None]),
    ((), "x[None]", I[None]),
    ((), "x[...]", I[...]),
    ((0, 3), "x[:, 1]", I[:, 1]),
    ((0, 3), "x[::-1, ::-1]", I[::-1, ::-1]),
]

# (label, shape, begin, end, strides, masks): values the masks make irrelevant are junk here.
RAW = [
    ("begin_mask ignores begin 99", (4,), [99], [3], [1], dict(begin_mask=1)),
    ("end_mask ignores end -99 (stride -1)", (4,), [2], [-99], [-1], dict(end_mask=1)),
    ("new_axis ignores its values", (2, 3), [7, 1], [-7, 2], [5, 1], dict(new_axis_mask=1)),
    ("ellipsis ignores its values", (2, 3), [1, 7], [2, -7], [1, 9], dict(ellipsis_mask=2)),
    ("shrink ignores end and begin_mask", (2, 3), [1], [0], [1], dict(shrink_axis_mask=1, begin_mask=1)),
    ("shrink with stride 2", (2, 3), [0, -2], [0, 0], [1, 2], dict(shrink_axis_mask=2, begin_mask=1, end_mask=1)),
    ("new_axis wins over shrink", (2, 3), [0, 1], [0, 2], [1, 1], dict(new_axis_mask=1, shrink_axis_mask=1)),
    ("no entries: the whole input", (2, 3), [], [], [], {}),
]


def main():
    print("    // clang-format off")
    for shape, label, key in EXPRS:
        begin, end, strides, masks = spec_of(key)
        x, y, g = run(shape, begin, end, strides, masks)
        expected = x[key]
        assert np.array_equal(y, expected) and y.shape == expected.shape, label
        want_g = np.zeros(shape)
        if y.size:
            want_g[key] = np.arange(1, y.size + 1).reshape(expected.shape)
        assert np.array_equal(g, want_g), label
        emit(label, shape, begin, end, strides, masks, y, g)
    for label, shape, begin, end, strides, m in RAW:
        masks = dict(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0)
        masks.update(m)
        x, y, g = run(shape, begin, end, strides, masks)
        emit(label, shape, begin, end, strides, masks, y, g)
    print("    // clang-format on")
    print()
    print("    // ReverseV2")
    for shape, axes in [((2, 3, 4), [0]), ((2, 3, 4), [-1]), ((2, 3, 4), [0, 2]), ((2, 3, 4), []),
                        ((2, 3, 4), [1, -3]), ((5,), [0]), ((0, 3), [1]), ((), [])]:
        x = np.arange(int(np.prod(shape))).reshape(shape)
        y = tf.raw_ops.ReverseV2(tensor=x, axis=np.array(axes, np.int32)).numpy()
        assert np.array_equal(y, np.flip(x, axis=tuple(axes)) if axes else x)
        print(f"    {{{ints(shape)}, {ints(axes)}, {ints(y.ravel())}}},")


if __name__ == "__main__":
    main()
