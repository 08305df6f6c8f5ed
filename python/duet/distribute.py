"""duet.distribute: collectives among the processes of a data-parallel job (docs/distributed.md).

    comm = duet.distribute.init()          # the job `duet launch` or mpirun started, or one of one
    g = comm.all_reduce(grad, op="mean")   # "sum", "mean", "min", "max", "product"
    w = comm.broadcast(w0, root=0); xs = comm.all_gather(x); comm.barrier()
    comm.rank, comm.size, comm.backend     # "gloo" or "mpi"

Every collective waits at most the timeout (init(timeout=seconds), else
$DUET_COLLECTIVE_TIMEOUT_S, else 300 s) and then raises an error naming the rank and the
collective; the GIL is released while it waits. Before training, every rank calls
check_same_variables(comm, model.variables) and broadcast_variables(comm, model.variables)."""

from duet import _core
from duet._autodiff import GradientTape, _flatten, _unflatten

BUCKET_BYTES = 25 << 20

Communicator = _core.Communicator


def init(timeout=None):
    """The communicator of this process's job, from the environment (see docs/distributed.md)."""
    return _core._distribute_init(timeout)


def _variables(objects):
    """Variables from a list of variables, or of objects with `variables` (models, optimizers)."""
    if hasattr(objects, "variables"):
        objects = [objects]
    out = []
    for obj in objects:
        out.extend(obj.variables if hasattr(obj, "variables") else [obj])
    return out


def broadcast_variables(comm, variables, root=0):
    """Assigns every variable root's value (variables, or models and optimizers)."""
    _core._broadcast_variables(comm, _variables(variables), root)


def check_same_variables(comm, variables):
    """Raises FailedPreconditionError on every rank when the ranks' variables differ in count,
    names, dtypes or shapes, naming the first difference."""
    _core._check_same_variables(comm, _variables(variables))


class DistributedGradientTape(GradientTape):
    """A GradientTape whose gradient() averages the gradients over the ranks, in buckets of
    about `bucket_bytes` (Note [Gradient buckets] in distribute/gradient_tape.h): every rank gets
    the same values, as if one worker had the whole batch.

        with duet.distribute.DistributedGradientTape(comm) as tape:
            loss = loss_fn(y, model(x, training=True))
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                model.trainable_variables))"""

    def __init__(self, comm, persistent=False, bucket_bytes=BUCKET_BYTES, **kwargs):
        super().__init__(persistent=persistent, **kwargs)
        self._comm = comm
        self._bucket_bytes = bucket_bytes

    def gradient(self, target, sources, output_gradients=None):
        grads = super().gradient(target, sources, output_gradients)
        averaged = _core._average_gradients(self._comm, _flatten(grads), self._bucket_bytes)
        return _unflatten(grads, iter(averaged))
