"""duet.train: checkpoints in TensorFlow's format (tf.train.Checkpoint's files) of variables,
optimizers and metrics, and CheckpointManager.

    ckpt = duet.train.Checkpoint(w=w, b=b)
    path = ckpt.save("ckpt/model")            # "ckpt/model-1"; the directory's latest
    ckpt.restore(duet.train.latest_checkpoint("ckpt")).assert_consumed()

Values are matched by object path (the keyword names), as tf.train.Checkpoint matches them, so
TensorFlow reads duet's checkpoints and duet reads TensorFlow's."""

from duet import _core

CheckpointLoadStatus = _core.CheckpointLoadStatus
latest_checkpoint = _core.latest_checkpoint


class Checkpoint:
    """Saves and restores the variables given as keyword arguments."""

    def __init__(self, **objects):
        self._checkpoint = _core._Checkpoint(sorted(objects.items()))

    def save(self, file_prefix):
        """Writes `file_prefix`-<n> (n counts saves) and makes it the directory's latest."""
        return self._checkpoint.save(file_prefix)

    def write(self, file_prefix):
        """Writes exactly `file_prefix` (no numbering, no "checkpoint" file)."""
        return self._checkpoint.write(file_prefix)

    def restore(self, save_path):
        """Assigns the values at `save_path` to the variables; returns a CheckpointLoadStatus."""
        return self._checkpoint.restore(save_path)

    @property
    def save_counter(self):
        return self._checkpoint.save_counter


class CheckpointManager:
    """Numbered checkpoints of `checkpoint` in `directory`, keeping the newest `max_to_keep`
    (None keeps all), listed in the directory's "checkpoint" file as tf.train.CheckpointManager
    lists them, so either can pick up the other's directory."""

    def __init__(self, checkpoint, directory, max_to_keep, checkpoint_name="ckpt"):
        self._manager = _core._CheckpointManager(checkpoint._checkpoint, directory,
                                                 max_to_keep or 0, checkpoint_name)

    def save(self):
        """Writes the next checkpoint and deletes the oldest beyond max_to_keep; its path."""
        return self._manager.save()

    @property
    def latest_checkpoint(self):
        return self._manager.latest_checkpoint

    @property
    def checkpoints(self):
        return self._manager.checkpoints

    @property
    def directory(self):
        return self._manager.directory
