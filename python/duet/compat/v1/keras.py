"""tf.keras (TensorFlow 1.x): layers, Model (subclassed, with call) and Sequential, over
duet.nn. In graph mode the variables a layer makes join the default graph's (so that
global_variables_initializer, Saver and minimize see them)."""

import types

import duet
from duet.compat.v1 import _state


class _GraphTracked:
    """Records the layer's variables in the default graph after each call in graph mode."""

    def __init__(self, *args, input_shape=None, input_dim=None, **kwargs):
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "_input_shape", input_shape)

    def __call__(self, *args, **kwargs):
        out = super().__call__(*args, **kwargs)
        if not duet.executing_eagerly():
            # Once per graph and set of variables: tracking reads each variable into the graph.
            variables = self.variables
            key = (id(_state.default_graph()), len(variables))
            if self.__dict__.get("_duet_graph_tracked") != key:
                for v in variables:
                    _state.track(v)
                object.__setattr__(self, "_duet_graph_tracked", key)
        return out


def _keras_layer(base):
    return type(base.__name__, (_GraphTracked, base), {"__doc__": base.__doc__})


class Layer(_GraphTracked, duet.nn.Layer):
    """Keras' Layer: build(input_shape) with add_variable/add_weight, then call(inputs)."""

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        super().__init__(name=name, trainable=trainable, dtype=dtype, **kwargs)


class Model(Layer):
    """Keras' Model, subclassed: assign layers in __init__, compute in call(inputs)."""

    def __init__(self, *args, name=None, **kwargs):
        if args or "inputs" in kwargs:
            raise NotImplementedError(
                "keras.Model(inputs, outputs), Keras' functional API, is not supported: "
                "subclass Model (layers in __init__, the computation in call) or use Sequential")
        super().__init__(name=name, **kwargs)


class Sequential(_GraphTracked, duet.nn.Sequential):
    """Keras' Sequential; the first layer may say input_shape=... (its weights are then made on
    the first call, not at construction as in Keras)."""

    def __init__(self, layers=None, name=None):
        super().__init__(layers, name=name)


layers = types.ModuleType("duet.compat.v1.keras.layers", "tf.keras.layers (TensorFlow 1.x)")
layers.Layer = Layer
for _name in ("Dense", "Conv2D", "DepthwiseConv2D", "Conv2DTranspose", "MaxPooling2D",
              "MaxPool2D", "AveragePooling2D", "AvgPool2D", "GlobalAveragePooling2D",
              "BatchNormalization", "LayerNormalization", "Dropout", "Embedding", "Flatten",
              "Reshape"):
    setattr(layers, _name, _keras_layer(getattr(duet.nn, _name)))
del _name


datasets = types.ModuleType("duet.compat.v1.keras.datasets", "tf.keras.datasets")
datasets.fashion_mnist = types.ModuleType("duet.compat.v1.keras.datasets.fashion_mnist")


def _load_fashion_mnist():
    """Fashion-MNIST from Debian's dataset-fashion-mnist package (no download), as NumPy."""
    (x, y), (tx, ty) = duet.data.fashion_mnist()
    return (x.numpy(), y.numpy()), (tx.numpy(), ty.numpy())


datasets.fashion_mnist.load_data = _load_fashion_mnist
