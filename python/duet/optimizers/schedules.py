"""Learning-rate schedules (Keras' names and arguments), computed from the optimizer's step
count as ops, so that one trace of a training step serves every step."""

from duet import _core

ExponentialDecay = _core.ExponentialDecay
PiecewiseConstantDecay = _core.PiecewiseConstantDecay
CosineDecay = _core.CosineDecay

__all__ = ["ExponentialDecay", "PiecewiseConstantDecay", "CosineDecay"]
