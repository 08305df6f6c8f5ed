// Repeating data: Tile and BroadcastTo.
#include "absl/strings/str_cat.h"
#include "ops/array/array_ops.h"
#include "ops/array/index_tensor.h"
#include "ops/array/shape_fn_util.h"
#include "ops/op_call.h"

namespace duet {
namespace {

absl::Status TileShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckVectorInput(ctx, 1, "multiples"));
  const Shape& in = ctx.input_shape(0);
  const DType dtype = ctx.output(0).dtype;
  const auto multiples = ctx.input_ints(1);
  if (in.unknown_rank() || !multiples) {
    ctx.set_output(0, dtype, Shape::Unknown(in.unknown_rank() ? -1 : in.rank()));
    return absl::OkStatus();
  }
  if (static_cast<int>(multiples->size()) != in.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("multiples ", IntsString(*multiples), " has ",
                                                   multiples->size(), " entries but the input has ",
                                                   "shape ", in.str()));
  }
  Shape out;
  int64_t n = 1;
  for (int d = 0; d < in.rank(); ++d) {
    const int64_t m = (*multiples)[d];
    if (m < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("multiples ", IntsString(*multiples), " must be non-negative"));
    }
    int64_t dim = Shape::kUnknownDim;
    if (in.dim(d) >= 0) {
      if (__builtin_mul_overflow(in.dim(d), m, &dim) || __builtin_mul_overflow(n, dim, &n)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "tiling shape ", in.str(), " by ", IntsString(*multiples), " gives too many elements"));
      }
    }
    out.push_back(dim);
  }
  ctx.set_output(0, dtype, std::move(out));
  return absl::OkStatus();
}

absl::Status BroadcastToShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckVectorInput(ctx, 1, "shape"));
  const Shape& in = ctx.input_shape(0);
  const DType dtype = ctx.output(0).dtype;
  DUET_ASSIGN_OR_RETURN(const std::optional<Shape> dims, ShapeFromInput(ctx, 1, "shape"));
  if (!dims) {
    ctx.set_output(0, dtype, UnknownShapeFromInput(ctx, 1));
    return absl::OkStatus();
  }
  const Shape& target = *dims;
  bool ok = in.unknown_rank() || in.rank() <= target.rank();
  for (int i = 1; ok && !in.unknown_rank() && i <= in.rank(); ++i) {
    const int64_t a = in.dim(in.rank() - i), b = target.dim(target.rank() - i);
    ok = a == b || a == 1 || a < 0;
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot broadcast shape ", in.str(), " to ", target.str()));
  }
  ctx.set_output(0, dtype, target);
  return absl::OkStatus();
}

const OpDef* const kTile = OpDefBuilder("Tile")
                               .Input("input", "T")
                               .Input("multiples", "Tmultiples")
                               .HostInputs({"multiples"})
                               .Output("output", "T")
                               .TypeAttr("T", kAllDTypes)
                               .TypeAttr("Tmultiples", kIndexTypes, kInt32)
                               .Doc("The input repeated multiples[i] times along each dim i.")
                               .SetShapeFn(TileShape)
                               .Register();

const OpDef* const kBroadcastTo = OpDefBuilder("BroadcastTo")
                                      .Input("input", "T")
                                      .Input("shape", "Tidx")
                                      .HostInputs({"shape"})
                                      .Output("output", "T")
                                      .TypeAttr("T", kAllDTypes)
                                      .TypeAttr("Tidx", kIndexTypes, kInt32)
                                      .Doc("The input broadcast (NumPy rules) to a shape.")
                                      .SetShapeFn(BroadcastToShape)
                                      .Register();

}  // namespace

Tensor tile(const Tensor& x, std::vector<int64_t> multiples, OpSite site) {
  OpCall call(kTile, {x, IndexTensor(multiples)}, site);
  return RunSingleOutputOp(call);
}

Tensor broadcast_to(const Tensor& x, const Shape& shape, OpSite site) {
  return broadcast_to(x, IndexTensor(shape.dims()), site);
}

Tensor broadcast_to(const Tensor& x, std::initializer_list<int64_t> shape, OpSite site) {
  return broadcast_to(x, Shape(shape), site);
}

Tensor broadcast_to(const Tensor& x, const Tensor& shape, OpSite site) {
  OpCall call(kBroadcastTo, {x, shape}, site);
  return RunSingleOutputOp(call);
}

}  // namespace duet
