"""Graph mode from Python: duet.Graph.as_default(), placeholders, duet.gradients and
duet.Session, as TensorFlow 1.x's graphs and sessions (the graph and the plan are C++)."""

import contextlib

import numpy as np

from duet import _core
from duet._autodiff import _flatten, _unflatten
from duet._tensor import Tensor

Graph = _core.Graph
Operation = _core.Operation
placeholder = _core.placeholder
write_graph = _core.write_graph
read_graph = _core.read_graph
freeze_variables = _core.freeze_variables
optimize = _core.optimize


@contextlib.contextmanager
def _entered(scope, value):
    """A C++ scope (enter()/exit()) as a context manager yielding `value`."""
    scope.enter()
    try:
        yield value
    finally:
        scope.exit()


def _as_default(graph):
    """Ops called in the block add nodes to `graph` instead of running."""
    return _entered(_core._GraphDefault(graph), graph)


Graph.as_default = _as_default


def name_scope(name):
    """Nodes made in the block are named "name/..." (scopes nest); nothing changes eagerly."""
    return _entered(_core._NameScope(name), name)


def _tensor_name(t):
    name = _core._tensor_name(t)
    if name is None:
        raise AttributeError("an eager tensor has no name (only graph tensors do)")
    return name


Tensor.name = property(_tensor_name, doc="'node:index' for a graph tensor.")
Tensor.op = property(lambda t: None if _core._tensor_name(t) is None else t.name.split(":")[0],
                     doc="The name of the node a graph tensor comes from.")


def gradients(ys, xs, grad_ys=None):
    """Symbolic gradients d(sum of ys)/d(x) for each x of `xs` (nested structures allowed), built
    into the default graph: tf.gradients. None where no y depends on an x."""
    grads = _core._gradients(_flatten(ys), _flatten(xs),
                             [] if grad_ys is None else _flatten(grad_ys))
    return _unflatten(xs, iter(grads))


class Session:
    """Runs a graph: `run(fetches, feed_dict)` as tf.compat.v1.Session.run.

    Fetches may be tensors, operations (run for their effects; their value is None), names
    ("y:0", or "train_op" for an operation) and lists, tuples and dicts of those. Feed values are
    converted to the fed tensor's dtype, as TensorFlow does."""

    def __init__(self, graph=None):
        if graph is None:
            raise ValueError("duet.Session needs its graph: duet.Session(graph)")
        self.graph = graph
        self._session = _core._Session(graph)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        self._session = None

    def run(self, fetches, feed_dict=None):
        if self._session is None:
            raise RuntimeError("this Session is closed")
        leaves = _flatten(fetches)
        is_target = [isinstance(f, Operation) or (isinstance(f, str) and ":" not in f)
                     for f in leaves]
        tensors = [f for f, target in zip(leaves, is_target) if not target]
        targets = [f for f, target in zip(leaves, is_target) if target]
        feeds = [(key, self._feed_value(key, value)) for key, value in (feed_dict or {}).items()]
        values = iter(self._session.run(feeds, tensors, targets))
        results = [None if target else next(values) for target in is_target]
        return _unflatten(fetches, iter(results))

    def _feed_value(self, key, value):
        if isinstance(value, Tensor):
            return value
        tensor = self.graph.get_tensor_by_name(key) if isinstance(key, str) else key
        return np.asarray(value, dtype=tensor.dtype.as_numpy_dtype)
