#!/usr/bin/env python3
"""Plots the per-epoch accuracy (and loss) fit's TensorBoard callback wrote, from the event files,
for one or more runs: a small PNG for the docs.

    ~/.venvs/duet/bin/python tools/plot_training.py OUT.png NAME=LOGDIR [NAME=LOGDIR ...]

e.g. tools/plot_training.py docs/images/fashion_mnist.png \\
         MLP=/tmp/duet_fashion_mnist/mlp/logs CNN=/tmp/duet_fashion_mnist/cnn/logs

Each LOGDIR holds train/ and validation/ (Keras' layout); the tags are epoch_accuracy and
epoch_loss at step = epoch. Reads them with TensorBoard's own EventAccumulator, so the plot also
shows that TensorBoard reads what duet wrote.
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402


def scalars(logdir, tag):
    events = EventAccumulator(logdir)
    events.Reload()
    if tag not in events.Tags()["scalars"]:
        sys.exit(f"{logdir} has no scalar {tag!r}: {events.Tags()['scalars']}")
    points = events.Scalars(tag)
    return [p.step + 1 for p in points], [p.value for p in points]


def main():
    if len(sys.argv) < 3 or any("=" not in a for a in sys.argv[2:]):
        sys.exit(__doc__)
    out, runs = sys.argv[1], [a.split("=", 1) for a in sys.argv[2:]]
    fig, (acc, loss) = plt.subplots(1, 2, figsize=(9, 3.4))
    for i, (name, logdir) in enumerate(runs):
        color = f"C{i}"
        for split, style in (("train", "--"), ("validation", "-")):
            label = f"{name} {'test' if split == 'validation' else split}"
            acc.plot(*scalars(f"{logdir}/{split}", "epoch_accuracy"), style, color=color,
                     marker="o", label=label)
            loss.plot(*scalars(f"{logdir}/{split}", "epoch_loss"), style, color=color,
                      marker="o", label=label)
    acc.set(xlabel="epoch", ylabel="accuracy", title="Fashion-MNIST accuracy")
    loss.set(xlabel="epoch", ylabel="cross-entropy", title="loss")
    for ax in (acc, loss):
        ax.grid(alpha=0.3)
        ax.xaxis.get_major_locator().set_params(integer=True)
    acc.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
