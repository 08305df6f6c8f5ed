"""duet's dtypes as Python objects: duet.float32, ... with their NumPy equivalents."""

from duet import _core


class DType:
    """An element type. Compares equal to itself, its name and its NumPy dtype."""

    __slots__ = ("_enum", "name")

    def __init__(self, enum):
        self._enum = enum
        self.name = _core.dtype_name(enum)

    def __repr__(self):
        return "duet." + self.name

    def __eq__(self, other):
        if isinstance(other, DType):
            return self._enum == other._enum
        if isinstance(other, str):
            return self.name == other
        try:
            import numpy as np
            return np.dtype(other) == self.as_numpy_dtype
        except (TypeError, ImportError):
            return NotImplemented

    def __hash__(self):
        return hash(self._enum)

    @property
    def as_numpy_dtype(self):
        import numpy as np
        return np.dtype(_NUMPY[self.name])

    @property
    def is_floating(self):
        return self.name in ("float32", "float64", "float16", "bfloat16")

    @property
    def is_integer(self):
        return self.name in ("int32", "int64", "uint8")


# The order of core/dtype.h's enum.
_ALL = [DType(i) for i in range(11)]
float32, float64, float16, bfloat16, int32, int64, bool, uint8, string, resource, variant = _ALL
_NUMPY = {"float32": "float32", "float64": "float64", "float16": "float16", "int32": "int32",
          "int64": "int64", "bool": "bool", "uint8": "uint8", "string": "object"}


def as_dtype(value):
    """A DType from a DType, its name, or a NumPy dtype."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        for d in _ALL:
            if d.name == value:
                return d
        raise TypeError(f"duet has no dtype named {value!r}")
    import numpy as np
    name = np.dtype(value).name
    return as_dtype(name)
