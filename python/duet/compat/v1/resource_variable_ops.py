"""tensorflow.python.ops.resource_variable_ops, for `ResourceVariable`: duet's variables are
resource variables."""

from duet.compat.v1 import Variable as ResourceVariable  # noqa: F401
