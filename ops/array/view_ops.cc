// Ops whose output is a view of the input (no copy): Identity, StopGradient, Reshape,
// ExpandDims, Squeeze.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ops/array/array_attrs.h"
#include "ops/array/array_ops.h"
#include "ops/array/index_tensor.h"
#include "ops/array/shape_fn_util.h"
#include "ops/common_shape_fns.h"
#include "ops/op_call.h"

namespace duet {
namespace {

// The output shape of Reshape: `dims` with its -1 resolved against `in`'s element count.
absl::StatusOr<Shape> ReshapeTarget(const Shape& in, const std::vector<int64_t>& dims) {
  int64_t known = 1;
  int unknown_at = -1;
  for (int i = 0; i < static_cast<int>(dims.size()); ++i) {
    if (dims[i] == -1 && unknown_at < 0) {
      unknown_at = i;
    } else if (dims[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape ", IntsString(dims),
                       dims[i] == -1 ? " has more than one -1" : " has a negative dim"));
    } else if (__builtin_mul_overflow(known, dims[i], &known)) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape ", IntsString(dims), " has too many elements"));
    }
  }
  Shape out(dims);
  if (!in.is_fully_defined()) return out;  // the -1 stays unknown until run time
  const int64_t n = in.num_elements();
  if (unknown_at < 0 && known != n) {
    return absl::InvalidArgumentError(absl::StrCat("cannot reshape a tensor of shape ", in.str(),
                                                   " (", n, " elements) into shape ",
                                                   IntsString(dims), " (", known, " elements)"));
  }
  if (unknown_at >= 0) {
    if (known == 0 || n % known != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot reshape a tensor of shape ", in.str(), " (", n, " elements) into shape ",
          IntsString(dims), ": ", n, " is not a multiple of the known dims' product ", known));
    }
    out.set_dim(unknown_at, n / known);
  }
  return out;
}

absl::Status ReshapeShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckVectorInput(ctx, 1, "shape"));
  const DType dtype = ctx.output(0).dtype;
  const auto dims = ctx.input_ints(1);
  if (!dims) {
    ctx.set_output(0, dtype, UnknownShapeFromInput(ctx, 1));
    return absl::OkStatus();
  }
  DUET_ASSIGN_OR_RETURN(Shape out, ReshapeTarget(ctx.input_shape(0), *dims));
  ctx.set_output(0, dtype, std::move(out));
  return absl::OkStatus();
}

absl::Status ExpandDimsShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckScalarInput(ctx, 1, "dim"));
  const Shape& in = ctx.input_shape(0);
  const DType dtype = ctx.output(0).dtype;
  const auto axis = ctx.input_ints(1);
  if (in.unknown_rank() || !axis) {
    ctx.set_output(0, dtype, Shape::Unknown(in.unknown_rank() ? -1 : in.rank() + 1));
    return absl::OkStatus();
  }
  const int64_t a = (*axis)[0];
  if (a < -in.rank() - 1 || a > in.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("axis ", a, " is out of range for expand_dims ",
                                                   "of a tensor of rank ", in.rank(), " (allowed [",
                                                   -in.rank() - 1, ", ", in.rank(), "])"));
  }
  const int at = static_cast<int>(a < 0 ? a + in.rank() + 1 : a);
  Shape out;
  for (int i = 0; i <= in.rank(); ++i) {
    if (i == at) out.push_back(1);
    if (i < in.rank()) out.push_back(in.dim(i));
  }
  ctx.set_output(0, dtype, std::move(out));
  return absl::OkStatus();
}

absl::Status SqueezeShape(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const DType dtype = ctx.output(0).dtype;
  const auto& axes = ctx.attr(SqueezeAttrs::kSqueezeDims);
  if (in.unknown_rank()) {
    ctx.set_output(0, dtype, Shape::UnknownRank());
    return absl::OkStatus();
  }
  std::vector<bool> drop(in.rank(), false);
  for (int64_t a : axes) {
    DUET_ASSIGN_OR_RETURN(const int i, NormalizeAxis(a, in.rank()));
    if (in.rank() == 0) return absl::InvalidArgumentError("cannot squeeze a scalar");
    if (in.dim(i) != 1 && in.dim(i) != Shape::kUnknownDim) {
      return absl::InvalidArgumentError(absl::StrCat("cannot squeeze axis ", a, " of shape ",
                                                     in.str(), ": its size is ", in.dim(i),
                                                     ", not 1"));
    }
    drop[i] = true;
  }
  Shape out;
  for (int i = 0; i < in.rank(); ++i) {
    const bool squeezed = axes.empty() ? in.dim(i) == 1 : drop[i];
    if (!squeezed) out.push_back(in.dim(i));
  }
  ctx.set_output(0, dtype, std::move(out));
  return absl::OkStatus();
}

// Identity also passes TensorLists on (While bodies return their loop variables through it).
const std::vector<DType> kIdentityTypes = [] {
  std::vector<DType> types = kAllDTypesAndString;
  types.push_back(kVariant);
  return types;
}();

const OpDef* const kIdentity = OpDefBuilder("Identity")
                                   .Input("input", "T")
                                   .Output("output", "T")
                                   .TypeAttr("T", kIdentityTypes)
                                   .Doc("The input itself (a view of the same buffer).")
                                   .SetShapeFn(UnchangedShape)
                                   .Register();

const OpDef* const kStopGradient =
    OpDefBuilder("StopGradient")
        .Input("input", "T")
        .Output("output", "T")
        .TypeAttr("T", kAllDTypesAndString)
        .Doc("The input as a view; gradients do not flow through it.")
        .SetShapeFn(UnchangedShape)
        .Register();

const OpDef* const kReshape = OpDefBuilder("Reshape")
                                  .Input("tensor", "T")
                                  .Input("shape", "Tshape")
                                  .HostInputs({"shape"})
                                  .Output("output", "T")
                                  .TypeAttr("T", kAllDTypesAndString)
                                  .TypeAttr("Tshape", kIndexTypes, kInt32)
                                  .Doc("The tensor viewed with a new shape; one dim may be -1.")
                                  .SetShapeFn(ReshapeShape)
                                  .Register();

const OpDef* const kExpandDims = OpDefBuilder("ExpandDims")
                                     .Input("input", "T")
                                     .Input("dim", "Tdim")
                                     .HostInputs({"dim"})
                                     .Output("output", "T")
                                     .TypeAttr("T", kAllDTypesAndString)
                                     .TypeAttr("Tdim", kIndexTypes, kInt32)
                                     .Doc("The input with a size-1 dim inserted at `dim`.")
                                     .SetShapeFn(ExpandDimsShape)
                                     .Register();

const OpDef* const kSqueeze = OpDefBuilder("Squeeze")
                                  .Input("input", "T")
                                  .Output("output", "T")
                                  .TypeAttr(SqueezeAttrs::kT, kAllDTypesAndString)
                                  .IntListAttr(SqueezeAttrs::kSqueezeDims, std::vector<int64_t>{})
                                  .Doc("The input without the given (or all) size-1 dims.")
                                  .SetShapeFn(SqueezeShape)
                                  .Register();

}  // namespace

Tensor identity(const Tensor& x, OpSite site) {
  OpCall call(kIdentity, {x}, site);
  return RunSingleOutputOp(call);
}

Tensor stop_gradient(const Tensor& x, OpSite site) {
  OpCall call(kStopGradient, {x}, site);
  return RunSingleOutputOp(call);
}

Tensor reshape(const Tensor& x, const Shape& shape, OpSite site) {
  return reshape(x, IndexTensor(shape.dims()), site);
}

Tensor reshape(const Tensor& x, std::initializer_list<int64_t> shape, OpSite site) {
  return reshape(x, Shape(shape), site);
}

Tensor reshape(const Tensor& x, const Tensor& shape, OpSite site) {
  OpCall call(kReshape, {x, shape}, site);
  return RunSingleOutputOp(call);
}

Tensor expand_dims(const Tensor& x, int64_t axis, OpSite site) {
  OpCall call(kExpandDims, {x, IndexScalar(axis)}, site);
  return RunSingleOutputOp(call);
}

Tensor squeeze(const Tensor& x, std::vector<int64_t> axes, OpSite site) {
  OpCall call(kSqueeze, {x}, site);
  call.set(SqueezeAttrs::kSqueezeDims, std::move(axes));
  return RunSingleOutputOp(call);
}

}  // namespace duet
