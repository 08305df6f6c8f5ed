// _ResourceApplyMatMulGradientDescent: ResourceApplyGradientDescent of a MatMul's product, in one
// op. The fuse_gradient_update pass makes it from a weight gradient that only the update reads,
// so the product is accumulated into the variable and the gradient is never materialized.
#include "absl/strings/str_cat.h"
#include "core/resource.h"
#include "ops/nn/fused_nn_ops.h"
#include "ops/nn/matmul_shape.h"
#include "ops/nn/nn_attrs.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

absl::Status MatMulApplyGradientDescentShape(ShapeContext& ctx) {
  if (ctx.input_shape(1).rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("alpha must be a scalar, got shape ", ctx.input_shape(1).str()));
  }
  DUET_ASSIGN_OR_RETURN(
      const Shape product,
      MatMulOutputShape(ctx.input_shape(2), ctx.input_shape(3), ctx.attr(MatMulAttrs::kTransposeA),
                        ctx.attr(MatMulAttrs::kTransposeB)));
  // The handle's variable is known eagerly (and for captured variables): check the update fits.
  const Tensor* handle = ctx.input_value(0);
  const VariableResource* variable = handle == nullptr ? nullptr : VariableOf(*handle);
  if (variable == nullptr) return absl::OkStatus();
  return CheckAssignable(*variable, ctx.input_dtype(2), product);
}

const OpDef* const kMatMulApplyGradientDescent =
    OpDefBuilder("_ResourceApplyMatMulGradientDescent")
        .Input("var", kResource)
        .Input("alpha", "T")
        .Input("a", "T")
        .Input("b", "T")
        .BoolAttr(MatMulAttrs::kTransposeA, false)
        .BoolAttr(MatMulAttrs::kTransposeB, false)
        .TypeAttr(MatMulAttrs::kT, {kFloat32, kFloat64})
        .BoolAttr(MatMulApplyGradientDescentAttrs::kUseLocking, false)
        .Stateful()
        .KeepsNoInputs()
        .Doc(
            "Made by the fuse_gradient_update pass from ResourceApplyGradientDescent of a MatMul: "
            "var -= alpha * op(a) x op(b), the product accumulated into the variable.")
        .SetShapeFn(MatMulApplyGradientDescentShape)
        .Register();

}  // namespace

void resource_apply_matmul_gradient_descent(const Tensor& resource, const Tensor& alpha,
                                            const Tensor& a, const Tensor& b, bool transpose_a,
                                            bool transpose_b, OpSite site) {
  OpCall call(kMatMulApplyGradientDescent, {resource, alpha, a, b}, site);
  call.set(MatMulAttrs::kTransposeA, transpose_a);
  call.set(MatMulAttrs::kTransposeB, transpose_b);
  RunOp(call);
}

}  // namespace duet
