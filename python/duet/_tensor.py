"""duet.Tensor's Python side: dtype and shape objects, iteration, NumPy's protocols, and the
operators that are not hot (the arithmetic and comparison operators are C++: python/src/tensor.cc)."""

import contextlib

from duet import _core
from duet import dtypes
from duet._ops import raw_ops as _raw

Tensor = _core.Tensor


class TensorShape(tuple):
    """A tensor's shape: a tuple of dims (None for unknown ones), as TensorFlow's."""

    def __new__(cls, dims):
        self = super().__new__(cls, () if dims is None else dims)
        self._known_rank = dims is not None
        return self

    @property
    def rank(self):
        return len(self) if self._known_rank else None

    def as_list(self):
        if not self._known_rank:
            raise ValueError("as_list() is not defined on a shape of unknown rank")
        return list(self)

    def __repr__(self):
        return f"TensorShape({list(self) if self._known_rank else None})"


def _matmul(x, y):
    from duet import _api
    return _api.matmul(x, y)


def _len(x):
    if x.ndim == 0:
        raise TypeError("len() of a scalar tensor")
    dim = x.shape[0]
    if dim is None:
        raise TypeError("len() of a tensor whose first dim is unknown")
    return dim


def _iter(x):
    for i in range(_len(x)):
        yield x[i]


def _getitem(x, index):
    from duet import _api
    return _api.getitem(x, index)


def _array(x, dtype=None, copy=None):
    array = x.numpy()
    if dtype is not None:
        array = array.astype(dtype)
    elif copy:
        array = array.copy()
    return array


Tensor.dtype = property(lambda x: dtypes._ALL[x._dtype], doc="The element type: duet.float32, ...")
Tensor.shape = property(lambda x: TensorShape(x._dims), doc="The shape, a TensorShape.")
Tensor.__array__ = _array
Tensor.__array_priority__ = 100  # NumPy defers to Tensor's operators: ndarray + Tensor is a Tensor
Tensor.__len__ = _len
Tensor.__iter__ = _iter
Tensor.__getitem__ = _getitem
Tensor.__hash__ = object.__hash__  # tensors are keys by identity (== is elementwise)
Tensor.__matmul__ = _matmul
Tensor.__rmatmul__ = lambda x, y: _matmul(y, x)
Tensor.__neg__ = lambda x: _raw.Neg(x)
Tensor.__abs__ = lambda x: _raw.Abs(x)
Tensor.__invert__ = lambda x: _raw.LogicalNot(x)
Tensor.__pos__ = lambda x: x


@contextlib.contextmanager
def device(name):
    """Ops in the block run on `name` ("/gpu:0", "cuda:1", "/cpu:0", a virtual "cpu:1"); their
    inputs from other devices are copied there, as tf.device (docs/cuda.md, "Placement")."""
    scope = _core._DeviceScope(name)
    scope.enter()
    try:
        yield
    finally:
        scope.exit()


Tensor.to = lambda x, device: x._to(device)
