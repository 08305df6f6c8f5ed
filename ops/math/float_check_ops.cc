// IsNan, IsInf, IsFinite (float -> bool) and CheckNumerics (passes a tensor on, or fails when it
// holds a NaN or an infinity).
#include "ops/common_shape_fns.h"
#include "ops/math/elementwise_op_def.h"
#include "ops/math/math_attrs.h"
#include "ops/math/math_ops.h"
#include "ops/op_call.h"

namespace duet {
namespace {

// Declares one of the float classification ops: `name(x: T) -> y: bool`.
const OpDef* RegisterFloatClassOp(const char* name, const char* doc) {
  return OpDefBuilder(name)
      .Input("x", "T")
      .Output("y", kBool)
      .TypeAttr("T", kMathFloatTypes)
      .Doc(doc)
      .SetShapeFn(UnchangedShape)
      .Register();
}

const OpDef* const kIsNan = RegisterFloatClassOp("IsNan", "Whether x is NaN, elementwise.");
const OpDef* const kIsInf =
    RegisterFloatClassOp("IsInf", "Whether x is +inf or -inf, elementwise.");
const OpDef* const kIsFinite =
    RegisterFloatClassOp("IsFinite", "Whether x is neither NaN nor infinite, elementwise.");

// Stateful, as in TensorFlow: the check is a side effect that no pass may fold, merge or prune.
const OpDef* const kCheckNumerics =
    OpDefBuilder("CheckNumerics")
        .Input("tensor", "T")
        .Output("output", "T")
        .TypeAttr(CheckNumericsAttrs::kT, kMathFloatTypes)
        .StringAttr(CheckNumericsAttrs::kMessage)
        .Stateful()
        .Doc(
            "tensor itself; an InvalidArgument error naming `message` when it holds a NaN or an "
            "infinity.")
        .SetShapeFn(UnchangedShape)
        .Register();

}  // namespace

Tensor is_nan(const Tensor& x, OpSite site) { return CallUnaryOp(kIsNan, x, site); }
Tensor is_inf(const Tensor& x, OpSite site) { return CallUnaryOp(kIsInf, x, site); }
Tensor is_finite(const Tensor& x, OpSite site) { return CallUnaryOp(kIsFinite, x, site); }

Tensor check_numerics(const Tensor& x, const std::string& message, OpSite site) {
  OpCall call(kCheckNumerics, {x}, site);
  call.set(CheckNumericsAttrs::kMessage, message);
  return RunSingleOutputOp(call);
}

}  // namespace duet
