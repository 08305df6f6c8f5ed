"""duet.distribute from Python: two processes of one job (the environment `duet launch` gives,
set here) all-reduce, broadcast and gather, eagerly and in a duet.function (against NumPy), and
fit data-parallel; a job of one; a stalled rank times out, and a killed one fails its peer at once,
with an error naming the collective."""

import os
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
import pytest

import duet

WORKER = """
    import sys, numpy as np, duet
    comm = duet.distribute.init(timeout=float(sys.argv[1]))
    if len(sys.argv) > 2 and comm.rank == 1:
        if sys.argv[2] == "kill":
            import os, signal; os.kill(os.getpid(), signal.SIGKILL)   # dies after joining
        import time; time.sleep(6)           # stalled: never enters the all_reduce
        sys.exit(0)
    total = comm.all_reduce(np.array([comm.rank + 1.0, 2.0]), op="sum").numpy().tolist()
    mean = comm.all_reduce(duet.constant([float(comm.rank)]), op="mean").numpy().tolist()
    root = comm.broadcast(duet.constant([comm.rank * 10]), root=1).numpy().tolist()
    gathered = comm.all_gather(duet.constant([comm.rank])).numpy().tolist()
    comm.barrier()
    duet.set_random_seed(comm.rank + 1)  # each rank starts from other weights
    model = duet.nn.Dense(2)
    model(np.ones((1, 3), np.float32))
    before = comm.all_gather(model.kernel).numpy()
    assert not (before[0] == before[1]).all()
    duet.distribute.check_same_variables(comm, model)
    duet.distribute.broadcast_variables(comm, model, root=0)
    weights = comm.all_gather(model.kernel).numpy()
    assert (weights[0] == weights[1]).all()
    # Each rank has half the batch; the averaged gradient is the whole batch's.
    x = np.arange(8.0).reshape(4, 2)[2 * comm.rank:2 * comm.rank + 2]
    w = duet.Variable([1.0, -1.0], dtype=duet.float64)
    with duet.distribute.DistributedGradientTape(comm, bucket_bytes=8) as tape:
        loss = duet.reduce_mean(duet.square(duet.reduce_sum(x * w, axis=1)))
    grad = tape.gradient(loss, [w])[0].numpy()
    full = np.arange(8.0).reshape(4, 2)
    expected = (2 * (full @ [1.0, -1.0])[:, None] * full).mean(axis=0)
    assert np.allclose(grad, expected, rtol=1e-12), (grad, expected)
    # The collectives are ops: the same in a duet.function, against NumPy's reductions.
    inputs = [np.array([r, -r, 2.0 + r], np.float32) for r in range(comm.size)]
    @duet.function
    def traced(x):
        return (comm.all_reduce(x, op="max"), duet.distribute.all_reduce(x * 2.0, op="sum"),
                comm.all_reduce(x, op="product"))
    mx, s2, prod = traced(inputs[comm.rank])
    stacked = np.stack(inputs)
    np.testing.assert_array_equal(mx.numpy(), stacked.max(axis=0))
    np.testing.assert_array_equal(s2.numpy(), (stacked * 2).sum(axis=0))
    np.testing.assert_array_equal(prod.numpy(), stacked.prod(axis=0))
    # Asynchronous collectives: started on a thread, in order, waited for.
    works = [comm.all_reduce_async(np.array([float(i)])) for i in range(3)]
    assert [w.wait().numpy().tolist() for w in works] == [[0.0], [2.0], [4.0]]
    assert all(w.done() for w in works)
    # duet.fit(..., distribute=comm): each rank its shard; the replicas end identical.
    duet.set_random_seed(comm.rank + 5)
    net = duet.nn.Dense(1)
    xs = np.linspace(-1, 1, 40, dtype=np.float32).reshape(20, 2)
    ds = duet.data.Dataset.from_tensor_slices((xs, xs.sum(axis=1, keepdims=True)))
    history = duet.fit(net, "mse", duet.optimizers.SGD(0.1), ds.shard(comm.size, comm.rank).batch(5),
                       epochs=2, verbose=0, distribute=comm)
    kernels = comm.all_gather(net.kernel).numpy()
    assert (kernels[0] == kernels[1]).all()
    assert len(history.epoch) == 2
    print(comm.rank, comm.size, comm.backend, total, mean, root, gathered)
"""


def run_job(size, *args, timeout=60):
    directory = tempfile.mkdtemp(prefix="duet_py_job_")
    processes = []
    for rank in range(size):
        env = dict(os.environ, DUET_RANK=str(rank), DUET_WORLD_SIZE=str(size),
                   DUET_RENDEZVOUS_DIR=directory)
        processes.append(subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(WORKER)] + [str(a) for a in args], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    return [p.communicate(timeout=timeout) + (p.returncode,) for p in processes]


def test_two_processes_reduce_broadcast_and_gather():
    results = run_job(2, 30)
    for rank, (out, err, status) in enumerate(results):
        assert status == 0, err[-2000:]
        assert out.strip() == (f"{rank} 2 gloo [3.0, 4.0] [0.5] [10] [[0], [1]]")


def test_a_job_of_one_and_bad_arguments():
    comm = duet.distribute.init()
    assert (comm.rank, comm.size) == (0, 1)
    np.testing.assert_array_equal(comm.all_reduce([1.0, 2.0], op="max").numpy(), [1.0, 2.0])
    with pytest.raises(duet.errors.InvalidArgumentError, match="one of sum, mean"):
        comm.all_reduce([1.0], op="median")


def test_a_stalled_rank_times_out_with_an_error_naming_the_collective():
    results = run_job(2, 2, "stall")
    out, err, status = results[0]
    assert status != 0
    assert "duet.errors.DeadlineExceededError" in err
    assert "rank 0 of 2: all_reduce (sum) of float64 (2,)" in err


def test_a_killed_rank_ends_the_others_with_an_error_at_once():
    import time
    start = time.monotonic()
    results = run_job(2, 30, "kill")
    out, err, status = results[0]
    assert status != 0
    assert results[1][2] == -9  # SIGKILL
    assert "duet.errors.UnavailableError" in err
    assert "rank 0 of 2: all_reduce (sum) of float64 (2,)" in err
    assert time.monotonic() - start < 30  # the peer's closed connection, not the 30 s timeout
