"""duet.optimizers: Keras' optimizers, with Keras' names and arguments, over duet's C++ ones.

    opt = duet.optimizers.Adam(learning_rate=1e-3, clipnorm=1.0)
    with duet.GradientTape() as tape:
        loss = loss_fn(model(x), y)
    grads = tape.gradient(loss, variables)
    opt.apply_gradients(zip(grads, variables))      # also opt.minimize(lambda: loss, variables)

The updates are TensorFlow's fused resource ops, so an optimizer works eagerly, inside
duet.function (one trace serves every step) and in a graph. Slots are made on a variable's first
update ("<variable>/m", ...); a None gradient skips its variable with one warning."""

from duet._core import SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop  # noqa: F401
from duet.optimizers import schedules

RMSProp = RMSprop  # the C++ spelling

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "RMSProp", "Adagrad", "schedules"]
