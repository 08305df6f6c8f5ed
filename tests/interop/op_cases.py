"""Cases for the differential test against TensorFlow (op_diff.py), generated from the OpDefs.

A case is one op with its operands and attrs; `graph_def()` makes it a one-op GraphDef whose data
operands are Placeholders (fed, of known shape, unknown dims or unknown rank) or Consts, and whose
structural operands (axes, shapes, sizes) are Consts or, now and then, Placeholders too.

`generate(op_def, rng, budget)` makes an op's cases:
- the dtypes are those of the op's type attrs that both duet's and TensorFlow's OpDefs allow
  (op_diff.py passes the intersection);
- ops whose OpDef is elementwise (every input and output of one type attr T, or a bool output)
  get generic cases: ranks 0 to 6, size-0 dims, NumPy broadcasting for two operands, values
  drawn normally and edge values (NaN, +-inf, -0, huge, tiny and subnormal floats, integer
  limits), bool and string attrs enumerated over their values;
- other ops have a recipe below (RECIPES) that knows what their operands mean, and draws the same
  kinds of shapes, values and attrs.
Every draw comes from `rng`, seeded per op from the run's seed, so a seed names a run.
"""
import dataclasses
import itertools

import numpy as np
import tensorflow as tf
from tensorflow.core.framework import graph_pb2, types_pb2

F32, F64, F16, BF16 = tf.float32, tf.float64, tf.float16, tf.bfloat16
I32, I64, BOOL, U8, STRING = tf.int32, tf.int64, tf.bool, tf.uint8, tf.string
FLOATS = (F32, F64, F16, BF16)
INTS = (I32, I64, U8)


@dataclasses.dataclass
class Operand:
    """One input tensor. `shape`: the Placeholder's shape (None: the value's; a list with -1 for
    unknown dims; "unknown": unknown rank). A Const when `const`."""
    value: np.ndarray
    dtype: tf.DType
    const: bool = False
    shape: object = None


@dataclasses.dataclass
class Case:
    """One op call: `inputs` holds per input arg an Operand, or a list of them for a list arg."""
    op: str
    id: str
    inputs: list
    attrs: dict
    kind: str = ""  # what the case is about, for reports ("edge values", "broadcast", ...)


# ---- values ----

def numpy_dtype(dtype):
    return dtype.as_numpy_dtype


def specials(dtype):
    """Edge values of a dtype: for floats NaN, +-inf, -0, 0, +-1, huge, the smallest normal and a
    subnormal; for integers the limits and the values around 0."""
    if dtype in FLOATS:
        big = {F32: 3.4e38, F64: 1.7e308, F16: 65504.0, BF16: 3.38e38}[dtype]
        huge = {F32: 1e30, F64: 1e300, F16: 6e4, BF16: 1e30}[dtype]
        tiny = {F32: 1.2e-38, F64: 2.3e-308, F16: 6.2e-5, BF16: 1.2e-38}[dtype]
        sub = {F32: 1e-40, F64: 1e-310, F16: 1e-7, BF16: 1e-40}[dtype]
        return [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, 0.5, -2.5, big, -big, huge, -huge,
                tiny, -tiny, sub, 3.0, 1e-3]
    if dtype == BOOL:
        return [True, False]
    if dtype == STRING:
        return [b"", b"a", b"duet", b"\xff\x00", b" " * 40]
    if dtype == U8:
        return [0, 1, 2, 127, 128, 254, 255]
    info = np.iinfo(numpy_dtype(dtype))
    return [info.min, info.min + 1, info.max, info.max - 1, 0, 1, -1, 2, -2, 7, -7]


def cast_values(values, dtype):
    """`values` (a float64/int array) as an array of `dtype` (strings become their decimal)."""
    if dtype == STRING:
        return np.array([str(v).encode() for v in np.ravel(values)], dtype=object).reshape(
            np.shape(values))
    with np.errstate(all="ignore"):
        return np.asarray(values).astype(numpy_dtype(dtype))


class Gen:
    """The drawing helpers of one op's recipe, over the op's rng."""

    def __init__(self, op, rng):
        self.op, self.rng, self.cases = op, rng, []
        self.variant = 0

    # Values of a dtype and shape: "normal" (mostly in [-4, 4]; integers in [-9, 9]), "positive",
    # "unit" (in (-1, 1)), "edge" (specials() mixed with normal values), "distinct" (no ties).
    def value(self, dtype, shape, kind="normal"):
        shape = tuple(int(d) for d in shape)
        n = int(np.prod(shape)) if shape else 1
        rng = self.rng
        if dtype == BOOL:
            return (rng.random(shape) < 0.5).astype(np.bool_)
        if dtype == STRING:
            return cast_values(rng.integers(0, 100, shape), STRING)
        if kind == "edge":
            pool = np.array(specials(dtype), dtype=np.float64 if dtype in FLOATS else np.int64)
            base = self.value(dtype, shape, "normal").astype(pool.dtype)
            flat = base.reshape(-1)
            pick = rng.random(n) < 0.5
            flat[pick] = rng.choice(pool, int(pick.sum()))
            return cast_values(flat.reshape(shape), dtype)
        if dtype in FLOATS:
            if kind == "positive":
                v = rng.uniform(0.05, 4, shape)
            elif kind == "unit":
                v = rng.uniform(-0.95, 0.95, shape)
            elif kind == "distinct":
                # Steps of 0.25 (or 1 for many values): exact in every float dtype.
                v = (rng.permutation(n).reshape(shape) - n // 2) * (0.25 if n <= 256 else 1.0)
            else:
                v = rng.normal(0, 2, shape)
            return cast_values(v, dtype)
        if dtype == U8:
            return cast_values(rng.integers(0 if kind != "positive" else 1, 256, shape), dtype)
        low = 1 if kind == "positive" else -9
        if kind == "distinct":
            return cast_values(rng.permutation(n).reshape(shape) - n // 2, dtype)
        return cast_values(rng.integers(low, 10, shape), dtype)

    def data(self, dtype, shape, kind="normal", const=None):
        """A data operand: a Placeholder of known shape, unknown dims or unknown rank (by turns),
        or now and then a Const (which duet's constant folding then evaluates)."""
        value = self.value(dtype, shape, kind)
        v = self.variant
        if const is None:
            const = v % 5 == 4
        placeholder_shape = None
        if not const and v % 3 == 1:
            placeholder_shape = [-1] * len(shape)
        elif not const and v % 3 == 2:
            placeholder_shape = "unknown"
        return Operand(value, dtype, const, placeholder_shape)

    def ints(self, values, dtype=I32, fed=False):
        """A structural int operand (axes, shapes, sizes): a Const, or a fed Placeholder."""
        return Operand(np.asarray(values, dtype=numpy_dtype(dtype)).reshape(np.shape(values)),
                       dtype, const=not fed)

    def scalar(self, value, dtype):
        return Operand(cast_values(np.asarray(value), dtype), dtype, const=True)

    def add(self, inputs, attrs=None, kind=""):
        self.cases.append(Case(self.op, f"{self.op}.{len(self.cases)}", list(inputs),
                               dict(attrs or {}), kind))
        self.variant += 1

    def shape(self, rank_range=(0, 4), max_dim=5, allow_zero=True):
        rank = int(self.rng.integers(rank_range[0], rank_range[1] + 1))
        low = 0 if allow_zero and self.rng.random() < 0.1 else 1
        return [int(self.rng.integers(low, max_dim + 1)) for _ in range(rank)]

    def pick(self, options):
        return options[int(self.rng.integers(len(options)))]


SHAPES = [(), (1,), (7,), (3, 4), (2, 3, 4), (0, 3), (2, 1, 3, 1, 2), (1, 2, 1, 2, 1, 3), (4, 0, 2)]
BROADCAST = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (5,)), ((5,), ()),
             ((0, 3), (1, 3)), ((2, 3, 1, 1, 2, 2), (3, 2, 1, 2)), ((1,), (2, 1, 1)), ((), ())]
LARGE = (70001,)  # past the kernels' thread and vector thresholds


def type_attrs(op_def, allowed):
    """The op's type attrs and the dtypes to try for each (both registries allow them)."""
    return {a.name: allowed.get(a.name, []) for a in op_def.attr if a.type == "type"}


def elementwise_kind(op_def):
    """"unary" or "binary" when every input has type attr T (1 or 2 of them) and the outputs are T
    or bool, else None."""
    ins = op_def.input_arg
    typed = all(a.type_attr == "T" for a in ins)
    boolean = all(a.type == types_pb2.DT_BOOL for a in ins)  # LogicalAnd, LogicalNot, ...
    if not ins or len(ins) > 2 or not (typed or boolean) or any(a.number_attr for a in ins):
        return None
    if len(op_def.output_arg) != 1:
        return None
    out = op_def.output_arg[0]
    if out.type_attr != "T" and out.type != types_pb2.DT_BOOL:
        return None
    others = [a for a in op_def.attr if a.name != "T"]
    if any(a.type not in ("bool", "float", "string") for a in others):
        return None
    return "unary" if len(ins) == 1 else "binary"


def attr_variants(op_def, skip=("T",)):
    """Settings of the op's bool and string (with allowed values) attrs to cycle through."""
    choices = []
    for a in op_def.attr:
        if a.name in skip:
            continue
        if a.type == "bool":
            choices.append([(a.name, False), (a.name, True)])
        elif a.type == "string" and a.allowed_values.list.s:
            choices.append([(a.name, s.decode()) for s in a.allowed_values.list.s if s])
    return [dict(c) for c in itertools.product(*choices)] if choices else [{}]


def generic_elementwise(g, kind, dtypes, op_def, budget):
    variants = attr_variants(op_def)
    has_t = any(a.name == "T" for a in op_def.attr)
    for k, dtype in enumerate(dtypes):
        t = {"T": dtype} if has_t else {}
        for s, shape in enumerate(SHAPES[: max(2, budget // max(1, len(dtypes)))]):
            attrs = {**t, **variants[(k + s) % len(variants)]}
            if kind == "unary":
                g.add([g.data(dtype, shape)], attrs, "shapes")
            else:
                a, b = BROADCAST[(k + s) % len(BROADCAST)]
                g.add([g.data(dtype, a), g.data(dtype, b)], attrs, "broadcast")
        # Edge values, every pair of them for two operands.
        pool = cast_values(specials(dtype), dtype)
        if kind == "unary":
            g.add([Operand(pool, dtype)], t, "edge values")
        else:
            x, y = np.repeat(pool, len(pool)), np.tile(pool, len(pool))
            if dtype not in FLOATS and g.op in ("Div", "FloorDiv", "FloorMod", "TruncateDiv"):
                keep = y != 0
                x, y = x[keep], y[keep]
            g.add([Operand(x, dtype), Operand(y, dtype, const=True)], t, "edge values")
        g.add([g.data(dtype, shape, "edge") for shape in
               ([(3, 5)] if kind == "unary" else [(3, 5), (3, 5)])], t, "edge mix")
    # One large case in float32 (or the first dtype), through the threaded paths.
    dtype = F32 if F32 in dtypes else dtypes[0]
    g.add([g.data(dtype, LARGE) for _ in range(1 if kind == "unary" else 2)],
          {"T": dtype} if has_t else {}, "large")


def generate(op_def, allowed, rng, budget):
    """The op's cases (see the module doc); [] when it has neither a recipe nor an elementwise
    OpDef (op_diff.py then fails unless op_diff_rules.py lists it with a reason)."""
    g = Gen(op_def.name, rng)
    dtypes = type_attrs(op_def, allowed)
    if op_def.name in RECIPES:
        RECIPES[op_def.name](g, dtypes, budget)
    else:
        kind = elementwise_kind(op_def)
        types = dtypes.get("T") or ([BOOL] if kind and "T" not in dtypes else [])
        if kind is None or not types:
            return []
        generic_elementwise(g, kind, types, op_def, budget)
    return [c for c in g.cases if meets_minimums(c, op_def)]


def meets_minimums(case, op_def):
    """False when a list operand is shorter than the OpDef's minimum (TensorFlow's ConcatV2 takes
    at least 2 values where duet's takes 1: a case for the smaller registry only)."""
    minimum = {a.name: a.minimum for a in op_def.attr if a.has_minimum}
    for arg, item in zip(op_def.input_arg, case.inputs):
        if arg.number_attr and isinstance(item, list) and len(item) < minimum.get(arg.number_attr,
                                                                                   0):
            return False
    return True


# ---- recipes ----

RECIPES = {}


def recipe(*names):
    def register(fn):
        for name in names:
            RECIPES[name] = fn
        return fn
    return register


def axes_for(g, rank, allow_empty=True):
    if rank == 0:
        return []
    count = int(g.rng.integers(0 if allow_empty else 1, rank + 1))
    axes = sorted(g.rng.choice(rank, count, replace=False).tolist())
    return [a - rank if g.rng.random() < 0.3 else a for a in axes]


@recipe("Sum", "Mean", "Max", "Min", "Prod", "All", "Any")
def reductions(g, dtypes, budget):
    ts = dtypes.get("T", [BOOL])
    for k in range(max(len(ts) * 3, budget)):
        dtype = ts[k % len(ts)]
        shape = g.pick(SHAPES)
        kind = "positive" if g.op == "Prod" else g.pick(["normal", "normal", "edge"])
        attrs = {"keep_dims": bool(k % 2), "Tidx": g.pick(dtypes["Tidx"])}
        if "T" in dtypes:
            attrs["T"] = dtype
        axes = axes_for(g, len(shape))
        g.add([g.data(dtype, shape, kind), g.ints(axes, attrs["Tidx"], fed=k % 7 == 6)], attrs,
              "axes")
    dtype = ts[0]
    g.add([g.data(dtype, (60, 70, 80)), g.ints([0, 2])], {"T": dtype} if "T" in dtypes else {},
          "large")
    if g.op == "Prod":
        # Issue 37: float32 products of ~265k factors near 1.
        near_one = Operand(cast_values(g.rng.uniform(0.999, 1.001, (265000,)), F32), F32)
        g.add([near_one, g.ints([0])], {"T": F32}, "large product")


@recipe("ArgMax", "ArgMin")
def arg_reductions(g, dtypes, budget):
    for k, dtype in enumerate(dtypes["T"] * 3):
        shape = g.pick([s for s in SHAPES if len(s) > 0 and 0 not in s])
        axis = int(g.rng.integers(-len(shape), len(shape)))
        kind = ["distinct", "normal", "edge"][k % 3]
        g.add([g.data(dtype, shape, kind), g.ints(axis, g.pick(dtypes["Tidx"]))],
              {"T": dtype, "output_type": g.pick(dtypes["output_type"])}, kind)


@recipe("AddN")
def add_n(g, dtypes, budget):
    for k, dtype in enumerate(dtypes["T"]):
        n = 1 + k % 4
        shape = g.pick(SHAPES)
        g.add([[g.data(dtype, shape, "edge" if k % 3 == 2 else "normal") for _ in range(n)]],
              {"T": dtype, "N": n})


@recipe("BiasAdd")
def bias_add(g, dtypes, budget):
    for dtype in dtypes["T"]:
        for shape in [(2, 3), (2, 3, 4, 5), (1, 0, 3), (70001, 2)]:
            g.add([g.data(dtype, shape), g.data(dtype, shape[-1:])], {"T": dtype})


@recipe("LeakyRelu")
def leaky_relu(g, dtypes, budget):
    for dtype in dtypes["T"]:
        for alpha in (0.2, 0.0, 1.5, -0.3):
            g.add([g.data(dtype, g.pick(SHAPES), "edge")], {"T": dtype, "alpha": alpha})


@recipe("ReluGrad")
def relu_grad(g, dtypes, budget):
    for dtype in dtypes["T"]:
        for shape in [(3, 4), (), (0, 2), LARGE]:
            g.add([g.data(dtype, shape), g.data(dtype, shape, "edge")], {"T": dtype})


@recipe("MatMul", "_FusedMatMul")
def matmul(g, dtypes, budget):
    for k, dtype in enumerate(dtypes["T"] * 4):
        m, kk, n = g.pick([(3, 4, 5), (1, 7, 1), (0, 3, 2), (4, 0, 3), (33, 65, 17)])
        ta, tb = bool(k % 2), bool(k // 2 % 2)
        a = g.data(dtype, (kk, m) if ta else (m, kk))
        b = g.data(dtype, (n, kk) if tb else (kk, n))
        attrs = {"T": dtype, "transpose_a": ta, "transpose_b": tb}
        if g.op == "MatMul":
            g.add([a, b], attrs)
            continue
        act = g.pick([[], ["Relu"], ["Relu6"], ["Elu"], ["LeakyRelu"], ["Tanh"], ["Sigmoid"]])
        attrs.update({"fused_ops": ["BiasAdd"] + act, "num_args": 1})
        g.add([a, b, [g.data(dtype, (n,))]], attrs, "+".join(["BiasAdd"] + act))


@recipe("BatchMatMulV2")
def batch_matmul(g, dtypes, budget):
    pairs = [((2, 3, 4), (2, 4, 5)), ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (3, 4, 2)),
             ((1, 3, 4), (5, 4, 2)), ((0, 3, 4), (4, 2)), ((3, 0), (0, 2))]
    for k, dtype in enumerate(dtypes["T"] * 3):
        a, b = pairs[k % len(pairs)]
        adj_x, adj_y = bool(k % 2), bool(k // 2 % 2)
        if adj_x:
            a = a[:-2] + (a[-1], a[-2])
        if adj_y:
            b = b[:-2] + (b[-1], b[-2])
        g.add([g.data(dtype, a), g.data(dtype, b)], {"T": dtype, "adj_x": adj_x, "adj_y": adj_y})


def conv_out(size, window, stride, dilation, padding, pads=(0, 0)):
    eff = (window - 1) * dilation + 1
    if padding == "SAME":
        return -(-size // stride)
    if padding == "EXPLICIT":
        return (size + pads[0] + pads[1] - eff) // stride + 1
    return (size - eff) // stride + 1 if size >= eff else 0


def conv_setup(g, rank, depthwise=False, grouped=False):
    """A random convolution: input shape, filter shape, attrs (strides, padding, dilations, and
    explicit_paddings for rank 2)."""
    spatial = [int(g.rng.integers(3, 7)) for _ in range(rank)]
    window = [int(g.rng.integers(1, 4)) for _ in range(rank)]
    cin = int(g.rng.integers(1, 4))
    groups = 2 if grouped else 1
    cout = int(g.rng.integers(1, 4)) * groups
    padding = g.pick(["SAME", "VALID", "EXPLICIT"] if rank == 2 else ["SAME", "VALID"])
    dilate = g.rng.random() < 0.3
    stride = [1] * rank if dilate else [int(g.rng.integers(1, 3)) for _ in range(rank)]
    dilation = [int(g.rng.integers(1, 3)) if dilate else 1 for _ in range(rank)]
    batch = int(g.rng.integers(1, 3))
    x = [batch] + spatial + [cin * groups]
    f = window + ([cin, int(g.rng.integers(1, 3))] if depthwise else [cin, cout])
    attrs = {"strides": [1] + stride + [1], "padding": padding, "dilations": [1] + dilation + [1]}
    pads = [(0, 0)] * rank
    if padding == "EXPLICIT":
        pads = [(int(g.rng.integers(0, 3)), int(g.rng.integers(0, 3))) for _ in range(rank)]
        attrs["explicit_paddings"] = [0, 0] + [p for pair in pads for p in pair] + [0, 0]
    out_c = cin * f[-1] if depthwise else cout
    y = [batch] + [conv_out(spatial[d], window[d], stride[d], dilation[d], padding, pads[d])
                   for d in range(rank)] + [out_c]
    return x, f, y, attrs


@recipe("Conv2D", "Conv3D", "DepthwiseConv2dNative", "_FusedConv2D",
        "_FusedDepthwiseConv2dNative")
def convolutions(g, dtypes, budget):
    rank = 3 if g.op == "Conv3D" else 2
    depthwise = "Depthwise" in g.op
    for k, dtype in enumerate(dtypes["T"] * 4):
        grouped = g.op in ("Conv2D", "_FusedConv2D") and k % 4 == 3  # issue 37: grouped Conv2D
        x, f, y, attrs = conv_setup(g, rank, depthwise, grouped)
        if g.op == "_FusedDepthwiseConv2dNative" and attrs["padding"] == "EXPLICIT":
            attrs["padding"] = "SAME"
            attrs.pop("explicit_paddings")
        attrs["T"] = dtype
        inputs = [g.data(dtype, x), g.data(dtype, f)]
        if g.op.startswith("_Fused"):
            act = g.pick([[], ["Relu"], ["Relu6"], ["Elu"], ["LeakyRelu"]])
            attrs.update({"fused_ops": ["BiasAdd"] + act, "num_args": 1})
            inputs.append([g.data(dtype, y[-1:])])
        g.add(inputs, attrs, "grouped" if grouped else attrs["padding"])


@recipe("Conv2DBackpropInput", "Conv2DBackpropFilter", "Conv3DBackpropInputV2",
        "Conv3DBackpropFilterV2", "DepthwiseConv2dNativeBackpropInput",
        "DepthwiseConv2dNativeBackpropFilter")
def conv_backprops(g, dtypes, budget):
    rank = 3 if "3D" in g.op else 2
    depthwise = "Depthwise" in g.op
    for k, dtype in enumerate(dtypes["T"] * 3):
        grouped = g.op.startswith("Conv2D") and k % 3 == 2
        x, f, y, attrs = conv_setup(g, rank, depthwise, grouped)
        attrs["T"] = dtype
        dy = g.data(dtype, y)
        if "Input" in g.op:
            g.add([g.ints(x), g.data(dtype, f), dy], attrs, "grouped" if grouped else "")
        else:
            g.add([g.data(dtype, x), g.ints(f), dy], attrs, "grouped" if grouped else "")


def pool_setup(g, rank):
    spatial = [int(g.rng.integers(2, 7)) for _ in range(rank)]
    window = [int(g.rng.integers(1, 4)) for _ in range(rank)]
    stride = [int(g.rng.integers(1, 3)) for _ in range(rank)]
    padding = g.pick(["SAME", "VALID"])
    x = [int(g.rng.integers(1, 3))] + spatial + [int(g.rng.integers(1, 3))]
    y = [x[0]] + [conv_out(spatial[d], window[d], stride[d], 1, padding) for d in range(rank)] + \
        [x[-1]]
    attrs = {"ksize": [1] + window + [1], "strides": [1] + stride + [1], "padding": padding}
    return x, y, attrs


@recipe("AvgPool", "MaxPool", "AvgPool3D", "MaxPool3D")
def pools(g, dtypes, budget):
    rank = 3 if "3D" in g.op else 2
    for k, dtype in enumerate(dtypes["T"] * 3):
        x, _, attrs = pool_setup(g, rank)
        attrs["T"] = dtype
        g.add([g.data(dtype, x, "edge" if k % 3 == 2 else "normal")], attrs)


@recipe("AvgPoolGrad", "AvgPool3DGrad")
def avg_pool_grads(g, dtypes, budget):
    rank = 3 if "3D" in g.op else 2
    for dtype in dtypes["T"] * 2:
        x, y, attrs = pool_setup(g, rank)
        attrs["T"] = dtype
        g.add([g.ints(x), g.data(dtype, y)], attrs)


@recipe("MaxPoolGrad", "MaxPool3DGrad", "MaxPoolGradGrad", "MaxPool3DGradGrad")
def max_pool_grads(g, dtypes, budget):
    rank = 3 if "3D" in g.op else 2
    pool = tf.raw_ops.MaxPool3D if rank == 3 else tf.raw_ops.MaxPool
    types = dtypes.get("T", [])
    for dtype in types * 2:
        x, y, attrs = pool_setup(g, rank)
        # Distinct values: with ties, which input gets a window's gradient is the kernel's choice.
        xv = g.value(dtype, x, "distinct")
        yv = cast_values(pool(input=xv.astype(np.float32), ksize=attrs["ksize"],
                              strides=attrs["strides"], padding=attrs["padding"]).numpy(), dtype)
        grad = g.data(dtype, x if "GradGrad" in g.op else y)
        attrs["T"] = dtype
        if "TInput" in dtypes:
            attrs["TInput"] = dtype
        g.add([Operand(xv, dtype), Operand(yv, dtype), grad], attrs)


@recipe("Cast")
def cast(g, dtypes, budget):
    for src in dtypes["SrcT"]:
        for dst in dtypes["DstT"]:
            kind = g.pick(["normal", "edge"]) if src != dst else "normal"
            truncate = src in FLOATS and dst in FLOATS and g.rng.random() < 0.5
            g.add([g.data(src, g.pick(SHAPES), kind)],
                  {"SrcT": src, "DstT": dst, "Truncate": truncate}, kind)
    # Issue 37: Truncate=True between floats.
    for src, dst in [(F32, BF16), (F32, F16), (F64, F32), (F64, F16), (F64, BF16), (F16, BF16)]:
        if src in dtypes["SrcT"] and dst in dtypes["DstT"]:
            g.add([g.data(src, (40,), "unit")], {"SrcT": src, "DstT": dst, "Truncate": True},
                  "truncate")


@recipe("CheckNumerics")
def check_numerics(g, dtypes, budget):
    for dtype in dtypes["T"]:
        g.add([g.data(dtype, (3, 4))], {"T": dtype, "message": "check"})
        g.add([g.data(dtype, (3, 4), "edge")], {"T": dtype, "message": "check"}, "edge values")


@recipe("ClipByValue")
def clip_by_value(g, dtypes, budget):
    for k, dtype in enumerate(dtypes["T"] * 2):
        shape = g.pick([(3, 4), (5,), (), (0, 2)])
        low = g.value(dtype, () if k % 2 == 0 else shape)
        high = np.maximum(low, g.value(dtype, np.shape(low)))
        g.add([g.data(dtype, shape, "edge"), Operand(low, dtype), Operand(high, dtype)],
              {"T": dtype})


@recipe("ConcatV2", "Pack")
def concat_pack(g, dtypes, budget):
    for k, dtype in enumerate(dtypes["T"] * 2):
        shape = list(g.pick([(2, 3), (3,), (2, 0, 2), (1, 2, 3, 1)]))
        n = 1 + k % 3
        if g.op == "Pack":
            axis = int(g.rng.integers(-len(shape) - 1, len(shape) + 1))
            g.add([[g.data(dtype, shape) for _ in range(n)]], {"T": dtype, "N": n, "axis": axis})
            continue
        axis = int(g.rng.integers(-len(shape), len(shape)))
        parts = []
        for _ in range(n):
            part = list(shape)
            part[axis] = int(g.rng.integers(0, 3))
            parts.append(g.data(dtype, part))
        g.add([parts, g.ints(axis, g.pick(dtypes["Tidx"]))], {"T": dtype, "N": n})


@recipe("Unpack")
def unpack(g, dtypes, budget):
    for dtype in dtypes["T"]:
        shape = g.pick([(2, 3), (3, 1, 2), (4,)])
        axis = int(g.rng.integers(-len(shape), len(shape)))
        g.add([g.data(dtype, shape)], {"T": dtype, "num": shape[axis], "axis": axis})


@recipe("Cumsum", "Cumprod")
def scans(g, dtypes, budget):
    for k, dtype in enumerate(dtypes["T"] * 3):
        shape = g.pick([s for s in SHAPES if len(s) > 0])
        axis = int(g.rng.integers(-len(shape), len(shape)))
        kind = "positive" if g.op == "Cumprod" else "normal"
        g.add([g.data(dtype, shape, kind), g.ints(axis, g.pick(dtypes["Tidx"]))],
              {"T": dtype, "exclusive": bool(k % 2), "reverse": bool(k // 2 % 2)})


@recipe("DenseBincount")
def dense_bincount(g, dtypes, budget):
    for k, (tidx, t) in enumerate(itertools.product(dtypes["Tidx"], dtypes["T"])):
        shape = g.pick([(7,), (2, 5), (0,)])
        values = g.rng.integers(0, 6, shape)
        weights = g.data(t, shape) if k % 2 else Operand(cast_values(np.zeros(0), t), t)
        g.add([Operand(values.astype(numpy_dtype(tidx)), tidx), g.scalar(5, tidx), weights],
              {"Tidx": tidx, "T": t, "binary_output": bool(k // 2 % 2)})


EINSUM = [("ij,jk->ik", [(3, 4), (4, 2)]), ("abc,cd->abd", [(2, 3, 4), (4, 5)]),
          ("...b,bc->...c", [(2, 3, 4), (4, 2)]), ("ij->ji", [(3, 4)]), ("ij->", [(3, 4)]),
          ("bij,bjk->bki", [(2, 3, 4), (2, 4, 2)]), ("i,j->ij", [(3,), (4,)]),
          # Issue 37: diagonals and traces.
          ("ii->i", [(3, 3)]), ("ii->", [(4, 4)]), ("iij->j", [(2, 2, 3)]),
          ("ij,jj->i", [(2, 3), (3, 3)]), ("i->ii", [(3,)]), ("...ii->...i", [(2, 3, 3)])]


@recipe("Einsum")
def einsum(g, dtypes, budget):
    for k, (equation, shapes) in enumerate(EINSUM):
        dtype = dtypes["T"][k % len(dtypes["T"])]
        g.add([[g.data(dtype, s) for s in shapes]],
              {"T": dtype, "N": len(shapes), "equation": equation}, equation)


@recipe("EnsureShape", "PlaceholderWithDefault")
def ensure_shape(g, dtypes, budget):
    for k, dtype in enumerate(dtypes.get("T", []) or dtypes.get("dtype", [])):
        shape = g.pick([(2, 3), (4,), ()])
        want = [d if k % 3 else -1 for d in shape] if k % 4 != 3 else [7] * len(shape)
        attrs = {("T" if "T" in dtypes else "dtype"): dtype, "shape": want}
        g.add([g.data(dtype, shape)], attrs)


@recipe("ExpandDims")
def expand_dims(g, dtypes, budget):
    for dtype in dtypes["T"]:
        shape = g.pick(SHAPES)
        dim = int(g.rng.integers(-len(shape) - 1, len(shape) + 1))
        g.add([g.data(dtype, shape), g.ints(dim, g.pick(dtypes["Tdim"]))], {"T": dtype})


@recipe("Fill")
def fill(g, dtypes, budget):
    for dtype in dtypes["T"]:
        dims = g.pick([[2, 3], [], [0, 4], [3]])
        g.add([g.ints(dims, g.pick(dtypes["index_type"])), g.data(dtype, (), const=True)],
              {"T": dtype})


@recipe("FusedBatchNormV3")
def fused_batch_norm(g, dtypes, budget):
    for k, dtype in enumerate(dtypes["T"] * 4):
        x = [2, 3, 2, int(g.rng.integers(1, 4))]
        c = x[-1:]
        training = bool(k % 2)
        factor = 1.0 if k % 4 < 2 else 0.5
        empty = training and factor == 1.0 and k % 8 < 4
        stats = [Operand(np.zeros(0, np.float32), F32)] * 2 if empty else \
            [g.data(F32, c), Operand(g.value(F32, c, "positive"), F32)]
        g.add([g.data(dtype, x), g.data(F32, c), g.data(F32, c)] + stats,
              {"T": dtype, "U": F32, "epsilon": 0.001, "is_training": training,
               "exponential_avg_factor": factor})


@recipe("GatherV2")
def gather_v2(g, dtypes, budget):
    for k, dtype in enumerate(dtypes["Tparams"] * 2):
        params = g.pick([(5, 3), (2, 3, 4), (4,), (3, 0, 2)])
        batch_dims = 0 if k % 3 else min(1, len(params) - 1)  # issue 37: batch_dims
        axis = int(g.rng.integers(batch_dims, len(params)))
        shape = list(params[:batch_dims]) + g.shape((0, 2), 3)
        idx = g.rng.integers(0, max(params[axis], 1), shape)
        if params[axis] == 0:
            idx = idx[..., :0] if idx.ndim else np.zeros((0,), np.int64)
        tindices = g.pick(dtypes["Tindices"])
        neg = k % 5 == 4 and batch_dims > 0
        g.add([g.data(dtype, params), Operand(idx.astype(numpy_dtype(tindices)), tindices),
               g.ints(axis - len(params) if k % 4 == 1 else axis, g.pick(dtypes["Taxis"]))],
              {"Tparams": dtype, "Tindices": tindices,
               "batch_dims": batch_dims - len(shape) if neg else batch_dims},
              f"batch_dims {batch_dims}")
    g.add([g.data(F32, (5, 3)), g.ints([0, 7]), g.ints(0)],
          {"Tparams": F32, "Tindices": I32}, "index out of range")


@recipe("GatherNd", "ScatterNd", "TensorScatterAdd", "TensorScatterUpdate")
def nd_indexing(g, dtypes, budget):
    value_types = dtypes.get("T") or dtypes.get("Tparams", [])
    for k, dtype in enumerate(value_types * 2):
        shape = g.pick([(4, 3), (2, 3, 4), (5,)])
        depth = int(g.rng.integers(1, len(shape) + 1))
        rows = int(g.rng.integers(0, 5))
        idx = np.stack([g.rng.integers(0, shape[d], rows) for d in range(depth)], -1) \
            if rows else np.zeros((0, depth), np.int64)
        tindices = g.pick(dtypes["Tindices"])
        index = Operand(idx.astype(numpy_dtype(tindices)), tindices)
        slice_shape = (rows,) + tuple(shape[depth:])
        attrs = {"T": dtype, "Tindices": tindices}
        if g.op == "GatherNd":
            g.add([g.data(dtype, shape), index], {"Tparams": dtype, "Tindices": tindices})
        elif g.op == "ScatterNd":
            # Duplicate rows add up; their order is the kernel's (floats: within tolerance).
            g.add([index, g.data(dtype, slice_shape), g.ints(list(shape), tindices)], attrs)
        else:
            if g.op == "TensorScatterUpdate" and rows:
                idx = np.unique(idx, axis=0)  # which duplicate wins is unspecified
                slice_shape = (len(idx),) + tuple(shape[depth:])
                index = Operand(idx.astype(numpy_dtype(tindices)), tindices)
            g.add([g.data(dtype, shape), index, g.data(dtype, slice_shape)], attrs)


@recipe("IdentityN")
def identity_n(g, dtypes, budget):
    for types in [[F32], [F32, I32, BOOL], [F64, F16]]:
        g.add([[g.data(t, g.pick(SHAPES)) for t in types]], {"T": types})


@recipe("MirrorPad", "MirrorPadGrad")
def mirror_pad(g, dtypes, budget):
    for k, dtype in enumerate(dtypes["T"] * 2):
        mode = ["REFLECT", "SYMMETRIC"][k % 2]
        shape = g.pick([(4, 5), (3,), (2, 3, 4)])
        limit = 1 if mode == "REFLECT" else 0
        pads = [[int(g.rng.integers(0, d - limit + 1)), int(g.rng.integers(0, d - limit + 1))]
                for d in shape]
        tp = g.pick(dtypes["Tpaddings"])
        if g.op == "MirrorPad":
            g.add([g.data(dtype, shape), g.ints(pads, tp)], {"T": dtype, "mode": mode}, mode)
        else:
            pads = [[min(p[0], d - limit), min(p[1], d - limit)] for d, p in zip(shape, pads)]
            padded = [d + p[0] + p[1] for d, p in zip(shape, pads)]
            g.add([g.data(dtype, padded), g.ints(pads, tp)], {"T": dtype, "mode": mode}, mode)


@recipe("OneHot")
def one_hot(g, dtypes, budget):
    for k, dtype in enumerate(dtypes["T"]):
        shape = g.pick([(4,), (2, 3), ()])
        ti = g.pick(dtypes["TI"])
        idx = g.rng.integers(-1, 6, shape).astype(numpy_dtype(ti))
        axis = int(g.rng.integers(-1, len(shape) + 1))
        g.add([Operand(idx, ti), g.scalar(5, I32), g.data(dtype, (), const=True),
               g.data(dtype, (), const=True)], {"T": dtype, "TI": ti, "axis": axis})


@recipe("Pad", "PadV2")
def pad(g, dtypes, budget):
    for dtype in dtypes["T"] * 2:
        shape = g.pick(SHAPES)
        tp = g.pick(dtypes["Tpaddings"])
        pads = [[int(g.rng.integers(0, 3)), int(g.rng.integers(0, 3))] for _ in shape]
        inputs = [g.data(dtype, shape), g.ints(np.reshape(pads, (len(shape), 2)), tp)]
        if g.op == "PadV2":
            inputs.append(g.data(dtype, (), const=True))
        g.add(inputs, {"T": dtype, "Tpaddings": tp})


@recipe("Range")
def range_(g, dtypes, budget):
    for tidx in dtypes["Tidx"]:
        for start, limit, delta in [(0, 10, 3), (5, -2, -2), (0, 0, 1), (0, 0.3, 0.1),
                                    (1, 2, 0.25), (-3, 3, 0.7), (2, 1, 1), (0, 1, 0)]:
            if tidx not in FLOATS and any(v != int(v) for v in (start, limit, delta)):
                continue
            g.add([g.scalar(start, tidx), g.scalar(limit, tidx), g.scalar(delta, tidx)],
                  {"Tidx": tidx}, f"({start}, {limit}, {delta})")


@recipe("Reshape")
def reshape(g, dtypes, budget):
    for dtype in dtypes["T"]:
        for shape, new in [((2, 3, 4), [4, -1]), ((6,), [2, 3]), ((), [1, 1]), ((0, 3), [-1, 3]),
                           ((2, 3), [5])]:
            g.add([g.data(dtype, shape), g.ints(new, g.pick(dtypes["Tshape"]),
                                               fed=g.rng.random() < 0.2)], {"T": dtype})


@recipe("ResizeBilinear", "ResizeNearestNeighbor")
def resize(g, dtypes, budget):
    for k, dtype in enumerate(dtypes["T"] * 4):
        align, half = [(False, False), (True, False), (False, True), (False, False)][k % 4]
        x = [1, int(g.rng.integers(1, 6)), int(g.rng.integers(1, 6)), 2]
        size = [int(g.rng.integers(1, 8)), int(g.rng.integers(1, 8))]
        g.add([g.data(dtype, x), g.ints(size)],
              {"T": dtype, "align_corners": align, "half_pixel_centers": half})


@recipe("ResizeBilinearGrad", "ResizeNearestNeighborGrad")
def resize_grads(g, dtypes, budget):
    for k, dtype in enumerate(dtypes["T"] * 4):
        align, half = [(False, False), (True, False), (False, True), (False, False)][k % 4]
        x = [1, int(g.rng.integers(1, 6)), int(g.rng.integers(1, 6)), 2]
        y = [1, int(g.rng.integers(1, 8)), int(g.rng.integers(1, 8)), 2]
        attrs = {"T": dtype, "align_corners": align, "half_pixel_centers": half}
        if g.op == "ResizeBilinearGrad":
            g.add([g.data(F32, y), g.data(dtype, x)], attrs)
        else:
            g.add([g.data(dtype, y), g.ints(x[1:3])], attrs)


@recipe("ReverseV2")
def reverse(g, dtypes, budget):
    for dtype in dtypes["T"]:
        shape = g.pick(SHAPES)
        g.add([g.data(dtype, shape), g.ints(axes_for(g, len(shape)), g.pick(dtypes["Tidx"]))],
              {"T": dtype})


@recipe("SelectV2")
def select(g, dtypes, budget):
    for k, dtype in enumerate(dtypes["T"]):
        a, b = BROADCAST[k % len(BROADCAST)]
        g.add([g.data(BOOL, a), g.data(dtype, b), g.data(dtype, a)], {"T": dtype})


@recipe("Slice", "StridedSlice", "StridedSliceGrad")
def slices(g, dtypes, budget):
    for k, dtype in enumerate(dtypes["T"] * 2):
        shape = g.pick([(5, 4), (6,), (2, 3, 4), (0, 3)])
        index = g.pick(dtypes["Index"])
        if g.op == "Slice":
            begin = [int(g.rng.integers(0, d + 1)) for d in shape]
            size = [-1 if g.rng.random() < 0.3 else int(g.rng.integers(0, d - b + 1))
                    for d, b in zip(shape, begin)]
            g.add([g.data(dtype, shape), g.ints(begin, index), g.ints(size, index)],
                  {"T": dtype, "Index": index})
            continue
        begin = [int(g.rng.integers(-d - 1, d + 1)) for d in shape]
        end = [int(g.rng.integers(-d - 1, d + 2)) for d in shape]
        strides = [int(g.pick([1, 2, -1, 3, -2])) for _ in shape]
        masks = {m: int(g.rng.integers(0, 1 << len(shape))) if g.rng.random() < 0.4 else 0
                 for m in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                           "shrink_axis_mask")}
        if bin(masks["ellipsis_mask"]).count("1") > 1:
            masks["ellipsis_mask"] = 0
        attrs = {"T": dtype, "Index": index, **masks}
        operands = [g.ints(begin, index), g.ints(end, index), g.ints(strides, index)]
        if g.op == "StridedSlice":
            g.add([g.data(dtype, shape)] + operands, attrs)
            continue
        try:
            dy = tf.raw_ops.StridedSlice(input=np.zeros(shape, np.float32), begin=begin, end=end,
                                         strides=strides, **masks).shape
        except Exception:  # noqa: BLE001 - a spec TensorFlow rejects: nothing to take a gradient of
            continue
        g.add([g.ints(list(shape), index)] + operands + [g.data(dtype, dy)], attrs)


@recipe("SoftmaxCrossEntropyWithLogits")
def softmax_xent(g, dtypes, budget):
    for dtype in dtypes["T"]:
        for logits, labels in [((3, 4), (3, 4)), ((2, 3), (1, 3)), ((1, 3), (2, 3)),
                               ((2, 3), (2, 1)), ((0, 3), (0, 3)), ((3, 5), (5,))]:
            g.add([g.data(dtype, logits), g.data(dtype, labels, "positive")], {"T": dtype},
                  "broadcast" if logits != labels else "")
        # Issue 37: huge logits.
        g.add([Operand(cast_values([[1e30, 1e30, -1e30]], dtype), dtype),
               Operand(cast_values([[1, 0, 0]], dtype), dtype)], {"T": dtype}, "huge logits")
        g.add([g.data(dtype, (3, 4), "edge"), g.data(dtype, (3, 4), "positive")], {"T": dtype},
              "edge values")


@recipe("SparseSoftmaxCrossEntropyWithLogits")
def sparse_softmax_xent(g, dtypes, budget):
    for dtype in dtypes["T"]:
        for tl in dtypes["Tlabels"]:
            g.add([g.data(dtype, (4, 5)), Operand(g.rng.integers(0, 5, 4).astype(
                numpy_dtype(tl)), tl)], {"T": dtype, "Tlabels": tl})
        g.add([Operand(cast_values([[1e30, 1e30, -1e30]], dtype), dtype),
               Operand(np.array([0], np.int64), I64)], {"T": dtype, "Tlabels": I64},
              "huge logits")


@recipe("Split", "SplitV")
def split(g, dtypes, budget):
    for dtype in dtypes["T"]:
        shape = g.pick([(6, 4), (4,), (2, 6, 2)])
        axis = int(g.rng.integers(-len(shape), len(shape)))
        if g.op == "Split":
            n = g.pick([d for d in (1, 2, 3, 6) if shape[axis] % d == 0])
            g.add([g.ints(axis), g.data(dtype, shape)], {"T": dtype, "num_split": n})
        else:
            sizes = [1, shape[axis] - 1] if g.rng.random() < 0.5 else [-1, 1]
            tlen = g.pick(dtypes["Tlen"])
            g.add([g.data(dtype, shape), g.ints(sizes, tlen), g.ints(axis)],
                  {"T": dtype, "Tlen": tlen, "num_split": 2})


@recipe("Squeeze")
def squeeze(g, dtypes, budget):
    for dtype in dtypes["T"]:
        for shape, dims in [((1, 3, 1), []), ((1, 3, 1), [-1]), ((2, 1), [1]), ((1,), [0])]:
            g.add([g.data(dtype, shape)], {"T": dtype, "squeeze_dims": dims})


@recipe("StatelessRandomNormal", "StatelessRandomUniform")
def stateless_random(g, dtypes, budget):
    for k, dtype in enumerate(dtypes["dtype"] * 2):
        shape = g.pick([[3, 4], [1000], [0], []])
        tseed = g.pick(dtypes["Tseed"])
        g.add([g.ints(shape, g.pick(dtypes["T"])), g.ints([k, 7 * k + 1], tseed)],
              {"dtype": dtype, "Tseed": tseed})


@recipe("Tile", "BroadcastTo")
def tile(g, dtypes, budget):
    for dtype in dtypes["T"]:
        shape = g.pick([(2, 3), (3,), (1, 2, 1), ()])
        if g.op == "Tile":
            mult = [int(g.rng.integers(0, 3)) for _ in shape]
            g.add([g.data(dtype, shape), g.ints(mult, g.pick(dtypes["Tmultiples"]))],
                  {"T": dtype})
        else:
            target = [int(g.rng.integers(1, 3))] + [d if d != 1 else 3 for d in shape]
            g.add([g.data(dtype, shape), g.ints(target, g.pick(dtypes["Tidx"]))], {"T": dtype})


@recipe("TopKV2")
def top_k(g, dtypes, budget):
    for k, dtype in enumerate(dtypes["T"] * 2):
        shape = g.pick([(3, 6), (5,), (2, 2, 4)])
        kk = int(g.rng.integers(0, shape[-1] + 1))
        g.add([g.data(dtype, shape, "distinct"), g.scalar(kk, g.pick(dtypes["Tk"]))],
              {"T": dtype, "sorted": True, "index_type": g.pick(dtypes["index_type"])})


@recipe("Transpose")
def transpose(g, dtypes, budget):
    for dtype in dtypes["T"]:
        shape = g.pick(SHAPES)
        perm = g.rng.permutation(len(shape)).tolist()
        g.add([g.data(dtype, shape), g.ints(perm, g.pick(dtypes["Tperm"]))], {"T": dtype})


@recipe("UnsortedSegmentSum")
def unsorted_segment_sum(g, dtypes, budget):
    for dtype in dtypes["T"]:
        shape = g.pick([(6, 2), (5,), (4, 3, 2)])
        ti = g.pick(dtypes["Tindices"])
        ids = g.rng.integers(-1, 4, shape[:1]).astype(numpy_dtype(ti))
        g.add([g.data(dtype, shape), Operand(ids, ti), g.scalar(4, g.pick(dtypes["Tnumsegments"]))],
              {"T": dtype, "Tindices": ti})


@recipe("SpaceToBatchND", "BatchToSpaceND")
def space_batch(g, dtypes, budget):
    for dtype in dtypes["T"]:
        if g.op == "SpaceToBatchND":
            g.add([g.data(dtype, (1, 4, 5, 2)), g.ints([2, 2]), g.ints([[0, 0], [1, 0]])],
                  {"T": dtype})
        else:
            g.add([g.data(dtype, (4, 2, 3, 2)), g.ints([2, 2]), g.ints([[0, 1], [1, 0]])],
                  {"T": dtype})


@recipe("Bucketize")
def bucketize(g, dtypes, budget):
    for dtype in dtypes["T"]:
        g.add([g.data(dtype, (4, 5), "edge")], {"T": dtype, "boundaries": [-1.0, 0.0, 0.5, 3.0]})


@recipe("BroadcastGradientArgs")
def broadcast_gradient_args(g, dtypes, budget):
    pairs = [([2, 1, 3], [4, 1]), ([1, 1, 1], []), ([1, 2, 1, 3, 1], [1, 3, 1]), ([1, 5], [1, 5]),
             ([2, 1], [1]), ([0, 1], [1]), ([], []), ([2, 3], [4])]
    for dtype in dtypes["T"]:
        for s0, s1 in pairs:  # issue 37: axes where both dims are 1
            g.add([g.ints(s0, dtype), g.ints(s1, dtype)], {"T": dtype}, f"{s0} {s1}")


@recipe("Rank", "Where")
def rank_where(g, dtypes, budget):
    for dtype in dtypes["T"]:
        for shape in [(), (3, 4), (2, 0, 3), (1, 2, 1, 2, 1, 3)]:
            g.add([g.data(dtype, shape, "edge")], {"T": dtype})


@recipe("Shape", "Size")
def shape_size(g, dtypes, budget):
    for dtype in dtypes["T"]:
        g.add([g.data(dtype, g.pick(SHAPES))], {"T": dtype, "out_type": g.pick(dtypes["out_type"])})


# ---- GraphDefs ----

def _set_attr(attr_value, attr_type, value):
    if attr_type == "type":
        attr_value.type = tf.as_dtype(value).as_datatype_enum
    elif attr_type == "list(type)":
        attr_value.list.type.extend(tf.as_dtype(v).as_datatype_enum for v in value)
    elif attr_type == "int":
        attr_value.i = int(value)
    elif attr_type == "float":
        attr_value.f = float(value)
    elif attr_type == "bool":
        attr_value.b = bool(value)
    elif attr_type == "string":
        attr_value.s = value.encode()
    elif attr_type == "list(int)":
        attr_value.list.i.extend(int(v) for v in value)
    elif attr_type == "list(float)":
        attr_value.list.f.extend(float(v) for v in value)
    elif attr_type == "list(string)":
        attr_value.list.s.extend(v.encode() for v in value)
    elif attr_type == "shape":
        attr_value.shape.SetInParent()
        for d in value:
            attr_value.shape.dim.add().size = int(d)
    else:
        raise ValueError(f"attr type {attr_type} is not supported by the case generator")


def flat_inputs(case):
    out = []
    for item in case.inputs:
        out.extend(item if isinstance(item, list) else [item])
    return out


def graph_def(case, op_def):
    """The case as a GraphDef: inputs in0, in1, ... (Placeholders or Consts) and the op node "op".
    Type, number and type-list attrs follow from the operands where the case does not set them."""
    g = graph_pb2.GraphDef()
    names = []
    for k, operand in enumerate(flat_inputs(case)):
        node = g.node.add(name=f"in{k}")
        node.attr["dtype"].type = operand.dtype.as_datatype_enum
        if operand.const:
            node.op = "Const"
            node.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(operand.value, operand.dtype))
        else:
            node.op = "Placeholder"
            shape = node.attr["shape"].shape
            shape.SetInParent()  # a scalar's shape has no dims, but is set
            if operand.shape == "unknown":
                shape.unknown_rank = True
            else:
                for d in (operand.shape if operand.shape is not None else operand.value.shape):
                    shape.dim.add().size = int(d)
        names.append(node.name)
    node = g.node.add(name="op", op=case.op)
    node.input.extend(names)
    attrs = dict(case.attrs)
    for arg, item in zip(op_def.input_arg, case.inputs):
        items = item if isinstance(item, list) else [item]
        if arg.number_attr:
            attrs.setdefault(arg.number_attr, len(items))
        if arg.type_attr and items:
            attrs.setdefault(arg.type_attr, items[0].dtype)
        if arg.type_list_attr:
            attrs.setdefault(arg.type_list_attr, [o.dtype for o in items])
    types = {a.name: a.type for a in op_def.attr}
    for name, value in attrs.items():
        if name not in types:
            raise ValueError(f"{case.op} has no attr {name}")
        _set_attr(node.attr[name], types[name], value)
    return g, attrs


def flushed(case, dtype_names, flush):
    """The case with the subnormals of its operands of `dtype_names` read as 0 by `flush`, or None
    when it has none."""
    changed = False

    def flat(o):
        nonlocal changed
        if o.dtype.name not in dtype_names:
            return o
        wide = np.asarray(o.value, dtype=np.float64)
        out = flush(wide, o.dtype.name)
        if np.array_equal(out, wide, equal_nan=True):
            return o
        changed = True
        return Operand(out.astype(o.value.dtype), o.dtype, o.const, o.shape)
    inputs = [[flat(o) for o in item] if isinstance(item, list) else flat(item)
              for item in case.inputs]
    return Case(case.op, case.id + ".ftz", inputs, case.attrs, case.kind) if changed else None


def num_outputs(op_def, attrs):
    n = 0
    for arg in op_def.output_arg:
        if arg.number_attr:
            n += int(attrs[arg.number_attr])
        elif arg.type_list_attr:
            n += len(attrs[arg.type_list_attr])
        else:
            n += 1
    return n
