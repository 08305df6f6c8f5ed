"""Expected outputs of Keras 3 layers for tests/nn/layers_test.cc.

Inputs and weights come from two integer formulas the C++ test repeats, so both sides start from
the same float32 values:  X(i) = ((i * 7) % 11 - 5) * 0.25,  W(i) = ((i * 5) % 13 - 6) * 0.1.
Run with the TensorFlow venv:  ~/.venvs/duet/bin/python tests/nn/testdata/gen_layer_expected.py
and paste the printed lines into the test.
"""
import os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import keras


def X(shape):
    n = int(np.prod(shape))
    return np.array([((i * 7) % 11 - 5) * 0.25 for i in range(n)], np.float32).reshape(shape)


def W(shape, offset=0):
    n = int(np.prod(shape))
    return np.array([((i * 5 + offset) % 13 - 6) * 0.1 for i in range(n)], np.float32).reshape(shape)


def emit(name, layer, x, training=False):
    y = np.asarray(layer(x, training=training))
    values = ", ".join("%.9g" % v for v in y.flatten())
    print("// %s: shape %s" % (name, list(y.shape)))
    print("{%s}" % values)
    return y


def with_weights(layer, x):
    layer.build(x.shape)
    layer.set_weights([W(w.shape, k) for k, w in enumerate(layer.get_weights())])
    return layer


x2 = X((2, 4))
emit("dense_relu", with_weights(keras.layers.Dense(3, activation="relu"), x2), x2)
x3 = X((2, 2, 4))
emit("dense_3d", with_weights(keras.layers.Dense(3), x3), x3)
img = X((2, 5, 5, 4))
emit("conv_same_s2", with_weights(keras.layers.Conv2D(3, 3, strides=2, padding="same"), img), img)
emit("conv_valid_dilated", with_weights(keras.layers.Conv2D(2, 2, dilation_rate=2), img), img)
emit("conv_groups2", with_weights(keras.layers.Conv2D(4, 3, groups=2, padding="same"), img), img)
emit("conv_groups4", with_weights(keras.layers.Conv2D(8, 3, groups=4), img), img)
emit("depthwise", with_weights(keras.layers.DepthwiseConv2D(3, depth_multiplier=2, padding="same"), img), img)
emit("transpose_same", with_weights(keras.layers.Conv2DTranspose(3, 3, strides=2, padding="same"), img), img)
emit("transpose_valid", with_weights(keras.layers.Conv2DTranspose(2, 2, strides=2), img), img)
emit("max_pool", keras.layers.MaxPooling2D(2), img)
emit("avg_pool_same", keras.layers.AveragePooling2D(3, strides=2, padding="same"), img)
emit("global_avg", keras.layers.GlobalAveragePooling2D(), img)
x5 = X((2, 5))
emit("layer_norm", with_weights(keras.layers.LayerNormalization(), x5), x5)
bn = with_weights(keras.layers.BatchNormalization(), img)
bn.set_weights([W((4,), 1), W((4,), 2), W((4,), 3), np.abs(W((4,), 4)) + 0.5])
emit("batch_norm_inference", bn, img)
emit("batch_norm_training", bn, img, training=True)
print("// batch_norm moving_mean after one training call")
print("{%s}" % ", ".join("%.9g" % v for v in bn.moving_mean.numpy()))
emb = keras.layers.Embedding(6, 3)
emb.build((None,))
emb.set_weights([W((6, 3))])
emit("embedding", emb, np.array([[0, 5, 2], [1, 1, 4]], np.int32))
for name in ["relu", "gelu", "sigmoid", "tanh", "elu", "softplus", "swish", "softmax"]:
    f = keras.activations.get(name)
    print("// activation %s" % name)
    print("{%s}" % ", ".join("%.9g" % v for v in np.asarray(f(x5)).flatten()))
print("// activation gelu approximate")
print("{%s}" % ", ".join("%.9g" % v for v in np.asarray(keras.activations.gelu(x5, approximate=True)).flatten()))
