"""duet.train.Checkpoint from Python: TensorFlow's checkpoint files for variables."""

import os

import numpy as np
import pytest

import duet


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
    with pytest.raises(duet.errors.InvalidArgumentError, match="duet.Variable"):
        duet.train.Checkpoint(w=[1., 2.])
