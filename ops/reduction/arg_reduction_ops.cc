// ArgMax and ArgMin: the index of the extreme value along one axis.
#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "ops/op_call.h"
#include "ops/reduction/reduction_attrs.h"
#include "ops/reduction/reduction_ops.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

absl::Status ArgReductionShape(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const Shape& dim_shape = ctx.input_shape(1);
  if (!dim_shape.unknown_rank() && dim_shape.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("dimension must be a scalar, got shape ", dim_shape.str()));
  }
  const DType out_type = ctx.attr(ArgReductionAttrs::kOutputType);
  const auto axis = ctx.input_ints(1);
  if (in.unknown_rank() || !axis) {
    ctx.set_output(0, out_type,
                   Shape::Unknown(in.unknown_rank() ? -1 : std::max(in.rank() - 1, 0)));
    return absl::OkStatus();
  }
  const int64_t a = (*axis)[0];
  if (a < -in.rank() || a >= in.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis ", a, " is out of range for a tensor of rank ", in.rank()));
  }
  const int d = static_cast<int>(a < 0 ? a + in.rank() : a);
  if (in.dim(d) == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis ", a, " of shape ", in.str(), " is empty: there is no index to return"));
  }
  if (out_type == kInt32 && in.dim(d) > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis ", a, " of shape ", in.str(), " is too long for int32 indices"));
  }
  Shape out;
  for (int i = 0; i < in.rank(); ++i) {
    if (i != d) out.push_back(in.dim(i));
  }
  ctx.set_output(0, out_type, std::move(out));
  return absl::OkStatus();
}

const OpDef* RegisterArgReduction(const char* name, const char* doc) {
  return OpDefBuilder(name)
      .Input("input", "T")
      .Input("dimension", "Tidx")
      .HostInputs({"dimension"})
      .Output("output", "output_type")
      .TypeAttr(ArgReductionAttrs::kT, {kFloat32, kFloat64, kInt32, kInt64})
      .TypeAttr(ArgReductionAttrs::kTidx, {kInt32, kInt64}, kInt32)
      .TypeAttr(ArgReductionAttrs::kOutputType, {kInt32, kInt64}, kInt64)
      .Doc(doc)
      .SetShapeFn(ArgReductionShape)
      .Register();
}

const OpDef* const kArgMax =
    RegisterArgReduction("ArgMax", "Index of the largest value along an axis.");
const OpDef* const kArgMin =
    RegisterArgReduction("ArgMin", "Index of the smallest value along an axis.");

Tensor ArgReduce(const OpDef* op, const Tensor& x, int64_t axis, DType output_type, OpSite site) {
  const bool fits =
      axis >= std::numeric_limits<int32_t>::min() && axis <= std::numeric_limits<int32_t>::max();
  OpCall call(op, {x, fits ? constant(static_cast<int32_t>(axis)) : constant(axis)}, site);
  call.set(ArgReductionAttrs::kOutputType, output_type);
  return RunSingleOutputOp(call);
}

}  // namespace

Tensor argmax(const Tensor& x, int64_t axis, DType output_type, OpSite site) {
  return ArgReduce(kArgMax, x, axis, output_type, site);
}

Tensor argmin(const Tensor& x, int64_t axis, DType output_type, OpSite site) {
  return ArgReduce(kArgMin, x, axis, output_type, site);
}

}  // namespace duet
