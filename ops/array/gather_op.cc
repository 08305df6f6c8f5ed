// GatherV2: picks slices of params along an axis by integer indices.
#include "absl/strings/str_cat.h"
#include "ops/array/array_attrs.h"
#include "ops/array/array_ops.h"
#include "ops/array/index_tensor.h"
#include "ops/array/shape_fn_util.h"
#include "ops/op_call.h"

namespace duet {
namespace {

absl::Status GatherShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckScalarInput(ctx, 2, "axis"));
  if (ctx.attr(GatherAttrs::kBatchDims) != 0) {
    return absl::UnimplementedError("GatherV2 with batch_dims != 0 is not supported");
  }
  const Shape& params = ctx.input_shape(0);
  const Shape& indices = ctx.input_shape(1);
  const DType dtype = ctx.output(0).dtype;
  const auto axis_value = ctx.input_ints(2);
  if (params.unknown_rank() || indices.unknown_rank() || !axis_value) {
    ctx.set_output(0, dtype, Shape::UnknownRank());
    return absl::OkStatus();
  }
  if (params.rank() == 0) {
    return absl::InvalidArgumentError("params must be at least 1-D, got a scalar");
  }
  DUET_ASSIGN_OR_RETURN(const int axis, NormalizeAxis((*axis_value)[0], params.rank()));
  Shape out;
  for (int d = 0; d < axis; ++d) out.push_back(params.dim(d));
  for (int64_t d : indices.dims()) out.push_back(d);
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
                                   .Doc("Slices of params along an axis picked by indices.")
                                   .SetShapeFn(GatherShape)
                                   .Register();

}  // namespace

Tensor gather(const Tensor& params, const Tensor& indices, int64_t axis, OpSite site) {
  OpCall call(kGatherV2, {params, indices, IndexScalar(axis)}, site);
  return RunSingleOutputOp(call);
}

}  // namespace duet
