"""duet.fit: Keras' model.fit for any duet.nn model, over the C++ fit (train/fit.h)."""

import inspect

from duet import _core
from duet import callbacks as _callbacks
from duet import losses as _losses
from duet import metrics as _metrics

History = _core.History

_LOSSES = {
    "sparse_categorical_crossentropy": _losses.sparse_categorical_crossentropy,
    "categorical_crossentropy": _losses.categorical_crossentropy,
    "binary_crossentropy": _losses.binary_crossentropy,
    "mse": _losses.mean_squared_error,
    "mean_squared_error": _losses.mean_squared_error,
    "mae": _losses.mean_absolute_error,
    "mean_absolute_error": _losses.mean_absolute_error,
}


def _loss_arg(loss):
    if isinstance(loss, str):
        if loss not in _LOSSES:
            raise ValueError(f"fit: unknown loss '{loss}': one of {sorted(_LOSSES)}, or a "
                             f"callable (y_true, y_pred) -> scalar")
        return _LOSSES[loss]
    if not callable(loss):
        raise TypeError(f"fit: loss: a name or a callable, not a {type(loss).__name__}")
    return loss


def _metric_arg(metric, loss):
    """Keras' metric names; "accuracy" follows the loss's labels, as in Keras."""
    if not isinstance(metric, str):
        return metric
    if metric in ("accuracy", "acc"):
        name = getattr(loss, "__name__", type(loss).__name__).lower()
        if "sparse" in name:
            return _metrics.SparseCategoricalAccuracy(name="accuracy")
        if "categorical" in name:
            return _metrics.CategoricalAccuracy(name="accuracy")
        return _metrics.Accuracy()
    known = {"sparse_categorical_accuracy": _metrics.SparseCategoricalAccuracy,
             "categorical_accuracy": _metrics.CategoricalAccuracy,
             "precision": _metrics.Precision, "recall": _metrics.Recall, "auc": _metrics.AUC}
    if metric not in known:
        raise ValueError(f"fit: unknown metric '{metric}': accuracy or one of {sorted(known)}")
    return known[metric]()


def _forward(model):
    """model(x, training=...) when the model takes `training`, else model(x)."""
    if isinstance(model, _core._Layer):
        return lambda x, training: model(x, training=training)
    try:
        parameters = inspect.signature(type(model).__call__).parameters.values()
        takes = any(p.name == "training" or p.kind == p.VAR_KEYWORD for p in parameters)
    except (TypeError, ValueError):
        takes = False
    if takes:
        return lambda x, training: model(x, training=training)
    return lambda x, training: model(x)


def fit(model, loss, optimizer, dataset, epochs=1, validation=None, callbacks=None,
        metrics=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
        run_eagerly=False, verbose=1, distribute=None):
    """Trains `model` (a duet.nn.Module) on `dataset`'s (x, y) batches: loss(y, model(x,
    training=True)) under a GradientTape, its gradients applied with `optimizer`, one traced
    step (run_eagerly=True runs every op eagerly). Evaluates `validation` after each epoch;
    `metrics` are reported as "<name>" and "val_<name>". verbose=1 adds a ProgressBar unless
    `callbacks` has one. distribute=comm (a duet.distribute.Communicator) trains data-parallel:
    each rank passes its shard, gradients are averaged over the ranks, callbacks run on rank 0
    only (docs/distributed.md). Returns a History (history["loss"][epoch], ...)."""
    loss = _loss_arg(loss)
    metrics = [_metric_arg(m, loss) for m in metrics or ()]
    callbacks = list(callbacks or ())
    if verbose and not any(isinstance(c, _callbacks.ProgressBar) for c in callbacks):
        callbacks.insert(0, _callbacks.ProgressBar())
    for c in callbacks:
        if isinstance(c, _callbacks.Callback):
            c.set_model(model)
    if not isinstance(model, _core.Module):
        raise TypeError(f"fit: model: a duet.nn.Module, not a {type(model).__name__}")
    return _core._fit(model, _forward(model), loss, optimizer, dataset._dataset,
                      validation._dataset if validation is not None else None, metrics,
                      callbacks, epochs, initial_epoch,
                      -1 if steps_per_epoch is None else steps_per_epoch,
                      -1 if validation_steps is None else validation_steps, run_eagerly,
                      distribute)
