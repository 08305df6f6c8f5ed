"""duet: eager and traced machine learning, TensorFlow's graphs and formats, from Python.

    import duet
    x = duet.constant([[1., 2.], [3., 4.]])
    y = duet.add(x, 1) * x          # operators, NumPy broadcasting, Python scalars
    y.numpy()

The op functions come from duet's op registry: duet.raw_ops.<Op> for every op under its own name,
TensorFlow's names at duet.* (duet.reduce_sum, duet.matmul) and duet.nn.* (duet.nn.relu).
"""

import os as _os
import sys as _sys

# Note [Loading beside TensorFlow]: TensorFlow loads its libraries with RTLD_GLOBAL, so its own
# copies of libprotobuf and Abseil would serve our references to the system's (two descriptor
# pools registering the same .proto files abort the process). RTLD_DEEPBIND makes the extension
# and its dependencies resolve against their own libraries first, whatever was loaded before.
_flags = _sys.getdlopenflags()
_sys.setdlopenflags(_flags | _os.RTLD_DEEPBIND)
try:
    from duet import _core
finally:
    _sys.setdlopenflags(_flags)
from duet import errors
from duet.dtypes import (DType, as_dtype, bfloat16, bool, float16, float32, float64,  # noqa: A004
                         int32, int64, string, uint8)
from duet._tensor import Tensor, TensorShape, device
from duet._autodiff import (GradientTape, Variable, custom_gradient, gradients_function,
                            value_and_gradients_function)
from duet._control_flow import cond, py_function, while_loop
from duet._function import (ConcreteFunction, Function, TensorSpec, executing_eagerly, function,
                            functions_run_eagerly, run_functions_eagerly)
from duet._graph import (Graph, Operation, Session, freeze_variables, gradients, name_scope,
                         optimize, placeholder, read_graph, write_graph)
from duet._ops import raw_ops, _snake
from duet import _api
from duet import callbacks
from duet import data
from duet import distribute
from duet import losses
from duet import metrics
from duet import nn
from duet import optimizers
from duet import saved_model
from duet import summary
from duet import train
from duet._fit import History, fit
from duet._api import *  # noqa: F401,F403 (the public op functions)

Variable.index_put = _api.index_put

_core._set_package_dir(_os.path.dirname(_os.path.abspath(__file__)))
num_gpus = _core.num_gpus
num_cpu_devices = _core.num_cpu_devices
from_dlpack = _core.from_dlpack
set_random_seed = _core.set_random_seed

# Every public op (not internal: no leading "_", no Duet*) under its snake_case name, unless
# _api.py gives it TensorFlow's signature.
_INTERNAL_PREFIXES = ("_", "Duet", "Resource", "TensorList", "EmptyTensorList", "VarHandle",
                      "ReadVariable", "Assign")


def _public_ops():
    names = {}
    for op, *_ in _core.op_defs():
        if op.startswith(_INTERNAL_PREFIXES):
            continue
        names[_snake(op)] = getattr(raw_ops, op)
    return names


for _name, _fn in _public_ops().items():
    if _name not in globals():
        globals()[_name] = _fn

for _name in _api.NN:
    setattr(nn, _name, getattr(_api, _name, None) or globals()[_name])
del _name, _fn
