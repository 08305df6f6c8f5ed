#include "ops/math/elementwise_op_def.h"

#include "ops/common_shape_fns.h"
#include "ops/op_call.h"

namespace duet {
namespace {

// BroadcastBinaryShape with a fast path for equal shapes (unknown dims included), which broadcast
// to themselves: skipping the general broadcast matters in the per-op budget of tiny ops.
absl::Status ElementwiseBinaryShape(ShapeContext& ctx) {
  if (ctx.input_shape(0) == ctx.input_shape(1)) {
    ctx.set_output(0, ctx.output(0).dtype, ctx.input_shape(0));
    return absl::OkStatus();
  }
  return BroadcastBinaryShape(ctx);
}

}  // namespace

const OpDef* RegisterBinaryOp(const char* name, std::vector<DType> types, const char* doc,
                              BinaryOpKind kind, const char* first, const char* second,
                              const char* tf_difference) {
  OpDefBuilder b(name);
  b.Input(first, "T").Input(second, "T").TypeAttr("T", std::move(types));
  if (kind == BinaryOpKind::kComparison) {
    b.Output("z", kBool);
  } else {
    b.Output("z", "T");
  }
  if (kind == BinaryOpKind::kCommutative) b.Commutative();
  if (*tf_difference != '\0') b.TfDifference(tf_difference);
  return b.Doc(doc).SetShapeFn(ElementwiseBinaryShape).Register();
}

const OpDef* RegisterUnaryOp(const char* name, std::vector<DType> types, const char* doc,
                             const char* input, const char* output) {
  return OpDefBuilder(name)
      .Input(input, "T")
      .Output(output, "T")
      .TypeAttr("T", std::move(types))
      .Doc(doc)
      .SetShapeFn(UnchangedShape)
      .Register();
}

Tensor CallBinaryOp(const OpDef* op, const Tensor& x, const Tensor& y, OpSite site) {
  OpCall call(op, {x, y}, site);
  return RunSingleOutputOp(call);
}

Tensor CallUnaryOp(const OpDef* op, const Tensor& x, OpSite site) {
  OpCall call(op, {x}, site);
  return RunSingleOutputOp(call);
}

}  // namespace duet
