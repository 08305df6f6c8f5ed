// DenseBincount: per row of integer values, how often each value in [0, size) occurs (or the sum
// of the weights at its occurrences) -- what Keras' CategoryEncoding freezes to.
#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "ops/array/array_attrs.h"
#include "ops/array/index_tensor.h"
#include "ops/array/segment_ops.h"
#include "ops/array/shape_fn_util.h"
#include "ops/op_call.h"

namespace duet {
namespace {

// Weights of the input's shape, or none (an empty tensor: every occurrence counts 1).
absl::Status CheckWeights(const Shape& input, const Shape& weights) {
  if (weights.unknown_rank() || input.unknown_rank()) return absl::OkStatus();
  const bool empty = weights.is_fully_defined() && weights.num_elements() == 0;
  if (empty || weights.IsCompatibleWith(input)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("weights must be empty or of the input's shape ",
                                                 input.str(), ", got shape ", weights.str()));
}

absl::Status DenseBincountShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckScalarInput(ctx, 1, "size"));
  const Shape& input = ctx.input_shape(0);
  if (!input.unknown_rank() && input.rank() != 1 && input.rank() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be 1-D or 2-D (rows of values), got shape ", input.str()));
  }
  DUET_RETURN_IF_ERROR(CheckWeights(input, ctx.input_shape(2)));
  int64_t size = Shape::kUnknownDim;
  if (const auto value = ctx.input_ints(1)) {
    size = (*value)[0];
    if (size < 0) return absl::InvalidArgumentError(absl::StrCat("size (", size, ") is negative"));
  }
  const DType dtype = ctx.output(0).dtype;
  if (input.unknown_rank()) {
    ctx.set_output(0, dtype, Shape::UnknownRank());
  } else {
    ctx.set_output(0, dtype, input.rank() == 1 ? Shape{size} : Shape{input.dim(0), size});
  }
  return absl::OkStatus();
}

const OpDef* const kDenseBincount =
    OpDefBuilder("DenseBincount")
        .Input("input", "Tidx")
        .Input("size", "Tidx")
        .Input("weights", "T")
        .HostInputs({"size"})
        .Output("output", "T")
        .TypeAttr(DenseBincountAttrs::kTidx, kIndexTypes)
        .TypeAttr(DenseBincountAttrs::kT, {kInt32, kInt64, kFloat32, kFloat64})
        .BoolAttr(DenseBincountAttrs::kBinaryOutput, false)
        .Doc(
            "Per row of input (1-D: one row), output[..., v] sums weights where input == v (1 "
            "each when weights is empty), for v in [0, size); larger values are dropped, "
            "negative ones are an error. binary_output: 1 where v occurs at all.")
        .SetShapeFn(DenseBincountShape)
        .Register();

}  // namespace

Tensor dense_bincount(const Tensor& input, int64_t size, const Tensor& weights, bool binary_output,
                      OpSite site) {
  // size has the input's dtype (Tidx).
  const Tensor size_tensor = input.dtype() == kInt64 ? constant<int64_t>(size) : IndexScalar(size);
  OpCall call(kDenseBincount, {input, size_tensor, weights}, site);
  call.set(DenseBincountAttrs::kBinaryOutput, binary_output);
  return RunSingleOutputOp(call);
}

}  // namespace duet
