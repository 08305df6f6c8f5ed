"""duet.nn.initializers: what makes a variable's first value, under Keras' names. Each returns
an Initializer, called as init(shape, dtype); layers also take the names ("glorot_uniform") and
any callable (shape, dtype) -> value. Initializers given no seed draw from the global seed
(duet.set_random_seed), as Keras' do from tf.random.set_seed."""

from duet import _core

Initializer = _core.Initializer


def Zeros():  # noqa: N802 (Keras' class names)
    return _core._initializer_zeros()


def Ones():  # noqa: N802
    return _core._initializer_ones()


def Constant(value=0.0):  # noqa: N802
    return _core._initializer_constant(float(value))


def RandomNormal(mean=0.0, stddev=0.05, seed=None):  # noqa: N802
    return _core._initializer_random_normal(mean, stddev, seed)


def TruncatedNormal(mean=0.0, stddev=0.05, seed=None):  # noqa: N802
    return _core._initializer_truncated_normal(mean, stddev, seed)


def RandomUniform(minval=-0.05, maxval=0.05, seed=None):  # noqa: N802
    return _core._initializer_random_uniform(minval, maxval, seed)


def GlorotUniform(seed=None):  # noqa: N802
    return _core._initializer_glorot_uniform(seed)


def GlorotNormal(seed=None):  # noqa: N802
    return _core._initializer_glorot_normal(seed)


def HeNormal(seed=None):  # noqa: N802
    return _core._initializer_he_normal(seed)


def HeUniform(seed=None):  # noqa: N802
    return _core._initializer_he_uniform(seed)


def Orthogonal(gain=1.0, seed=None):  # noqa: N802
    return _core._initializer_orthogonal(gain, seed)


def get(identifier):
    """An Initializer from a name, or `identifier` itself when it is one or a callable."""
    if isinstance(identifier, str):
        return _core._initializer(identifier)
    if isinstance(identifier, Initializer) or callable(identifier):
        return identifier
    raise TypeError(f"initializer: a name or a callable, not a {type(identifier).__name__}")


zeros, ones, constant = Zeros, Ones, Constant
random_normal, truncated_normal, random_uniform = RandomNormal, TruncatedNormal, RandomUniform
orthogonal = Orthogonal
glorot_uniform, glorot_normal, he_normal, he_uniform = (GlorotUniform, GlorotNormal, HeNormal,
                                                        HeUniform)
