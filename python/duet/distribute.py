"""duet.distribute: collectives among the processes of a data-parallel job (docs/distributed.md).

    comm = duet.distribute.init()          # the job `duet launch` or mpirun started, or one of one
    g = comm.all_reduce(grad, op="mean")   # "sum", "mean", "min", "max", "product"
    w = comm.broadcast(w0, root=0); xs = comm.all_gather(x); comm.barrier()
    comm.rank, comm.size, comm.backend     # "gloo" or "mpi"
    work = comm.all_reduce_async(grad); ...; g = work.wait()   # started on a thread of its own
    g = duet.distribute.all_reduce(grad, op="mean")   # init()'s communicator (also broadcast,
                                                      # all_gather, broadcast_variables(vars))

The collectives are ops (CollectiveReduceV2, CollectiveGatherV2, CollectiveBcastSendV2/RecvV2):
inside a duet.function they trace like any other op.

Every collective waits at most the timeout (init(timeout=seconds), else
$DUET_COLLECTIVE_TIMEOUT_S, else 300 s) and then raises an error naming the rank and the
collective; the GIL is released while it waits. Before training, every rank calls
check_same_variables(comm, model.variables) and broadcast_variables(comm, model.variables)."""

from duet import _core
from duet._autodiff import GradientTape, _flatten, _unflatten

BUCKET_BYTES = 25 << 20

Communicator = _core.Communicator
Work = _core.Work


def init(timeout=None, backend=None):
    """The communicator of this process's job, from the environment (see docs/distributed.md);
    backend="gloo", "mpi" or "nccl" overrides $DUET_BACKEND."""
    return _core._distribute_init(timeout, backend)


def _variables(objects):
    """Variables from a list of variables, or of objects with `variables` (models, optimizers)."""
    if hasattr(objects, "variables"):
        objects = [objects]
    out = []
    for obj in objects:
        out.extend(obj.variables if hasattr(obj, "variables") else [obj])
    return out


def default_communicator():
    """The communicator init() made last (FailedPreconditionError before init())."""
    return _core._default_communicator()


def all_reduce(tensor, op="sum"):
    """default_communicator().all_reduce(tensor, op)."""
    return default_communicator().all_reduce(tensor, op)


def broadcast(tensor, root=0):
    """default_communicator().broadcast(tensor, root)."""
    return default_communicator().broadcast(tensor, root)


def all_gather(tensor):
    """default_communicator().all_gather(tensor)."""
    return default_communicator().all_gather(tensor)


def _comm_and(args):
    """(communicator, rest): the leading Communicator argument, else the default one."""
    if args and isinstance(args[0], Communicator):
        return args[0], args[1:]
    return default_communicator(), args


def broadcast_variables(*args, root=0):
    """broadcast_variables([comm,] variables, root=0): assigns every variable root's value
    (variables, or models and optimizers); without comm, default_communicator()'s ranks."""
    comm, rest = _comm_and(args)
    if len(rest) == 2:
        root = rest[1]
    _core._broadcast_variables(comm, _variables(rest[0]), root)


def check_same_variables(*args):
    """check_same_variables([comm,] variables): raises FailedPreconditionError on every rank when
    the ranks' variables differ in count, names, dtypes or shapes, naming the first difference."""
    comm, rest = _comm_and(args)
    _core._check_same_variables(comm, _variables(rest[0]))


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
