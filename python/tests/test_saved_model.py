"""duet.saved_model from Python: a model's traced function saved as a SavedModel that duet and
TensorFlow load with the same outputs, and TensorFlow's SavedModels loaded into duet."""

import json

import numpy as np
import pytest

import duet
from peers import require, run_python

X = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)


class MLP(duet.nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = duet.nn.Dense(8, activation="relu")
        self.out = duet.nn.Dense(3)

    def __call__(self, x):
        return self.out(self.hidden(x))


def test_saved_and_loaded_by_duet_and_tensorflow(tmp_path):
    model = MLP()
    expected = model(X).numpy()
    serve = duet.function(lambda images: model(images)).get_concrete_function(
        duet.TensorSpec([None, 5], duet.float32, name="images"))
    duet.saved_model.save(model, tmp_path / "export", signatures=serve)

    loaded = duet.saved_model.load(tmp_path / "export")
    assert list(loaded.signatures) == ["serving_default"]
    signature = loaded.signatures["serving_default"]
    assert signature.input_names == ["images"]
    np.testing.assert_allclose(signature(images=X)["output_0"].numpy(), expected, rtol=1e-6)
    with pytest.raises(duet.errors.OpError, match="serving_default"):
        signature(pixels=X)

    require("tensorflow")
    out = run_python(f"""
        import json, numpy as np, tensorflow as tf
        loaded = tf.saved_model.load({str(tmp_path / "export")!r})
        f = loaded.signatures["serving_default"]
        x = np.array({X.tolist()!r}, np.float32)
        print(json.dumps(f(images=tf.constant(x))["output_0"].numpy().tolist()))

        class Scale(tf.Module):
            def __init__(self):
                self.w = tf.Variable([2., 3.])
            @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
            def __call__(self, x):
                return {{"scaled": x * self.w}}
        module = Scale()
        tf.saved_model.save(module, {str(tmp_path / "tf_export")!r},
                            signatures=module.__call__.get_concrete_function())
    """)
    np.testing.assert_allclose(json.loads(out.splitlines()[-1]), expected, rtol=1e-5)
    from_tf = duet.saved_model.load(tmp_path / "tf_export").signatures["serving_default"]
    np.testing.assert_allclose(from_tf(x=[[1., 1.]])["scaled"].numpy(), [[2., 3.]])


def test_bad_arguments():
    with pytest.raises(TypeError, match="ConcreteFunction"):
        duet.saved_model.save(MLP(), "/tmp/never")
    with pytest.raises(duet.errors.OpError):
        duet.saved_model.load("/tmp/no/such/saved_model")
