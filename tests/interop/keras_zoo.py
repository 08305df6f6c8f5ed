"""The Keras zoo: how much of what TensorFlow users freeze duet runs. Writes docs/tf_coverage.md.

    bazel build //tools:duet
    ~/.venvs/duet/bin/python tests/interop/keras_zoo.py bazel-bin/tools/duet   # or DUET_BIN=...

For every layer class in `keras.layers` (aliases counted once) it builds a small model around
one instance with random weights (BatchNormalization with non-trivial moving mean and variance),
freezes it as TensorFlow 2 writes inference graphs (convert_variables_to_constants_v2,
lower_control_flow=False: If/While with a function library), runs the frozen GraphDef in
TensorFlow (tf.compat.v1.Session) and through `duet run`, and compares the outputs. Then the
same for a few whole keras.applications models (weights=None, small inputs) and a transformer
block. Layers that have no frozen inference graph of their own are listed with the reason.

Pass rule (float outputs): |duet - tf| <= 1e-5 * max(1, |tf|) elementwise; integer and bool
outputs must be equal.

The doc also gets the share of TensorFlow's op registry duet registers and the OpDef comparison
of tests/interop/compare_op_defs.py. Not part of `bazel test` (it needs TensorFlow and takes a few
minutes); CONTRIBUTING.md, "Testing rules", says when to rerun it.
"""
import collections
import datetime
import os
import subprocess
import sys
import tempfile
import time
import traceback

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402
from tensorflow.python.framework import convert_to_constants  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_op_defs  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "tf_coverage.md")
RTOL = 1e-5
BATCH = 2
L = keras.layers


def In(shape, kind="normal"):
    """An input of shape (batch,) + shape. kind: normal (float32 N(0, 1)), image (float32 in
    [0, 1]), image255 (float32 in [0, 255]), ids (int32 in [0, 6)), ids64 (int64 in [0, 6))."""
    return (tuple(shape), kind)


IMAGE = In((8, 8, 3), "image")
VEC = In((6,))
SEQ = In((5, 3))
QV = [In((3, 8)), In((5, 8))]

# Layer class name -> (a function making the layer, its inputs). A name missing here and in
# SKIPPED is reported as having no recipe yet.
RECIPES = {
    "Activation": (lambda: L.Activation("tanh"), [VEC]),
    "ActivityRegularization": (lambda: L.ActivityRegularization(l1=0.1), [VEC]),
    "AdaptiveAveragePooling1D": (lambda: L.AdaptiveAveragePooling1D(2), [In((8, 3))]),
    "AdaptiveAveragePooling2D": (lambda: L.AdaptiveAveragePooling2D((2, 2)), [In((8, 8, 3))]),
    "AdaptiveAveragePooling3D": (lambda: L.AdaptiveAveragePooling3D((2, 2, 2)), [In((4, 4, 4, 2))]),
    "AdaptiveMaxPooling1D": (lambda: L.AdaptiveMaxPooling1D(2), [In((8, 3))]),
    "AdaptiveMaxPooling2D": (lambda: L.AdaptiveMaxPooling2D((2, 2)), [In((8, 8, 3))]),
    "AdaptiveMaxPooling3D": (lambda: L.AdaptiveMaxPooling3D((2, 2, 2)), [In((4, 4, 4, 2))]),
    "Add": (lambda: L.Add(), [VEC, VEC]),
    "AdditiveAttention": (lambda: L.AdditiveAttention(), [In((3, 4)), In((5, 4))]),
    "AlphaDropout": (lambda: L.AlphaDropout(0.2), [VEC]),
    "Attention": (lambda: L.Attention(), [In((3, 4)), In((5, 4))]),
    "AugMix": (lambda: L.AugMix(value_range=(0, 1)), [IMAGE]),
    "AutoContrast": (lambda: L.AutoContrast(value_range=(0, 1)), [IMAGE]),
    "Average": (lambda: L.Average(), [VEC, VEC]),
    "AveragePooling1D": (lambda: L.AveragePooling1D(2), [In((8, 3))]),
    "AveragePooling2D": (lambda: L.AveragePooling2D(2), [In((8, 8, 3))]),
    "AveragePooling3D": (lambda: L.AveragePooling3D(2), [In((4, 4, 4, 2))]),
    "BatchNormalization": (lambda: L.BatchNormalization(), [In((4, 4, 3))]),
    "Bidirectional": (lambda: L.Bidirectional(L.LSTM(4, return_sequences=True)), [SEQ]),
    "CategoryEncoding": (lambda: L.CategoryEncoding(6, output_mode="multi_hot"), [In((3,), "ids")]),
    "CenterCrop": (lambda: L.CenterCrop(4, 4), [IMAGE]),
    "Concatenate": (lambda: L.Concatenate(), [VEC, In((3,))]),
    "ContrastLimitedAdaptiveHistogramEqualization":
        (lambda: L.ContrastLimitedAdaptiveHistogramEqualization(value_range=(0, 255)),
         [In((8, 8, 3), "image255")]),
    "Conv1D": (lambda: L.Conv1D(4, 3), [In((8, 3))]),
    "Conv1DTranspose": (lambda: L.Conv1DTranspose(4, 3, strides=2), [In((8, 3))]),
    "Conv2D": (lambda: L.Conv2D(4, 3, padding="same"), [In((8, 8, 3))]),
    "Conv2DTranspose": (lambda: L.Conv2DTranspose(4, 3, strides=2, padding="same"),
                        [In((8, 8, 3))]),
    "Conv3D": (lambda: L.Conv3D(4, 3), [In((5, 5, 5, 2))]),
    "Conv3DTranspose": (lambda: L.Conv3DTranspose(4, 3, strides=2), [In((3, 3, 3, 2))]),
    "ConvLSTM1D": (lambda: L.ConvLSTM1D(4, 3), [In((3, 8, 2))]),
    "ConvLSTM2D": (lambda: L.ConvLSTM2D(4, 3), [In((3, 6, 6, 2))]),
    "ConvLSTM3D": (lambda: L.ConvLSTM3D(2, 3), [In((2, 4, 4, 4, 1))]),
    "Cropping1D": (lambda: L.Cropping1D(1), [In((6, 3))]),
    "Cropping2D": (lambda: L.Cropping2D(1), [In((6, 6, 3))]),
    "Cropping3D": (lambda: L.Cropping3D(1), [In((5, 5, 5, 2))]),
    "CutMix": (lambda: L.CutMix(), [IMAGE]),
    "Dense": (lambda: L.Dense(5), [VEC]),
    "DepthwiseConv1D": (lambda: L.DepthwiseConv1D(3), [In((8, 3))]),
    "DepthwiseConv2D": (lambda: L.DepthwiseConv2D(3, depth_multiplier=2), [In((8, 8, 3))]),
    "Discretization": (lambda: L.Discretization(bin_boundaries=[-1.0, 0.0, 1.0]), [VEC]),
    "Dot": (lambda: L.Dot(axes=1), [In((4,)), In((4,))]),
    "Dropout": (lambda: L.Dropout(0.5), [VEC]),
    "ELU": (lambda: L.ELU(), [VEC]),
    "EinsumDense": (lambda: L.EinsumDense("ab,bc->ac", output_shape=5, bias_axes="c"), [VEC]),
    "Embedding": (lambda: L.Embedding(6, 4), [In((5,), "ids")]),
    "Equalization": (lambda: L.Equalization(value_range=(0, 255)), [In((8, 8, 3), "image255")]),
    "Flatten": (lambda: L.Flatten(), [In((3, 4))]),
    "GRU": (lambda: L.GRU(4), [SEQ]),
    "GRUCell": (lambda: L.RNN(L.GRUCell(4)), [SEQ]),
    "GaussianDropout": (lambda: L.GaussianDropout(0.3), [VEC]),
    "GaussianNoise": (lambda: L.GaussianNoise(0.3), [VEC]),
    "GlobalAveragePooling1D": (lambda: L.GlobalAveragePooling1D(), [In((8, 3))]),
    "GlobalAveragePooling2D": (lambda: L.GlobalAveragePooling2D(), [In((8, 8, 3))]),
    "GlobalAveragePooling3D": (lambda: L.GlobalAveragePooling3D(), [In((4, 4, 4, 2))]),
    "GlobalMaxPooling1D": (lambda: L.GlobalMaxPooling1D(), [In((8, 3))]),
    "GlobalMaxPooling2D": (lambda: L.GlobalMaxPooling2D(), [In((8, 8, 3))]),
    "GlobalMaxPooling3D": (lambda: L.GlobalMaxPooling3D(), [In((4, 4, 4, 2))]),
    "GroupNormalization": (lambda: L.GroupNormalization(groups=2), [In((4, 4, 4))]),
    "GroupQueryAttention": (lambda: L.GroupQueryAttention(head_dim=4, num_query_heads=4,
                                                          num_key_value_heads=2), QV),
    "HashedCrossing": (lambda: L.HashedCrossing(num_bins=5), [In((1,), "ids64"),
                                                              In((1,), "ids64")]),
    "Hashing": (lambda: L.Hashing(num_bins=5), [In((4,), "ids64")]),
    "Identity": (lambda: L.Identity(), [VEC]),
    "IntegerLookup": (lambda: L.IntegerLookup(vocabulary=[1, 2, 3, 4]), [In((4,), "ids64")]),
    "LSTM": (lambda: L.LSTM(4), [SEQ]),
    "LSTMCell": (lambda: L.RNN(L.LSTMCell(4)), [SEQ]),
    "LayerNormalization": (lambda: L.LayerNormalization(), [In((4, 6))]),
    "LeakyReLU": (lambda: L.LeakyReLU(0.2), [VEC]),
    "Masking": (lambda: L.Masking(0.0), [SEQ]),
    "MaxPooling1D": (lambda: L.MaxPooling1D(2), [In((8, 3))]),
    "MaxPooling2D": (lambda: L.MaxPooling2D(2), [In((8, 8, 3))]),
    "MaxPooling3D": (lambda: L.MaxPooling3D(2), [In((4, 4, 4, 2))]),
    "Maximum": (lambda: L.Maximum(), [VEC, VEC]),
    "MelSpectrogram": (lambda: L.MelSpectrogram(fft_length=64, sequence_stride=16,
                                                sequence_length=32, sampling_rate=8000,
                                                num_mel_bins=8, max_freq=4000), [In((256,))]),
    "Minimum": (lambda: L.Minimum(), [VEC, VEC]),
    "MixUp": (lambda: L.MixUp(), [IMAGE]),
    "MultiHeadAttention": (lambda: L.MultiHeadAttention(num_heads=2, key_dim=4), QV),
    "Multiply": (lambda: L.Multiply(), [VEC, VEC]),
    "Normalization": (lambda: L.Normalization(mean=[0.5] * 6, variance=[2.0] * 6), [VEC]),
    "PReLU": (lambda: L.PReLU(), [VEC]),
    "Permute": (lambda: L.Permute((2, 1)), [In((3, 4))]),
    "RMSNormalization": (lambda: L.RMSNormalization(), [In((4, 6))]),
    "RNN": (lambda: L.RNN(L.SimpleRNNCell(4), return_sequences=True), [SEQ]),
    "RandAugment": (lambda: L.RandAugment(value_range=(0, 1)), [IMAGE]),
    "RandomBrightness": (lambda: L.RandomBrightness(0.2, value_range=(0, 1)), [IMAGE]),
    "RandomColorDegeneration": (lambda: L.RandomColorDegeneration(0.2), [IMAGE]),
    "RandomColorJitter": (lambda: L.RandomColorJitter(value_range=(0, 1), brightness_factor=0.2),
                          [IMAGE]),
    "RandomContrast": (lambda: L.RandomContrast(0.2), [IMAGE]),
    "RandomCrop": (lambda: L.RandomCrop(4, 4), [IMAGE]),
    "RandomElasticTransform": (lambda: L.RandomElasticTransform(value_range=(0, 1)), [IMAGE]),
    "RandomErasing": (lambda: L.RandomErasing(value_range=(0, 1)), [IMAGE]),
    "RandomFlip": (lambda: L.RandomFlip(), [IMAGE]),
    "RandomGaussianBlur": (lambda: L.RandomGaussianBlur(value_range=(0, 1)), [IMAGE]),
    "RandomGrayscale": (lambda: L.RandomGrayscale(), [IMAGE]),
    "RandomHue": (lambda: L.RandomHue(0.2, value_range=(0, 1)), [IMAGE]),
    "RandomInvert": (lambda: L.RandomInvert(value_range=(0, 1)), [IMAGE]),
    "RandomPerspective": (lambda: L.RandomPerspective(), [IMAGE]),
    "RandomPosterization": (lambda: L.RandomPosterization(factor=(1, 4), value_range=(0, 255)),
                            [In((8, 8, 3), "image255")]),
    "RandomRotation": (lambda: L.RandomRotation(0.1), [IMAGE]),
    "RandomSaturation": (lambda: L.RandomSaturation(0.2), [IMAGE]),
    "RandomSharpness": (lambda: L.RandomSharpness(0.2, value_range=(0, 1)), [IMAGE]),
    "RandomShear": (lambda: L.RandomShear(0.1, 0.1), [IMAGE]),
    "RandomTranslation": (lambda: L.RandomTranslation(0.1, 0.1), [IMAGE]),
    "RandomZoom": (lambda: L.RandomZoom(0.1), [IMAGE]),
    "ReLU": (lambda: L.ReLU(max_value=1.0), [VEC]),
    "RepeatVector": (lambda: L.RepeatVector(3), [In((4,))]),
    "Rescaling": (lambda: L.Rescaling(1 / 255.0, offset=0.5), [IMAGE]),
    "Reshape": (lambda: L.Reshape((4, 3)), [In((12,))]),
    "Resizing": (lambda: L.Resizing(4, 6), [IMAGE]),
    "ReversibleEmbedding": (lambda: L.ReversibleEmbedding(6, 4), [In((5,), "ids")]),
    "STFTSpectrogram": (lambda: L.STFTSpectrogram(frame_length=32, frame_step=16, fft_length=32),
                        [In((256, 1))]),
    "SeparableConv1D": (lambda: L.SeparableConv1D(4, 3), [In((8, 3))]),
    "SeparableConv2D": (lambda: L.SeparableConv2D(4, 3), [In((8, 8, 3))]),
    "SimpleRNN": (lambda: L.SimpleRNN(4), [SEQ]),
    "SimpleRNNCell": (lambda: L.RNN(L.SimpleRNNCell(4)), [SEQ]),
    "Softmax": (lambda: L.Softmax(), [VEC]),
    "Solarization": (lambda: L.Solarization(addition_factor=0.1, value_range=(0, 1)), [IMAGE]),
    "SpatialDropout1D": (lambda: L.SpatialDropout1D(0.3), [In((8, 3))]),
    "SpatialDropout2D": (lambda: L.SpatialDropout2D(0.3), [In((8, 8, 3))]),
    "SpatialDropout3D": (lambda: L.SpatialDropout3D(0.3), [In((4, 4, 4, 2))]),
    "SpectralNormalization": (lambda: L.SpectralNormalization(L.Dense(4)), [VEC]),
    "StackedRNNCells": (lambda: L.RNN(L.StackedRNNCells([L.LSTMCell(4), L.GRUCell(3)])), [SEQ]),
    "Subtract": (lambda: L.Subtract(), [VEC, VEC]),
    "TimeDistributed": (lambda: L.TimeDistributed(L.Dense(3)), [In((4, 5))]),
    "UnitNormalization": (lambda: L.UnitNormalization(), [VEC]),
    "UpSampling1D": (lambda: L.UpSampling1D(2), [In((4, 3))]),
    "UpSampling2D": (lambda: L.UpSampling2D(2, interpolation="bilinear"), [In((4, 4, 3))]),
    "UpSampling3D": (lambda: L.UpSampling3D(2), [In((2, 2, 2, 2))]),
    "ZeroPadding1D": (lambda: L.ZeroPadding1D(1), [In((4, 3))]),
    "ZeroPadding2D": (lambda: L.ZeroPadding2D(1), [In((4, 4, 3))]),
    "ZeroPadding3D": (lambda: L.ZeroPadding3D(1), [In((2, 2, 2, 2))]),
}

# Layers called with their inputs as separate arguments (query, value), not as one list.
POSITIONAL = {"MultiHeadAttention", "GroupQueryAttention"}

# Why duet lacks an op the zoo found missing (the coverage table's "why" column).
WHY_MISSING = {
    "AsString": "string tensors: duet has no string dtype",
    "StringToHashBucketFast": "string tensors: duet has no string dtype",
    "SparseCross": "crosses string features into a sparse tensor: no string dtype",
    "SparseToDense": "needed only with SparseCross here",
    "RFFT": "complex tensors: duet has no complex dtype",
    "Real": "complex tensors: duet has no complex dtype",
    "Imag": "complex tensors: duet has no complex dtype",
    "BroadcastArgs": "not yet (MelSpectrogram also needs the complex RFFT)",
    "Bucketize": "not yet: its boundaries are a list(float) attr, which OpDefBuilder lacks",
}

SKIPPED = {
    "InputLayer": "input only: every model has one (its Placeholder)",
    "InputSpec": "not a layer (a shape/dtype spec)",
    "Layer": "abstract base class",
    "Wrapper": "abstract base class (Bidirectional, TimeDistributed, SpectralNormalization "
               "are covered)",
    "Lambda": "wraps arbitrary Python: covered by the layers and ops it calls",
    "FlaxLayer": "wraps a JAX/Flax module (needs the JAX backend)",
    "JaxLayer": "wraps a JAX function (needs the JAX backend)",
    "TorchModuleWrapper": "wraps a PyTorch module (needs the torch backend)",
    "TFSMLayer": "loads a SavedModel: not a layer with a graph of its own",
    "Pipeline": "a sequence of preprocessing layers: covered by those layers",
    "MaxNumBoundingBoxes": "works on bounding-box dicts, not tensors",
    "StringLookup": "string inputs: duet run reads numeric .npy feeds",
    "TextVectorization": "string inputs: duet run reads numeric .npy feeds",
}


def make_input(spec, rng):
    shape, kind = spec
    full = (BATCH,) + shape
    if kind == "normal":
        return rng.normal(size=full).astype(np.float32)
    if kind == "image":
        return rng.uniform(size=full).astype(np.float32)
    if kind == "image255":
        return np.round(rng.uniform(0, 255, size=full)).astype(np.float32)
    if kind == "ids":
        return rng.integers(0, 6, size=full).astype(np.int32)
    if kind == "ids64":
        return rng.integers(0, 6, size=full).astype(np.int64)
    raise ValueError(kind)


def randomize_weights(model, rng):
    """Makes every float variable's value non-trivial. Kernels keep their random initial values
    (scaled for depth: redrawing them would blow up deep models); what starts constant (biases,
    BatchNormalization's beta and moving mean, PReLU's alpha) gets small random values; scales
    (gamma) and variances (moving variance) random positive ones, so inference differs from the
    identity the initializers give."""
    for v in model.weights:
        if not v.dtype.startswith("float"):
            continue
        shape = tuple(v.shape)
        name = v.path.lower()
        if "variance" in name:
            value = rng.uniform(0.5, 1.5, size=shape)
        elif "gamma" in name or name.endswith("scale"):
            value = rng.uniform(0.8, 1.2, size=shape)
        elif np.ptp(np.asarray(v.numpy())) == 0:
            value = rng.normal(0, 0.1, size=shape)
        else:
            continue
        v.assign(value.astype(v.dtype))


def freeze(model, inputs):
    """The frozen inference GraphDef of `model` and its input and output tensor names."""
    specs = [tf.TensorSpec((None,) + x.shape[1:], x.dtype) for x in inputs]
    if len(inputs) == 1:
        fn = tf.function(lambda x: model(x, training=False))
    else:
        fn = tf.function(lambda *xs: model(list(xs), training=False))
    concrete = fn.get_concrete_function(*specs)
    frozen = convert_to_constants.convert_variables_to_constants_v2(concrete,
                                                                    lower_control_flow=False)
    return (frozen.graph.as_graph_def(), [t.name for t in frozen.inputs],
            [t.name for t in frozen.outputs])


def ops_of(graph_def):
    ops = collections.Counter(n.op for n in graph_def.node)
    for f in graph_def.library.function:
        ops.update(n.op for n in f.node_def)
    return ops


def run_tf(graph_def, input_names, output_names, inputs):
    with tf.Graph().as_default() as g:
        tf.compat.v1.import_graph_def(graph_def, name="")
        with tf.compat.v1.Session(graph=g) as sess:
            return sess.run(output_names, dict(zip(input_names, inputs)))


def run_duet(duet_bin, graph_def, input_names, output_names, inputs, workdir):
    """(outputs, None) or (None, duet's error)."""
    model = os.path.join(workdir, "model.pb")
    with open(model, "wb") as f:
        f.write(graph_def.SerializeToString())
    cmd = [duet_bin, "run", model]
    for i, (name, x) in enumerate(zip(input_names, inputs)):
        path = os.path.join(workdir, f"in{i}.npy")
        np.save(path, x)
        cmd += ["--input", f"{name}={path}"]
    outs = [os.path.join(workdir, f"out{i}.npy") for i in range(len(output_names))]
    for name, path in zip(output_names, outs):
        cmd += ["--output", name, "--out", path]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None, "duet run timed out"
    if r.returncode != 0:
        return None, (r.stderr.strip() or f"exit {r.returncode}").replace("duet run: ", "", 1)
    return [np.load(p) for p in outs], None


def compare(duet_out, tf_out):
    """(max abs diff, passes) over all outputs, by the rule in this file's header."""
    worst, ok = 0.0, True
    for d, r in zip(duet_out, tf_out):
        r = np.asarray(r)
        if d.shape != r.shape:
            return float("inf"), False
        if r.dtype.kind in "fc":
            diff = np.abs(d.astype(np.float64) - r.astype(np.float64))
            if diff.size:
                worst = max(worst, float(np.nanmax(diff)) if not np.isnan(diff).all() else 0.0)
            nan_ok = np.array_equal(np.isnan(d), np.isnan(r))
            ok = ok and nan_ok and bool(np.all(diff[~np.isnan(r)] <=
                                               RTOL * np.maximum(1.0, np.abs(r[~np.isnan(r)]))))
        else:
            worst = max(worst, float(np.max(np.abs(d.astype(np.int64) - r.astype(np.int64))))
                        if r.size else 0.0)
            ok = ok and np.array_equal(d, r)
    return worst, ok


Result = collections.namedtuple("Result", "name ops imported status diff missing error seconds")


def check(name, build_model, input_specs, duet_bin, duet_ops, rng, workdir):
    """Builds, freezes and runs one model in TensorFlow and duet."""
    start = time.time()
    inputs = [make_input(s, rng) for s in input_specs]
    model = build_model(inputs)
    randomize_weights(model, rng)
    graph_def, input_names, output_names = freeze(model, inputs)
    expected = run_tf(graph_def, input_names, output_names, inputs)
    ops = ops_of(graph_def)
    missing = sorted(op for op in ops if op not in duet_ops)
    if missing:
        return Result(name, ops, False, "missing ops", None, missing, None, time.time() - start)
    got, error = run_duet(duet_bin, graph_def, input_names, output_names, inputs, workdir)
    if error is not None:
        imported = "the graph uses" not in error and not error.startswith(workdir)
        return Result(name, ops, imported, "error", None, [], error, time.time() - start)
    diff, ok = compare(got, expected)
    return Result(name, ops, True, "pass" if ok else "mismatch", diff, [], None,
                  time.time() - start)


class LayerModel:
    """One layer as a model: called with the model's inputs (one tensor, a list, or positional
    arguments). A functional keras.Model around the layer would do, but some layers
    (Equalization) cannot be traced into one."""

    def __init__(self, layer, positional, inputs):
        self.layer, self.positional = layer, positional
        self(inputs if len(inputs) > 1 else inputs[0], training=False)  # builds the weights

    @property
    def weights(self):
        return self.layer.weights

    def __call__(self, x, training):
        if self.positional:
            return self.layer(*x, training=training)
        return self.layer(x, training=training)


def layer_model(make_layer, positional):
    return lambda inputs: LayerModel(make_layer(), positional, inputs)


def transformer_block(inputs):
    x = keras.Input(inputs[0].shape[1:])
    h = L.LayerNormalization(epsilon=1e-6)(x)
    h = L.MultiHeadAttention(num_heads=2, key_dim=8)(h, h)
    x1 = L.Add()([x, h])
    h = L.LayerNormalization(epsilon=1e-6)(x1)
    h = L.Dense(32, activation="gelu")(h)
    h = L.Dense(16)(h)
    y = L.Add()([x1, h])
    y = L.GlobalAveragePooling1D()(y)
    return keras.Model(x, L.Dense(4)(y))


def application(constructor, size):
    def build(inputs):
        # Logits, not probabilities: a saturated softmax would hide differences.
        return constructor(weights=None, input_shape=(size, size, 3), classes=10,
                           classifier_activation=None)
    return build


MODELS = [
    ("MobileNetV2 (32x32)", application(keras.applications.MobileNetV2, 32), [In((32, 32, 3), "image")]),
    ("ResNet50 (32x32)", application(keras.applications.ResNet50, 32), [In((32, 32, 3), "image")]),
    ("Transformer block (MultiHeadAttention + LayerNormalization)", transformer_block,
     [In((6, 16))]),
    ("EfficientNetB0 (32x32)", application(keras.applications.EfficientNetB0, 32),
     [In((32, 32, 3), "image255")]),
    ("DenseNet121 (32x32)", application(keras.applications.DenseNet121, 32),
     [In((32, 32, 3), "image")]),
]


def why_not_frozen(error):
    """Why TensorFlow could not build, freeze or run a layer's model, in a sentence."""
    message = str(error)
    if "AssignVariableOp" in message:
        return ("its inference graph still advances a random seed variable (AssignVariableOp), "
                "which convert_variables_to_constants_v2 cannot freeze")
    if "table_handle" in message:
        return ("its lookup table is a resource, which convert_variables_to_constants_v2 does not "
                "freeze (the frozen graph has a table-handle placeholder)")
    if "scipy" in message:
        return "needs scipy, which the TensorFlow environment lacks"
    return f"TensorFlow could not build, freeze or run it: {type(error).__name__}: {message}"


def layer_classes():
    """{canonical name: [aliases]} for every class keras.layers exports, each class once."""
    by_class = collections.OrderedDict()
    for name in sorted(dir(L)):
        obj = getattr(L, name)
        if isinstance(obj, type):
            by_class.setdefault(obj, []).append(name)
    result = {}
    for cls, names in by_class.items():
        canonical = cls.__name__ if cls.__name__ in names else names[0]
        result[canonical] = [n for n in names if n != canonical]
    return dict(sorted(result.items()))


def duet_op_names(duet_bin):
    out = subprocess.run([duet_bin, "ops"], check=True, capture_output=True, text=True).stdout
    return set(out.split())


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def short(text, n=160):
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[:n - 3] + "..."


def result_row(r):
    ops = ", ".join(f"{op}" + (f" x{c}" if c > 1 else "") for op, c in sorted(r.ops.items()))
    if r.status == "pass":
        status = f"pass ({r.diff:.1e})"
    elif r.status == "mismatch":
        status = f"**mismatch** ({r.diff:.2e})"
    elif r.status == "error":
        status = f"error: {short(r.error)}"
    else:
        status = r.status
    return (f"| {cell(r.name)} | {cell(ops)} | {'yes' if r.imported else 'no'} | {cell(status)} "
            f"| {cell(', '.join(r.missing))} |")


def write_doc(layers, models, skipped, registry, mismatches, elapsed):
    results = layers + models
    lines = []
    add = lines.append
    add("# TensorFlow coverage: Keras layers, whole models, the op registry")
    add("")
    add("Generated by `tests/interop/keras_zoo.py` (do not edit; CONTRIBUTING.md, \"Testing "
        "rules\", says how to regenerate it) on "
        f"{datetime.date.today().isoformat()} with TensorFlow {tf.__version__}, Keras "
        f"{keras.__version__}, in {elapsed:.0f} s.")
    add("")
    add("Each layer is a small model with random weights, frozen as TensorFlow 2 writes inference "
        "graphs (`convert_variables_to_constants_v2`, `lower_control_flow=False`), run by "
        "TensorFlow (`tf.compat.v1.Session`) and by `duet run`. A float output passes when "
        "`|duet - tf| <= 1e-5 * max(1, |tf|)` elementwise (integer outputs: equal). "
        "\"diff\" is the largest absolute difference. Dropout, noise and random augmentation "
        "layers are the identity (or a fixed crop or resize) at inference, so their frozen graphs "
        "are small; they are listed because a user's frozen model contains them.")
    add("")
    add("## Summary")
    add("")
    n_pass = sum(r.status == "pass" for r in layers)
    add(f"- **Layers: {n_pass} of {len(layers)} pass** "
        f"({sum(r.imported for r in layers)} import; "
        f"{sum(r.status == 'missing ops' for r in layers)} use ops duet lacks; "
        f"{sum(r.status == 'mismatch' for r in layers)} mismatch; "
        f"{sum(r.status == 'error' for r in layers)} fail in duet). "
        f"{len(skipped)} layer classes have no test of their own (listed below).")
    add(f"- **Models: {sum(r.status == 'pass' for r in models)} of {len(models)} pass.**")
    add(f"- **Op registry:** duet registers {registry['duet']} ops; "
        f"{registry['shared']} of TensorFlow's {registry['tf']} registered ops "
        f"(**{100 * registry['shared'] / registry['tf']:.1f}%**), "
        f"{registry['raw_shared']} of the {registry['raw']} in `tf.raw_ops` "
        f"(**{100 * registry['raw_shared'] / registry['raw']:.1f}%**).")
    add("")
    add("## Missing ops, by how many layers and models they block")
    add("")
    blocks = collections.defaultdict(list)
    for r in results:
        for op in r.missing:
            blocks[op].append(r.name)
    alone = {op: sum(1 for r in results if r.missing == [op]) for op in blocks}
    add("\"alone\": the layers and models it is the only missing op of (adding it makes them "
        "import).")
    add("")
    add("| op | blocks | alone | layers and models | why duet lacks it |")
    add("|---|---|---|---|---|")
    for op, names in sorted(blocks.items(), key=lambda kv: (-len(kv[1]), -alone[kv[0]], kv[0])):
        add(f"| {op} | {len(names)} | {alone[op]} | {cell(short(', '.join(names), 300))} | "
            f"{WHY_MISSING.get(op, 'not yet')} |")
    add("")
    header = ["| layer | ops used | imported? | status (diff) | missing ops |",
              "|---|---|---|---|---|"]
    add("## Layers")
    add("")
    lines.extend(header)
    lines.extend(result_row(r) for r in layers)
    add("")
    add("## Models")
    add("")
    add("keras.applications models with `weights=None` (random weights) at 32x32 inputs, and a "
        "transformer block (LayerNormalization, MultiHeadAttention, Dense with GELU, residual "
        "Adds).")
    add("")
    lines.extend(header)
    lines.extend(result_row(r) for r in models)
    add("")
    add("## Layer classes without a test of their own")
    add("")
    add("| class | why |")
    add("|---|---|")
    for name, why in skipped:
        add(f"| {name} | {cell(short(why, 200))} |")
    add("")
    add("## Op registry coverage")
    add("")
    add(f"TensorFlow {tf.__version__} registers {registry['tf']} ops (the OpDef registry, "
        f"internal `_` ops included); `tf.raw_ops` exposes {registry['raw']}. duet registers "
        f"{registry['duet']}, of which {registry['shared']} are TensorFlow's. duet-only ops: "
        f"{', '.join(registry['duet_only']) or 'none'}.")
    add("")
    add("## OpDef comparison")
    add("")
    add("`tests/interop/compare_op_defs.py`: for each of the shared ops, duet's OpDef "
        "(`duet ops --opdefs`) against TensorFlow's: argument names and kinds, attr names, kinds "
        "and defaults, and no dtype TensorFlow does not allow. duet allowing fewer dtypes is not "
        "a mismatch.")
    add("")
    if mismatches:
        add(f"{len(mismatches)} of {registry['shared']} shared ops differ:")
        add("")
        add("| op | difference |")
        add("|---|---|")
        for op, problems in mismatches.items():
            for p in problems:
                add(f"| {op} | {cell(p)} |")
    else:
        add(f"All {registry['shared']} shared ops match.")
    add("")
    with open(DOC, "w") as f:
        f.write("\n".join(lines))


def main():
    duet_bin = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("DUET_BIN")
    if not duet_bin:
        sys.exit("usage: keras_zoo.py PATH/TO/duet  (bazel build //tools:duet; or set DUET_BIN)")
    duet_bin = os.path.abspath(duet_bin)
    only = set(sys.argv[2:])  # names to run, for debugging; the doc is written only for a full run
    start = time.time()
    duet_ops = duet_op_names(duet_bin)
    rng = np.random.default_rng(0)
    keras.utils.set_random_seed(0)
    layers, models, skipped = [], [], []
    with tempfile.TemporaryDirectory() as workdir:
        for name, aliases in layer_classes().items():
            label = name + (f" (= {', '.join(aliases)})" if aliases else "")
            if only and name not in only:
                continue
            if name in SKIPPED:
                skipped.append((label, SKIPPED[name]))
                continue
            if name not in RECIPES:
                skipped.append((label, "no recipe in keras_zoo.py yet"))
                continue
            make_layer, specs = RECIPES[name]
            try:
                r = check(label, layer_model(make_layer, name in POSITIONAL), specs, duet_bin, duet_ops, rng,
                          workdir)
            except Exception as e:  # noqa: BLE001: a layer TensorFlow cannot freeze is reported
                traceback.print_exc(limit=1)
                skipped.append((label, why_not_frozen(e)))
                print(f"{label}: skipped ({type(e).__name__})", flush=True)
                continue
            layers.append(r)
            print(f"{label}: {r.status} {r.diff if r.diff is not None else ''} "
                  f"{' '.join(r.missing)} {short(r.error or '', 200)} ({r.seconds:.1f} s)",
                  flush=True)
        for name, build, specs in MODELS:
            if only and name.split()[0] not in only:
                continue
            keras.backend.clear_session()
            r = check(name, build, specs, duet_bin, duet_ops, rng, workdir)
            models.append(r)
            print(f"{name}: {r.status} {r.diff if r.diff is not None else ''} "
                  f"{' '.join(r.missing)} {short(r.error or '', 200)} ({r.seconds:.1f} s)",
                  flush=True)
    tf_ops = compare_op_defs.tf_op_defs()
    duet_defs = compare_op_defs.duet_op_defs(duet_bin)
    raw = compare_op_defs.tf_raw_op_names()
    registry = {
        "tf": len(tf_ops), "raw": len(raw), "duet": len(duet_ops),
        "shared": len(duet_ops & set(tf_ops)), "raw_shared": len(duet_ops & raw),
        "duet_only": sorted(duet_ops - set(tf_ops)),
    }
    mismatches = compare_op_defs.compare(duet_defs, tf_ops)
    elapsed = time.time() - start
    n_pass = sum(r.status == "pass" for r in layers)
    print(f"layers: {n_pass} of {len(layers)} pass; models: "
          f"{sum(r.status == 'pass' for r in models)} of {len(models)}; registry: "
          f"{registry['shared']} of {registry['tf']}; {len(mismatches)} OpDef mismatches; "
          f"{elapsed:.0f} s")
    if only:
        print("(a partial run: docs/tf_coverage.md not written)")
        return
    write_doc(layers, models, skipped, registry, mismatches, elapsed)
    print(f"wrote {DOC}")


if __name__ == "__main__":
    main()
