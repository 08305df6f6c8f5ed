"""tf.train (TensorFlow 1.x): the *Optimizer classes, the global step, Checkpoint, Saver and
latest_checkpoint, over duet's optimizers and checkpoints."""

import os

import duet
from duet.compat.v1 import _state

latest_checkpoint = duet.train.latest_checkpoint
_eager_global_step = []


def get_or_create_global_step(graph=None):
    """The int64 step counter ("global_step") of the default graph, or of the program when
    executing eagerly."""
    if duet.executing_eagerly():
        if not _eager_global_step:
            _eager_global_step.append(duet.Variable(0, dtype=duet.int64, name="global_step",
                                                    trainable=False))
        return _eager_global_step[0]
    state = _state.state_of(graph or _state.default_graph())
    if state.global_step is None:
        from duet.compat.v1 import Variable
        state.global_step = Variable(0, dtype=duet.int64, name="global_step", trainable=False)
    return state.global_step


def get_global_step(graph=None):
    if duet.executing_eagerly():
        return _eager_global_step[0] if _eager_global_step else None
    return _state.state_of(graph or _state.default_graph()).global_step


create_global_step = get_or_create_global_step


def _variables_reached(loss):
    """The trainable variables of the graph `loss` depends on."""
    state = _state.state_of(_state.default_graph())
    graph, seen, stack, found = state.graph, set(), [loss.op], []
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        variable = state.variables.get(name)
        if variable is not None and variable.trainable:
            found.append(variable)
        stack.extend(t.op for t in graph.get_operation_by_name(name).inputs)
    return found[::-1]


class Optimizer:
    """TensorFlow 1.x's optimizer protocol over a duet optimizer (the same fused updates)."""

    def __init__(self, optimizer):
        self._optimizer = optimizer

    def compute_gradients(self, loss, var_list=None, **kwargs):
        """[(gradient, variable)]. Eagerly `loss` is a callable, as TensorFlow 1.x requires."""
        if callable(loss):
            with duet.GradientTape() as tape:
                value = loss()
            var_list = list(var_list) if var_list is not None else tape.watched_variables()
            return list(zip(tape.gradient(value, var_list), var_list))
        if duet.executing_eagerly():
            raise ValueError("eager execution: minimize/compute_gradients take a callable "
                             "loss (lambda: loss), as in TensorFlow 1.x")
        var_list = list(var_list) if var_list is not None else _variables_reached(loss)
        if not var_list:
            raise ValueError("no trainable variables reach the loss")
        return list(zip(duet.gradients(loss, var_list), var_list))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Applies the gradients (and adds 1 to global_step); in graph mode, the train op."""
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError("apply_gradients: every gradient is None")
        for _, v in pairs:
            _state.track(v)
        step = self._optimizer.apply_gradients(pairs)
        updates = [step]
        if global_step is not None:
            from duet.compat.v1 import assign_add
            updates.append(assign_add(global_step, 1))
        return None if duet.executing_eagerly() else tuple(updates)

    def minimize(self, loss, global_step=None, var_list=None, name=None, **kwargs):
        return self.apply_gradients(self.compute_gradients(loss, var_list), global_step)

    def variables(self):
        return self._optimizer.variables


class GradientDescentOptimizer(Optimizer):
    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(duet.optimizers.SGD(learning_rate=learning_rate))


class MomentumOptimizer(Optimizer):
    """accumulation = momentum * accumulation + gradient; variable -= lr * accumulation (the
    same steps as Keras' SGD with momentum for a constant learning rate)."""

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum",
                 use_nesterov=False):
        super().__init__(duet.optimizers.SGD(learning_rate=learning_rate, momentum=momentum,
                                             nesterov=use_nesterov))


class AdamOptimizer(Optimizer):
    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 use_locking=False, name="Adam"):
        super().__init__(duet.optimizers.Adam(learning_rate=learning_rate, beta_1=beta1,
                                              beta_2=beta2, epsilon=epsilon))


class AdagradOptimizer(Optimizer):
    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False,
                 name="Adagrad"):
        super().__init__(duet.optimizers.Adagrad(
            learning_rate=learning_rate, initial_accumulator_value=initial_accumulator_value))


def _unwrap(value):
    return value._optimizer if isinstance(value, Optimizer) else value


class Checkpoint(duet.train.Checkpoint):
    """tf.train.Checkpoint over compat optimizers, models, layers and variables."""

    def __init__(self, **objects):
        super().__init__(**{k: _unwrap(v) for k, v in objects.items()})


class Saver:
    """tf.train.Saver: saves `var_list` (a list, a dict of name -> variable, or every variable
    of the default graph) by variable name; restore() counts them as initialized in the
    session. Its files are object-based checkpoints (tf.train.Checkpoint's format) whose
    objects are the variables' names, so duet reads them in either mode; TensorFlow's
    name-based Saver cannot read them, nor duet TensorFlow's name-based ones."""

    def __init__(self, var_list=None, max_to_keep=5, **kwargs):
        self._var_list = var_list
        self._max_to_keep = max_to_keep

    def _variables(self):
        var_list = self._var_list
        if var_list is None:
            from duet.compat.v1 import global_variables
            var_list = global_variables()
            if not var_list:
                raise ValueError("Saver: no variables to save (pass var_list when executing "
                                 "eagerly)")
        if isinstance(var_list, dict):
            return dict(var_list)
        return {v.name: v for v in var_list}

    def _checkpoint(self):
        return duet.train.Checkpoint(**{name.replace("/", "."): v
                                        for name, v in self._variables().items()})

    def save(self, sess, save_path, global_step=None, **kwargs):
        if global_step is not None:
            save_path = f"{save_path}-{int(duet.convert_to_tensor(global_step).numpy())}"
        os.makedirs(os.path.dirname(os.path.abspath(save_path)), exist_ok=True)
        path = self._checkpoint().write(save_path)
        directory = os.path.dirname(os.path.abspath(path))
        with open(os.path.join(directory, "checkpoint"), "w") as f:
            f.write(f'model_checkpoint_path: "{os.path.basename(path)}"\n'
                    f'all_model_checkpoint_paths: "{os.path.basename(path)}"\n')
        return path

    def restore(self, sess, save_path):
        variables = self._variables()
        self._checkpoint().restore(save_path).assert_consumed()
        if sess is not None and hasattr(sess, "_initialized"):
            sess._initialized.update(_state.track(v) for v in variables.values())
