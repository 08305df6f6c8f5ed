"""duet.nn: models and layers (Module, Layer, Sequential, the C++ layers under Keras' names),
initializers, and the neural-network ops as tf.nn names them (duet.nn.relu, ...). Module's
docstring shows a model; docs/python.md, "Models", is the guide."""

from duet.nn._module import Layer, Module, Sequential
from duet.nn.layers import (GRU, LSTM, AveragePooling2D, AvgPool2D, BatchNorm,  # noqa: F401
                            BatchNormalization, Bidirectional, Conv2D, Conv2DTranspose, Dense,
                            DepthwiseConv2D, Dropout, Embedding, Flatten, GlobalAveragePooling2D,
                            GlobalAvgPool2D, LayerNorm, LayerNormalization, MaxPool2D,
                            MaxPooling2D, Reshape, SimpleRNN)
from duet.nn import initializers  # noqa: F401
