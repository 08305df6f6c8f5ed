"""duet.fit from Python: Keras' model.fit numbers (Keras itself in a subprocess), the traced step
equal to a hand-written eager loop, callbacks (Python and C++), checkpoints, and errors."""

import json
import os

import numpy as np
import pytest

import duet
from peers import require, run_python

RNG = np.random.default_rng(0)
X = RNG.standard_normal((24, 5)).astype(np.float32)
Y = (np.arange(24) % 3).astype(np.int32)


class MLP(duet.nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = duet.nn.Dense(8, activation="relu")
        self.out = duet.nn.Dense(3)

    def __call__(self, x, training=False):
        return self.out(self.hidden(x))


def weights_of(model):
    model(X[:1])
    return [np.array(w) for w in model.get_weights()]


def dataset(batch=6):
    return duet.data.Dataset.from_tensor_slices((X, Y)).batch(batch)


def test_fit_equals_a_hand_written_eager_loop():
    loss_fn = duet.losses.SparseCategoricalCrossentropy(from_logits=True)
    start = weights_of(MLP())

    model = MLP()
    model(X[:1])
    model.set_weights(start)
    opt = duet.optimizers.Adam(learning_rate=0.01)
    history = duet.fit(model, loss_fn, opt, dataset(), epochs=3, metrics=["accuracy"],
                       verbose=0)

    manual = MLP()
    manual(X[:1])
    manual.set_weights(start)
    manual_opt = duet.optimizers.Adam(learning_rate=0.01)
    epoch_losses = []
    for _ in range(3):
        losses = []
        for x, y in dataset():
            with duet.GradientTape() as tape:
                loss = loss_fn(y, manual(x, training=True))
            grads = tape.gradient(loss, manual.trainable_variables)
            manual_opt.apply_gradients(zip(grads, manual.trainable_variables))
            losses.append(float(loss))
        epoch_losses.append(np.mean(losses))

    assert history.epoch == [0, 1, 2]
    np.testing.assert_allclose(history.history["loss"], epoch_losses, rtol=1e-5)
    for got, want in zip(model.get_weights(), manual.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert 0 <= history.history["accuracy"][-1] <= 1


def test_fit_gives_keras_fits_weights_and_losses(tmp_path):
    require("tensorflow")
    require("tf_keras")
    start = weights_of(MLP())
    data = tmp_path / "data.npz"
    np.savez(data, x=X, y=Y, *start)
    out = run_python(f"""
        import json, numpy as np, tf_keras as keras
        d = np.load({str(data)!r})
        model = keras.Sequential([keras.layers.Dense(8, activation="relu"),
                                  keras.layers.Dense(3)])
        model(d["x"][:1])
        model.set_weights([d[f"arr_{{i}}"] for i in range(4)])
        model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1, momentum=0.9),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        h = model.fit(d["x"], d["y"], batch_size=6, epochs=2, shuffle=False, verbose=0)
        print(json.dumps(dict(loss=h.history["loss"],
                              weights=[w.tolist() for w in model.get_weights()])))
    """)
    keras = json.loads(out.splitlines()[-1])
    model = MLP()
    model(X[:1])
    model.set_weights(start)
    history = duet.fit(model, duet.losses.SparseCategoricalCrossentropy(from_logits=True),
                       duet.optimizers.SGD(learning_rate=0.1, momentum=0.9), dataset(),
                       epochs=2, verbose=0)
    np.testing.assert_allclose(history.history["loss"], keras["loss"], rtol=1e-5)
    for got, want in zip(model.get_weights(), keras["weights"]):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_callbacks_validation_checkpoints_and_tensorboard(tmp_path, capfd):
    model = MLP()
    opt = duet.optimizers.SGD(learning_rate=0.05)
    events, batches = [], []

    class Recorder(duet.callbacks.Callback):
        def on_train_begin(self, logs=None):
            events.append(("begin", self.params["epochs"]))

        def on_epoch_end(self, epoch, logs=None):
            events.append((epoch, sorted(logs)))
            if epoch == 2:
                self.model.stop_training = True

    manager = duet.train.CheckpointManager(duet.train.Checkpoint(model=model, optimizer=opt),
                                           str(tmp_path / "ckpt"), max_to_keep=2)
    stopper = duet.callbacks.EarlyStopping(monitor="val_loss", patience=100)
    history = duet.fit(
        model, "sparse_categorical_crossentropy", opt,
        dataset().map(lambda x, y: (x, y)), validation=dataset(12), epochs=10,
        metrics=[duet.metrics.SparseCategoricalAccuracy(name="acc")],
        callbacks=[Recorder(), duet.callbacks.ModelCheckpoint(manager), stopper,
                   duet.callbacks.TensorBoard(str(tmp_path / "logs")),
                   duet.callbacks.LambdaCallback(
                       on_train_batch_end=lambda batch, logs: batches.append(batch))],
        verbose=1)
    assert history.epoch == [0, 1, 2]  # the Python callback stopped it after epoch 2
    assert batches == [0, 1, 2, 3] * 3
    assert events[0] == ("begin", 10)
    assert events[1] == (0, ["acc", "loss", "val_acc", "val_loss"])
    assert os.path.basename(manager.latest_checkpoint) == "ckpt-3"
    assert len(manager.checkpoints) == 2
    assert os.listdir(tmp_path / "logs" / "train") and os.listdir(tmp_path / "logs" / "validation")
    printed = capfd.readouterr().out
    assert "Epoch 3/10" in printed and "val_loss" in printed


def test_fit_errors():
    model = MLP()
    opt = duet.optimizers.SGD(learning_rate=0.1)
    singles = duet.data.Dataset.from_tensor_slices(X).batch(4)
    with pytest.raises(duet.errors.InvalidArgumentError, match="fit needs \\(x, y\\) pairs"):
        duet.fit(model, "mse", opt, singles, verbose=0)
    with pytest.raises(ValueError, match="unknown loss 'hinge'"):
        duet.fit(model, "hinge", opt, dataset(), verbose=0)

    class Broken(duet.nn.Module):
        def __call__(self, x):
            raise RuntimeError("forward is broken")
    with pytest.raises(RuntimeError, match="forward is broken"):
        duet.fit(Broken(), "mse", opt, dataset(), verbose=0)
    with pytest.raises(duet.errors.InvalidArgumentError, match="is infinite"):
        duet.fit(model, "mse", opt, dataset().repeat(), verbose=0)


FASHION_MNIST = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"
EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                       "fashion_mnist")


def test_a_checkpoint_of_a_python_model_resumes_in_cxx_and_back(tmp_path):
    """The C++ example's MLP written in Python trains one epoch and checkpoints; the C++ example
    (examples/fashion_mnist.cc) resumes from that checkpoint for a second epoch; Python restores
    the C++ checkpoint, every value matched both ways."""
    if not os.path.exists(FASHION_MNIST) or not os.path.exists(EXAMPLE):
        pytest.skip("needs Debian's dataset-fashion-mnist and the example binary (bazel test)")
    import subprocess

    class Mlp(duet.nn.Module):  # examples/fashion_mnist.cc's Mlp, attribute for member
        def __init__(self):
            super().__init__("mlp")
            self.flatten = duet.nn.Flatten()
            self.hidden1 = duet.nn.Dense(256, activation="relu")
            self.hidden2 = duet.nn.Dense(128, activation="relu")
            self.logits = duet.nn.Dense(10)

        def __call__(self, x, training=False):
            return self.logits(self.hidden2(self.hidden1(self.flatten(x))))

    (images, labels), _ = duet.data.fashion_mnist()
    x = images.numpy()[:640].reshape(-1, 28, 28, 1).astype(np.float32) / 255
    train = duet.data.Dataset.from_tensor_slices((x, labels.numpy()[:640])).batch(64)
    model = Mlp()
    opt = duet.optimizers.Adam(duet.optimizers.schedules.CosineDecay(1e-3, 20))
    manager = duet.train.CheckpointManager(duet.train.Checkpoint(model=model, optimizer=opt),
                                           str(tmp_path / "mlp" / "checkpoints"), max_to_keep=3)
    duet.fit(model, duet.losses.SparseCategoricalCrossentropy(from_logits=True), opt, train,
             callbacks=[duet.callbacks.ModelCheckpoint(manager)], verbose=0)

    result = subprocess.run([EXAMPLE, "--model=mlp", "--resume", "--epochs=2", "--steps=10",
                             f"--out={tmp_path}"], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "after epoch 1" in result.stdout and "never restored" not in result.stderr

    fresh, fresh_opt = Mlp(), duet.optimizers.Adam(1e-3)
    status = duet.train.Checkpoint(model=fresh, optimizer=fresh_opt).restore(
        duet.train.latest_checkpoint(str(tmp_path / "mlp" / "checkpoints")))
    fresh(x[:1])
    fresh_opt.apply_gradients([(duet.zeros_like(v), v) for v in fresh.trainable_variables])
    status.assert_consumed()
    assert not np.array_equal(fresh.hidden1.kernel.numpy(), model.hidden1.kernel.numpy())
    assert int(fresh_opt.iterations.numpy()) == 21  # 10 Python steps, 10 C++ steps, then ours
