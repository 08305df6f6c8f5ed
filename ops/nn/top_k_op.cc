// TopKV2: the k largest entries of each row along the last axis, and where they were.
#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

absl::Status TopKShape(ShapeContext& ctx) {
  const Shape& input = ctx.input_shape(0);
  const Shape& k_shape = ctx.input_shape(1);
  if (!k_shape.unknown_rank() && k_shape.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("k must be a scalar, got shape ", k_shape.str()));
  }
  if (!input.unknown_rank() && input.rank() == 0) {
    return absl::InvalidArgumentError("input must be at least 1-D, got a scalar");
  }
  const DType index_type = ctx.attr(TopKAttrs::kIndexType);
  const DType dtype = ctx.output(0).dtype;
  int64_t k = Shape::kUnknownDim;
  if (const auto value = ctx.input_ints(1)) {
    k = (*value)[0];
    if (k < 0) return absl::InvalidArgumentError(absl::StrCat("k must be non-negative, got ", k));
  }
  if (input.unknown_rank()) {
    ctx.set_output(0, dtype, Shape::UnknownRank());
    ctx.set_output(1, index_type, Shape::UnknownRank());
    return absl::OkStatus();
  }
  const int64_t n = input.dim(input.rank() - 1);
  if (k >= 0 && n >= 0 && k > n) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must have at least k = ", k, " columns, got shape ", input.str()));
  }
  Shape out(input.dims().subspan(0, input.rank() - 1));
  out.push_back(k);
  ctx.set_output(0, dtype, out);
  ctx.set_output(1, index_type, std::move(out));
  return absl::OkStatus();
}

const OpDef* const kTopKV2 =
    OpDefBuilder("TopKV2")
        .Input("input", "T")
        .Input("k", "Tk")
        .HostInputs({"k"})
        .Output("values", "T")
        .Output("indices", "index_type")
        .BoolAttr(TopKAttrs::kSorted, true)
        .TypeAttr(TopKAttrs::kT, kRealNumberTypes)
        .TypeAttr(TopKAttrs::kTk, kIndexTypes, kInt32)
        .TypeAttr(TopKAttrs::kIndexType, kIndexTypes, kInt32)
        .Doc("The k largest entries of each last-axis row of input, and their indices.")
        .SetShapeFn(TopKShape)
        .Register();

}  // namespace

TopKResult top_k(const Tensor& input, int64_t k, bool sorted, DType index_type, OpSite site) {
  const Tensor k_tensor = k == static_cast<int32_t>(k)
                              ? from_vector(std::vector<int32_t>{static_cast<int32_t>(k)}, Shape{})
                              : from_vector(std::vector<int64_t>{k}, Shape{});
  OpCall call(kTopKV2, {input, k_tensor}, site);
  call.set(TopKAttrs::kSorted, sorted);
  call.set(TopKAttrs::kIndexType, index_type);
  OutputList out = RunOp(call);
  return {out[0], out[1]};
}

}  // namespace duet
