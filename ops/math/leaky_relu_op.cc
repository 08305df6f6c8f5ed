// LeakyRelu: the one unary activation with an attr (alpha), so it is declared here rather than
// through RegisterUnaryOp.
#include "ops/common_shape_fns.h"
#include "ops/math/elementwise_op_def.h"
#include "ops/math/math_attrs.h"
#include "ops/math/math_ops.h"
#include "ops/op_call.h"

namespace duet {
namespace {

const OpDef* const kLeakyRelu = OpDefBuilder("LeakyRelu")
                                    .Input("features", "T")
                                    .Output("activations", "T")
                                    .FloatAttr(LeakyReluAttrs::kAlpha, 0.2f)
                                    .TypeAttr(LeakyReluAttrs::kT, kMathFloatTypes, kFloat32)
                                    .Doc("features if > 0, else alpha * features.")
                                    .SetShapeFn(UnchangedShape)
                                    .Register();

}  // namespace

Tensor leaky_relu(const Tensor& x, float alpha, OpSite site) {
  OpCall call(kLeakyRelu, {x}, site);
  call.set(LeakyReluAttrs::kAlpha, alpha);
  return RunSingleOutputOp(call);
}

}  // namespace duet
