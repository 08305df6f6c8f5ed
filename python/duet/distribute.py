"""duet.distribute: collectives among the processes of a data-parallel job (docs/distributed.md).

    comm = duet.distribute.init()          # the job `duet launch` or mpirun started, or one of one
    g = comm.all_reduce(grad, op="mean")   # "sum", "mean", "min", "max", "product"
    w = comm.broadcast(w0, root=0); xs = comm.all_gather(x); comm.barrier()
    comm.rank, comm.size, comm.backend     # "gloo" or "mpi"

Every collective waits at most the timeout (init(timeout=seconds), else
$DUET_COLLECTIVE_TIMEOUT_S, else 300 s) and then raises an error naming the rank and the
collective; the GIL is released while it waits."""

from duet import _core

Communicator = _core.Communicator


def init(timeout=None):
    """The communicator of this process's job, from the environment (see docs/distributed.md)."""
    return _core._distribute_init(timeout)
