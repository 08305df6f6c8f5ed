"""duet.train.Checkpoint from Python: TensorFlow's checkpoint files for variables, optimizers
and metrics."""

import gc
import os

import numpy as np
import pytest

import duet
from peers import require, run_python


def test_save_restore_latest_and_status(tmp_path):
    w = duet.Variable([[1., 2.], [3., 4.]], name="w")
    step = duet.Variable(7, dtype=duet.int64, name="step")
    ckpt = duet.train.Checkpoint(w=w, step=step)
    path = ckpt.save(str(tmp_path / "model"))
    assert path.endswith("model-1") and os.path.exists(path + ".index")
    assert duet.train.latest_checkpoint(str(tmp_path)) == path
    w.assign([[0., 0.], [0., 0.]])
    step.assign_add(1)
    ckpt.restore(path).assert_consumed()
    np.testing.assert_array_equal(w.numpy(), [[1., 2.], [3., 4.]])
    assert int(step) == 7 and int(ckpt.save_counter) == 1

    other = duet.train.Checkpoint(w=duet.Variable([[0., 0.], [0., 0.]]))
    with pytest.raises(duet.errors.OpError, match="step"):
        other.restore(path).assert_consumed()  # 'step' is left over


def test_bad_checkpoints_are_errors(tmp_path):
    w = duet.Variable([1., 2., 3.])
    path = duet.train.Checkpoint(w=duet.Variable([1., 2.])).save(str(tmp_path / "m"))
    with pytest.raises(duet.errors.OpError, match=r"holds float32 \(2,\) but .* \(3,\)"):
        duet.train.Checkpoint(w=w).restore(path)
    with pytest.raises(duet.errors.OpError):
        duet.train.Checkpoint(w=w).restore(str(tmp_path / "missing-1"))
    with pytest.raises(duet.errors.InvalidArgumentError, match="duet.Variables, optimizers"):
        duet.train.Checkpoint(w=[1., 2.])


def test_optimizers_and_metrics_are_saved_and_restored(tmp_path):
    def make():
        w = duet.Variable([1., -2.], name="w")
        return w, duet.optimizers.Adam(learning_rate=0.1), duet.metrics.Mean(name="loss")

    w, opt, mean = make()
    for g in ([0.5, -1.], [1., 2.]):
        opt.apply_gradients([(duet.constant(g), w)])
        mean.update_state(duet.reduce_sum(w * w))
    path = duet.train.Checkpoint(w=w, optimizer=opt, loss=mean).save(str(tmp_path / "train"))

    w2, opt2, mean2 = make()
    status = duet.train.Checkpoint(w=w2, optimizer=opt2, loss=mean2).restore(path)
    np.testing.assert_array_equal(w2.numpy(), w.numpy())
    assert int(opt2.iterations) == 2 and float(mean2.result()) == float(mean.result())
    # The slots are made on the first update and take the checkpoint's values then, so the next
    # step continues the saved run exactly.
    w3, opt3, mean3 = make()
    duet.train.Checkpoint(w=w3, optimizer=opt3).restore(path)  # dropped before the slots exist
    gc.collect()
    for variable, optimizer in ((w, opt), (w2, opt2), (w3, opt3)):
        optimizer.apply_gradients([(duet.constant([0.25, 0.25]), variable)])
    np.testing.assert_array_equal(w2.numpy(), w.numpy())
    np.testing.assert_array_equal(w3.numpy(), w.numpy())
    status.assert_consumed()


def test_checkpoint_manager_keeps_the_newest_and_tensorflow_reads_its_directory(tmp_path):
    w = duet.Variable([1., 2.])
    manager = duet.train.CheckpointManager(duet.train.Checkpoint(w=w), str(tmp_path), 2)
    assert manager.latest_checkpoint is None
    paths = []
    for step in range(3):
        w.assign_add([1., 1.])
        paths.append(manager.save())
    assert manager.checkpoints == paths[1:] and manager.latest_checkpoint == paths[2]
    assert not os.path.exists(paths[0] + ".index") and os.path.exists(paths[1] + ".index")
    assert duet.train.latest_checkpoint(str(tmp_path)) == paths[2]
    require("tensorflow")
    out = run_python(f"""
        import tensorflow as tf
        w = tf.Variable([0., 0.])
        path = tf.train.latest_checkpoint({str(tmp_path)!r})
        tf.train.Checkpoint(w=w).restore(path).assert_existing_objects_matched()
        print(path, w.numpy().tolist())
    """)
    assert out.split() == [paths[2], "[4.0,", "5.0]"]
