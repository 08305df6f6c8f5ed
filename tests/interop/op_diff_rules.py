"""What the differential test (op_diff.py) does not compare, and why.

SKIPPED: the ops both registries have that get no cases, each with the reason. Every other shared
op must produce cases (op_cases.py), or op_diff.py fails: a new op TensorFlow has is covered or
listed here.

KNOWN: TensorFlow-side behaviours that are not failures. Each rule names what TensorFlow does, and
either masks the elements it leaves unspecified or explains a whole case:
- flushed subnormals: TensorFlow's CPU kernels run with denormals flushed to zero (FTZ/DAZ) for
  float32, float64 and bfloat16 (computed in float32): subnormal inputs read as 0 and subnormal
  results become 0. duet keeps them. Outputs are compared with subnormals read as 0 on both
  sides; a case whose inputs hold subnormals also runs in duet with them flushed, and if that run
  matches TensorFlow, the difference is the flush; and an elementwise op's elements computed from
  a subnormal operand or intermediate (INTERMEDIATES) are not compared: flushed operands are not
  zeros everywhere (TensorFlow's float64 atan2(-0.0, 1e-310) is -pi/4), and TensorFlow's
  FloorDiv(1, -1.7e308) is -0.0, the floor of its flushed quotient, where duet's is -1 (as
  Python's 1 // -1.7e308).
- ArgMax/ArgMin and MaxPool/MaxPool3D of NaN: what a NaN yields is unspecified (TensorFlow's
  reductions keep whichever their comparison order keeps); only dtype and shape are compared.
- Round of integers: TensorFlow 2.21's CPU kernel returns 0 for every int32 and int64 (duet
  returns the integer, as NumPy); only dtype and shape are compared.
- _FusedMatMul with an empty contraction (a [m, 0] x [0, n] product): TensorFlow returns zeros
  without adding the bias (duet adds it, as MatMul + BiasAdd do); not compared.
- MaxPoolGrad/MaxPool3DGrad of an empty gradient (an empty pooling output): TensorFlow leaves
  its output uninitialized (duet's is zeros); not compared.
- DepthwiseConv2dNativeBackpropInput/Filter with dilations: TensorFlow's CPU kernels ignore the
  dilations (so they fail their own shape check, or silently compute the undilated gradient);
  not compared.
- FusedBatchNormV3's reserve spaces (outputs 3 to 5, UNCOMPARED_OUTPUTS) are TensorFlow's
  workspace for its gradient kernel.
- float -> int casts out of range: converting NaN, an infinity or a value outside the integer
  type is undefined in C++; TensorFlow's x86 kernel yields INT_MIN-like bit patterns, duet
  saturates (NaN -> 0, Note in kernels/cpu/math/cast_value.h). Those elements are not compared.
- float16 and bfloat16 results are compared with the tolerance of their last bit or two (each
  side rounds once from float32; TensorFlow's Eigen half arithmetic sometimes twice).
- cases TensorFlow's CPU kernels do not implement (TF_UNSUPPORTED: no kernel for a dtype the
  OpDef allows, dilations in some convolution backprops and in Conv3D, unequal depthwise strides,
  grouped convolution gradients, Where of a scalar), or that its shape inference rejects though
  its kernels run them (a window a little larger than a known input): TensorFlow rejects them,
  duet runs them; nothing to compare them with, so they are counted apart.

INTENTIONAL: duet's own deliberate differences, which docs/ops.md states (from each op's
TfDifference); a case showing one passes as such, and op_diff.py fails when the op's difference is
missing from docs/ops.md.

Beyond these, a case whose results differ by more than the tolerance is checked against a
reference: exact math for the ops in REFERENCE, else TensorFlow's own run in float64 (float32,
float16 and bfloat16 cases). When duet is at least as close to it as TensorFlow is, element by
element, duet is the more accurate one and the case passes as such (reported). Intentional differences in duet's own semantics are not excused here: they are in
docs/ops.md, "Differences from TensorFlow", and must show up as matches or one of the above.
"""
import math

import numpy as np

import op_cases

SKIPPED = {
    # Resources and variables: no value to compare; checkpoints and training steps are compared
    # with TensorFlow by tests/interop/tf_checkpoint_test.sh and tf_train_step_test.sh.
    **{op: "reads or updates a resource variable (tf_train_step_test compares training steps)"
       for op in ("AssignAddVariableOp", "AssignSubVariableOp", "AssignVariableOp",
                  "ReadVariableOp", "VarHandleOp", "ResourceApplyAdagradV2", "ResourceApplyAdam",
                  "ResourceApplyAdamWithAmsgrad", "ResourceApplyCenteredRMSProp",
                  "ResourceApplyGradientDescent", "ResourceApplyKerasMomentum",
                  "ResourceApplyRMSProp", "ResourceStridedSliceAssign", "StatefulStandardNormalV2",
                  "StatefulUniform")},
    # Functions and control flow: they run bodies, not kernels; tf_import_test and the Keras zoo
    # (LSTM, GRU: While with TensorLists) run such graphs in both.
    **{op: "calls function bodies (control flow; covered by tf_import_test and keras_zoo.py)"
       for op in ("If", "StatelessIf", "While", "StatelessWhile", "PartitionedCall",
                  "StatefulPartitionedCall")},
    # TensorLists: variant values cannot be fetched; keras_zoo.py's recurrent layers use them.
    **{op: "takes or makes a DT_VARIANT TensorList, which cannot be fetched (keras_zoo.py's RNNs "
           "cover them)"
       for op in ("TensorListElementShape", "TensorListFromTensor", "TensorListGetItem",
                  "TensorListLength", "TensorListReserve", "TensorListSetItem",
                  "TensorListStack")},
    **{op: "takes or makes a DT_VARIANT TensorList, which cannot be fetched (the While "
           "gradient's accumulators: control_flow_grads_test and list_ops_test cover them)"
       for op in ("EmptyTensorList", "TensorListPopBack", "TensorListPushBack")},
    # Collectives: they need a group of ranks (TensorFlow's a collective executor);
    # tests/distribute/collective_ops_test.cc and python/tests/test_distribute.py compare them
    # with the ranks' reductions (NumPy's in Python).
    **{op: "a collective among the ranks of a group (collective_ops_test, test_distribute.py)"
       for op in ("CollectiveBcastRecvV2", "CollectiveBcastSendV2", "CollectiveGatherV2",
                  "CollectiveReduceV2")},
    "NoOp": "has no outputs",
    "Const": "every case's constant operands are Const nodes",
    "Placeholder": "every case's fed operands are Placeholder nodes",
}

# Ops whose outputs are sums of many products: their tolerance is relative to the largest output
# magnitude, not to each element (a small sum of large terms keeps the terms' rounding).
ACCUMULATING = {
    "AddN", "AvgPool", "AvgPool3D", "AvgPool3DGrad", "AvgPoolGrad", "BatchMatMulV2", "Conv2D",
    "Conv2DBackpropFilter", "Conv2DBackpropInput", "Conv3D", "Conv3DBackpropFilterV2",
    "Conv3DBackpropInputV2", "Cumprod", "Cumsum", "DenseBincount", "DepthwiseConv2dNative",
    "DepthwiseConv2dNativeBackpropFilter", "DepthwiseConv2dNativeBackpropInput", "Einsum",
    "FusedBatchNormV3", "L2Loss", "LogSoftmax", "MatMul", "MaxPool3DGrad", "MaxPoolGrad", "Mean",
    "Prod", "ResizeBilinear", "ResizeBilinearGrad", "ResizeNearestNeighborGrad", "ScatterNd",
    "Softmax", "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits", "Sum",
    "TensorScatterAdd", "UnsortedSegmentSum", "_FusedConv2D", "_FusedDepthwiseConv2dNative",
    "_FusedMatMul",
}

# duet's deliberate differences from TensorFlow that a case can show, by op: what duet does, and
# a predicate (case, TensorFlow's result, duet's result) recognizing it. Each op here must state
# the difference in its declaration (OpDefBuilder::TfDifference), which docs/ops.md lists under
# "Differences from TensorFlow"; op_diff.py checks that it does.
def _floor_of_float32_quotients(case, tf_result, duet_result):
    """FloorDiv in float16/bfloat16: duet floors the float32 quotient and rounds once, TensorFlow
    floors the quotient rounded to 16 bits (-2.5 // 1e-3 is -2500 in duet, -2498 there; a
    quotient too small for the 16-bit type is -1 in duet, -0.0 there)."""
    inputs = op_cases.flat_inputs(case)
    if isinstance(tf_result, str) or isinstance(duet_result, str) or \
            inputs[0].dtype.name not in ("float16", "bfloat16"):
        return False
    half = inputs[0].dtype.as_numpy_dtype
    tf_out, duet_out = (np.asarray(r[0], dtype=np.float64) for r in (tf_result, duet_result))
    x, y = (np.asarray(o.value).astype(np.float32) for o in inputs)
    with np.errstate(all="ignore"):
        q = np.broadcast_to(x / y, tf_out.shape)
        duet_way = np.floor(q).astype(half).astype(np.float64)
        tf_way = np.floor(q.astype(half).astype(np.float32)).astype(np.float64)
    same = (tf_out == duet_out) | (np.isnan(tf_out) & np.isnan(duet_out))
    return bool(np.all(same | ((duet_out == duet_way) & (tf_out == tf_way))))


INTENTIONAL = {
    "FloorDiv": ("floors 16-bit quotients in float32", _floor_of_float32_quotients),
    "PlaceholderWithDefault": (
        "checks its default's shape against the shape attr at run time too",
        lambda case, tf_result, duet_result: isinstance(duet_result, str) and
        "is not compatible with shape" in duet_result and not isinstance(tf_result, str)),
}


def intentional(case, tf_result, duet_result):
    entry = INTENTIONAL.get(case.op)
    return entry is not None and entry[1](case, tf_result, duet_result)


# Cases TensorFlow's CPU kernels do not implement (see the module doc): (ops, a fragment of
# TensorFlow's message). TensorFlow rejects them; duet runs them; nothing to compare.
TF_UNSUPPORTED = [
    (None, "No OpKernel was registered"),  # a dtype the OpDef allows without a CPU kernel
    ("Where", "No WhereOp available"),  # float16
    ("Where", "Unhandled input dimensions"),  # a scalar
    (None, "not supported on CPU"),  # grouped convolution gradients
    (None, "do not yet support dilation"),
    (None, "does not yet support dilation"),
    (None, "currently only supports dilated rates of 1"),  # Conv3D
    (None, "does not support dilations"),  # DepthwiseConv2dNative
    (None, "only supports equal length strides"),  # depthwise convolutions
    # The depthwise backprops ignore dilations, so their own shape check fails.
    ("DepthwiseConv2dNativeBackprop", "doesn't match computed"),
    # Conv2DBackpropFilter reads a grouped filter's sizes as ungrouped.
    ("Conv2DBackpropFilter", "filter_size does not have enough elements"),
    ("_FusedDepthwiseConv2dNative", "Missing 0-th output"),  # no CPU kernel for some fusions
    ("_FusedConv2D", "does not support grouped convolutions"),
    # TensorFlow's shape inference rejects a window larger than a known input, which its kernels
    # (and duet, whose shape functions follow them) take as an empty output.
    (None, "Negative dimension size caused by subtracting"),
]


def tf_unsupported(case, tf_error):
    return any((ops is None or case.op.startswith(ops)) and fragment in tf_error
               for ops, fragment in TF_UNSUPPORTED)


# Outputs that are TensorFlow's private workspace: FusedBatchNormV3's reserve spaces hold what its
# own gradient kernel wants (in inference, uninitialized memory; reserve_space_3 is empty in
# TensorFlow and holds duet's inverse standard deviation).
UNCOMPARED_OUTPUTS = {"FusedBatchNormV3": (3, 4, 5)}

# Ops whose every output element is computed from the operands' elements at its position (after
# broadcasting); subnormal_elements() masks those TensorFlow computes from flushed subnormals.
ELEMENTWISE = {
    "Abs", "AddV2", "Atan2", "Ceil", "ClipByValue", "Cos", "Div", "Elu", "Equal", "Erf", "Erfc",
    "Erfinv", "Exp", "Floor", "FloorDiv", "FloorMod", "Greater", "GreaterEqual", "IsFinite",
    "IsInf", "IsNan", "LeakyRelu", "Less", "LessEqual", "Log", "Log1p", "Maximum", "Minimum",
    "Mul", "Neg", "NotEqual", "Pow", "RealDiv", "Relu", "Relu6", "ReluGrad", "Rint", "Round",
    "Rsqrt", "SelectV2", "Selu", "Sigmoid", "Sign", "Sin", "Softplus", "Softsign", "Sqrt",
    "Square", "SquaredDifference", "Sub", "Tanh", "TruncateDiv",
}

# The intermediate results of ops that TensorFlow flushes when subnormal before going on with
# them (FloorDiv's floor of a subnormal quotient is then 0 where it is -1; FloorMod's sign fix
# skips a subnormal remainder).
INTERMEDIATES = {
    "FloorDiv": np.divide, "TruncateDiv": np.divide, "RealDiv": np.divide, "Div": np.divide,
    "FloorMod": np.fmod,
}

# Ops whose outputs are compared on a scale of at least 1 (probabilities and log-probabilities:
# oneDNN's float32 exp and log are good to a few 1e-6 absolute).
UNIT_SCALE = {"Softmax", "LogSoftmax"}

# Relative tolerances by dtype name.
RTOL = {"float64": 1e-9, "float32": 2e-5, "float16": 2e-3, "bfloat16": 1.6e-2}

# The smallest normal value of the dtypes whose subnormals TensorFlow flushes (float16 is
# computed in float32, where its subnormals are normal).
FLUSHED = {"float32": np.finfo(np.float32).tiny, "float64": np.finfo(np.float64).tiny,
           "bfloat16": np.finfo(np.float32).tiny}


def flush(values, dtype_name):
    """`values` (float64) with subnormals of `dtype_name` read as 0."""
    tiny = FLUSHED.get(dtype_name)
    if tiny is None:
        return values
    out = values.copy()
    out[np.abs(out) < tiny] = 0
    return out


def unspecified_elements(case, output_index, inputs):
    """A mask of the output elements whose value TensorFlow leaves unspecified (KNOWN), True
    where not compared; None when everything is compared; "all" when only dtype and shape are."""
    x = np.asarray(inputs[0]) if inputs else None
    is_float = x is not None and (x.dtype.kind == "f" or x.dtype.name == "bfloat16")
    subnormal = subnormal_elements(case, inputs)
    if subnormal is not None:
        return subnormal
    if case.op in ("ArgMax", "ArgMin", "MaxPool", "MaxPool3D") and is_float:
        if np.isnan(x.astype(np.float64)).any():
            return "all"
    if case.op == "Round" and not is_float:
        return "all"
    if case.op in ("MaxPoolGrad", "MaxPool3DGrad") and np.size(inputs[2]) == 0:
        return "all"
    if case.op.startswith("DepthwiseConv2dNativeBackprop") and any(
            d != 1 for d in case.attrs.get("dilations", [1])):
        return "all"

    if case.op == "_FusedMatMul":
        k = np.shape(inputs[0])[0 if case.attrs.get("transpose_a") else -1]
        if k == 0:
            return "all"
    if case.op == "Cast":
        src, dst = case.attrs["SrcT"], case.attrs["DstT"]
        if src.is_floating and (dst.is_integer or dst.name == "uint8"):
            x = np.asarray(inputs[0]).astype(np.float64)
            info = np.iinfo(dst.as_numpy_dtype)
            with np.errstate(invalid="ignore"):
                return ~np.isfinite(x) | (x <= info.min - 1.0) | (x >= info.max + 1.0)
    return None


def subnormal_elements(case, inputs):
    """For an elementwise op (its output has its operands' broadcast shape), where an operand
    holds a subnormal that TensorFlow flushes (FLUSHED); None when none does or the op is not
    elementwise."""
    operands = op_cases.flat_inputs(case)
    masks = []
    for o in operands:
        if o.dtype.name not in FLUSHED:
            continue
        v = np.abs(np.asarray(o.value).astype(np.float64))
        masks.append((v > 0) & (v < FLUSHED[o.dtype.name]))
    if case.op in INTERMEDIATES and operands[0].dtype.name in FLUSHED:
        compute = np.float64 if operands[0].dtype.name == "float64" else np.float32
        with np.errstate(all="ignore"):
            v = np.abs(INTERMEDIATES[case.op](*[np.asarray(o.value).astype(compute)
                                                for o in operands]).astype(np.float64))
        masks.append((v > 0) & (v < FLUSHED[operands[0].dtype.name]))
    if not any(m.any() for m in masks):
        return None
    try:
        shape = np.broadcast_shapes(*[np.shape(o.value) for o in op_cases.flat_inputs(case)])
    except ValueError:
        return None
    if case.op not in ELEMENTWISE:
        return None
    mask = np.zeros(shape, dtype=bool)
    for m in masks:
        mask |= np.broadcast_to(m, shape)
    return mask


def _elu(x):
    return np.where(x > 0, x, np.expm1(x))


# Exact math (float64, NumPy and the C library) of ops whose TensorFlow float64 kernels are not a
# good enough reference: TensorFlow's Elu and Selu compute exp(x) - 1 (0 for tiny x, where
# expm1(x) = x), its float64 Erf of an infinity is NaN.
REFERENCE = {
    "Elu": lambda x: [_elu(x)],
    "Selu": lambda x: [1.0507009873554804934193349852946 *
                       np.where(x > 0, x, 1.6732632423543772848170429916717 * np.expm1(x))],
    "Erf": lambda x: [np.vectorize(math.erf, otypes=[np.float64])(x)],
    "Erfc": lambda x: [np.vectorize(math.erfc, otypes=[np.float64])(x)],
}


def reference(case):
    """The exact outputs of `case` from REFERENCE, or None."""
    fn = REFERENCE.get(case.op)
    if fn is None:
        return None
    with np.errstate(all="ignore"):
        return fn(*[np.asarray(o.value).astype(np.float64) for o in op_cases.flat_inputs(case)])
