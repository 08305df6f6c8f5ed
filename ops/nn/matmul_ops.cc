// MatMul and BatchMatMulV2, and the matmul() op function that picks between them.
#include "absl/strings/str_cat.h"
#include "ops/nn/matmul_shape.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

const std::vector<DType> kMatMulTypes = {kFloat32, kFloat64, kBFloat16};

absl::Status MatMulShape(ShapeContext& ctx) {
  DUET_ASSIGN_OR_RETURN(Shape out, MatMulOutputShape(ctx.input_shape(0), ctx.input_shape(1),
                                                     ctx.attr(MatMulAttrs::kTransposeA),
                                                     ctx.attr(MatMulAttrs::kTransposeB)));
  ctx.set_output(0, ctx.output(0).dtype, std::move(out));
  return absl::OkStatus();
}

absl::Status BatchMatMulShape(ShapeContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const Shape& y = ctx.input_shape(1);
  if (x.unknown_rank() || y.unknown_rank()) {
    ctx.set_output(0, ctx.output(0).dtype, Shape::UnknownRank());
    return absl::OkStatus();
  }
  if (x.rank() < 2 || y.rank() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "batch matmul needs inputs of rank >= 2, got shapes ", x.str(), " and ", y.str()));
  }
  const bool adj_x = ctx.attr(BatchMatMulAttrs::kAdjX);
  const bool adj_y = ctx.attr(BatchMatMulAttrs::kAdjY);
  DUET_RETURN_IF_ERROR(CheckInnerDims(x, y, adj_x, adj_y, "adj_x", "adj_y"));
  const Shape x_batch(x.dims().subspan(0, x.rank() - 2));
  const Shape y_batch(y.dims().subspan(0, y.rank() - 2));
  absl::StatusOr<Shape> batch = BroadcastShapes(x_batch, y_batch);
  if (!batch.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("batch dimensions ", x_batch.str(), " and ",
                                                   y_batch.str(), " do not broadcast (shapes ",
                                                   x.str(), " and ", y.str(), ")"));
  }
  Shape out = *std::move(batch);
  out.push_back(x[x.rank() - (adj_x ? 1 : 2)]);
  out.push_back(y[y.rank() - (adj_y ? 2 : 1)]);
  ctx.set_output(0, ctx.output(0).dtype, std::move(out));
  return absl::OkStatus();
}

const OpDef* const kMatMul = OpDefBuilder("MatMul")
                                 .Input("a", "T")
                                 .Input("b", "T")
                                 .Output("product", "T")
                                 .BoolAttr(MatMulAttrs::kTransposeA, false)
                                 .BoolAttr(MatMulAttrs::kTransposeB, false)
                                 .TypeAttr(MatMulAttrs::kT, kMatMulTypes)
                                 .BoolAttr(MatMulAttrs::kGradA, false)
                                 .BoolAttr(MatMulAttrs::kGradB, false)
                                 .Doc("Matrix product of 2-D a and b, optionally transposed.")
                                 .SetShapeFn(MatMulShape)
                                 .Register();

const OpDef* const kBatchMatMulV2 =
    OpDefBuilder("BatchMatMulV2")
        .Input("x", "T")
        .Input("y", "T")
        .Output("output", "T")
        .TypeAttr(BatchMatMulAttrs::kT, kMatMulTypes)
        .BoolAttr(BatchMatMulAttrs::kAdjX, false)
        .BoolAttr(BatchMatMulAttrs::kAdjY, false)
        .BoolAttr(BatchMatMulAttrs::kGradX, false)
        .BoolAttr(BatchMatMulAttrs::kGradY, false)
        .Doc("Matrix products over the last two dims; batch dims broadcast NumPy-style.")
        .SetShapeFn(BatchMatMulShape)
        .Register();

}  // namespace

Tensor matmul(const Tensor& x, const Tensor& y, bool transpose_a, bool transpose_b, OpSite site) {
  const bool two_d = x.defined() && y.defined() && !x.shape().unknown_rank() &&
                     !y.shape().unknown_rank() && x.rank() == 2 && y.rank() == 2;
  if (two_d) {
    OpCall call(kMatMul, {x, y}, site);
    call.set(MatMulAttrs::kTransposeA, transpose_a);
    call.set(MatMulAttrs::kTransposeB, transpose_b);
    return RunSingleOutputOp(call);
  }
  OpCall call(kBatchMatMulV2, {x, y}, site);
  call.set(BatchMatMulAttrs::kAdjX, transpose_a);
  call.set(BatchMatMulAttrs::kAdjY, transpose_b);
  return RunSingleOutputOp(call);
}

}  // namespace duet
