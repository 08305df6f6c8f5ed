// OneHot: integer indices to one-hot vectors along a new axis.
#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "ops/array/array_attrs.h"
#include "ops/array/array_ops.h"
#include "ops/array/shape_fn_util.h"
#include "ops/op_call.h"

namespace duet {
namespace {

absl::Status OneHotShape(ShapeContext& ctx) {
  const Shape& indices = ctx.input_shape(0);
  DUET_RETURN_IF_ERROR(CheckScalarInput(ctx, 1, "depth"));
  DUET_RETURN_IF_ERROR(CheckScalarInput(ctx, 2, "on_value"));
  DUET_RETURN_IF_ERROR(CheckScalarInput(ctx, 3, "off_value"));
  const DType dtype = ctx.output(0).dtype;
  const int64_t axis = ctx.attr(OneHotAttrs::kAxis);
  if (indices.unknown_rank()) {
    ctx.set_output(0, dtype, Shape::UnknownRank());
    return absl::OkStatus();
  }
  if (axis < -1 || axis > indices.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("axis ", axis, " is out of range for one_hot ",
                                                   "of indices with shape ", indices.str(),
                                                   " (allowed -1..", indices.rank(), ")"));
  }
  const auto depth = ctx.input_ints(1);
  if (depth && (*depth)[0] < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("depth must be non-negative, got ", (*depth)[0]));
  }
  const int at = axis == -1 ? indices.rank() : static_cast<int>(axis);
  Shape out;
  for (int d = 0; d <= indices.rank(); ++d) {
    if (d == at) out.push_back(depth ? (*depth)[0] : Shape::kUnknownDim);
    if (d < indices.rank()) out.push_back(indices.dim(d));
  }
  ctx.set_output(0, dtype, std::move(out));
  return absl::OkStatus();
}

const OpDef* const kOneHot = OpDefBuilder("OneHot")
                                 .Input("indices", "TI")
                                 .Input("depth", kInt32)
                                 .HostInputs({"depth"})
                                 .Input("on_value", "T")
                                 .Input("off_value", "T")
                                 .Output("output", "T")
                                 .IntAttr(OneHotAttrs::kAxis, -1)
                                 .TypeAttr(OneHotAttrs::kT, kAllDTypes)
                                 .TypeAttr(OneHotAttrs::kTI, kIndexTypes, kInt64)
                                 .Doc("One-hot vectors of depth `depth` along a new axis.")
                                 .SetShapeFn(OneHotShape)
                                 .Register();

}  // namespace

Tensor one_hot(const Tensor& indices, int64_t depth, double on_value, double off_value,
               int64_t axis, DType dtype, OpSite site) {
  // Depth is int32 in TensorFlow's signature; larger depths could not be allocated anyway.
  const int64_t clamped = std::clamp<int64_t>(depth, std::numeric_limits<int32_t>::min(),
                                              std::numeric_limits<int32_t>::max());
  OpCall call(kOneHot,
              {indices, constant(static_cast<int32_t>(clamped)), scalar(on_value, dtype),
               scalar(off_value, dtype)},
              site);
  call.set(OneHotAttrs::kAxis, axis);
  return RunSingleOutputOp(call);
}

}  // namespace duet
