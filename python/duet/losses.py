"""duet.losses: Keras' losses over duet's C++ ones (nn/losses/), as classes and functions.

    loss_fn = duet.losses.SparseCategoricalCrossentropy(from_logits=True)
    loss = loss_fn(labels, logits)                    # reduced: the mean, as Keras by default
    per_sample = duet.losses.mean_squared_error(y, predictions)   # functions: not reduced

`reduction` is "sum_over_batch_size" (the mean over every element; the default), "sum" or
"none". The math is the C++ losses', so they run eagerly, traced and in graphs, and are
differentiable."""

from duet import _core


class Loss:
    """The base of the loss classes: call it as loss(y_true, y_pred)."""

    def __init__(self, reduction="sum_over_batch_size", name=None):
        self.reduction = reduction
        self.name = name or type(self).__name__

    def __call__(self, y_true, y_pred):
        return self.call(y_true, y_pred)

    def call(self, y_true, y_pred):
        raise NotImplementedError(f"{type(self).__name__}.call")


class SparseCategoricalCrossentropy(Loss):
    def __init__(self, from_logits=False, reduction="sum_over_batch_size", name=None):
        super().__init__(reduction, name)
        self.from_logits = from_logits

    def call(self, y_true, y_pred):
        return _core._sparse_categorical_crossentropy(y_true, y_pred, self.from_logits,
                                                      self.reduction)


class _SmoothedCrossentropy(Loss):
    """The cross-entropies with from_logits and label_smoothing; `_loss` is the C++ function."""

    def __init__(self, from_logits=False, label_smoothing=0.0, reduction="sum_over_batch_size",
                 name=None):
        super().__init__(reduction, name)
        self.from_logits, self.label_smoothing = from_logits, label_smoothing

    def call(self, y_true, y_pred):
        return type(self)._loss(y_true, y_pred, self.from_logits, self.label_smoothing,
                                self.reduction)


class CategoricalCrossentropy(_SmoothedCrossentropy):
    _loss = staticmethod(_core._categorical_crossentropy)


class BinaryCrossentropy(_SmoothedCrossentropy):
    _loss = staticmethod(_core._binary_crossentropy)


class MeanSquaredError(Loss):
    def call(self, y_true, y_pred):
        return _core._mean_squared_error(y_true, y_pred, self.reduction)


class MeanAbsoluteError(Loss):
    def call(self, y_true, y_pred):
        return _core._mean_absolute_error(y_true, y_pred, self.reduction)


class Huber(Loss):
    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name=None):
        super().__init__(reduction, name)
        self.delta = delta

    def call(self, y_true, y_pred):
        return _core._huber(y_true, y_pred, self.delta, self.reduction)


# Keras' functions: the per-sample losses (no reduction).
def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False):
    return _core._sparse_categorical_crossentropy(y_true, y_pred, from_logits, "none")


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0):
    return _core._categorical_crossentropy(y_true, y_pred, from_logits, label_smoothing, "none")


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0):
    return _core._binary_crossentropy(y_true, y_pred, from_logits, label_smoothing, "none")


def mean_squared_error(y_true, y_pred):
    return _core._mean_squared_error(y_true, y_pred, "none")


def mean_absolute_error(y_true, y_pred):
    return _core._mean_absolute_error(y_true, y_pred, "none")


def huber(y_true, y_pred, delta=1.0):
    return _core._huber(y_true, y_pred, delta, "none")


mse, mae = mean_squared_error, mean_absolute_error
