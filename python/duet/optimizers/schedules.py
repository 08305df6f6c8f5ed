"""Learning-rate schedules (Keras' names and arguments), computed from the optimizer's step
count as ops, so that one trace of a training step serves every step."""

from duet._core import CosineDecay, ExponentialDecay, PiecewiseConstantDecay  # noqa: F401

__all__ = ["ExponentialDecay", "PiecewiseConstantDecay", "CosineDecay"]
