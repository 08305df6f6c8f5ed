"""duet.metrics: Keras' streaming metrics over duet's C++ ones (nn/metrics/).

    acc = duet.metrics.SparseCategoricalAccuracy()
    acc.update_state(labels, logits)        # or acc(labels, logits): update, then the result
    float(acc.result()); acc.reset_state()

The state is float32 variables (`variables`), so a metric accumulates eagerly, inside
duet.function and in a graph alike, and checkpoints save it."""

from duet._core import (AUC, Accuracy, CategoricalAccuracy, Mean, Metric,  # noqa: F401
                        Precision, Recall, SparseCategoricalAccuracy, Sum)

__all__ = ["Metric", "Mean", "Sum", "Accuracy", "SparseCategoricalAccuracy",
           "CategoricalAccuracy", "Precision", "Recall", "AUC"]
