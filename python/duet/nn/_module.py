"""duet.nn.Module and duet.nn.Layer: Python models over the C++ object tree (nn::Module).

A Python model is an nn::Module (Note [Python modules] in python/src/nn.cc): the modules and
variables it is given as attributes become its children, named by the attribute, so variables
are named by path ("encoder/d1/kernel") and checkpoints, optimizers and fit see the same tree as
for a C++ model."""

import inspect
import re

from duet import _core
from duet._autodiff import Variable
from duet._graph import name_scope

# The C++ module state a subclass reached before Module.__init__ ran.
_NOT_INITIALIZED = ("duet.nn.Module.__init__() was not called: call super().__init__() first in "
                    "{}.__init__")


def _snake_case(name):
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


def _is_tracked(value):
    return isinstance(value, (_core.Module, Variable))


class _Container(_core.Module):
    """The node a list, tuple or dict attribute of modules or variables becomes: its entries are
    named "0", "1", ... or by key, as TensorFlow's object graph names a tracked list's."""


def _track(parent, name, value):
    """Registers `value` under `name` in `parent` when it is a module, a variable, or a list,
    tuple or dict holding some; returns whether it did."""
    if isinstance(value, _core.Module):
        parent._add_module(value, name)
    elif isinstance(value, Variable):
        return parent._add_variable(name, value)
    elif isinstance(value, (list, tuple, dict)):
        items = value.items() if isinstance(value, dict) else enumerate(value)
        items = [(str(k), v) for k, v in items]
        if not any(_is_tracked(v) for _, v in items):
            return False
        container = _Container()
        for key, v in items:
            _track(container, key, v)
        parent._add_module(container, name)
    else:
        return False
    return True


def _walk(module):
    for _, child in module._children():
        if not isinstance(child, _Container):
            yield child
        yield from _walk(child)


class Module(_core.Module):
    """A model or a part of one, as tf.Module: subclass it, assign layers, other modules and
    duet.Variables as attributes (lists and dicts of them too), and define __call__.

        class MLP(duet.nn.Module):
            def __init__(self):
                super().__init__()
                self.d1 = duet.nn.Dense(256, activation="relu")
                self.d2 = duet.nn.Dense(10)
            def __call__(self, x, training=False):
                return self.d2(self.d1(x))

    `variables` lists own variables first, then each child's in assignment order, depth first;
    a variable a layer makes is named by its path from the root ("d1/kernel")."""

    def __init__(self, name=None):
        super().__init__(name or "")
        object.__setattr__(self, "_duet_tracked", set())

    def __setattr__(self, name, value):
        tracked = self.__dict__.get("_duet_tracked")
        if tracked is None:
            if _is_tracked(value) or isinstance(value, (list, tuple, dict)):
                raise RuntimeError(_NOT_INITIALIZED.format(type(self).__name__))
        else:
            if name in tracked:
                self._remove(name)
                tracked.discard(name)
            if _track(self, name, value):
                tracked.add(name)
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        tracked = self.__dict__.get("_duet_tracked", ())
        if name in tracked:
            self._remove(name)
            tracked.discard(name)
        object.__delattr__(self, name)

    @property
    def submodules(self):
        """Every module below this one, depth first in assignment order (tf.Module's)."""
        return list(_walk(self))

    def __repr__(self):
        return f"<{type(self).__name__} '{self.path or self.name}'>"


class Layer(Module):
    """A layer with Keras' protocol: `build(input_shape)` runs on the first call and makes the
    weights (`add_weight`), `call(inputs, training=None)` computes; `built` says whether it ran.

        class Scale(duet.nn.Layer):
            def build(self, input_shape):
                self.w = self.add_weight("w", shape=[input_shape[-1]], initializer="ones")
            def call(self, inputs):
                return inputs * self.w

    The ops it adds to a graph are named under its name ("scale/mul")."""

    def __init__(self, name=None, trainable=True, dtype=None, **kwargs):
        if kwargs:
            raise TypeError(f"{type(self).__name__}: unexpected arguments {sorted(kwargs)}")
        super().__init__(name or _snake_case(type(self).__name__))
        self.built = False
        self._dtype = dtype
        if not trainable:
            self.trainable = False

    def build(self, input_shape):
        """Makes the layer's weights for inputs of `input_shape` (a duet.TensorShape, or a
        structure of them for several inputs). The default makes none."""

    def call(self, inputs, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} defines no call()")

    def __call__(self, inputs, *args, **kwargs):
        if not self.built:
            self.build(_shapes(inputs))
            self.built = True
        if "training" in kwargs and not _takes_training(type(self)):
            del kwargs["training"]
        with name_scope(self.name or "layer"):
            return self.call(inputs, *args, **kwargs)

    def add_weight(self, name=None, shape=None, dtype=None, initializer=None, trainable=True,
                   **kwargs):
        """Makes a variable owned by this layer, named by its path ("dense/kernel"). The
        initializer: a name ("zeros", "glorot_uniform", ...), a duet.nn.initializers object or
        a callable (shape, dtype) -> value; None: glorot_uniform (zeros for integer types)."""
        unknown = set(kwargs) - {"regularizer", "constraint", "use_resource", "partitioner",
                                 "synchronization", "aggregation", "getter"}
        if unknown:
            raise TypeError(f"add_weight: unexpected arguments {sorted(unknown)}")
        if name is None:
            name = f"weight_{len(self.__dict__.get('_duet_weights', ()))}"
        variable = self._make_variable(name, shape, dtype or self._dtype, initializer, trainable)
        self.__dict__.setdefault("_duet_weights", []).append(variable)
        return variable

    add_variable = add_weight

    @property
    def weights(self):
        return self.variables

    @property
    def trainable_weights(self):
        return self.trainable_variables

    @property
    def non_trainable_weights(self):
        return self.non_trainable_variables


def _shapes(inputs):
    if isinstance(inputs, (list, tuple)):
        return type(inputs)(_shapes(x) for x in inputs)
    if isinstance(inputs, dict):
        return {k: _shapes(v) for k, v in inputs.items()}
    return _core.convert_to_tensor(inputs).shape


_TAKES_TRAINING = {}


def _takes_training(cls):
    """Whether cls.call accepts a `training` argument (Keras passes it only then)."""
    takes = _TAKES_TRAINING.get(cls)
    if takes is None:
        parameters = inspect.signature(cls.call).parameters.values()
        takes = any(p.name == "training" or p.kind == p.VAR_KEYWORD for p in parameters)
        _TAKES_TRAINING[cls] = takes
    return takes


def _call_layer(layer, x, training):
    """Calls a layer of a Sequential: C++ layers and Python Layers take `training`."""
    if isinstance(layer, (_core._Layer, Layer)):
        return layer(x, training=training)
    return layer(x)


class Sequential(Layer):
    """Layers applied in order, as Keras' Sequential. Its checkpoints name the layers as Keras'
    do ("layer-0", "layer_with_weights-0"), so TensorFlow restores them into a Keras
    Sequential of the same layers."""

    def __init__(self, layers=None, name=None):
        super().__init__(name=name or "sequential")
        object.__setattr__(self, "_layers", [])
        for layer in layers or ():
            self.add(layer)

    def add(self, layer):
        if not isinstance(layer, _core.Module) and not callable(layer):
            raise TypeError(f"Sequential.add: a layer, not a {type(layer).__name__}")
        if isinstance(layer, _core.Module):
            self._add_module(layer, "")
        self._layers.append(layer)

    @property
    def layers(self):
        return list(self._layers)

    def call(self, inputs, training=None):
        for layer in self._layers:
            inputs = _call_layer(layer, inputs, training)
        return inputs

    def _checkpoint_children(self):
        children, with_weights = [], 0
        for i, layer in enumerate(self._layers):
            if not isinstance(layer, _core.Module):
                continue
            if layer.variables:
                children.append((f"layer_with_weights-{with_weights}", layer))
                with_weights += 1
            children.append((f"layer-{i}", layer))
        return children
