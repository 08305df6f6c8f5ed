"""TensorFlow serves the Fashion-MNIST CNN duet exported (examples/fashion_mnist). Exits 1 on a
mismatch.

    python check_fashion_mnist_in_tf.py DIR

DIR/export is the SavedModel, DIR/export_check/images.npy test images and logits.npy the logits
duet's model gave them. The serving signature takes any batch size: it is checked on all the
images and on one.
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def main():
    out = sys.argv[1]
    images = np.load(os.path.join(out, "export_check", "images.npy"))
    expected = np.load(os.path.join(out, "export_check", "logits.npy"))
    serve = tf.saved_model.load(os.path.join(out, "export")).signatures["serving_default"]
    got = serve(images=tf.constant(images))["logits"].numpy()
    print(f"{len(images)} images: max |TF - duet| = {np.abs(got - expected).max():.3g}")
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    assert (got.argmax(1) == expected.argmax(1)).all(), "a predicted class differs"
    one = serve(images=tf.constant(images[:1]))["logits"].numpy()
    np.testing.assert_allclose(one, expected[:1], rtol=1e-4, atol=1e-4)
    print("OK: TensorFlow serves duet's Fashion-MNIST CNN with the same predictions")


if __name__ == "__main__":
    main()
