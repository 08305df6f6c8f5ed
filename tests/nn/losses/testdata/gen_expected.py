#!/usr/bin/env python3
"""Writes tests/nn/losses/testdata/losses_expected.txt, the reference values of
tests/nn/losses/*_test.cc, one line "key : values" per case, from Keras 3's loss functions
(keras.losses.*) on TensorFlow 2.21.

Each case gives the per-sample losses ("<case> none"), their sum ("<case> sum") and their mean
("<case> mean", Keras' sum_over_batch_size), in float32 and float64. Inputs follow the tests'
ModPattern(n, mul, mod, shift, div)[i] = ((i * mul) % mod - shift) / div. Run with TensorFlow
installed:
    ~/.venvs/duet/bin/python tests/nn/losses/testdata/gen_expected.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import keras  # noqa: E402

LINES = []


def pattern(shape, mul, mod, shift, div):
    n = int(np.prod(shape))
    return np.array([((i * mul) % mod - shift) / div for i in range(n)]).reshape(shape)


def show(key, t):
    values = " ".join(f"{v:.17g}" for v in np.asarray(t, dtype=np.float64).ravel())
    LINES.append(f"{key} : {values}")


def case(name, fn, labels, predictions):
    """The per-sample losses and their reductions in both float dtypes."""
    for dtype in ("float32", "float64"):
        y = labels if labels.dtype.kind in "iu" else labels.astype(dtype)
        per_sample = np.asarray(fn(y, predictions.astype(dtype)), dtype=np.float64)
        show(f"{name} {dtype} none", per_sample)
        show(f"{name} {dtype} sum", per_sample.sum())
        show(f"{name} {dtype} mean", per_sample.mean())


LOGITS = pattern((3, 4), 7, 13, 6, 3)       # rows of mixed-sign logits
PROBS = pattern((3, 4), 5, 11, 0, 10)       # in [0, 1], 0 and 1 included (clipped), rows not normalized
SPARSE = np.array([1, 3, 0], dtype=np.int32)
ONEHOT = np.eye(4)[SPARSE]
SOFT = pattern((3, 4), 3, 5, 0, 4)          # soft labels, not normalized
BINARY = pattern((3, 4), 3, 4, 0, 3)        # labels in [0, 1]
TARGETS = pattern((3, 4), 5, 11, 5, 2)      # regression labels
LOGITS3 = pattern((2, 2, 3), 7, 13, 6, 3)
SPARSE3 = np.array([[0, 2], [1, 1]], dtype=np.int64)


def crossentropy_cases():
    L = keras.losses
    for from_logits, x in ((True, LOGITS), (False, PROBS)):
        tag = "logits" if from_logits else "probs"
        case(f"sparse {tag}", lambda y, p: L.sparse_categorical_crossentropy(
            y, p, from_logits=from_logits), SPARSE, x)
        case(f"sparse {tag} column", lambda y, p: L.sparse_categorical_crossentropy(
            y, p, from_logits=from_logits), SPARSE.reshape(3, 1), x)
        case(f"sparse {tag} 3d", lambda y, p: L.sparse_categorical_crossentropy(
            y, p, from_logits=from_logits), SPARSE3, LOGITS3 if from_logits else
            np.abs(LOGITS3) / 2)
        for smoothing in (0.0, 0.2):
            for labels_tag, labels in (("onehot", ONEHOT), ("soft", SOFT)):
                case(f"categorical {tag} {labels_tag} smoothing {smoothing}",
                     lambda y, p: L.categorical_crossentropy(
                         y, p, from_logits=from_logits, label_smoothing=smoothing), labels, x)
            case(f"binary {tag} smoothing {smoothing}", lambda y, p: L.binary_crossentropy(
                y, p, from_logits=from_logits, label_smoothing=smoothing), BINARY, x)


def regression_cases():
    L = keras.losses
    case("mse", L.mean_squared_error, TARGETS, LOGITS)
    case("mae", L.mean_absolute_error, TARGETS, LOGITS)
    case("huber delta 1", lambda y, p: L.huber(y, p, delta=1.0), TARGETS, LOGITS)
    case("huber delta 0.5", lambda y, p: L.huber(y, p, delta=0.5), TARGETS, LOGITS)
    # Labels [3] against predictions [3, 1]: Keras expands the labels, one loss per row.
    case("mse column", L.mean_squared_error, TARGETS[:, 0], LOGITS[:, :1])


crossentropy_cases()
regression_cases()
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "losses_expected.txt")
with open(out, "w") as f:
    f.write("\n".join(LINES) + "\n")
print(f"wrote {len(LINES)} lines to {out}")
