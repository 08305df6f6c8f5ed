// GatherV2: picks slices of params along an axis by integer indices.
#include "absl/strings/str_cat.h"
#include "ops/array/array_attrs.h"
#include "ops/array/array_ops.h"
#include "ops/array/index_tensor.h"
#include "ops/array/shape_fn_util.h"
#include "ops/op_call.h"

namespace duet {
namespace {

// With batch_dims = b (negative: counted from indices' rank), params and indices share their
// first b dims, and each batch row gathers from its own params: the output is params[:axis] +
// indices[b:] + params[axis + 1:], with b <= axis.
absl::Status GatherShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckScalarInput(ctx, 2, "axis"));
  const Shape& params = ctx.input_shape(0);
  const Shape& indices = ctx.input_shape(1);
  const DType dtype = ctx.output(0).dtype;
  const auto axis_value = ctx.input_ints(2);
  int64_t batch_dims = ctx.attr(GatherAttrs::kBatchDims);
  if (indices.unknown_rank() && batch_dims < 0) {
    ctx.set_output(0, dtype, Shape::UnknownRank());
    return absl::OkStatus();
  }
  if (batch_dims < 0) batch_dims += indices.rank();
  if (batch_dims < 0 || (!indices.unknown_rank() && batch_dims > indices.rank())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "batch_dims ", ctx.attr(GatherAttrs::kBatchDims), " must be in [-", indices.rank(), ", ",
        indices.rank(), "] for indices of shape ", indices.str()));
  }
  if (params.unknown_rank() || indices.unknown_rank() || !axis_value) {
    ctx.set_output(0, dtype, Shape::UnknownRank());
    return absl::OkStatus();
  }
  if (params.rank() == 0) {
    return absl::InvalidArgumentError("params must be at least 1-D, got a scalar");
  }
  if (batch_dims >= params.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "batch_dims ", batch_dims, " must be less than the rank of params ", params.str()));
  }
  DUET_ASSIGN_OR_RETURN(const int axis, NormalizeAxis((*axis_value)[0], params.rank()));
  if (axis < batch_dims) {
    return absl::InvalidArgumentError(absl::StrCat("axis ", (*axis_value)[0],
                                                   " must be >= batch_dims ", batch_dims,
                                                   " (params ", params.str(), ")"));
  }
  for (int d = 0; d < batch_dims; ++d) {
    const int64_t p = params.dim(d), i = indices.dim(d);
    if (p >= 0 && i >= 0 && p != i) {
      return absl::InvalidArgumentError(absl::StrCat(
          "params ", params.str(), " and indices ", indices.str(), " must have the same first ",
          batch_dims, " (batch_dims) dims, but dim ", d, " is ", p, " and ", i));
    }
  }
  Shape out;
  for (int d = 0; d < axis; ++d) out.push_back(params.dim(d));
  for (int d = static_cast<int>(batch_dims); d < indices.rank(); ++d) {
    out.push_back(indices.dim(d));
  }
  for (int d = axis + 1; d < params.rank(); ++d) out.push_back(params.dim(d));
  ctx.set_output(0, dtype, std::move(out));
  return absl::OkStatus();
}

const OpDef* const kGatherV2 = OpDefBuilder("GatherV2")
                                   .Input("params", "Tparams")
                                   .Input("indices", "Tindices")
                                   .Input("axis", "Taxis")
                                   .HostInputs({"axis"})
                                   .Output("output", "Tparams")
                                   .IntAttr(GatherAttrs::kBatchDims, 0)
                                   .TypeAttr(GatherAttrs::kTparams, kAllDTypesAndString)
                                   .TypeAttr(GatherAttrs::kTindices, kIndexTypes)
                                   .TypeAttr(GatherAttrs::kTaxis, kIndexTypes, kInt32)
                                   .Doc(
                                       "Slices of params along an axis picked by indices; with "
                                       "batch_dims, per row of the dims both share.")
                                   .SetShapeFn(GatherShape)
                                   .Register();

}  // namespace

Tensor gather(const Tensor& params, const Tensor& indices, int64_t axis, OpSite site) {
  return gather(params, indices, axis, 0, std::move(site));
}

Tensor gather(const Tensor& params, const Tensor& indices, int64_t axis, int64_t batch_dims,
              OpSite site) {
  OpCall call(kGatherV2, {params, indices, IndexScalar(axis)}, site);
  call.set(GatherAttrs::kBatchDims, batch_dims);
  return RunSingleOutputOp(call);
}

}  // namespace duet
