// Cumsum and Cumprod: running sums and products along one axis (scans).
#include <limits>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "ops/op_call.h"
#include "ops/reduction/reduction_attrs.h"
#include "ops/reduction/reduction_ops.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

// The output has the input's shape; the axis must be a scalar naming one of the input's dims.
absl::Status ScanShape(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const Shape& axis_shape = ctx.input_shape(1);
  if (!axis_shape.unknown_rank() && axis_shape.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis must be a scalar, got shape ", axis_shape.str()));
  }
  if (!in.unknown_rank() && in.rank() == 0) {
    return absl::InvalidArgumentError("the input must have rank at least 1, got a scalar");
  }
  const auto axis = ctx.input_ints(1);
  if (!in.unknown_rank() && axis) {
    const int64_t a = (*axis)[0];
    if (a < -in.rank() || a >= in.rank()) {
      return absl::InvalidArgumentError(
          absl::StrCat("axis ", a, " is out of range for a tensor of rank ", in.rank()));
    }
  }
  ctx.set_output(0, ctx.output(0).dtype, in);
  return absl::OkStatus();
}

const OpDef* RegisterScan(const char* name, const char* doc) {
  return OpDefBuilder(name)
      .Input("x", "T")
      .Input("axis", "Tidx")
      .HostInputs({"axis"})
      .Output("out", "T")
      .BoolAttr(ScanAttrs::kExclusive, false)
      .BoolAttr(ScanAttrs::kReverse, false)
      .TypeAttr(ScanAttrs::kT, {kFloat32, kFloat64, kInt32, kInt64})
      .TypeAttr(ScanAttrs::kTidx, {kInt32, kInt64}, kInt32)
      .Doc(doc)
      .SetShapeFn(ScanShape)
      .Register();
}

const OpDef* const kCumsum =
    RegisterScan("Cumsum",
                 "Running sum along an axis (exclusive: without the element itself; reverse: from "
                 "the end).");
const OpDef* const kCumprod =
    RegisterScan("Cumprod",
                 "Running product along an axis (exclusive: without the element itself; reverse: "
                 "from the end).");

Tensor Scan(const OpDef* op, const Tensor& x, const Tensor& axis, bool exclusive, bool reverse,
            OpSite site) {
  OpCall call(op, {x, axis}, site);
  call.set(ScanAttrs::kExclusive, exclusive);
  call.set(ScanAttrs::kReverse, reverse);
  return RunSingleOutputOp(call);
}

Tensor AxisTensor(int64_t axis) {
  const bool fits =
      axis >= std::numeric_limits<int32_t>::min() && axis <= std::numeric_limits<int32_t>::max();
  return fits ? constant(static_cast<int32_t>(axis)) : constant(axis);
}

}  // namespace

Tensor cumsum(const Tensor& x, int64_t axis, bool exclusive, bool reverse, OpSite site) {
  return Scan(kCumsum, x, AxisTensor(axis), exclusive, reverse, site);
}

Tensor cumsum(const Tensor& x, const Tensor& axis, bool exclusive, bool reverse, OpSite site) {
  return Scan(kCumsum, x, axis, exclusive, reverse, site);
}

Tensor cumprod(const Tensor& x, int64_t axis, bool exclusive, bool reverse, OpSite site) {
  return Scan(kCumprod, x, AxisTensor(axis), exclusive, reverse, site);
}

Tensor cumprod(const Tensor& x, const Tensor& axis, bool exclusive, bool reverse, OpSite site) {
  return Scan(kCumprod, x, axis, exclusive, reverse, site);
}

}  // namespace duet
