// DuetCustomGradient: custom_gradient in a graph. Forward it is Identity of its first input (the
// value the user's function computed); its other inputs are that function's arguments, so
// gradients() reaches the node from them, and its gradient calls the user's backward function
// (the `grad` attr, a C++ callable like DuetHostFunction's `f`) in place of the gradient of the
// function's own ops (ops/control_flow/control_flow_grads.cc). The simplify pass replaces it by its
// first input once gradients are built, so optimized and exported graphs do not hold it.
#include <atomic>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "ops/control_flow/control_flow_attrs.h"
#include "ops/control_flow/control_flow_ops.h"
#include "ops/function_body.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

// The backward function as a FunctionBody: the upstream gradient in, one gradient per input out.
class BackwardBody final : public CallableBody<CustomBackwardFn> {
 public:
  using CallableBody::CallableBody;

  // May build graph nodes: gradients() calls it inside the graph's scope. Errors propagate as
  // thrown by the backward function, like an op call's.
  absl::StatusOr<std::vector<Tensor>> Call(absl::Span<const Tensor> args) const override {
    DUET_ASSIGN_OR_RETURN(std::shared_ptr<const CustomBackwardFn> backward, closure());
    std::vector<Tensor> grads = (*backward)(args[0]);
    if (grads.size() != result_dtypes().size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("custom_gradient: the backward function returned ", grads.size(),
                       " gradients for ", result_dtypes().size(), " inputs"));
    }
    return grads;
  }
};

absl::Status ValueShape(ShapeContext& ctx) {
  const FuncAttr& grad = ctx.attr(CustomGradientAttrs::kGrad);
  if (grad.body == nullptr) {  // read from a file: the closure is not serializable
    return absl::InvalidArgumentError(
        absl::StrCat("custom gradient '", grad.name,
                     "' is not known to this process (its backward function "
                     "is a C++ closure; optimize() replaces the node before a graph is exported)"));
  }
  ctx.set_output(0, ctx.input_dtype(0), ctx.input_shape(0));
  return absl::OkStatus();
}

const OpDef* const kCustomGradient =
    OpDefBuilder("DuetCustomGradient")
        .Input("value", "T")
        .InputTypeList("inputs", "Tin")
        .Output("output", "T")
        .TypeAttr(CustomGradientAttrs::kT, {kFloat32, kFloat64, kFloat16, kBFloat16})
        .TypeListAttr(CustomGradientAttrs::kTin)
        .FuncAttr(CustomGradientAttrs::kGrad)
        .Doc(
            "duet's own: `value` itself, whose gradient with respect to `inputs` is the C++ "
            "backward function `grad` (custom_gradient in a graph); not exportable.")
        .SetShapeFn(ValueShape)
        .Register();

}  // namespace

Tensor custom_gradient_op(const Tensor& value, const std::vector<Tensor>& inputs,
                          CustomBackwardFn backward, OpSite site) {
  std::vector<DType> input_dtypes;
  for (const Tensor& t : inputs) input_dtypes.push_back(t.dtype());
  std::string name = [] {
    static std::atomic<int64_t> counter{0};
    return absl::StrCat("custom_gradient_", counter.fetch_add(1, std::memory_order_relaxed));
  }();
  auto body = std::make_shared<const BackwardBody>(name, std::vector<DType>{value.dtype()},
                                                   input_dtypes, std::move(backward));
  TensorList call_inputs = {value};
  call_inputs.insert(call_inputs.end(), inputs.begin(), inputs.end());
  OpCall call(kCustomGradient, std::move(call_inputs), site);
  call.set(CustomGradientAttrs::kT, value.dtype());
  call.set(CustomGradientAttrs::kTin, std::move(input_dtypes));
  call.set(CustomGradientAttrs::kGrad, FuncAttr{std::move(name), std::move(body)});
  return RunOp(call)[0];
}

}  // namespace duet
