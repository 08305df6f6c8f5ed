// Gradients of the functional control-flow ops. They trace new functions, so they live with the
// function machinery in graph/ rather than with the ops.
//
// Note [If gradients]: the gradient of If(cond, xs) is If(cond, xs, dys) whose branches are the
// gradients of the forward branches: each traces its branch again, op by op (InlineFunction),
// and differentiates that with gradients(), the same registered gradient functions as anywhere.
// Repeating the branch costs a second forward pass of the taken branch, but needs no change to
// the forward node (TensorFlow instead adds the intermediates the gradient needs as outputs).
// The gradient If returns one tensor per input that either branch differentiates; a branch that
// does not reach such an input returns zeros for it.
#include "absl/strings/str_cat.h"
#include "graph/function.h"
#include "graph/gradients.h"
#include "ops/array/array_ops.h"
#include "ops/control_flow/control_flow_attrs.h"
#include "ops/gradient.h"
#include "ops/op_registry.h"
#include "ops/state/variable_ops.h"

namespace duet {
namespace {

const Function& GraphFunction(const GradientContext& ctx, const AttrKey<FuncAttr>& key) {
  const FuncAttr& func = ctx.attr(key);
  const auto* function = dynamic_cast<const Function*>(func.body.get());
  if (function == nullptr) {
    throw Error(absl::InternalError(
        absl::StrCat(ctx.op().name, ": function '", func.name, "' has no graph to differentiate")));
  }
  return *function;
}

// An upstream gradient's dtype and shape.
struct UpstreamSpec {
  DType dtype;
  Shape shape;
};

// What differentiating one branch gave for input i: nothing, or a gradient of this dtype.
struct InputGradient {
  bool defined = false;
  DType dtype = kFloat32;
};

// Traces the gradient of `branch` for the inputs in `wanted`: arguments are the branch's
// arguments then one upstream gradient per output in `outputs` (of dtype and shape `dys`, placed
// where the branch makes that output). With `fill` (pass 2), returns one tensor per input marked
// there, zeros where this branch gives none; without, it records what it gives.
FunctionTrace TraceBranchGradient(const Function& branch, const std::vector<int>& outputs,
                                  const std::vector<UpstreamSpec>& dys,
                                  const std::vector<char>& wanted,
                                  std::vector<InputGradient>& found,
                                  const std::vector<InputGradient>* fill) {
  std::vector<ArgSpec> args;
  for (size_t i = 0; i < branch.arg_dtypes().size(); ++i) {
    args.emplace_back(branch.arg_dtypes()[i], branch.arg_shapes()[i],
                      branch.args()[i]->placement());
  }
  for (size_t k = 0; k < dys.size(); ++k) {
    args.emplace_back(dys[k].dtype, dys[k].shape, branch.results()[outputs[k]].node->placement());
  }
  const size_t n = branch.arg_dtypes().size();
  return TraceFunction(GraphContext::Current(), args, [&](const std::vector<Tensor>& all) {
    const std::vector<Tensor> xs(all.begin(), all.begin() + n);
    const std::vector<Tensor> upstream(all.begin() + n, all.end());
    const std::vector<Tensor> branch_results = InlineFunction(branch, xs);
    std::vector<Tensor> ys;
    for (int k : outputs) ys.push_back(branch_results[k]);
    std::vector<GradientSource> sources;
    std::vector<size_t> source_index;
    for (size_t i = 0; i < n; ++i) {
      if (!wanted[i]) continue;
      sources.emplace_back(xs[i]);
      source_index.push_back(i);
    }
    const std::vector<Tensor> grads = gradients(ys, sources, upstream);
    std::vector<Tensor> results;
    for (size_t s = 0; s < grads.size(); ++s) {
      const size_t i = source_index[s];
      if (fill == nullptr) {
        if (grads[s].defined()) found[i] = {true, grads[s].dtype()};
        if (grads[s].defined()) results.push_back(grads[s]);
        continue;
      }
      if (!(*fill)[i].defined) continue;
      if (grads[s].defined()) {
        results.push_back(grads[s]);
      } else if (xs[i].dtype() == kResource) {  // a variable: zeros of its value's shape
        results.push_back(zeros_like(read_variable_op(xs[i], (*fill)[i].dtype)));
      } else {
        results.push_back(zeros_like(xs[i]));
      }
    }
    return results;
  });
}

// Note [If gradients] re-reads variables: refuse when the graph updated one after the forward
// If, since the gradient If would see the new value. (Eagerly, the tape's gradient runs at once
// after the ops it records in the usual training step; there is no graph to check.)
void CheckNoLaterUpdates(const GradientContext& ctx) {
  const GraphContext* context = GraphContext::Current();
  const NodeOutput* forward = ctx.num_outputs() > 0 ? SymbolicOutput(ctx.output(0)) : nullptr;
  if (context == nullptr || forward == nullptr) return;
  const Graph& graph = context->graph();
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    const NodeOutput* resource = SymbolicOutput(ctx.input(i));
    if (ctx.input_dtype(i) != kResource || resource == nullptr) continue;
    for (int id = forward->node->id() + 1; id < graph.num_nodes(); ++id) {
      const Node& node = *graph.node(id);
      for (const NodeOutput& in : node.inputs()) {
        if (in == *resource && !Repeatable(node)) {
          throw Error(absl::UnimplementedError(
              absl::StrCat(ctx.op().name, ": node '", node.name(), "' (", node.op().name,
                           ") updates variable '", resource->node->name(),
                           "' after the cond and before its gradient, which would "
                           "read the new value; take gradients before updating the variable")));
        }
      }
    }
  }
}

TensorList IfGrad(const GradientContext& ctx) {
  const Function& then_branch = GraphFunction(ctx, IfAttrs::kThenBranch);
  const Function& else_branch = GraphFunction(ctx, IfAttrs::kElseBranch);
  const size_t n = then_branch.arg_dtypes().size();
  std::vector<char> wanted(n);
  bool any_wanted = false;
  for (size_t i = 0; i < n; ++i) {
    const DType dtype = ctx.input_dtype(static_cast<int>(i + 1));
    wanted[i] =
        ctx.needs_grad(static_cast<int>(i + 1)) && (IsFloating(dtype) || dtype == kResource);
    any_wanted = any_wanted || wanted[i];
  }
  if (!any_wanted) return TensorList(ctx.num_inputs());
  CheckNoLaterUpdates(ctx);
  // Upstream gradients of the floating-point outputs (the others carry none).
  std::vector<int> differentiable;
  std::vector<UpstreamSpec> dys;
  std::vector<Tensor> upstream;
  for (int k = 0; k < ctx.num_outputs(); ++k) {
    if (!IsFloating(ctx.output_dtype(k))) continue;
    differentiable.push_back(k);
    dys.push_back({ctx.output_dtype(k), ctx.output_shape(k)});
    upstream.push_back(ctx.grad(k).defined() ? ctx.grad(k) : zeros_like(ctx.output(k)));
  }
  // Pass 1 finds which inputs either branch differentiates; pass 2 traces the final functions.
  std::vector<InputGradient> found(n);
  TraceBranchGradient(then_branch, differentiable, dys, wanted, found, nullptr);
  TraceBranchGradient(else_branch, differentiable, dys, wanted, found, nullptr);
  bool any_found = false;
  for (const InputGradient& g : found) any_found = any_found || g.defined;
  if (!any_found) return TensorList(ctx.num_inputs());
  std::vector<InputGradient> unused(n);
  FunctionTrace then_grad =
      TraceBranchGradient(then_branch, differentiable, dys, wanted, unused, &found);
  FunctionTrace else_grad =
      TraceBranchGradient(else_branch, differentiable, dys, wanted, unused, &found);
  const std::vector<NodeOutput> captures = UnionOfCaptures({&then_grad, &else_grad});
  FuncAttr then_attr{UniqueFunctionName("cond_then_grad"), nullptr};
  FuncAttr else_attr{UniqueFunctionName("cond_else_grad"), nullptr};
  then_attr.body = WithCaptures(std::move(then_grad), then_attr.name, captures);
  else_attr.body = WithCaptures(std::move(else_grad), else_attr.name, captures);

  TensorList inputs{ctx.input(0)};
  for (size_t i = 0; i < n; ++i) inputs.push_back(ctx.input(static_cast<int>(i + 1)));
  for (const Tensor& dy : upstream) inputs.push_back(dy);
  for (const NodeOutput& c : captures) inputs.push_back(c.node->output(c.index));
  const OpDef* op = &ctx.op();
  OpCall call(op, std::move(inputs), OpSite("If_grad"));
  call.set(IfAttrs::kTout, then_attr.body->result_dtypes());
  call.set(IfAttrs::kThenBranch, std::move(then_attr));
  call.set(IfAttrs::kElseBranch, std::move(else_attr));
  const OutputList grads = RunOp(call);

  // Each gradient on its input's device (Note [Calls across devices] in ops/placement.h).
  TensorList result(ctx.num_inputs());
  size_t next = 0;
  for (size_t i = 0; i < n; ++i) {
    if (found[i].defined)
      result[i + 1] = grads[next++].to(ctx.input(static_cast<int>(i + 1)).device());
  }
  return result;
}

TensorList WhileGrad(const GradientContext& ctx) {
  throw Error(absl::UnimplementedError(absl::StrCat(
      ctx.op().name,
      ": gradients of while_loop are not supported yet; unroll the loop in C++ (eagerly, or "
      "while tracing) to differentiate it")));
}

// Keep every input and output: the gradient passes them to the gradient If.
const GradientRegistrar kIfGrad("If", IfGrad, {0, 1}, {0});
const GradientRegistrar kStatelessIfGrad("StatelessIf", IfGrad, {0, 1}, {0});
const GradientRegistrar kWhileGrad("While", WhileGrad);
const GradientRegistrar kStatelessWhileGrad("StatelessWhile", WhileGrad);

}  // namespace
}  // namespace duet
