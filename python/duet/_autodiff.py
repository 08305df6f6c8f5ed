"""Automatic differentiation from Python: duet.GradientTape and duet.Variable's Python side.

The tape is C++ (eager/gradient_tape.h): it records every op call on this thread from __enter__
until __exit__, and differentiates what it recorded. Here are the context managers and the
nested structures (lists, tuples, dicts) of sources and targets that TensorFlow's tape takes."""

import contextlib

from duet import _core
from duet import dtypes
from duet._tensor import Tensor, TensorShape

Variable = _core.Variable


def _flatten(structure):
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in _flatten(structure[key])]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _flatten(item)]
    return [structure]


def _unflatten(structure, leaves):
    if isinstance(structure, dict):
        return {key: _unflatten(structure[key], leaves) for key in sorted(structure)}
    if isinstance(structure, (list, tuple)):
        items = [_unflatten(item, leaves) for item in structure]
        return type(structure)(items) if isinstance(structure, tuple) else items
    return next(leaves)


class GradientTape:
    """Records ops for automatic differentiation, as tf.GradientTape:

        with duet.GradientTape() as tape:
            loss = duet.reduce_sum(w * x)          # w: a trainable duet.Variable, watched
        dw = tape.gradient(loss, w)
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._tape = None
        self._used = False

    def __enter__(self):
        if self._tape is not None:
            raise RuntimeError("a GradientTape records once; make a new one")
        self._tape = _core._Tape(self._persistent, self._watch_accessed_variables)
        return self

    def __exit__(self, *exc):
        self._tape.stop()
        return False

    @property
    def persistent(self):
        return self._persistent

    @property
    def watch_accessed_variables(self):
        return self._watch_accessed_variables

    def watch(self, tensor):
        """Records the ops on `tensor` (or every tensor of a nested structure) from now on."""
        self._check_recording()
        for t in _flatten(tensor):
            self._tape.watch(t)

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops inside the block are not recorded (by any tape of this thread)."""
        self._check_recording()
        pause = _core._RecordingPause()
        pause.enter()
        try:
            yield
        finally:
            pause.exit()

    def gradient(self, target, sources, output_gradients=None):
        """d(sum of target)/d(source) for each source, in the structure of `sources`; None for a
        source the target does not depend on. A non-persistent tape allows one call."""
        if self._tape is None:
            raise RuntimeError("GradientTape.gradient() before the tape recorded anything")
        if self._used and not self._persistent:
            raise RuntimeError("a non-persistent GradientTape computes gradients once; pass "
                               "persistent=True to call gradient() again")
        self._used = True
        targets = _flatten(target)
        upstream = [] if output_gradients is None else _flatten(output_gradients)
        grads = self._tape.gradient(targets, _flatten(sources), upstream)
        return _unflatten(sources, iter(grads))

    def _check_recording(self):
        if self._tape is None:
            raise RuntimeError("use the tape inside its `with` block")


def custom_gradient(f):
    """Decorator: f(*tensors) returns (value, grad_fn), grad_fn(upstream) one gradient per
    argument (a tensor or a list/tuple of them; None for no gradient). The result is f's value,
    computed without recording f's ops, whose gradient is grad_fn's, on tapes and in graphs."""
    def wrapped(*args):
        inputs = [_core.convert_to_tensor(a) for a in args]
        pause = _core._RecordingPause()
        pause.enter()
        try:
            value, grad_fn = f(*inputs)
        finally:
            pause.exit()
        return _core._custom_gradient_op(_core.convert_to_tensor(value), inputs, grad_fn)
    wrapped.__name__ = getattr(f, "__name__", "custom_gradient")
    wrapped.__doc__ = f.__doc__
    return wrapped


def value_and_gradients_function(f, params=None):
    """A function returning (f(*args), [df/d(arg) for each argument, or those at `params`])."""
    def value_and_gradients(*args):
        inputs = [a if isinstance(a, Variable) else _core.convert_to_tensor(a) for a in args]
        chosen = range(len(inputs)) if params is None else params
        with GradientTape() as tape:
            for i in chosen:
                if not isinstance(inputs[i], Variable):
                    tape.watch(inputs[i])
            value = f(*inputs)
        return value, tape.gradient(value, [inputs[i] for i in chosen])
    return value_and_gradients


def gradients_function(f, params=None):
    """A function returning [df/d(arg) for each argument of f, or those at `params`]."""
    value_and_gradients = value_and_gradients_function(f, params)
    return lambda *args: value_and_gradients(*args)[1]


def _variable_repr(v):
    return (f"<duet.Variable '{v.name}' shape={tuple(v.shape)} dtype={v.dtype.name}, "
            f"numpy={v.numpy()!r}>")


Variable.dtype = property(lambda v: dtypes._ALL[v._dtype], doc="The element type.")
Variable.shape = property(lambda v: TensorShape(v._dims), doc="The shape, a TensorShape.")
Variable.numpy = lambda v: v.read_value().numpy()
Variable.__array__ = lambda v, dtype=None, copy=None: Tensor.__array__(v.read_value(), dtype)
Variable.__array_priority__ = 100
Variable.__repr__ = _variable_repr
Variable.__hash__ = object.__hash__
Variable.__float__ = lambda v: float(v.read_value())
Variable.__int__ = lambda v: int(v.read_value())
Variable.__bool__ = lambda v: bool(v.read_value())
Variable.__len__ = lambda v: len(v.read_value())
Variable.__getitem__ = lambda v, index: v.read_value()[index]
for _name in ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or"]:
    setattr(Variable, f"__{_name}__", getattr(Tensor, f"__{_name}__"))
    setattr(Variable, f"__r{_name}__", getattr(Tensor, f"__r{_name}__"))
for _name in ["lt", "le", "gt", "ge", "eq", "ne", "matmul", "rmatmul", "neg", "abs", "invert"]:
    setattr(Variable, f"__{_name}__", getattr(Tensor, f"__{_name}__"))
