"""duet.nn from Python: modules tracked by attribute, Keras' Layer protocol, the C++ layers with
Keras' numbers (Keras itself in a subprocess), eager == traced == Session, checkpoints that
TensorFlow reads and writes, and the errors of misuse."""

import gc
import json
import weakref

import numpy as np
import pytest

import duet
from peers import require, run_python

RNG = np.random.default_rng(0)


class Encoder(duet.nn.Module):
    def __init__(self):
        super().__init__()
        self.dense_1 = duet.nn.Dense(4, activation="relu")
        self.norm = duet.nn.BatchNormalization()

    def __call__(self, x, training=False):
        return self.norm(self.dense_1(x), training=training)


class Model(duet.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.head = duet.nn.Dense(2)

    def __call__(self, x, training=False):
        return self.head(self.encoder(x, training))


def names(variables):
    return [v.name for v in variables]


def test_children_and_variables_are_tracked_by_attribute_in_order():
    model = Model()
    model(np.ones((3, 5), np.float32))
    assert names(model.variables) == [
        "encoder/dense_1/kernel", "encoder/dense_1/bias", "encoder/norm/gamma",
        "encoder/norm/beta", "encoder/norm/moving_mean", "encoder/norm/moving_variance",
        "head/kernel", "head/bias"]
    assert names(model.non_trainable_variables) == ["encoder/norm/moving_mean",
                                                    "encoder/norm/moving_variance"]
    assert len(model.trainable_variables) == 6
    assert [m.path for m in model.submodules] == ["encoder", "encoder/dense_1", "encoder/norm",
                                                  "head"]
    assert model.submodules[0] is model.encoder  # the Python objects themselves
    model.encoder.trainable = False
    assert names(model.trainable_variables) == ["head/kernel", "head/bias"]


def test_lists_dicts_variables_reassignment_and_lifetime():
    class Stack(duet.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = duet.Variable(2.0, name="scale")
            self.blocks = [duet.nn.Dense(3), duet.nn.Dense(3)]
            self.heads = {"a": duet.nn.Dense(1)}
            self.note = "not tracked"

        def __call__(self, x):
            for block in self.blocks:
                x = block(x)
            return self.heads["a"](x) * self.scale

    model = Stack()
    model(np.ones((2, 3), np.float32))
    assert names(model.variables) == ["scale", "blocks/0/kernel", "blocks/0/bias",
                                      "blocks/1/kernel", "blocks/1/bias", "heads/a/kernel",
                                      "heads/a/bias"]
    assert len(model.submodules) == 3  # the containers are not submodules

    model.heads = {"b": duet.nn.Dense(1)}  # replaces the old entry
    del model.scale
    assert names(model.variables) == ["blocks/0/kernel", "blocks/0/bias", "blocks/1/kernel",
                                      "blocks/1/bias"]  # heads/b is not built yet

    # A layer outlives the model that held it and can join another.
    layer = model.blocks[0]
    ref = weakref.ref(model)
    del model
    gc.collect()
    assert ref() is None
    assert layer.parent is None and layer.built
    other = duet.nn.Module()
    other.reused = layer
    assert names(other.variables) == ["blocks/0/kernel", "blocks/0/bias"]
    assert layer.path == "reused"


class Scale(duet.nn.Layer):
    def build(self, input_shape):
        self.w = self.add_weight("w", shape=[input_shape[-1]], initializer="ones")
        self.b = self.add_variable("b", shape=[], initializer=lambda shape, dtype: 0.5)

    def call(self, inputs):
        return inputs * self.w + self.b


def test_a_python_layer_builds_on_its_first_call_eager_traced_and_in_a_graph():
    x = RNG.standard_normal((2, 3)).astype(np.float32)

    eager = Scale()
    assert not eager.built and eager.name == "scale"
    np.testing.assert_allclose(eager(x).numpy(), x + 0.5)
    assert eager.built and names(eager.weights) == ["scale/w", "scale/b"]
    assert eager.w.numpy().tolist() == [1, 1, 1]

    traced = Scale()
    step = duet.function(lambda t: traced(t))
    np.testing.assert_allclose(step(x).numpy(), x + 0.5)
    assert traced.built and len(traced.variables) == 2

    layer = Scale()
    g = duet.Graph()
    with g.as_default():
        p = duet.placeholder(duet.float32, [None, 3], name="x")
        y = layer(p)
    assert any(op.name.startswith("scale/") for op in g.get_operations())
    with duet.Session(g) as sess:
        np.testing.assert_allclose(sess.run(y, feed_dict={p: x}), x + 0.5)


def test_sequential_trains_and_its_traced_step_equals_the_eager_one():
    x = RNG.standard_normal((8, 4)).astype(np.float32)
    labels = np.arange(8) % 3

    def train(traced):
        duet.set_random_seed(7)
        model = duet.nn.Sequential([duet.nn.Dense(16, activation=duet.nn.relu), Scale(),
                                    duet.nn.Dropout(0.0), duet.nn.Dense(3)])
        opt = duet.optimizers.Adam(learning_rate=0.05)
        loss_fn = duet.losses.SparseCategoricalCrossentropy(from_logits=True)

        def step(x, y):
            with duet.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        step = duet.function(step) if traced else step
        losses = [float(step(x, labels)) for _ in range(5)]
        return model, losses

    model, eager = train(False)
    _, traced = train(True)
    np.testing.assert_allclose(traced, eager, rtol=1e-5)
    assert eager[-1] < eager[0]
    assert [m.name for m in model.layers] == ["dense", "scale", "dropout", "dense_1"]
    assert names(model.variables)[:2] == ["sequential/dense/kernel", "sequential/dense/bias"]


KERAS_LAYERS = {
    "dense": ("keras.layers.Dense(4, activation='tanh')", (3, 5)),
    "conv": ("keras.layers.Conv2D(3, (3, 2), strides=(2, 1), padding='same', "
             "activation='relu')", (2, 7, 6, 4)),
    "depthwise": ("keras.layers.DepthwiseConv2D(3, depth_multiplier=2)", (2, 6, 6, 3)),
    "transpose": ("keras.layers.Conv2DTranspose(2, 3, strides=2, padding='same')",
                  (2, 4, 4, 3)),
    "maxpool": ("keras.layers.MaxPooling2D(2)", (2, 6, 6, 3)),
    "avgpool": ("keras.layers.AveragePooling2D(3, strides=2, padding='same')", (2, 7, 7, 3)),
    "gap": ("keras.layers.GlobalAveragePooling2D()", (2, 5, 5, 3)),
    "layernorm": ("keras.layers.LayerNormalization()", (3, 6)),
    "batchnorm": ("keras.layers.BatchNormalization(momentum=0.9)", (2, 3, 3, 4)),
    "embedding": ("keras.layers.Embedding(10, 3)", (4, 2)),
    "flatten": ("keras.layers.Flatten()", (2, 3, 4)),
    "reshape": ("keras.layers.Reshape((4, 3))", (2, 12)),
    "simple_rnn": ("keras.layers.SimpleRNN(3, return_sequences=True)", (2, 4, 5)),
    "lstm": ("keras.layers.LSTM(4)", (2, 6, 3)),
    "gru": ("keras.layers.GRU(3, go_backwards=True, return_sequences=True)", (2, 5, 2)),
    "gru_v1": ("keras.layers.GRU(2, reset_after=False)", (3, 4, 2)),
    "bidirectional": ("keras.layers.Bidirectional(keras.layers.LSTM(2, return_sequences=True), "
                      "merge_mode='ave')", (2, 3, 4)),
}

DUET_LAYERS = {
    "dense": lambda: duet.nn.Dense(4, activation="tanh"),
    "conv": lambda: duet.nn.Conv2D(3, (3, 2), strides=(2, 1), padding="same", activation="relu"),
    "depthwise": lambda: duet.nn.DepthwiseConv2D(3, depth_multiplier=2),
    "transpose": lambda: duet.nn.Conv2DTranspose(2, 3, strides=2, padding="same"),
    "maxpool": lambda: duet.nn.MaxPooling2D(2),
    "avgpool": lambda: duet.nn.AveragePooling2D(3, strides=2, padding="same"),
    "gap": lambda: duet.nn.GlobalAveragePooling2D(),
    "layernorm": lambda: duet.nn.LayerNormalization(),
    "batchnorm": lambda: duet.nn.BatchNormalization(momentum=0.9),
    "embedding": lambda: duet.nn.Embedding(10, 3),
    "flatten": lambda: duet.nn.Flatten(),
    "reshape": lambda: duet.nn.Reshape((4, 3)),
    "simple_rnn": lambda: duet.nn.SimpleRNN(3, return_sequences=True),
    "lstm": lambda: duet.nn.LSTM(4),
    "gru": lambda: duet.nn.GRU(3, go_backwards=True, return_sequences=True),
    "gru_v1": lambda: duet.nn.GRU(2, reset_after=False),
    "bidirectional": lambda: duet.nn.Bidirectional(duet.nn.LSTM(2, return_sequences=True),
                                                   merge_mode="ave"),
}


def test_the_cxx_layers_give_kerass_values(tmp_path):
    """Keras builds each layer on a random input and reports its weights, its inference output
    and, for BatchNormalization, the training output and the updated moving statistics; duet's
    layer given the same weights must agree. BatchNormalization is compared on NHWC images,
    where Keras runs the fused op whose Bessel-corrected moving variance duet follows for every
    rank (Note [BatchNorm updates] in nn/normalization.h)."""
    require("tensorflow")
    require("tf_keras")
    out = tmp_path / "keras.json"
    run_python(f"""
        import json, numpy as np, tf_keras as keras
        layers = {KERAS_LAYERS!r}
        rng = np.random.default_rng(1)
        result = {{}}
        for key, (make, shape) in layers.items():
            layer = eval(make)
            x = (rng.integers(0, 10, shape) if key == "embedding"
                 else rng.standard_normal(shape)).astype(np.float32)
            y = layer(x).numpy()
            weights = [w.tolist() for w in layer.get_weights()]
            entry = dict(x=x.tolist(), y=y.tolist(), weights=weights)
            if key == "batchnorm":
                entry["train"] = layer(x, training=True).numpy().tolist()
                entry["after"] = [w.tolist() for w in layer.get_weights()]
            result[key] = entry
        open({str(out)!r}, "w").write(json.dumps(result))
    """)
    expected = json.loads(out.read_text())
    for key, entry in expected.items():
        x = np.array(entry["x"], np.int32 if key == "embedding" else np.float32)
        layer = DUET_LAYERS[key]()
        layer(x)
        layer.set_weights([np.array(w, np.float32) for w in entry["weights"]])
        np.testing.assert_allclose(layer(x).numpy(), entry["y"], rtol=1e-4, atol=1e-5,
                                   err_msg=key)
        if key == "batchnorm":
            np.testing.assert_allclose(layer(x, training=True).numpy(), entry["train"],
                                       rtol=1e-4, atol=1e-5)
            for got, want in zip(layer.get_weights(), entry["after"]):
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _numpy_lstm(x, kernel, recurrent, bias, h, c):
    """Keras' LSTM in NumPy: gates i, f, c, o."""
    sigmoid = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    outputs = []
    for t in range(x.shape[1]):
        i, f, g, o = np.split(x[:, t] @ kernel + h @ recurrent + bias, 4, axis=1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        outputs.append(h)
    return np.stack(outputs, 1), h, c


def test_recurrent_layers_return_state_initial_state_eager_traced_and_gradients():
    x = RNG.standard_normal((3, 6, 4)).astype(np.float32)
    h0 = RNG.standard_normal((3, 5)).astype(np.float32)
    c0 = RNG.standard_normal((3, 5)).astype(np.float32)
    lstm = duet.nn.LSTM(5, return_sequences=True, return_state=True)
    out, h, c = lstm(x, initial_state=[h0, c0])
    kernel, recurrent, bias = lstm.get_weights()
    assert [v.name for v in lstm.variables] == ["lstm/cell/kernel", "lstm/cell/recurrent_kernel",
                                               "lstm/cell/bias"]
    np.testing.assert_allclose(bias[5:10], 1)  # unit_forget_bias
    # The recurrent kernel (5, 20) starts with orthonormal rows (Keras' orthogonal default).
    np.testing.assert_allclose(recurrent @ recurrent.T, np.eye(5), atol=1e-5)
    want = _numpy_lstm(x, kernel, recurrent, bias, h0, c0)
    for got, expected in zip((out, h, c), want):
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-5)

    @duet.function
    def traced(x, h0, c0):
        return lstm(x, initial_state=[h0, c0])

    for got, expected in zip(traced(x, h0, c0), want):
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-5)

    # Gradients of a loss through the loop: eager tape == tape over the traced function.
    gru = duet.nn.Bidirectional(duet.nn.GRU(3, return_sequences=True))

    def loss(x):
        return duet.reduce_sum(duet.square(gru(x)))

    with duet.GradientTape() as tape:
        eager = tape.gradient(loss(x), gru.trainable_variables)

    @duet.function
    def grads(x):
        with duet.GradientTape() as tape:
            value = loss(x)
        return tape.gradient(value, gru.trainable_variables)

    assert len(eager) == 6
    for got, expected in zip(grads(x), eager):
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-4, atol=1e-5)
    with pytest.raises(duet.errors.InvalidArgumentError, match="takes 2 initial state"):
        lstm(x, initial_state=[h0])


def test_a_python_models_checkpoint_is_tensorflows(tmp_path):
    """duet writes, TensorFlow restores into tf.Modules of the same attributes (and into a
    Keras Sequential); TensorFlow writes, duet restores before the layers are built."""
    require("tensorflow")
    require("tf_keras")
    model = Model()
    model(np.ones((2, 5), np.float32))
    path = duet.train.Checkpoint(model=model).save(str(tmp_path / "duet" / "ckpt"))
    seq = duet.nn.Sequential([duet.nn.Dense(3), duet.nn.Flatten(), duet.nn.Dense(2)])
    seq(np.ones((1, 4), np.float32))
    seq_path = duet.train.Checkpoint(model=seq).save(str(tmp_path / "seq" / "ckpt"))
    out = run_python(f"""
        import numpy as np, tensorflow as tf
        def module(**variables):
            m = tf.Module()
            for k, v in variables.items():
                setattr(m, k, v)
            return m
        def dense(i, o):
            return module(kernel=tf.Variable(tf.zeros([i, o])), bias=tf.Variable(tf.zeros([o])))
        norm = module(gamma=tf.Variable(tf.zeros([4])), beta=tf.Variable(tf.zeros([4])),
                      moving_mean=tf.Variable(tf.zeros([4])),
                      moving_variance=tf.Variable(tf.zeros([4])))
        model = module(encoder=module(dense_1=dense(5, 4), norm=norm), head=dense(4, 2))
        tf.train.Checkpoint(model=model).restore({path!r}).assert_consumed()
        print(model.head.kernel.numpy().tolist())
        print(model.encoder.norm.moving_variance.numpy().tolist())

        model.head.bias.assign([3., 4.])
        tf.train.Checkpoint(model=model).save({str(tmp_path / "tf" / "ckpt")!r})

        import tf_keras
        seq = tf_keras.Sequential([tf_keras.layers.Dense(3), tf_keras.layers.Flatten(),
                                   tf_keras.layers.Dense(2)])
        seq(np.ones((1, 4), np.float32))
        tf.train.Checkpoint(model=seq).restore({seq_path!r}).assert_consumed()
        print(seq.layers[2].kernel.numpy().tolist())
    """)
    head, moving_variance, seq_kernel = (json.loads(line) for line in out.splitlines()[-3:])
    np.testing.assert_array_equal(head, model.head.kernel.numpy())
    np.testing.assert_array_equal(moving_variance, model.encoder.norm.moving_variance.numpy())
    np.testing.assert_array_equal(seq_kernel, seq.layers[2].kernel.numpy())

    fresh = Model()
    status = duet.train.Checkpoint(model=fresh).restore(
        duet.train.latest_checkpoint(str(tmp_path / "tf")))
    fresh(np.ones((2, 5), np.float32))  # the deferred restore finishes as the layers build
    status.assert_consumed()
    np.testing.assert_array_equal(fresh.head.bias.numpy(), [3., 4.])
    np.testing.assert_array_equal(fresh.encoder.dense_1.kernel.numpy(),
                                  model.encoder.dense_1.kernel.numpy())


def test_initializers_and_activations():
    duet.set_random_seed(3)
    a = duet.nn.initializers.GlorotUniform()([200, 100])
    limit = np.sqrt(6 / 300)
    assert a.shape == (200, 100) and float(duet.reduce_max(duet.abs(a))) <= limit
    assert abs(float(duet.reduce_mean(a))) < 0.01
    np.testing.assert_array_equal(duet.nn.initializers.Constant(2)([2]).numpy(), [2, 2])
    layer = duet.nn.Dense(2, kernel_initializer=duet.nn.initializers.Ones(),
                          bias_initializer=lambda shape, dtype: np.full(shape, 0.5),
                          activation=lambda t: t * 10)
    np.testing.assert_allclose(layer(np.ones((1, 3), np.float32)).numpy(), [[35., 35.]])
    swish = duet.nn.Dense(1, kernel_initializer="ones", activation="silu")
    np.testing.assert_allclose(swish([[1.0]]).numpy(), [[1 / (1 + np.exp(-1))]], rtol=1e-6)


def test_misuse_is_a_clear_error():
    layer = duet.nn.Dense(3)
    layer(np.ones((2, 4), np.float32))
    with pytest.raises(duet.errors.InvalidArgumentError,
                       match=r"layer 'dense' was built for inputs of shape \(None, 4\), got shape "
                             r"\(2, 5\).*test_nn.py"):
        layer(np.ones((2, 5), np.float32))
    with pytest.raises(duet.errors.InvalidArgumentError, match="expects a rank-4 input"):
        duet.nn.Conv2D(2, 3)(np.ones((2, 3), np.float32))
    with pytest.raises(duet.errors.InvalidArgumentError, match="unknown activation 'relu7'"):
        duet.nn.Dense(2, activation="relu7")
    with pytest.raises(duet.errors.InvalidArgumentError, match="unknown initializer"):
        duet.nn.Dense(2, kernel_initializer="glorot")
    with pytest.raises(duet.errors.InvalidArgumentError, match="'channels_first'"):
        duet.nn.Conv2D(2, 3, data_format="channels_middle")
    with pytest.raises(duet.errors.InvalidArgumentError, match=r"has 2 variables, got 1"):
        layer.set_weights([np.ones((4, 3))])

    class Forgot(duet.nn.Module):
        def __init__(self):
            self.d = duet.nn.Dense(1)
    with pytest.raises(RuntimeError, match=r"super\(\).__init__\(\)"):
        Forgot()

    class Twice(duet.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = layer
            self.b = layer
    with pytest.raises(duet.errors.InvalidArgumentError, match="already belongs to"):
        Twice()


CHANNELS_FIRST_VS_TORCH = """
    import numpy as np
    import torch
    import torch.nn.functional as F
    import duet

    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 7, 6)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)  # HWIO, duet's and Keras' layout
    b = rng.standard_normal(4).astype(np.float32)
    xt, wt, bt = torch.from_numpy(x), torch.from_numpy(w).permute(3, 2, 0, 1), torch.from_numpy(b)

    def close(mine, theirs, tol=2e-5):
        mine, theirs = np.asarray(mine), theirs.detach().numpy()
        assert mine.shape == theirs.shape, (mine.shape, theirs.shape)
        assert np.allclose(mine, theirs, atol=tol), np.abs(mine - theirs).max()

    # The ops, with NCHW-ordered windows and strides (PyTorch is channels-first natively).
    close(duet.nn.conv2d(x, w, [2, 1], "VALID", data_format="NCHW", dilations=[1, 2]),
          F.conv2d(xt, wt, stride=(2, 1), dilation=(1, 2)))
    close(duet.nn.max_pool2d(x, 2, 2, "VALID", data_format="NCHW"), F.max_pool2d(xt, 2, 2))
    close(duet.nn.avg_pool2d(x, [3, 2], [1, 2], "VALID", data_format="NCHW"),
          F.avg_pool2d(xt, (3, 2), (1, 2)))
    close(duet.nn.bias_add(x, b[:3], data_format="NCHW"), xt + bt[:3, None, None])

    # Keras' channels-first layers, eagerly and traced, training (batch statistics).
    conv = duet.nn.Conv2D(4, 3, data_format="channels_first")
    bn = duet.nn.BatchNormalization(axis=1)
    pool = duet.nn.MaxPool2D(2, data_format="channels_first")
    gap = duet.nn.GlobalAveragePooling2D(data_format="channels_first")
    conv(x)
    conv.set_weights([w, b])
    net = lambda t: gap(pool(duet.nn.relu(bn(conv(t), training=True))))
    y = F.conv2d(xt, wt, bt)
    y = F.batch_norm(y, None, None, training=True, eps=1e-3)
    want = F.max_pool2d(F.relu(y), 2).mean(dim=(2, 3))
    close(net(x), want, 1e-4)
    close(duet.function(net)(x), want, 1e-4)
    # Two training calls (eager, traced), momentum 0.99: 0.99 * 0.01 m + 0.01 m.
    close(bn.moving_mean.numpy(), 0.0199 * F.conv2d(xt, wt, bt).mean(dim=(0, 2, 3)), 1e-5)
    print("ok")
"""


def test_channels_first_ops_and_layers_match_pytorch():
    require("torch")
    assert run_python(CHANNELS_FIRST_VS_TORCH).strip().endswith("ok")
