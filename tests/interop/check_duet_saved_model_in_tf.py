"""Loads a SavedModel duet wrote (export_duet_saved_model) in TensorFlow. Exits 1 on a mismatch.

    python check_duet_saved_model_in_tf.py DIR

tf.saved_model.load(DIR/model).signatures["serving_default"](x=...) returns duet's outputs
(within 1e-5), the "single" signature does on one example, the variables are variables (restored
from variables/, one VarHandleOp per variable of the model), and saved_model_cli lists the
signatures.
"""
import os
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def main():
    out = sys.argv[1]
    model_dir = os.path.join(out, "model")
    x = np.load(os.path.join(out, "x.npy"))
    expected = np.load(os.path.join(out, "probabilities.npy"))
    loaded = tf.saved_model.load(model_dir)
    assert set(loaded.signatures) == {"serving_default", "single"}, list(loaded.signatures)
    got = loaded.signatures["serving_default"](x=tf.constant(x))["output_0"].numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    single = loaded.signatures["single"](x=tf.constant(x[:1]))["output_0"].numpy()
    np.testing.assert_allclose(single, expected[:1], rtol=1e-5, atol=1e-6)
    # The outputs need the variables' values: VarHandleOps restored from variables/ (unrestored,
    # reading them fails), not Consts.
    num_variables = int(open(os.path.join(out, "num_variables")).read())
    handles = {op.get_attr("shared_name") for op in loaded.graph.get_operations()
               if op.type == "VarHandleOp"}
    assert len(handles) == num_variables, (handles, num_variables)
    print(f"TensorFlow serves duet's outputs ({got.shape}), max diff "
          f"{np.abs(got - expected).max():.2e}; {num_variables} variables restored")

    cli = os.path.join(os.path.dirname(sys.executable), "saved_model_cli")
    shown = subprocess.run([cli, "show", "--dir", model_dir, "--all"], check=True,
                           capture_output=True, text=True).stdout
    for expected_text in ["signature_def['serving_default']", "signature_def['single']",
                          "inputs['x']", "outputs['output_0']", "Method name is: tensorflow/serving/predict"]:
        assert expected_text in shown, f"saved_model_cli show lacks {expected_text!r}:\n{shown}"
    print("saved_model_cli show --all lists both signatures")


if __name__ == "__main__":
    main()
