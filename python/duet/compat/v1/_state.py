"""What TensorFlow 1.x keeps globally: graph or eager mode, the default graph, and per graph the
variables its programs made and the seed feed of its random ops (Note [TF 1.x state])."""

import itertools

import duet
from duet import _core

# Note [TF 1.x state]
# ~~~~~~~~~~~~~~~~~~~
# Importing duet.compat.v1 makes the importing thread build graphs, as `import tensorflow` did:
# it enters a default graph, which enable_eager_execution() leaves (before any op was built) and
# reset_default_graph() replaces. duet's variables always hold eager state (docs/graph.md), so a
# TF 1.x variable made in graph mode gets its initial value by running the initial-value graph
# once; the compat Session then refuses to run anything that reads a variable of the graph
# before an initializer ran in that session, as TensorFlow does ("uninitialized value"), and an
# initializer assigns the initial values again. Unlike TensorFlow, two sessions of one graph share
# its variables' values. Random ops are stateless ops seeded by (their op seed, a per-run
# counter) that the compat Session feeds: every run draws new numbers, reproducibly under
# set_random_seed, without stateful random ops.


class GraphState:
    """What compat.v1 records about one graph."""

    def __init__(self, graph):
        self.graph = graph
        self.variables = {}  # VarHandleOp name -> Variable
        self.initial_values = {}  # VarHandleOp name -> eager initial value
        self.global_step = None
        self.run_counter = None  # the PlaceholderWithDefault random ops take their seeds from
        self.runs = itertools.count(1)  # what the compat Session feeds it, run after run


class _Mode:
    eager = False
    graphs = []  # [(graph, entered context)], the innermost last; [0] the default graph
    states = {}  # id(graph) -> GraphState
    eager_runs = itertools.count(1)
    op_seeds = itertools.count(1)


mode = _Mode()


def state_of(graph):
    state = mode.states.get(id(graph))
    if state is None or state.graph is not graph:
        state = mode.states[id(graph)] = GraphState(graph)
    return state


def _as_default(graph):
    """duet.Graph.as_default, also tracked as the compat default graph (get_default_graph)."""
    class _Scope:
        def __enter__(self):
            context = _core_as_default(graph)
            context.__enter__()
            mode.graphs.append((graph, context))
            return graph

        def __exit__(self, *exc):
            _, context = mode.graphs.pop()
            return context.__exit__(*exc)
    return _Scope()


_core_as_default = duet.Graph.as_default
duet.Graph.as_default = _as_default


def enter_default_graph():
    scope = _as_default(duet.Graph())
    scope.__enter__()


def default_graph():
    if mode.graphs:
        return mode.graphs[-1][0]
    if not mode.eager:
        enter_default_graph()
        return mode.graphs[-1][0]
    return None


def leave_default_graph():
    while mode.graphs:
        _, context = mode.graphs.pop()
        context.__exit__(None, None, None)


def handle_op_name(variable):
    """The VarHandleOp a variable becomes in the graph being built."""
    read = variable.read_value()
    return default_graph().get_operation_by_name(read.op).inputs[0].op


def track(variable, initial_value=None):
    """Records a variable used in the graph being built. Running an initializer assigns it
    `initial_value` again; variables made elsewhere (by layers) keep their values then."""
    if duet.executing_eagerly():
        return None
    state = state_of(default_graph())
    name = handle_op_name(variable)
    if name not in state.variables:
        state.variables[name] = variable
        state.initial_values[name] = initial_value
    return name


def last_operation():
    """The node an op without outputs just added (its Python call returns nothing)."""
    return default_graph().get_operations()[-1]


def seed_pair(seed):
    """The [op seed, run] int64 pair a random op draws from (Note [TF 1.x state])."""
    op_seed = seed if seed is not None else next(mode.op_seeds)
    if duet.executing_eagerly():
        return duet.constant([op_seed, next(mode.eager_runs)], duet.int64)
    state = state_of(default_graph())
    if state.run_counter is None:
        state.run_counter = duet.raw_ops.PlaceholderWithDefault(
            duet.constant(0, duet.int64), shape=[], name="random_run_counter")
    return duet.stack([duet.constant(op_seed, duet.int64), state.run_counter])


def set_random_seed(seed):
    duet.set_random_seed(seed)
    mode.op_seeds = itertools.count(int(seed) * 1_000_003 + 1)
    mode.eager_runs = itertools.count(1)


def evaluate(value):
    """An initial value as an eager tensor: a symbolic one runs its graph once."""
    if callable(value):
        value = value()
    if isinstance(value, duet.Tensor) and not duet.executing_eagerly() and is_symbolic(value):
        return duet.constant(duet.Session(default_graph()).run(value))
    return value


def is_symbolic(tensor):
    return _core._tensor_name(tensor) is not None

