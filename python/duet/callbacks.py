"""duet.callbacks: what duet.fit runs around its steps and epochs, as Keras' callbacks.

    class Stop(duet.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if logs["loss"] < 0.1:
                self.model.stop_training = True

ProgressBar, TensorBoard, ModelCheckpoint and EarlyStopping are the C++ ones (train/); a Python
Callback's methods run with the GIL, between steps that run without it."""

from duet import _core

ProgressBar = _core.ProgressBar
TensorBoard = _core.TensorBoard
EarlyStopping = _core.EarlyStopping


class ModelCheckpoint(_core._ModelCheckpoint):
    """Saves through `manager` (a duet.train.CheckpointManager over the model and optimizer)
    after each epoch, or only after epochs that improve `monitor` with save_best_only."""

    def __init__(self, manager, monitor="val_loss", save_best_only=False, mode="auto"):
        super().__init__(manager._manager, save_best_only, monitor, mode)


class Callback:
    """Keras' Callback: override the on_* methods you need. fit sets `model` (the model being
    trained) and `params` ({"epochs", "steps"}); setting `model.stop_training = True` ends fit
    after the current epoch."""

    model = None
    params = None

    def set_model(self, model):
        self.model = model

    def on_train_begin(self, logs=None):
        pass

    def on_epoch_begin(self, epoch, logs=None):
        pass

    def on_train_batch_end(self, batch, logs=None):
        pass

    def on_epoch_end(self, epoch, logs=None):
        pass

    def on_train_end(self, logs=None):
        pass

    def _duet_overrides(self, method):
        """Whether this callback (its class, or the instance: LambdaCallback) overrides
        `method`; fit skips the others."""
        return method in self.__dict__ or getattr(type(self), method) is not getattr(Callback,
                                                                                      method)

    def _duet_event(self, event, index, logs, params):
        """Called by fit (python/src/fit.cc); returns whether the model asks to stop."""
        self.params = params
        if event in ("train_begin", "train_end"):
            getattr(self, "on_" + event)(logs)
        else:
            getattr(self, "on_" + event)(index, logs)
        stop = bool(getattr(self.model, "stop_training", False))
        if stop:
            self.model.stop_training = False
        return stop


class LambdaCallback(Callback):
    """A callback of functions: on_epoch_end=lambda epoch, logs: ..., and so on."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_batch_end=None,
                 on_train_begin=None, on_train_end=None):
        for name, fn in (("on_epoch_begin", on_epoch_begin), ("on_epoch_end", on_epoch_end),
                         ("on_train_batch_end", on_train_batch_end),
                         ("on_train_begin", on_train_begin), ("on_train_end", on_train_end)):
            if fn is not None:
                setattr(self, name, fn)
