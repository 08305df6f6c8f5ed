"""duet.compat.v1: TensorFlow 1.x's names and semantics, so that programs of that era run with
only their import changed:

    import duet.compat.v1 as tf
    tfe = tf.contrib.eager
    tf.enable_eager_execution()     # without it, ops build the default graph a Session runs

docs/python.md ("TensorFlow 1.x programs") lists the names and the differences."""

import sys as _sys
import types as _types

import numpy as _np

import duet as _duet
from duet import _api
from duet.compat.v1 import _state

# Types, tensors and the ops TensorFlow 1.x programs call, under their 1.x names.
from duet import (DType, GradientTape, Tensor, TensorShape, bool, custom_gradient,  # noqa: A004,F401
                  device, float16, float32, float64, int32, int64, string, uint8)

_OPS = """abs add argmax argmin cast clip_by_norm clip_by_value concat cond constant
convert_to_tensor divide equal exp expand_dims fill floor gather greater greater_equal identity
less less_equal log logical_and logical_not logical_or matmul maximum minimum multiply negative
not_equal one_hot ones ones_like pow py_function range reduce_all reduce_any reduce_logsumexp
reduce_max reduce_mean reduce_min reduce_prod reduce_sum reshape round rsqrt shape sigmoid sign
sin cos size split sqrt square squeeze stack stop_gradient subtract tanh tile top_k transpose
unstack where while_loop zeros zeros_like""".split()
for _name in _OPS:
    if hasattr(_duet, _name):
        globals()[_name] = getattr(_duet, _name)
del _name

from duet import errors  # noqa: F401
from duet._autodiff import _flatten, _unflatten
from duet._graph import Operation, name_scope  # noqa: F401

placeholder = _duet.placeholder
truediv = _duet.divide
Graph = _duet.Graph


def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803 (TensorFlow's names)
    """A node calling func on NumPy values of `inp` when it runs (tf.py_func)."""
    return _duet.py_function(lambda *args: func(*(a.numpy() for a in args)), inp, Tout,
                             name=name)


# The default graph: entered now, as `import tensorflow` did (Note [TF 1.x state]).
_state.enter_default_graph()


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """Runs ops eagerly from now on. Must come before any op is built, as in TensorFlow."""
    if _state.mode.eager:
        return
    built = _state.mode.graphs[0][0].num_nodes if _state.mode.graphs else 0
    if built or len(_state.mode.graphs) > 1:
        raise ValueError("tf.enable_eager_execution must be called at program startup: the "
                         f"default graph already has {built} nodes")
    _state.leave_default_graph()
    _state.mode.eager = True


enable_v2_behavior = enable_eager_execution


def disable_eager_execution():
    if _state.mode.eager and not _state.mode.graphs:
        _state.mode.eager = False
        _state.enter_default_graph()


def executing_eagerly():
    return _duet.executing_eagerly()


_EAGER_GRAPH = Graph()


def get_default_graph():
    """The graph ops are added to (when executing eagerly, one that only its as_default()
    blocks use)."""
    return _state.default_graph() or _EAGER_GRAPH


def reset_default_graph():
    if _state.mode.eager:
        return
    _state.leave_default_graph()
    _state.enter_default_graph()


set_random_seed = _state.set_random_seed


# Variables.
def Variable(initial_value=None, trainable=True, name=None, dtype=None, **kwargs):  # noqa: N802
    """tf.Variable: in graph mode its initial value (a tensor or a callable) is run once, and
    an initializer (global_variables_initializer) must run in a Session before it is read."""
    value = _state.evaluate(initial_value)
    variable = _duet.Variable(value, trainable=trainable, name=name, dtype=dtype)
    if not _duet.executing_eagerly():
        _state.track(variable, value)
    return variable


def get_variable(name, shape=None, dtype=None, initializer=None, trainable=True, **kwargs):
    """A new variable called `name` (variable scopes and reuse are not supported)."""
    dtype = _duet.as_dtype(dtype or "float32")
    if initializer is None:
        initializer = _duet.nn.initializers.GlorotUniform()
    if callable(initializer) and shape is not None:
        value = initializer(list(shape), dtype)
    else:
        value = initializer
    return Variable(value, trainable=trainable, name=name, dtype=dtype)


def _graph_variables(trainable_only):
    if _duet.executing_eagerly():
        return []
    state = _state.state_of(get_default_graph())
    return [v for v in state.variables.values() if v.trainable or not trainable_only]


def global_variables():
    return _graph_variables(False)


def trainable_variables():
    return _graph_variables(True)


all_variables = global_variables


class _Initializer:
    """What global_variables_initializer() returns: a compat Session that runs it assigns the
    variables' initial values and counts them as initialized in that session."""

    def __init__(self, graph, names):
        self.graph = graph
        self.names = names
        self.name = "init"

    def run(self, session=None):
        (session or _default_session()).run(self)


def variables_initializer(var_list, name="init"):
    if _duet.executing_eagerly():
        return None
    names = [_state.track(v) for v in var_list]
    return _Initializer(get_default_graph(), names)


def global_variables_initializer():
    if _duet.executing_eagerly():
        return None
    return _Initializer(get_default_graph(), None)


initialize_all_variables = global_variables_initializer


def local_variables_initializer():
    return _Initializer(get_default_graph(), []) if not _duet.executing_eagerly() else None


def tables_initializer():
    return local_variables_initializer()


def assign(ref, value, name=None):
    return _effect(lambda: ref.assign(value), ref)


def assign_add(ref, value, name=None):
    return _effect(lambda: ref.assign_add(value), ref)


def assign_sub(ref, value, name=None):
    return _effect(lambda: ref.assign_sub(value), ref)


def _effect(run, result):
    """Runs an update; in graph mode returns its node (a Session target), else `result`."""
    run()
    return result if _duet.executing_eagerly() else _state.last_operation()


def group(*inputs, name=None):
    """The updates together, as a Session target (a tuple of them here)."""
    flat = []
    for x in inputs:
        flat.extend(x if isinstance(x, (list, tuple)) else [x])
    return tuple(x for x in flat if x is not None)


def no_op(name=None):
    return ()


# Random numbers (Note [TF 1.x state]): a fresh draw per Session run, reproducible.
def random_normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None, name=None):
    z = _duet.stateless_random_normal(shape, _state.seed_pair(seed), dtype=dtype)
    return z * stddev + mean


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None, name=None):
    z = _duet.stateless_truncated_normal(shape, _state.seed_pair(seed), dtype=dtype)
    return z * stddev + mean


def random_uniform(shape, minval=0, maxval=None, dtype=float32, seed=None, name=None):
    u = _duet.stateless_random_uniform(shape, _state.seed_pair(seed), dtype=dtype)
    return u * ((1 if maxval is None else maxval) - minval) + minval


# Initializers (callables (shape, dtype=None, partition_info=None), as TensorFlow 1.x's).
class constant_initializer:  # noqa: N801 (TensorFlow's name)
    def __init__(self, value=0, dtype=None):
        self.value = value

    def __call__(self, shape, dtype=None, partition_info=None):
        value = _np.asarray(self.value)
        if value.size == 1:
            return _np.full(list(shape), value.item(), dtype=_np.float32)
        return value.reshape(list(shape)).astype(_np.float32)


def zeros_initializer(dtype=None):
    return constant_initializer(0)


def ones_initializer(dtype=None):
    return constant_initializer(1)


def random_normal_initializer(mean=0.0, stddev=1.0, seed=None, dtype=None):
    return lambda shape, dtype=None, partition_info=None: random_normal(
        list(shape), mean, stddev, seed=seed)


def glorot_uniform_initializer(seed=None, dtype=None):
    return _duet.nn.initializers.GlorotUniform(seed)


# Sessions.
class Session(_duet.Session):
    """tf.Session: runs the default graph (or `graph`). Feeds the random ops' run counter and
    refuses to read variables no initializer has initialized in this session."""

    _default = None

    def __init__(self, target="", graph=None, config=None):
        super().__init__(graph if graph is not None else get_default_graph())
        self._initialized = set()
        self._state = _state.state_of(self.graph)

    def __enter__(self):
        Session._default = self
        return self

    def __exit__(self, *exc):
        if Session._default is self:
            Session._default = None
        return super().__exit__(*exc)

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Fetches as TensorFlow 1.x runs them: initializers initialize, variables give their
        values, constants (eager tensors in duet, Const nodes in TensorFlow) their own, and
        every value comes back as NumPy."""
        leaves = [self._readable(f) for f in _flatten(fetches)]
        for f in leaves:
            if isinstance(f, _Initializer):
                self._initialize(f)
        graph_leaves = [(i, f) for i, f in enumerate(leaves)
                        if not isinstance(f, _Initializer) and not _is_constant(f)]
        results = [f if _is_constant(f) else None for f in leaves]
        if graph_leaves:
            to_run = [f for _, f in graph_leaves]
            self._check_initialized(to_run)
            feed_dict = dict(feed_dict or {})
            if self._state.run_counter is not None:
                feed_dict[self._state.run_counter] = next(self._state.runs)
            for (i, _), value in zip(graph_leaves, super().run(to_run, feed_dict)):
                results[i] = value
        return _unflatten(fetches, iter(_as_numpy(r) for r in results))

    def _readable(self, fetch):
        """A variable is fetched as its value (read in this session's graph)."""
        if isinstance(fetch, _duet.Variable):
            with self.graph.as_default():
                return fetch.read_value()
        return fetch

    def _initialize(self, initializer):
        names = initializer.names
        if names is None:
            names = list(self._state.variables)
        for name in names:
            initial = self._state.initial_values.get(name)
            if initial is not None:
                self._state.variables[name].assign(initial)
        self._initialized.update(names)

    def _check_initialized(self, fetches):
        """TensorFlow's FailedPreconditionError for a variable read before initialization."""
        missing = set(self._state.variables) - self._initialized
        if not missing:
            return
        graph = self.graph
        seen, stack = set(), []
        for f in fetches:
            if isinstance(f, Operation):
                stack.append(f.name)
            elif isinstance(f, str):
                stack.append(f.split(":")[0])
            elif isinstance(f, Tensor):
                stack.append(f.op)
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            if name in missing:
                raise errors.FailedPreconditionError(
                    None, None, f"Attempting to use uninitialized value {name}: run "
                    f"tf.global_variables_initializer() in this session first")
            try:
                op = graph.get_operation_by_name(name)
            except errors.NotFoundError:
                continue  # another graph's: the Session says so
            stack.extend(t.op for t in op.inputs)


InteractiveSession = Session


def _is_constant(fetch):
    return isinstance(fetch, Tensor) and not _state.is_symbolic(fetch)


def _as_numpy(value):
    """Session.run's values are NumPy values, as TensorFlow's."""
    if isinstance(value, Tensor):
        array = value.numpy()
        return array[()] if array.ndim == 0 else array
    return value


def _default_session():
    if Session._default is None:
        raise ValueError("no default session: use `with tf.Session() as sess:`")
    return Session._default


def get_default_session():
    return Session._default


def _tensor_eval(tensor, feed_dict=None, session=None):
    return (session or _default_session()).run(tensor, feed_dict)


Tensor.eval = _tensor_eval


# Namespaces.
from duet.compat.v1 import train  # noqa: E402
from duet.compat.v1 import keras  # noqa: E402
from duet.compat.v1 import contrib  # noqa: E402
from duet.compat.v1 import data  # noqa: E402
from duet.compat.v1 import resource_variable_ops  # noqa: E402,F401 (importable as in TF)


def _namespace(name, doc, **names):
    module = _types.ModuleType(f"{__name__}.{name}", doc)
    module.__dict__.update(names)
    _sys.modules[module.__name__] = module
    return module


def _xw_plus_b(x, weights, biases, name=None):
    return _duet.matmul(x, weights) + biases


def _dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Zeros elements with probability rate (1 - keep_prob) and scales the rest by 1/keep."""
    keep = 1.0 - rate if rate is not None else keep_prob
    u = random_uniform(_duet.shape(x) if noise_shape is None else noise_shape, seed=seed,
                       dtype=x.dtype)
    return _duet.where(u < keep, x / keep, _duet.zeros_like(x))


nn = _namespace("nn", "tf.nn", **{n: getattr(_duet.nn, n) for n in _api.NN
                                  if hasattr(_duet.nn, n)},
                xw_plus_b=_xw_plus_b, dropout=_dropout)


def _sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None, **kwargs):
    """The mean over the batch of the cross-entropy of integer labels, times weights."""
    xent = _duet.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return _duet.reduce_mean(xent * weights)


def _softmax_cross_entropy(onehot_labels, logits, weights=1.0, **kwargs):
    xent = _duet.nn.softmax_cross_entropy_with_logits(labels=onehot_labels, logits=logits)
    return _duet.reduce_mean(xent * weights)


def _mean_squared_error(labels, predictions, weights=1.0, **kwargs):
    return _duet.reduce_mean(_duet.square(predictions - labels) * weights)


losses = _namespace("losses", "tf.losses (TensorFlow 1.x)",
                    sparse_softmax_cross_entropy=_sparse_softmax_cross_entropy,
                    softmax_cross_entropy=_softmax_cross_entropy,
                    mean_squared_error=_mean_squared_error)
random = _namespace("random", "tf.random", normal=random_normal, uniform=random_uniform,
                    truncated_normal=truncated_normal, set_random_seed=set_random_seed,
                    set_seed=set_random_seed)
