"""tf.contrib (TensorFlow 1.x): `contrib.eager` (tfe) and `contrib.summary`."""

import contextlib
import types

import duet
from duet.compat.v1 import train as _train

# contrib.eager (imported as tfe by the eager guide).
eager = types.ModuleType("duet.compat.v1.contrib.eager", "tf.contrib.eager (tfe)")


def _v1():
    import duet.compat.v1
    return duet.compat.v1


def _variable(initial_value=None, trainable=True, name=None, dtype=None, **kwargs):
    return _v1().Variable(initial_value, trainable=trainable, name=name, dtype=dtype)


def _defun(func=None, input_signature=None):
    """tfe.defun: a traced function (duet.function)."""
    if func is None:
        return lambda f: duet.function(f, input_signature=input_signature)
    return duet.function(func, input_signature=input_signature)


class _Iterator:
    """tfe.Iterator(dataset): Python iteration over a dataset."""

    def __init__(self, dataset):
        self._iterator = iter(dataset)

    def __iter__(self):
        return self._iterator

    def __next__(self):
        return next(self._iterator)

    def next(self):
        return next(self._iterator)

    get_next = next


eager.Variable = _variable
eager.defun = _defun
eager.function = _defun
eager.gradients_function = duet.gradients_function
eager.value_and_gradients_function = duet.value_and_gradients_function
eager.Checkpoint = _train.Checkpoint
eager.Iterator = _Iterator
eager.num_gpus = duet.num_gpus
eager.executing_eagerly = duet.executing_eagerly
eager.py_func = lambda *args, **kwargs: _v1().py_func(*args, **kwargs)
eager.metrics = types.ModuleType("duet.compat.v1.contrib.eager.metrics", "tfe.metrics")
eager.metrics.Mean = duet.metrics.Mean
eager.metrics.Accuracy = duet.metrics.Accuracy
eager.metrics.SparseAccuracy = duet.metrics.SparseCategoricalAccuracy

# contrib.summary: TensorBoard files written eagerly, every n steps of the global step.
summary = types.ModuleType("duet.compat.v1.contrib.summary", "tf.contrib.summary")
_recording = []  # (every n steps, the step variable) of the enclosing record blocks


def _create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None,
                        name=None):
    return duet.summary.create_file_writer(logdir, max_queue or 10, flush_millis or 120_000,
                                           filename_suffix or "")


@contextlib.contextmanager
def _record_every_n(n, global_step=None):
    _recording.append((n, global_step or _train.get_or_create_global_step()))
    try:
        yield
    finally:
        _recording.pop()


def _always_record():
    return _record_every_n(1)


@contextlib.contextmanager
def _never_record():
    _recording.append((0, None))
    try:
        yield
    finally:
        _recording.pop()


def _scalar(name, tensor, family=None, step=None):
    """Writes `tensor` under `name` to the default writer, at `step` (else the global step)
    when the enclosing record block says so; does nothing without a writer or a block."""
    if not duet.executing_eagerly():
        raise NotImplementedError("contrib.summary in graph mode is not supported: write "
                                  "summaries eagerly (or duet.summary inside duet.function)")
    if not duet.summary._defaults or not _recording:
        return False
    n, global_step = _recording[-1]
    step = int(step if step is not None else global_step.numpy())
    if n == 0 or step % n != 0:
        return False
    writer = duet.summary._defaults[-1][0]
    writer.scalar(name if family is None else f"{family}/{name}", tensor, step)
    return True


summary.create_file_writer = _create_file_writer
summary.record_summaries_every_n_global_steps = _record_every_n
summary.always_record_summaries = _always_record
summary.never_record_summaries = _never_record
summary.scalar = _scalar
summary.flush = lambda writer=None: (writer or duet.summary._defaults[-1][0]).flush()
