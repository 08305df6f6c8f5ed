#include "ops/math/math_ops.h"

#include "ops/common_shape_fns.h"
#include "ops/op_call.h"

namespace duet {
namespace {

const OpDef* const kAddV2 = OpDefBuilder("AddV2")
                                .Input("x", "T")
                                .Input("y", "T")
                                .Output("z", "T")
                                .TypeAttr("T", kRealNumberTypes)
                                .Commutative()
                                .Doc("x + y, elementwise with NumPy broadcasting.")
                                .SetShapeFn(BroadcastBinaryShape)
                                .Register();

}  // namespace

Tensor add(const Tensor& x, const Tensor& y, OpSite site) {
  OpCall call(kAddV2, {x, y}, site);
  return RunOp1(call);
}

Tensor operator+(const Tensor& x, const Tensor& y) { return add(x, y); }

}  // namespace duet
