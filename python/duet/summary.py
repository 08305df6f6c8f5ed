"""duet.summary: TensorBoard event files, as tf.summary writes them, over duet's C++ writer.

    writer = duet.summary.create_file_writer("logs/run1")
    with writer.as_default(step=0):
        duet.summary.scalar("loss", loss)              # or step=... per call
    writer.scalar("loss", loss, step=1)                # the writer's own methods, as in C++

Each call only queues a record; a C++ thread writes the file (flush() waits for it). Inside
duet.function a call becomes a graph node that records at every call of the function: pass the
step as a tensor there (a Python int is fixed when the function is traced)."""

import contextlib

from duet import _core

_defaults = []  # (writer, step) of the enclosing as_default() blocks, innermost last


class FileWriter:
    """A TensorBoard event file in `logdir` (create_file_writer makes one)."""

    def __init__(self, logdir, max_queue=10, flush_millis=120_000, filename_suffix="",
                 record_every_n_steps=1):
        self._writer = _core._FileWriter(logdir, max_queue, flush_millis / 1000,
                                         record_every_n_steps, filename_suffix)

    @contextlib.contextmanager
    def as_default(self, step=None):
        """duet.summary.scalar & co. write here inside the block (at `step` unless given)."""
        _defaults.append((self, step))
        try:
            yield self
        finally:
            _defaults.pop()

    def set_as_default(self, step=None):
        """Makes this the default writer from now on (as_default without a block)."""
        _defaults.append((self, step))

    def scalar(self, name, data, step):
        self._writer.scalar(name, data, step)

    def histogram(self, name, data, step):
        self._writer.histogram(name, data, step)

    def image(self, name, data, step, max_outputs=3):
        self._writer.image(name, data, step, max_outputs)

    def text(self, name, data, step):
        self._writer.text(name, data, step)

    def graph(self, graph):
        self._writer.graph(graph)

    def flush(self):
        self._writer.flush()

    def close(self):
        self._writer.close()

    @property
    def path(self):
        """The event file."""
        return self._writer.path


def create_file_writer(logdir, max_queue=10, flush_millis=120_000, filename_suffix="",
                       record_every_n_steps=1):
    """A FileWriter for `logdir` (tf.summary.create_file_writer's arguments)."""
    return FileWriter(logdir, max_queue, flush_millis, filename_suffix, record_every_n_steps)


_conditions = []  # the enclosing record_if() blocks' conditions


@contextlib.contextmanager
def record_if(condition):
    """Summaries written through duet.summary.* in the block are recorded only while
    `condition` holds: a bool, or a callable returning one (tf.summary.record_if), checked at
    each write. E.g. record_if(lambda: int(step) % 100 == 0)."""
    _conditions.append(condition)
    try:
        yield
    finally:
        _conditions.pop()


def _recording():
    for condition in _conditions:
        value = condition() if callable(condition) else condition
        if not bool(value):
            return False
    return True


def _write(what, step, *args):
    """Writes through the default writer's method `what`, when the record_if blocks allow;
    returns whether it wrote."""
    if not _recording():
        return False
    if not _defaults:
        raise RuntimeError(f"duet.summary.{what}: no default writer (use "
                           "`with writer.as_default():`, or the writer's own methods)")
    writer, default_step = _defaults[-1]
    step = default_step if step is None else step
    if step is None:
        raise ValueError(f"duet.summary.{what}: no step (pass step=, or as_default(step=...))")
    name, data, *rest = args
    getattr(writer, what)(name, data, step, *rest)
    return True


def scalar(name, data, step=None):
    return _write("scalar", step, name, data)


def histogram(name, data, step=None):
    return _write("histogram", step, name, data)


def image(name, data, step=None, max_outputs=3):
    return _write("image", step, name, data, max_outputs)


def text(name, data, step=None):
    return _write("text", step, name, data)
