"""duet.nn's layers: the C++ layers (nn/) under Keras' names and arguments. Their math is the
C++ layers'; an activation given as a callable (rather than a name) is applied after it."""

from duet import _core


def _activation_arg(activation):
    """(the name for the C++ layer, the callable applied after it)."""
    if activation is None or isinstance(activation, str):
        return activation, None
    if callable(activation):
        return None, activation
    raise TypeError(f"activation: a name or a callable, not a {type(activation).__name__}")


class _ActivationMixin:
    def _finish(self, y):
        fn = self.__dict__.get("_activation_fn")
        return y if fn is None else fn(y)

    def __call__(self, inputs, training=None):
        return self._finish(super().__call__(inputs, training=training))


class Dense(_ActivationMixin, _core.Dense):
    __doc__ = _core.Dense.__doc__

    def __init__(self, units, activation=None, **kwargs):
        activation, self._activation_fn = _activation_arg(activation)
        super().__init__(units, activation=activation, **kwargs)


class Conv2D(_ActivationMixin, _core.Conv2D):
    __doc__ = _core.Conv2D.__doc__

    def __init__(self, filters, kernel_size, *args, activation=None, **kwargs):
        activation, self._activation_fn = _activation_arg(activation)
        super().__init__(filters, kernel_size, *args, activation=activation, **kwargs)


class DepthwiseConv2D(_ActivationMixin, _core.DepthwiseConv2D):
    __doc__ = _core.DepthwiseConv2D.__doc__

    def __init__(self, kernel_size, *args, activation=None, **kwargs):
        activation, self._activation_fn = _activation_arg(activation)
        super().__init__(kernel_size, *args, activation=activation, **kwargs)


class Conv2DTranspose(_ActivationMixin, _core.Conv2DTranspose):
    __doc__ = _core.Conv2DTranspose.__doc__

    def __init__(self, filters, kernel_size, *args, activation=None, **kwargs):
        activation, self._activation_fn = _activation_arg(activation)
        super().__init__(filters, kernel_size, *args, activation=activation, **kwargs)


class _Recurrent:
    """Keras' call of a recurrent layer: initial_state= and, with return_state=True, the list
    [output, *final states]."""

    def __init__(self, *args, return_state=False, **kwargs):
        super().__init__(*args, **kwargs)
        self._return_state = return_state

    @property
    def return_state(self):
        return self.__dict__.get("_return_state", False)

    def __call__(self, inputs, initial_state=None, training=None):
        if initial_state is None and not self.return_state:
            return super().__call__(inputs, training=training)
        output, states = self._call_with_state(inputs, list(initial_state or []), training)
        return [output, *states] if self.return_state else output


class SimpleRNN(_Recurrent, _core.SimpleRNN):
    __doc__ = _core.SimpleRNN.__doc__


class LSTM(_Recurrent, _core.LSTM):
    __doc__ = _core.LSTM.__doc__


class GRU(_Recurrent, _core.GRU):
    __doc__ = _core.GRU.__doc__


class Bidirectional(_Recurrent, _core.Bidirectional):
    __doc__ = _core.Bidirectional.__doc__

    def __init__(self, layer, merge_mode="concat", **kwargs):
        super().__init__(layer, merge_mode, return_state=layer.return_state, **kwargs)


MaxPool2D = MaxPooling2D = _core.MaxPool2D
AvgPool2D = AveragePooling2D = _core.AvgPool2D
GlobalAveragePooling2D = GlobalAvgPool2D = _core.GlobalAveragePooling2D
BatchNormalization = BatchNorm = _core.BatchNormalization
LayerNormalization = LayerNorm = _core.LayerNormalization
Dropout = _core.Dropout
Embedding = _core.Embedding
Flatten = _core.Flatten
Reshape = _core.Reshape
