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
from duet import dtypes
from duet._tensor import Tensor

Variable = _core.Variable

# A flattened argument is one of these leaves; the rest of the structure is the key string.
_TENSOR, _VALUE, _VARIABLE = "T", "V", "W"


def _flatten(value, path, leaves, names):
    """The structure key of `value` (a string), appending its leaves and their names."""
    if isinstance(value, (Tensor, np.ndarray, np.generic, TensorSpec)):
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
    if isinstance(value, (Tensor, np.ndarray, np.generic, TensorSpec, Variable, bool, int, float,
                          str)):
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
        self._input_signature = input_signature
        self._reduce_retracing = reduce_retracing
        specs = None
        if input_signature is not None:
            specs = [(spec.dtype, spec.shape) for spec in input_signature]
        # The C++ tracer's own warning names C++ options: this class warns instead, in Python's
        # terms, as TensorFlow does (5 of the last 10 calls traced).
        self._tracer = _core._Tracer(self._name, reduce_retracing, 0, 32, specs)
        self._recent = collections.deque(maxlen=10)  # per recent call: whether it traced
        self._names = {}  # structure key -> the names of its leaves, for retrace reasons
        self._results = {}  # structure key -> the structure of the results
        self._output_specs = {}  # structure key -> a TensorSpec per result, from the last trace
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        if _core.functions_run_eagerly():
            return self._fn(*args, **kwargs)
        return self._call_flat(*self._flatten_call(args, kwargs))

    def _call_flat(self, key, leaves, bound):
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

    def get_concrete_function(self, *args, **kwargs):
        """The function traced for one signature, as tf.function's: arguments as for a call,
        where a duet.TensorSpec stands for any tensor it matches (None dims: any size). With no
        arguments, a function with an input_signature traces for it."""
        if not args and not kwargs and self._input_signature is not None:
            args = tuple(self._input_signature)
        return ConcreteFunction(self, args, kwargs)

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
            self._output_specs[key] = [TensorSpec(r.shape, r.dtype) for r in results]
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

    def get_concrete_function(self, *args, **kwargs):
        return self._function.get_concrete_function(self._instance, *args, **kwargs)


class TensorSpec:
    """The dtype and shape (None for unknown dims; shape None for an unknown rank) of a tensor
    argument, for input_signature and get_concrete_function."""

    def __init__(self, shape, dtype="float32", name=None):
        self.shape = None if shape is None else list(shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        tensor = _core.convert_to_tensor(tensor)
        return cls(tensor.shape.as_list(), tensor.dtype, name)

    def is_compatible_with(self, tensor):
        tensor = tensor if isinstance(tensor, TensorSpec) else TensorSpec.from_tensor(tensor)
        if tensor.dtype != self.dtype:
            return False
        if self.shape is None or tensor.shape is None:
            return True
        return len(self.shape) == len(tensor.shape) and all(
            a is None or b is None or a == b for a, b in zip(self.shape, tensor.shape))

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and (self.shape, self.dtype, self.name) ==
                (other.shape, other.dtype, other.name))

    def __hash__(self):
        return hash((None if self.shape is None else tuple(self.shape), self.dtype, self.name))

    def __repr__(self):
        shape = None if self.shape is None else tuple(self.shape)
        return f"duet.TensorSpec(shape={shape}, dtype={self.dtype!r}, name={self.name!r})"


class ConcreteFunction:
    """One signature of a duet.function, traced (Function.get_concrete_function): callable with
    arguments of that signature only, each tensor compatible with its spec. It keeps a trace of
    its own, made for the specs (a None dim accepts any size), so its calls never trace again."""

    def __init__(self, function, args, kwargs):
        key, leaves, bound = function._flatten_call(args, kwargs)
        specs = [leaf if isinstance(leaf, TensorSpec) else TensorSpec.from_tensor(leaf)
                 for leaf in leaves if _is_tensor_leaf(leaf)]
        self._function = Function(function._fn, input_signature=specs, name=function._name)
        self._key = key
        self._fixed = [(i, leaf) for i, leaf in enumerate(leaves) if not _is_tensor_leaf(leaf)]
        # Traced (and exported) now, not run: a call with zeros could change variables.
        examples = [_example(leaf) if isinstance(leaf, TensorSpec) else leaf for leaf in leaves]
        self._export = ([key] + examples, self._function._trace(key, bound))
        self._graph_def = self._function._tracer.graph_def(*self._export, False)
        names = function._names[key]
        self._input_names = [leaf.name if isinstance(leaf, TensorSpec) and leaf.name
                             else re.sub(r"\W+", "_", names[i]).strip("_")
                             for i, leaf in enumerate(leaves) if _is_tensor_leaf(leaf)]
        each_spec = iter(specs)
        spec_leaves = iter([next(each_spec) if _is_tensor_leaf(leaf) else leaf
                            for leaf in leaves])
        call = function._signature.bind_partial()
        call.arguments.update({name: _rebuild(value, spec_leaves)
                               for name, value in bound.arguments.items()})
        self.structured_input_signature = (call.args, call.kwargs)
        self.structured_outputs = _build_results(self._function._results[key],
                                                 iter(self._function._output_specs[key]))

    def __call__(self, *args, **kwargs):
        if _core.functions_run_eagerly():
            return self._function._fn(*args, **kwargs)
        key, leaves, bound = self._function._flatten_call(args, kwargs)
        if key != self._key:
            raise TypeError(f"duet.function '{self._function._name}': this concrete function was "
                            f"traced for {self._key}; the call's arguments are {key}")
        names = self._function._names[key]
        for i, value in self._fixed:
            same = leaves[i] is value if isinstance(value, Variable) else (
                type(leaves[i]) is type(value) and leaves[i] == value)
            if not same:
                raise TypeError(f"duet.function '{self._function._name}': this concrete function "
                                f"was traced for {names[i]}={value!r}, not {leaves[i]!r}")
        return self._function._call_flat(key, leaves, bound)

    def graph_def(self):
        """The optimized GraphDef (serialized bytes) of this signature's trace."""
        return self._graph_def

    def trace_count(self):
        return self._function.trace_count()

    def __repr__(self):
        return f"<duet.ConcreteFunction {self._function._name}{self._key}>"


def _is_tensor_leaf(leaf):
    return isinstance(leaf, (Tensor, np.ndarray, np.generic, TensorSpec))


def _example(spec):
    """A tensor matching `spec` (1 for each unknown dim; a scalar for an unknown rank)."""
    from duet import _api  # at call time: duet._api imports this module's package
    shape = [] if spec.shape is None else [1 if d is None else d for d in spec.shape]
    return _api.zeros(shape, spec.dtype)


def function(fn=None, input_signature=None, reduce_retracing=False, name=None):
    """Traces `fn` into a graph per signature and runs that graph: @duet.function or
    duet.function(fn, input_signature=[duet.TensorSpec(...)], reduce_retracing=True)."""
    if fn is None:
        return lambda f: Function(f, input_signature, reduce_retracing, name)
    return Function(fn, input_signature, reduce_retracing, name)


run_functions_eagerly = _core.run_functions_eagerly
functions_run_eagerly = _core.functions_run_eagerly
executing_eagerly = _core.executing_eagerly
