"""duet.nn: models and layers (Module, Layer, Sequential, the C++ layers under Keras' names),
initializers, and the neural-network ops as tf.nn names them (duet.nn.relu, ...).

    class MLP(duet.nn.Module):
        def __init__(self):
            super().__init__()
            self.d1 = duet.nn.Dense(256, activation="relu")
            self.d2 = duet.nn.Dense(10)
        def __call__(self, x, training=False):
            return self.d2(self.d1(x))

docs/python.md, "Models", has the guide."""

from duet.nn._module import Layer, Module, Sequential
from duet.nn.layers import (AveragePooling2D, AvgPool2D, BatchNorm, BatchNormalization,  # noqa: F401
                            Conv2D, Conv2DTranspose, Dense, DepthwiseConv2D, Dropout, Embedding,
                            Flatten, GlobalAveragePooling2D, GlobalAvgPool2D, LayerNorm,
                            LayerNormalization, MaxPool2D, MaxPooling2D, Reshape)
from duet.nn import initializers  # noqa: F401
