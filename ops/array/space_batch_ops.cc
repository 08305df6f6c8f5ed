// SpaceToBatchND and BatchToSpaceND (see space_batch_ops.h). block_shape and paddings/crops are
// host inputs: the output shape depends on their values.
#include "ops/array/space_batch_ops.h"

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "ops/array/index_tensor.h"
#include "ops/array/shape_fn_util.h"
#include "ops/op_call.h"

namespace duet {
namespace {

// Both ops: `to_batch` for SpaceToBatchND (input 2 is paddings), else BatchToSpaceND (crops).
absl::Status SpaceBatchShape(ShapeContext& ctx, bool to_batch) {
  const char* amounts_name = to_batch ? "paddings" : "crops";
  DUET_RETURN_IF_ERROR(CheckVectorInput(ctx, 1, "block_shape"));
  const Shape& input = ctx.input_shape(0);
  const Shape& block_shape = ctx.input_shape(1);
  const Shape& amounts_shape = ctx.input_shape(2);
  const DType dtype = ctx.output(0).dtype;
  const int64_t m = block_shape.unknown_rank() ? -1 : block_shape.dim(0);
  if (!amounts_shape.unknown_rank() &&
      (amounts_shape.rank() != 2 || (amounts_shape.dim(1) >= 0 && amounts_shape.dim(1) != 2) ||
       (m >= 0 && amounts_shape.dim(0) >= 0 && amounts_shape.dim(0) != m))) {
    return absl::InvalidArgumentError(absl::StrCat(amounts_name, " must have shape [M, 2] for ",
                                                   "block_shape of shape ", block_shape.str(),
                                                   ", got ", amounts_shape.str()));
  }
  if (m >= 0 && !input.unknown_rank() && input.rank() < 1 + m) {
    return absl::InvalidArgumentError(absl::StrCat("input ", input.str(),
                                                   " must have a batch dim and ", m,
                                                   " spatial dims (block_shape has ", m, ")"));
  }
  if (input.unknown_rank() || m < 0) {
    ctx.set_output(0, dtype, Shape::UnknownRank());
    return absl::OkStatus();
  }
  const auto block = ctx.input_ints(1);
  const auto amounts = ctx.input_ints(2);
  Shape out = Shape::Unknown(input.rank());
  for (int d = 1 + static_cast<int>(m); d < input.rank(); ++d) out.set_dim(d, input.dim(d));
  if (!block || !amounts) {
    ctx.set_output(0, dtype, std::move(out));
    return absl::OkStatus();
  }
  int64_t block_size = 1;
  for (int i = 0; i < m; ++i) {
    if ((*block)[i] < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("block_shape ", IntsString(*block), " must be positive"));
    }
    block_size *= (*block)[i];
  }
  for (int64_t a : *amounts) {
    if (a < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(amounts_name, " ", IntsString(*amounts), " must be non-negative"));
    }
  }
  const int64_t batch = input.dim(0);
  if (to_batch) {
    out.set_dim(0, batch < 0 ? batch : batch * block_size);
  } else if (batch >= 0) {
    if (batch % block_size != 0) {
      return absl::InvalidArgumentError(absl::StrCat("the batch dim of input ", input.str(),
                                                     " must divide by the product ", block_size,
                                                     " of block_shape ", IntsString(*block)));
    }
    out.set_dim(0, batch / block_size);
  }
  for (int i = 0; i < m; ++i) {
    const int64_t size = input.dim(1 + i), b = (*block)[i];
    const int64_t before = (*amounts)[2 * i], after = (*amounts)[2 * i + 1];
    if (size < 0) continue;
    if (to_batch) {
      const int64_t padded = size + before + after;
      if (padded % b != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("spatial dim ", i, " of input ", input.str(), " padded by ", before, " + ",
                         after, " to ", padded, " must divide by block_shape[", i, "] = ", b));
      }
      out.set_dim(1 + i, padded / b);
    } else {
      const int64_t full = size * b;
      if (before + after > full) {
        return absl::InvalidArgumentError(
            absl::StrCat("crops ", before, " + ", after, " of spatial dim ", i, " exceed its size ",
                         full, " (input ", input.str(), ", block_shape[", i, "] = ", b, ")"));
      }
      out.set_dim(1 + i, full - before - after);
    }
  }
  if (out.is_fully_defined() && ProductOverflows(out.dims())) {
    return absl::InvalidArgumentError(
        absl::StrCat("the output shape ", out.str(), " has too many elements"));
  }
  ctx.set_output(0, dtype, std::move(out));
  return absl::OkStatus();
}

absl::Status SpaceToBatchShape(ShapeContext& ctx) { return SpaceBatchShape(ctx, true); }
absl::Status BatchToSpaceShape(ShapeContext& ctx) { return SpaceBatchShape(ctx, false); }

const OpDef* const kSpaceToBatchND =
    OpDefBuilder("SpaceToBatchND")
        .Input("input", "T")
        .Input("block_shape", "Tblock_shape")
        .Input("paddings", "Tpaddings")
        .HostInputs({"block_shape", "paddings"})
        .Output("output", "T")
        .TypeAttr("T", kAllDTypes)
        .TypeAttr("Tblock_shape", kIndexTypes, kInt32)
        .TypeAttr("Tpaddings", kIndexTypes, kInt32)
        .Doc("Zero-padded spatial dims cut into blocks whose offsets move into the batch dim.")
        .SetShapeFn(SpaceToBatchShape)
        .Register();

const OpDef* const kBatchToSpaceND =
    OpDefBuilder("BatchToSpaceND")
        .Input("input", "T")
        .Input("block_shape", "Tblock_shape")
        .Input("crops", "Tcrops")
        .HostInputs({"block_shape", "crops"})
        .Output("output", "T")
        .TypeAttr("T", kAllDTypes)
        .TypeAttr("Tblock_shape", kIndexTypes, kInt32)
        .TypeAttr("Tcrops", kIndexTypes, kInt32)
        .Doc("The inverse of SpaceToBatchND: batch blocks back into spatial dims, then cropped.")
        .SetShapeFn(BatchToSpaceShape)
        .Register();

// [M, 2] int tensor of the pairs.
Tensor PairsTensor(const std::vector<std::pair<int64_t, int64_t>>& pairs) {
  std::vector<int64_t> flat;
  for (const auto& [a, b] : pairs) {
    flat.push_back(a);
    flat.push_back(b);
  }
  const Shape shape{static_cast<int64_t>(pairs.size()), 2};
  const Tensor values = IndexTensor(flat);  // int32 unless a value needs int64
  if (values.dtype() == kInt64) return from_vector(flat, shape);
  return from_vector(std::vector<int32_t>(flat.begin(), flat.end()), shape);
}

}  // namespace

Tensor space_to_batch_nd(const Tensor& input, const Tensor& block_shape, const Tensor& paddings,
                         OpSite site) {
  OpCall call(kSpaceToBatchND, {input, block_shape, paddings}, site);
  return RunSingleOutputOp(call);
}

Tensor space_to_batch_nd(const Tensor& input, const std::vector<int64_t>& block_shape,
                         const std::vector<std::pair<int64_t, int64_t>>& paddings, OpSite site) {
  return space_to_batch_nd(input, IndexTensor(block_shape), PairsTensor(paddings), site);
}

Tensor batch_to_space_nd(const Tensor& input, const Tensor& block_shape, const Tensor& crops,
                         OpSite site) {
  OpCall call(kBatchToSpaceND, {input, block_shape, crops}, site);
  return RunSingleOutputOp(call);
}

Tensor batch_to_space_nd(const Tensor& input, const std::vector<int64_t>& block_shape,
                         const std::vector<std::pair<int64_t, int64_t>>& crops, OpSite site) {
  return batch_to_space_nd(input, IndexTensor(block_shape), PairsTensor(crops), site);
}

Tensor space_to_batch_nd(const Tensor& input, std::initializer_list<int64_t> block_shape,
                         std::initializer_list<std::pair<int64_t, int64_t>> paddings, OpSite site) {
  return space_to_batch_nd(input, std::vector<int64_t>(block_shape),
                           std::vector<std::pair<int64_t, int64_t>>(paddings), site);
}

Tensor batch_to_space_nd(const Tensor& input, std::initializer_list<int64_t> block_shape,
                         std::initializer_list<std::pair<int64_t, int64_t>> crops, OpSite site) {
  return batch_to_space_nd(input, std::vector<int64_t>(block_shape),
                           std::vector<std::pair<int64_t, int64_t>>(crops), site);
}

}  // namespace duet
