// GatherNd, ScatterNd, TensorScatterUpdate, TensorScatterAdd: slices picked by rows of indices.
//
// Note [Nd indices]: indices of shape batch + [K] hold one row of K coordinates per slice; a row
// indexes the first K dims of a shape S (params', the output's or tensor's), and its slice is
// S[K:]. The slices' tensor (GatherNd's output, the scatters' updates) has shape batch + S[K:].
// K = 0 picks the whole of S for every row.
#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "ops/array/array_attrs.h"
#include "ops/array/array_ops.h"
#include "ops/array/shape_fn_util.h"
#include "ops/op_call.h"

namespace duet {
namespace {

// TensorFlow's values of bad_indices_policy that duet honours: all report a bad row on the CPU.
const std::vector<std::string> kBadIndicesPolicies = {"", "DEFAULT", "ERROR"};

// batch + shape[K:] for indices of shape batch + [K] (Note [Nd indices]). Ranks known, K known.
Shape SlicesShape(const Shape& indices, const Shape& shape) {
  const int64_t k = indices.dim(indices.rank() - 1);
  Shape out;
  for (int d = 0; d + 1 < indices.rank(); ++d) out.push_back(indices.dim(d));
  for (int d = static_cast<int>(k); d < shape.rank(); ++d) out.push_back(shape.dim(d));
  return out;
}

absl::Status CheckIndicesRank(const Shape& indices) {
  if (!indices.unknown_rank() && indices.rank() == 0) {
    return absl::InvalidArgumentError("indices must be at least 1-D, got a scalar");
  }
  return absl::OkStatus();
}

// OK when K fits `shape` (called `name`) and updates has shape batch + shape[K:], as far as known.
absl::Status CheckUpdates(const Shape& indices, const Shape& updates, const Shape& shape,
                          absl::string_view name) {
  DUET_RETURN_IF_ERROR(CheckIndicesRank(indices));
  if (indices.unknown_rank() || shape.unknown_rank()) return absl::OkStatus();
  const int64_t k = indices.dim(indices.rank() - 1);
  if (k < 0) return absl::OkStatus();
  if (k > shape.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("the last dim of indices ", indices.str(),
                                                   " must be at most the rank of ", name, " ",
                                                   shape.str()));
  }
  if (updates.unknown_rank()) return absl::OkStatus();
  const Shape expected = SlicesShape(indices, shape);
  bool ok = updates.rank() == expected.rank();
  for (int d = 0; ok && d < expected.rank(); ++d) {
    ok = updates.dim(d) < 0 || expected.dim(d) < 0 || updates.dim(d) == expected.dim(d);
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "updates shape ", updates.str(), " must be indices.shape[:-1] + ", name, ".shape[", k,
        ":] = ", expected.str(), " for indices ", indices.str(), " and ", name, " ", shape.str()));
  }
  return absl::OkStatus();
}

absl::Status GatherNdShape(ShapeContext& ctx) {
  const Shape& params = ctx.input_shape(0);
  const Shape& indices = ctx.input_shape(1);
  const DType dtype = ctx.output(0).dtype;
  DUET_RETURN_IF_ERROR(CheckIndicesRank(indices));
  if (!params.unknown_rank() && params.rank() == 0) {
    return absl::InvalidArgumentError("params must be at least 1-D, got a scalar");
  }
  if (params.unknown_rank() || indices.unknown_rank() || indices.dim(indices.rank() - 1) < 0) {
    ctx.set_output(0, dtype, Shape::UnknownRank());
    return absl::OkStatus();
  }
  if (indices.dim(indices.rank() - 1) > params.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("the last dim of indices ", indices.str(),
                                                   " must be at most the rank of params ",
                                                   params.str()));
  }
  ctx.set_output(0, dtype, SlicesShape(indices, params));
  return absl::OkStatus();
}

absl::Status ScatterNdShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckVectorInput(ctx, 2, "shape"));
  DUET_ASSIGN_OR_RETURN(const std::optional<Shape> shape, ShapeFromInput(ctx, 2, "shape"));
  const Shape out = shape ? *shape : UnknownShapeFromInput(ctx, 2);
  DUET_RETURN_IF_ERROR(CheckUpdates(ctx.input_shape(0), ctx.input_shape(1), out, "shape"));
  ctx.set_output(0, ctx.output(0).dtype, out);
  return absl::OkStatus();
}

absl::Status TensorScatterShape(ShapeContext& ctx) {
  const Shape& tensor = ctx.input_shape(0);
  DUET_RETURN_IF_ERROR(CheckUpdates(ctx.input_shape(1), ctx.input_shape(2), tensor, "tensor"));
  ctx.set_output(0, ctx.output(0).dtype, tensor);
  return absl::OkStatus();
}

const OpDef* const kGatherNd =
    OpDefBuilder("GatherNd")
        .Input("params", "Tparams")
        .Input("indices", "Tindices")
        .Output("output", "Tparams")
        .TypeAttr(GatherNdAttrs::kTparams, kAllDTypes)
        .TypeAttr(GatherNdAttrs::kTindices, kIndexTypes)
        .StringAttr(GatherNdAttrs::kBadIndicesPolicy, "", kBadIndicesPolicies)
        .Doc("Slices of params picked by the rows of indices, which index its first dims.")
        .SetShapeFn(GatherNdShape)
        .Register();

const OpDef* const kScatterNd =
    OpDefBuilder("ScatterNd")
        .Input("indices", "Tindices")
        .Input("updates", "T")
        .Input("shape", "Tindices")
        .HostInputs({"shape"})
        .Output("output", "T")
        .TypeAttr(ScatterNdAttrs::kT, kRealNumberTypes)
        .TypeAttr(ScatterNdAttrs::kTindices, kIndexTypes)
        .StringAttr(ScatterNdAttrs::kBadIndicesPolicy, "", kBadIndicesPolicies)
        .Doc("Zeros of a shape with updates added at the slices the rows of indices pick.")
        .SetShapeFn(ScatterNdShape)
        .Register();

const OpDef* const kTensorScatterUpdate =
    OpDefBuilder("TensorScatterUpdate")
        .Input("tensor", "T")
        .Input("indices", "Tindices")
        .Input("updates", "T")
        .Output("output", "T")
        .TypeAttr(ScatterNdAttrs::kT, kAllDTypes)
        .TypeAttr(ScatterNdAttrs::kTindices, kIndexTypes)
        .StringAttr(ScatterNdAttrs::kBadIndicesPolicy, "", kBadIndicesPolicies)
        .Doc("A tensor with the slices the rows of indices pick replaced by updates.")
        .SetShapeFn(TensorScatterShape)
        .Register();

const OpDef* const kTensorScatterAdd =
    OpDefBuilder("TensorScatterAdd")
        .Input("tensor", "T")
        .Input("indices", "Tindices")
        .Input("updates", "T")
        .Output("output", "T")
        .TypeAttr(ScatterNdAttrs::kT, kRealNumberTypes)
        .TypeAttr(ScatterNdAttrs::kTindices, kIndexTypes)
        .StringAttr(ScatterNdAttrs::kBadIndicesPolicy, "", kBadIndicesPolicies)
        .Doc("A tensor with updates added at the slices the rows of indices pick.")
        .SetShapeFn(TensorScatterShape)
        .Register();

}  // namespace

Tensor gather_nd(const Tensor& params, const Tensor& indices, OpSite site) {
  OpCall call(kGatherNd, {params, indices}, site);
  return RunSingleOutputOp(call);
}

Tensor scatter_nd(const Tensor& indices, const Tensor& updates, const Tensor& shape, OpSite site) {
  OpCall call(kScatterNd, {indices, updates, shape}, site);
  return RunSingleOutputOp(call);
}

Tensor scatter_nd(const Tensor& indices, const Tensor& updates, const Shape& shape, OpSite site) {
  const auto dims = shape.dims();
  const Tensor dims_tensor = indices.dtype() == kInt64
                                 ? from_vector(std::vector<int64_t>(dims.begin(), dims.end()))
                                 : from_vector(std::vector<int32_t>(dims.begin(), dims.end()));
  return scatter_nd(indices, updates, dims_tensor, site);
}

Tensor tensor_scatter_update(const Tensor& tensor, const Tensor& indices, const Tensor& updates,
                             OpSite site) {
  OpCall call(kTensorScatterUpdate, {tensor, indices, updates}, site);
  return RunSingleOutputOp(call);
}

Tensor tensor_scatter_add(const Tensor& tensor, const Tensor& indices, const Tensor& updates,
                          OpSite site) {
  OpCall call(kTensorScatterAdd, {tensor, indices, updates}, site);
  return RunSingleOutputOp(call);
}

}  // namespace duet
