#!/usr/bin/env python3
"""Writes tests/nn/metrics/testdata/metrics_expected.txt, the reference values of
tests/nn/metrics/*_test.cc, from Keras 3's metrics (keras.metrics.*) on TensorFlow 2.21.

Each case feeds one metric object a few batches and records result() after each update, one line
"<case> : r1 r2 ..."; a case may reset the state midway (reset_state, then more batches). Inputs
are written out here and in the tests, or follow ModPattern(n, mul, mod, shift, div)[i] =
((i * mul) % mod - shift) / div. Run with TensorFlow installed:
    ~/.venvs/duet/bin/python tests/nn/metrics/testdata/gen_expected.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import keras  # noqa: E402

LINES = []
RESET = "reset"


def pattern(shape, mul, mod, shift, div):
    n = int(np.prod(shape))
    return np.array([((i * mul) % mod - shift) / div for i in range(n)]).reshape(shape)


def show(key, values):
    LINES.append(f"{key} : " + " ".join(f"{float(v):.17g}" for v in values))


def run(key, metric, batches):
    """result() after each batch (a tuple of update_state's arguments) or RESET."""
    results = []
    for batch in batches:
        if batch is RESET:
            metric.reset_state()
        else:
            metric.update_state(*batch[:-1], sample_weight=batch[-1])
        results.append(np.asarray(metric.result()))
    show(key, results)


M = keras.metrics
VALUES_2D = np.array([[1.0, 2.0], [3.0, 4.0]])
REDUCTION_BATCHES = [
    (np.float32(0.0), None), (np.float32(5.0), None),          # API.md: m(0.f); m(5.f) -> 2.5
    (np.array([1.0, 3.0, 5.0, 7.0]), np.array([1.0, 1.0, 0.0, 0.0])),
    (VALUES_2D, np.array([[1.0], [0.5]])),                       # a weight per sample, [n, 1]
    (VALUES_2D, np.array([2.0, 1.0])),                           # a weight per sample, [n]
    (VALUES_2D, VALUES_2D / 4),                                  # a weight per value
    (np.array([2.0, 4.0]), np.float32(3.0)),                     # one weight for all
    RESET,
    (np.array([2.0, 4.0]), None),
]
run("mean", M.Mean(), REDUCTION_BATCHES)
run("sum", M.Sum(), REDUCTION_BATCHES)

run("accuracy", M.Accuracy(), [
    (np.array([1, 2, 3, 4]), np.array([0, 2, 3, 4]), None),
    (np.array([[1], [2]]), np.array([[1], [0]]), np.array([0.5, 2.0])),
    (np.array([[1, 2], [3, 4]]), np.array([[1, 0], [0, 0]]), None),
    RESET,
    (np.array([1.0, 2.0]), np.array([1.0, 2.0]), None),
])

LOGITS = pattern((3, 4), 7, 13, 6, 3)
LOGITS_2 = pattern((2, 4), 5, 11, 5, 2)
run("sparse_categorical_accuracy", M.SparseCategoricalAccuracy(), [
    (np.array([1, 3, 0]), LOGITS, None),
    (np.array([[2], [0]]), LOGITS_2, np.array([0.5, 3.0])),
    (np.array([0.0, 1.0, 2.0]), LOGITS, None),                   # float labels
    RESET,
    (np.array([2, 1]), LOGITS_2, None),
])
run("categorical_accuracy", M.CategoricalAccuracy(), [
    (np.eye(4)[[1, 3, 0]], LOGITS, None),
    (np.eye(4)[[2, 0]], LOGITS_2, np.array([0.5, 3.0])),
    RESET,
    (np.eye(4)[[2, 1]], LOGITS_2, None),
])

Y_TRUE = np.array([0.0, 1.0, 1.0, 0.0, 1.0, 0.0])
Y_PRED = np.array([0.1, 0.6, 0.4, 0.7, 0.5, 0.9])
Y_TRUE_2 = np.array([[1.0], [1.0], [0.0]])
Y_PRED_2 = np.array([[0.8], [0.2], [0.55]])
CONFUSION_BATCHES = [
    (Y_TRUE, Y_PRED, None),
    (Y_TRUE_2, Y_PRED_2, np.array([2.0, 0.5, 1.0])),
    RESET,
    (Y_TRUE[:3], Y_PRED[:3], None),
]
for cls, name in ((M.Precision, "precision"), (M.Recall, "recall")):
    run(name, cls(), CONFUSION_BATCHES)
    run(name + " threshold 0.3", cls(thresholds=0.3), CONFUSION_BATCHES)

AUC_TRUE = (pattern((20,), 7, 5, 0, 1) > 1).astype(np.float64)   # 0/1 labels
AUC_PRED = pattern((20,), 13, 23, 0, 22)                           # in [0, 1]
AUC_BATCHES = [
    (AUC_TRUE, AUC_PRED, None),
    (Y_TRUE, Y_PRED, np.array([1.0, 2.0, 0.5, 1.0, 3.0, 1.0])),
    (Y_TRUE_2, Y_PRED_2, None),
    RESET,
    (Y_TRUE, Y_PRED, None),
]
run("auc", M.AUC(), AUC_BATCHES)
run("auc 5 thresholds", M.AUC(num_thresholds=5), AUC_BATCHES)

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "metrics_expected.txt")
with open(out, "w") as f:
    f.write("\n".join(LINES) + "\n")
print(f"wrote {len(LINES)} lines to {out}")
