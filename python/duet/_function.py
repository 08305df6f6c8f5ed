"""duet.function: trace a Python callable into a graph per signature, run the optimized graph.

The signature cache is the C++ tracer's (graph/traced_function.h: LRU cap, relaxed shapes, retrace
reasons); this module flattens Python arguments into its argument kinds, as TensorFlow keys
tf.function: tensors and NumPy arrays by dtype and shape, Python bools, ints, floats and strings
by value, lists, tuples and dicts by structure, Variables by identity, other objects by hash (or
identity when unhashable) and type. A cache hit runs the plan without running any Python.
"""

import collections
import functools
import inspect
import re
import warnings

import numpy as np

from duet import _core
from duet._tensor import Tensor

Variable = _core.Variable

# A flattened argument is one of these leaves; the rest of the structure is the key string.
_TENSOR, _VALUE, _VARIABLE = "T", "V", "W"


def _flatten(value, path, leaves, names):
    """The structure key of `value` (a string), appending its leaves and their names."""
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        leaves.append(value)
        names.append(path)
        return _TENSOR
    if isinstance(value, Variable):
        leaves.append(value)
        names.append(path)
        return _VARIABLE
    if isinstance(value, (bool, int, float, str)):
        leaves.append(value)
        names.append(path)
        return _VALUE
    if value is None:
        return "None"
    if isinstance(value, (list, tuple)):
        items = [_flatten(v, f"{path}[{i}]", leaves, names) for i, v in enumerate(value)]
        open_, close = ("[", "]") if isinstance(value, list) else ("(", ")")
        return open_ + ",".join(items) + close
    if isinstance(value, dict):
        items = [f"{k!r}:{_flatten(value[k], f'{path}[{k!r}]', leaves, names)}"
                 for k in sorted(value, key=repr)]
        return "{" + ",".join(items) + "}"
    try:
        identity = f"hash {hash(value)}"
    except TypeError:
        identity = f"id {id(value)}"
    return f"<{type(value).__qualname__} {identity}>"


def _rebuild(value, leaves):
    """`value` with its leaves replaced, in order, by the next of `leaves`."""
    if isinstance(value, (Tensor, np.ndarray, np.generic, Variable, bool, int, float, str)):
        return next(leaves)
    if isinstance(value, list):
        return [_rebuild(v, leaves) for v in value]
    if isinstance(value, tuple):
        return type(value)(*[_rebuild(v, leaves) for v in value]) if hasattr(value, "_fields") \
            else tuple(_rebuild(v, leaves) for v in value)
    if isinstance(value, dict):
        return {k: _rebuild(value[k], leaves) for k in sorted(value, key=repr)}
    return value


def _flatten_results(value, out):
    """The structure of a traced function's results (tensors, None, lists, tuples, dicts)."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return type(value)(_flatten_results(v, out) for v in value)
    if isinstance(value, dict):
        return {k: _flatten_results(v, out) for k, v in value.items()}
    out.append(value)
    return _TENSOR


def _build_results(structure, results):
    if structure is None:
        return None
    if isinstance(structure, (list, tuple)):
        return type(structure)(_build_results(s, results) for s in structure)
    if isinstance(structure, dict):
        return {k: _build_results(s, results) for k, s in structure.items()}
    return next(results)


class Function:
    """What @duet.function returns: call it like the function it wraps."""

    def __init__(self, fn, input_signature=None, reduce_retracing=False, name=None):
        self._fn = fn
        self._signature = inspect.signature(fn)
        self._name = name or getattr(fn, "__name__", "function")
        specs = None
        if input_signature is not None:
            specs = [(spec.dtype, spec.shape) for spec in input_signature]
        # The C++ tracer's own warning names C++ options: this class warns instead, in Python's
        # terms, as TensorFlow does (5 of the last 10 calls traced).
        self._tracer = _core._Tracer(self._name, reduce_retracing, 0, 32, specs)
        self._recent = collections.deque(maxlen=10)  # per recent call: whether it traced
        self._names = {}  # structure key -> the names of its leaves, for retrace reasons
        self._results = {}  # structure key -> the structure of the results
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        if _core.functions_run_eagerly():
            return self._fn(*args, **kwargs)
        key, leaves, bound = self._flatten_call(args, kwargs)
        traces = self._tracer.trace_count()
        flat = self._tracer.call([key] + leaves, self._trace(key, bound))
        self._note_call(traced=self._tracer.trace_count() > traces)
        return _build_results(self._results[key], iter(flat))

    def _note_call(self, traced):
        self._recent.append(traced)
        if traced and sum(self._recent) >= 5:
            reasons = self.retrace_reasons()[-4:]
            warnings.warn(
                f"duet.function '{self._name}': {sum(self._recent)} of the last "
                f"{len(self._recent)} calls traced; the last reasons: " + "; ".join(reasons) +
                ". Pass tensors instead of Python values that change, or use "
                "reduce_retracing=True or an input_signature.", stacklevel=3)
            self._recent.clear()

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return _BoundFunction(self, instance)

    def trace_count(self):
        """How many times the function traced."""
        return self._tracer.trace_count()

    def retrace_reasons(self):
        """One line per retrace, naming the Python argument that changed and how."""
        names = {}
        for leaf_names in self._names.values():
            names = leaf_names  # leaves are numbered alike for a structure; the last one names
        out = []
        for reason in self._tracer.retrace_reasons():
            out.append(re.sub(r"\barg (\d+):",
                              lambda m: self._leaf_name(int(m.group(1)), names) + ":", reason))
        return out

    def graph_def(self, *args, **kwargs):
        """The optimized GraphDef (serialized bytes; tf.compat.v1.GraphDef.FromString parses
        them) of these arguments' signature: Placeholders arg0, arg1, ... per tensor, Identity
        nodes output_0, ... per result, variables as VarHandleOps."""
        key, leaves, bound = self._flatten_call(args, kwargs)
        return self._tracer.graph_def([key] + leaves, self._trace(key, bound), False)

    def _flatten_call(self, args, kwargs):
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        leaves, names = [], []
        parts = [f"{name}={_flatten(value, name, leaves, names)}"
                 for name, value in bound.arguments.items()]
        key = "(" + ", ".join(parts) + ")"
        self._names[key] = names
        return key, leaves, bound

    def _trace(self, key, bound):
        def trace(symbolic):
            leaves = iter(symbolic[1:])
            arguments = {name: _rebuild(value, leaves) for name, value in bound.arguments.items()}
            call = self._signature.bind_partial()
            call.arguments.update(arguments)
            results = []
            structure = _flatten_results(self._fn(*call.args, **call.kwargs), results)
            if key in self._results and self._results[key] != structure:
                raise ValueError(f"duet.function '{self._name}': the structure of the results "
                                 "changed between traces of the same arguments")
            self._results[key] = structure
            return results
        return trace

    @staticmethod
    def _leaf_name(index, names):
        if index == 0:
            return "the structure or Python objects of the arguments"
        return f"argument {names[index - 1]!r}" if index - 1 < len(names) else f"arg {index}"


class _BoundFunction:
    """A duet.function on a method, bound to an instance (traced by the instance's identity)."""

    def __init__(self, function, instance):
        self._function, self._instance = function, instance

    def __call__(self, *args, **kwargs):
        return self._function(self._instance, *args, **kwargs)

    def trace_count(self):
        return self._function.trace_count()

    def retrace_reasons(self):
        return self._function.retrace_reasons()

    def graph_def(self, *args, **kwargs):
        return self._function.graph_def(self._instance, *args, **kwargs)


class TensorSpec:
    """The dtype and shape (None for unknown dims) of a tensor argument, for input_signature."""

    def __init__(self, shape, dtype="float32", name=None):
        self.shape = None if shape is None else list(shape)
        self.dtype = dtype
        self.name = name

    def __repr__(self):
        return f"duet.TensorSpec(shape={self.shape}, dtype={self.dtype!r})"


def function(fn=None, input_signature=None, reduce_retracing=False, name=None):
    """Traces `fn` into a graph per signature and runs that graph: @duet.function or
    duet.function(fn, input_signature=[duet.TensorSpec(...)], reduce_retracing=True)."""
    if fn is None:
        return lambda f: Function(f, input_signature, reduce_retracing, name)
    return Function(fn, input_signature, reduce_retracing, name)


run_functions_eagerly = _core.run_functions_eagerly
functions_run_eagerly = _core.functions_run_eagerly
executing_eagerly = _core.executing_eagerly
