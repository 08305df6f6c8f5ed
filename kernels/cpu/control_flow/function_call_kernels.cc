// Kernels of the ops that call functions (If, While and their Stateless forms, the calls,
// DuetHostFunction).
// They run on the host whatever the device: the functions' own nodes pick their kernels. The
// functions' plans take each argument where it is; the kernels deliver the results on the op's
// device (Note [Calls across devices] in ops/placement.h).
#include "absl/strings/str_cat.h"
#include "kernels/kernel_registry.h"
#include "ops/control_flow/control_flow_attrs.h"
#include "ops/function_body.h"

namespace duet {
namespace {

// TensorFlow's truth of a cond value: a scalar is true when nonzero; any other tensor when it
// has elements. A scalar made on another device (a loop's predicate) is read through a copy.
absl::StatusOr<bool> Truth(const Tensor& cond) {
  if (cond.shape().rank() != 0) return cond.shape().num_elements() > 0;
  DUET_ASSIGN_OR_RETURN(const Tensor value, CopiedTo(cond, Device::cpu()));
  switch (value.dtype()) {
    case kBool:
      return value.data<bool>()[0];
    case kInt32:
      return value.data<int32_t>()[0] != 0;
    case kInt64:
      return value.data<int64_t>()[0] != 0;
    case kFloat32:
      return value.data<float>()[0] != 0;
    case kFloat64:
      return value.data<double>()[0] != 0;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("a cond value of dtype ", DTypeName(value.dtype()), " has no truth value"));
  }
}

// Checks results against the node's output_shapes claim (empty: none, or no such attr) and sets
// the outputs, each on the op's device.
absl::Status SetOutputs(KernelContext& ctx, const AttrKey<std::vector<Shape>>* output_shapes,
                        std::vector<Tensor> results) {
  static const std::vector<Shape> kNone;
  const auto& claimed = output_shapes != nullptr ? ctx.attr(*output_shapes) : kNone;
  for (size_t k = 0; k < results.size(); ++k) {
    if (!claimed.empty() && !results[k].shape().IsCompatibleWith(claimed[k])) {
      return absl::InvalidArgumentError(absl::StrCat("output ", k, " has shape ",
                                                     results[k].shape().str(),
                                                     " but output_shapes says ", claimed[k].str()));
    }
    DUET_ASSIGN_OR_RETURN(Tensor out, CopiedTo(results[k], ctx.device()));
    // A result that is an argument passed through (a loop invariant, a branch returning its
    // input) becomes a new handle onto the same memory: a tape must tell the output from the
    // input, or it would count the output's gradient twice.
    for (const Tensor& in : ctx.call().inputs) {
      if (out.dtype() != kResource && out.shares_buffer_with(in)) {
        out = out.ViewAs(out.dtype(), out.shape(), out.device());
        break;
      }
    }
    ctx.output(static_cast<int>(k)) = std::move(out);
  }
  return absl::OkStatus();
}

absl::Status IfKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const bool truth, Truth(ctx.input(0)));
  const FuncAttr& branch = ctx.attr(truth ? IfAttrs::kThenBranch : IfAttrs::kElseBranch);
  const auto& inputs = ctx.call().inputs;
  DUET_ASSIGN_OR_RETURN(std::vector<Tensor> results,
                        branch.body->Call(absl::MakeConstSpan(inputs).subspan(1)));
  return SetOutputs(ctx, &IfAttrs::kOutputShapes, std::move(results));
}

absl::Status WhileKernel(KernelContext& ctx) {
  const FunctionBody& cond = *ctx.attr(WhileAttrs::kCond).body;
  const FunctionBody& body = *ctx.attr(WhileAttrs::kBody).body;
  std::vector<Tensor> vars(ctx.call().inputs.begin(), ctx.call().inputs.end());
  for (;;) {
    DUET_ASSIGN_OR_RETURN(std::vector<Tensor> keep_going, cond.Call(vars));
    DUET_ASSIGN_OR_RETURN(const bool truth, Truth(keep_going[0]));
    if (!truth) break;
    // The body is handed the loop variables (Note [Inputs handed over] in graph/plan.cc).
    DUET_ASSIGN_OR_RETURN(vars, body.CallOwned(std::move(vars)));
  }
  // The shape function promised the body's argument shapes (the loop invariant).
  for (size_t k = 0; k < vars.size(); ++k) {
    if (!vars[k].shape().IsCompatibleWith(body.arg_shapes()[k])) {
      return absl::InvalidArgumentError(absl::StrCat("loop variable ", k, " ends with shape ",
                                                     vars[k].shape().str(), ", not the body's ",
                                                     body.arg_shapes()[k].str()));
    }
  }
  return SetOutputs(ctx, &WhileAttrs::kOutputShapes, std::move(vars));
}

// Calls `f` (PartitionedCall, StatefulPartitionedCall, DuetHostFunction).
absl::Status CallKernel(KernelContext& ctx) {
  const FunctionBody& f = *ctx.attr(CallAttrs::kF).body;
  DUET_ASSIGN_OR_RETURN(std::vector<Tensor> results, f.Call(ctx.call().inputs));
  return SetOutputs(ctx, nullptr, std::move(results));
}

// Registers `fn` for every device and dispatch dtype (If dispatches on its cond's dtype, the
// others have no type attr: kFloat32): the kernel itself runs on the host and only calls.
bool RegisterForAllDTypes(absl::string_view op, KernelFn fn) {
  for (int d = 0; d < kNumDeviceTypes; ++d) {
    for (int i = 0; i < kNumNumericDTypes; ++i) {
      RegisterKernel(op, static_cast<DeviceType>(d), {static_cast<DType>(i)},
                     KernelDef{fn, /*allocates_outputs=*/true});
    }
  }
  return true;
}

[[maybe_unused]] const bool kIf = RegisterForAllDTypes("If", IfKernel);
[[maybe_unused]] const bool kStatelessIf = RegisterForAllDTypes("StatelessIf", IfKernel);
[[maybe_unused]] const bool kWhile = RegisterForAllDTypes("While", WhileKernel);
[[maybe_unused]] const bool kStatelessWhile = RegisterForAllDTypes("StatelessWhile", WhileKernel);
[[maybe_unused]] const bool kHostFunction = RegisterForAllDTypes("DuetHostFunction", CallKernel);
[[maybe_unused]] const bool kPartitionedCall = RegisterForAllDTypes("PartitionedCall", CallKernel);
[[maybe_unused]] const bool kStatefulPartitionedCall =
    RegisterForAllDTypes("StatefulPartitionedCall", CallKernel);

}  // namespace
}  // namespace duet
