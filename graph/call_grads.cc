// The gradient of PartitionedCall and StatefulPartitionedCall, which duet::function's calls are.
//
// Note [Call gradients]: the gradient of a call of f is a call of f's gradient function, whose
// arguments are f's arguments then one upstream gradient per floating-point result, and whose
// body is f's body again, op by op (InlineFunction), differentiated with gradients(): the same
// registered gradient functions as anywhere, so gradients of gradients work. It returns the
// gradients of the arguments that get one (variables passed as resource arguments included). It
// is traced once per f, set of wanted arguments and upstream shapes, and kept with f (Function::
// Derived), so a training loop traces it once. Like the If gradient (Note [If gradients]), it
// repeats f's forward ops rather than keeping f's intermediates. Its arguments are placed as f's
// (an upstream gradient where f makes that result), and each gradient is handed back on the
// device of the input it belongs to (Note [Calls across devices] in ops/placement.h).
#include "absl/strings/str_cat.h"
#include "graph/function.h"
#include "graph/gradients.h"
#include "ops/array/array_ops.h"
#include "ops/control_flow/control_flow_attrs.h"
#include "ops/control_flow/control_flow_ops.h"
#include "ops/gradient.h"

namespace duet {
namespace {

// The gradient function of `f` and, per result, the argument whose gradient it is.
struct CallGradient {
  std::shared_ptr<const Function> function;
  std::vector<int> argument_of_result;
};

const Function& CalledFunction(const GradientContext& ctx) {
  const FuncAttr& f = ctx.attr(CallAttrs::kF);
  const auto* function = dynamic_cast<const Function*>(f.body.get());
  if (function == nullptr) {
    throw Error(absl::UnimplementedError(
        absl::StrCat(ctx.op().name, ": function '", f.name, "' has no graph to differentiate")));
  }
  return *function;
}

CallGradient TraceCallGradient(const Function& f, const std::vector<char>& wanted,
                               const std::vector<int>& differentiable,
                               const std::vector<ArgSpec>& dys) {
  std::vector<ArgSpec> args;
  for (size_t i = 0; i < f.arg_dtypes().size(); ++i) {
    args.emplace_back(f.arg_dtypes()[i], f.arg_shapes()[i], f.args()[i]->placement());
  }
  args.insert(args.end(), dys.begin(), dys.end());
  const size_t n = f.arg_dtypes().size();
  CallGradient gradient;
  FunctionTrace trace = TraceFunction(nullptr, args, [&](const std::vector<Tensor>& all) {
    const std::vector<Tensor> xs(all.begin(), all.begin() + n);
    const std::vector<Tensor> upstream(all.begin() + n, all.end());
    const std::vector<Tensor> results = InlineFunction(f, xs);
    std::vector<Tensor> ys;
    for (int k : differentiable) ys.push_back(results[k]);
    std::vector<GradientSource> sources;
    std::vector<int> source_argument;
    for (size_t i = 0; i < n; ++i) {
      if (!wanted[i]) continue;
      sources.emplace_back(xs[i]);
      source_argument.push_back(static_cast<int>(i));
    }
    const std::vector<Tensor> grads = gradients(ys, sources, upstream);
    std::vector<Tensor> defined;
    for (size_t s = 0; s < grads.size(); ++s) {
      if (!grads[s].defined()) continue;
      defined.push_back(grads[s]);
      gradient.argument_of_result.push_back(source_argument[s]);
    }
    return defined;
  });
  gradient.function = WithCaptures(std::move(trace), UniqueFunctionName(f.name() + "_grad"), {});
  return gradient;
}

TensorList CallGrad(const GradientContext& ctx) {
  const Function& f = CalledFunction(ctx);
  const size_t n = f.arg_dtypes().size();
  std::vector<char> wanted(n);
  std::string key;  // which arguments, and the upstream signature
  for (size_t i = 0; i < n; ++i) {
    const DType dtype = ctx.input_dtype(static_cast<int>(i));
    wanted[i] = ctx.needs_grad(static_cast<int>(i)) && (IsFloating(dtype) || dtype == kResource);
    key += wanted[i] ? '1' : '0';
  }
  std::vector<int> differentiable;
  std::vector<ArgSpec> dys;
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < n; ++i) inputs.push_back(ctx.input(static_cast<int>(i)));
  for (int k = 0; k < ctx.num_outputs(); ++k) {
    if (!IsFloating(ctx.output_dtype(k))) continue;
    differentiable.push_back(k);
    dys.emplace_back(ctx.output_dtype(k), f.result_shapes()[k], f.results()[k].node->placement());
    inputs.push_back(ctx.grad(k).defined() ? ctx.grad(k) : zeros_like(ctx.output(k)));
    absl::StrAppend(&key, ";", k);
  }
  auto gradient = std::static_pointer_cast<const CallGradient>(f.Derived(key, [&] {
    return std::make_shared<const CallGradient>(TraceCallGradient(f, wanted, differentiable, dys));
  }));
  TensorList result(ctx.num_inputs());
  if (gradient->argument_of_result.empty()) return result;
  const std::vector<Tensor> grads =
      call_function(gradient->function, inputs, HasStatefulNodes(*gradient->function),
                    OpSite(f.name() + "_grad", std::source_location()));
  for (size_t r = 0; r < grads.size(); ++r) {
    const int i = gradient->argument_of_result[r];
    result[i] = grads[r].to(ctx.input(i).device());
  }
  return result;
}

// Keep every input and output: the gradient function takes the inputs, and the outputs give the
// zeros of an upstream gradient nobody passed.
const GradientRegistrar kPartitionedCallGrad("PartitionedCall", CallGrad, {0}, {0});
const GradientRegistrar kStatefulPartitionedCallGrad("StatefulPartitionedCall", CallGrad, {0}, {0});

}  // namespace
}  // namespace duet
