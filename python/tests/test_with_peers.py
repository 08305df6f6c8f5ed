"""duet in one process with TensorFlow, imported in either order, exchanging tensors (also by
DLPack), GraphDef files and checkpoints; and with PyTorch, exchanging tensors by DLPack without
copies. The extension exports only PyInit__core (python/exports.lds) and is loaded with
RTLD_DEEPBIND (Note [Loading beside TensorFlow] in duet/__init__.py), so its libprotobuf and Abseil
never meet TensorFlow's."""

import textwrap

import pytest

from peers import require, run_python

EXCHANGE = """
    import numpy as np
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    d = duet.reduce_sum(duet.matmul(duet.constant(a), duet.transpose(duet.constant(a))))
    t = tf.reduce_sum(tf.matmul(tf.constant(a), tf.transpose(tf.constant(a))))
    assert float(d) == float(t) == float((a @ a.T).sum())
    assert np.array_equal(tf.constant(duet.constant(a).numpy()).numpy(), a)
    assert np.array_equal(duet.constant(tf.constant(a).numpy()).numpy(), a)
    dlpack_in_tf = tf.experimental.dlpack.from_dlpack(duet.constant(a).__dlpack__())
    assert np.array_equal(dlpack_in_tf.numpy(), a)
    dlpack_in_duet = duet.from_dlpack(tf.experimental.dlpack.to_dlpack(tf.constant(a)))
    assert np.array_equal(dlpack_in_duet.numpy(), a)

    # A GraphDef each way, in the same process: duet writes, TensorFlow runs; and back.
    import os, tempfile
    folder = tempfile.mkdtemp()
    g = duet.Graph()
    with g.as_default():
        x = duet.placeholder(duet.float32, [None, 3], name="x")
        duet.identity(duet.nn.relu(duet.matmul(x, a.T)) * 2, name="y")
    duet.write_graph(g, os.path.join(folder, "duet.pb"))
    graph_def = tf.compat.v1.GraphDef()
    with open(os.path.join(folder, "duet.pb"), "rb") as f:
        graph_def.ParseFromString(f.read())
    with tf.Graph().as_default() as tg:
        tf.compat.v1.import_graph_def(graph_def, name="")
        with tf.compat.v1.Session(graph=tg) as sess:
            tf_out = sess.run("y:0", {"x:0": a})
    expected = np.maximum(a @ a.T, 0) * 2
    assert np.allclose(tf_out, expected)
    with tf.Graph().as_default() as tg:
        tx = tf.compat.v1.placeholder(tf.float32, [None, 3], name="x")
        tf.identity(tf.nn.relu(tf.matmul(tx, a.T)) * 2, name="y")
        tf.io.write_graph(tg.as_graph_def(), folder, "tf.pb", as_text=False)
    with duet.Session(duet.read_graph(os.path.join(folder, "tf.pb"))) as sess:
        assert np.allclose(sess.run("y:0", {"x:0": a}).numpy(), expected)

    # A checkpoint each way: duet saves, tf.train.Checkpoint restores; and back.
    duet_path = duet.train.Checkpoint(w=duet.Variable(a)).save(os.path.join(folder, "duet"))
    tw = tf.Variable(tf.zeros_like(a))
    tf.train.Checkpoint(w=tw).restore(duet_path).assert_consumed()
    assert np.array_equal(tw.numpy(), a)
    tf_path = tf.train.Checkpoint(w=tf.Variable(a * 3)).save(os.path.join(folder, "tf"))
    dw = duet.Variable(np.zeros_like(a))
    duet.train.Checkpoint(w=dw).restore(tf_path).assert_consumed()
    assert np.array_equal(dw.numpy(), a * 3)
    print("ok")
"""


TORCH_EXCHANGE = """
    import numpy as np
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    # DLPack both ways without a copy: a write on one side shows on the other.
    t = torch.from_numpy(a.copy())
    d = duet.from_dlpack(t)
    t[0, 0] = 100.
    assert float(d[0, 0]) == 100.
    back = torch.from_dlpack(d)
    assert back.data_ptr() == t.data_ptr()
    mine = duet.constant(a)
    theirs = torch.from_dlpack(mine)
    assert theirs.data_ptr() == mine.numpy().__array_interface__["data"][0]
    # Both engines' thread pools (OpenMP, oneDNN) at work in one process.
    big = np.random.default_rng(0).normal(size=(256, 256)).astype(np.float32)
    for _ in range(3):
        mine = duet.matmul(big, big).numpy()
        theirs = torch.from_numpy(big) @ torch.from_numpy(big)
        assert np.allclose(mine, theirs.numpy(), rtol=1e-4, atol=1e-3)
    print("ok")
"""


PEERS = {"tensorflow": ("import tensorflow as tf", EXCHANGE),
         "torch": ("import torch", TORCH_EXCHANGE)}


@pytest.mark.parametrize("peer", sorted(PEERS))
@pytest.mark.parametrize("peer_first", [True, False])
def test_duet_and_a_peer_share_a_process(peer, peer_first):
    require(peer)
    peer_import, code = PEERS[peer]
    imports = [peer_import, "import duet"] if peer_first else ["import duet", peer_import]
    assert run_python("\n".join(imports) + "\n" + textwrap.dedent(code)).strip() == "ok"
