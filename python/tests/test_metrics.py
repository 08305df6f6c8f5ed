"""duet.metrics from Python against Keras in the same run (a subprocess that imports both), and
their state inside duet.function."""

import numpy as np
import pytest

import duet
from peers import require, run_python

KERAS = """
    import numpy as np
    import tensorflow as tf
    import duet
    rng = np.random.default_rng(9)
    batches = []
    for _ in range(3):
        logits = rng.normal(size=(6, 4)).astype(np.float32)
        ids = rng.integers(0, 4, size=6)
        binary = (rng.uniform(size=6) > 0.5).astype(np.float32)
        scores = rng.uniform(size=6).astype(np.float32)
        weights = rng.uniform(size=6).astype(np.float32)
        batches.append((logits, ids, binary, scores, weights))
    cases = [("Mean", {}, lambda b: (b[0],)),
             ("Sum", {}, lambda b: (b[3], b[4])),
             ("Accuracy", {}, lambda b: (b[2], np.round(b[3]))),
             ("SparseCategoricalAccuracy", {}, lambda b: (b[1], b[0], b[4])),
             ("CategoricalAccuracy", {}, lambda b: (np.eye(4)[b[1]], b[0])),
             ("Precision", dict(thresholds=0.3), lambda b: (b[2], b[3])),
             ("Recall", {}, lambda b: (b[2], b[3], b[4])),
             ("AUC", dict(num_thresholds=50), lambda b: (b[2], b[3]))]
    for name, kwargs, args in cases:
        ours, theirs = getattr(duet.metrics, name)(**kwargs), getattr(tf.keras.metrics, name)(**kwargs)
        for b in batches:
            ours.update_state(*args(b))
            theirs.update_state(*args(b))
        assert np.allclose(ours.result().numpy(), theirs.result().numpy(), rtol=1e-5, atol=1e-6), (
            name, ours.result().numpy(), theirs.result().numpy())
        ours.reset_state()
        assert float(ours.result()) == 0.0
    print("ok")
"""


def test_every_metric_matches_keras():
    require("tensorflow")
    assert run_python(KERAS).strip() == "ok"


def test_metric_state_persists_across_traced_calls():
    mean = duet.metrics.Mean(name="loss")
    step = duet.function(lambda x: mean(x))
    for value in (1.0, 2.0, 6.0):
        result = step(duet.constant([value]))
    assert float(result) == 3.0 and step.trace_count() == 1
    assert [v.name for v in mean.variables] == ["loss/total", "loss/count"]
    with pytest.raises(duet.errors.InvalidArgumentError, match="SparseCategoricalAccuracy"):
        duet.metrics.SparseCategoricalAccuracy().update_state([[0, 1]], [[0.5, 0.5]])
