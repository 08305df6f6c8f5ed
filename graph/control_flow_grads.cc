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
#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "graph/control_flow.h"
#include "graph/function.h"
#include "graph/gradients.h"
#include "graph/graph_ops.h"
#include "graph/passes/loop_twins.h"
#include "ops/array/array_ops.h"
#include "ops/control_flow/control_flow_attrs.h"
#include "ops/gradient.h"
#include "ops/list/list_ops.h"
#include "ops/math/add_gradients.h"
#include "ops/math/operators.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_ref.h"
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
void CheckNoLaterUpdates(const GradientContext& ctx, int first_resource_input,
                         absl::string_view what) {
  const GraphContext* context = GraphContext::Current();
  const NodeOutput* forward = ctx.num_outputs() > 0 ? SymbolicOutput(ctx.output(0)) : nullptr;
  if (context == nullptr || forward == nullptr) return;
  const Graph& graph = context->graph();
  for (int i = first_resource_input; i < ctx.num_inputs(); ++i) {
    const NodeOutput* resource = SymbolicOutput(ctx.input(i));
    if (ctx.input_dtype(i) != kResource || resource == nullptr) continue;
    for (int id = forward->node->id() + 1; id < graph.num_nodes(); ++id) {
      const Node& node = *graph.node(id);
      for (const NodeOutput& in : node.inputs()) {
        if (in == *resource && !Repeatable(node)) {
          throw Error(absl::UnimplementedError(
              absl::StrCat(ctx.op().name, ": node '", node.name(), "' (", node.op().name,
                           ") updates variable '", resource->node->name(), "' after the ", what,
                           " and before its gradient, which would "
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
  CheckNoLaterUpdates(ctx, /*first_resource_input=*/1, "cond");
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

// Note [While gradients]: the gradient of While(xs) follows TensorFlow's design:
//  1. An accumulating twin of the forward loop runs from the same inputs: its body is the forward
//     body plus a trip counter and TensorListPushBacks onto accumulators (EmptyTensorList): each
//     loop variable that changes, as the iteration starts, and each body value of step 3, as it
//     ends. Loop invariants (what the body passes on unchanged: captures, variables) are not
//     pushed. In a graph the forward While itself then goes: its twin computes the same loop
//     variables (Note [Merging loop twins] in graph/passes/merge_loop_twins.cc).
//  2. A backward While runs the trip count down. Each iteration pops its forward iteration's loop
//     variables (TensorListPopBack), repeats the body on them, op by op (InlineFunction), and
//     differentiates that with gradients(): the upstream gradients of the changing float and list
//     variables become those of the iteration's inputs, and the gradients of loop invariants are
//     summed over iterations (or stacked and multiplied once after the loop, Note [Loop-invariant
//     matmul gradients]).
//  3. The gradient nodes read some values of the repeated body (a sigmoid's output, a matmul's
//     operands). A probe trace of the backward body finds which; the twin pushes them (step 1),
//     and the backward body's gradient nodes read them popped instead, so the repeat is dead and
//     pruned: no forward work is done twice (TensorFlow's accumulated intermediates). A value
//     the probe did not see is recomputed, which is correct, only slower.
// Memory is the accumulators: per iteration, the changing loop variables and the values the
// gradient reads, linear in the trip count and freed as the backward pops them. Nested loops and
// conds in a body need nothing more: the repeated body holds them as nodes, differentiated by
// their own gradients (whose captures of forward values step 3 saves like any other). Like If,
// the body must be repeatable (no random numbers, no variable both updated and read:
// InlineFunction says which node is not). A TensorList loop variable (a Keras-style RNN's
// outputs, written with SetItem) is accumulated like any other (lists of lists share their
// elements) and carries a gradient list (Note [TensorList gradients]); an invariant list (the
// inputs read with GetItem) sums one-element gradient lists, so a loop over a sequence
// differentiates in linear time and memory. The gradient of a backward loop (a second-order
// gradient) is refused: its accumulators hold the forward's values, whose own gradients would
// need the forward loop differentiated through them.

// A named scalar shape: a temporary Shape() in an ArgSpec trips a false -Wmaybe-uninitialized.
const Shape kScalarShape;

// The name of the backward loops' functions, by which a gradient of one is recognized.
const std::string kBackwardLoopName = "while_grad";

// Whether the body passes loop variable k on unchanged (directly or through an Identity).
bool LoopInvariant(const Function& body, size_t k) {
  NodeOutput result = body.results()[k];
  if (kIdentityOp.is(result.node->op())) result = result.node->inputs()[0];
  return result.node == body.args()[k] && result.index == 0;
}

std::vector<ArgSpec> LoopVarSpecs(const Function& body) {
  std::vector<ArgSpec> specs;
  for (size_t k = 0; k < body.arg_dtypes().size(); ++k) {
    specs.emplace_back(body.arg_dtypes()[k], body.arg_shapes()[k], body.args()[k]->placement());
  }
  return specs;
}

// Note [Loop-invariant matmul gradients]: an invariant that the body multiplies by a per-iteration
// value (a recurrent layer's kernel U in h U) gets, in each backward iteration, the gradient
// a^T b (h^T dz): summed, one small matmul and one add of U's size per iteration. When U's size
// exceeds a's and b's together, the backward loop instead pushes a and b onto two lists (no copy:
// Note [List elements are shared]) and the sum is one matmul after the loop, stack(a)^T stack(b)
// with the iterations stacked along the contracted dim: the same sum, reassociated, as one large
// matmul, for the memory of a and b until then.
struct ProductGradient {
  size_t k;  // the invariant
  DType dtype;
  Shape a, b;  // the operands' (static, rank-2) shapes
};

// What the backward loop's state holds, by position.
struct BackwardLoop {
  std::vector<size_t> changing;     // changing float or list loop variables (an upstream each)
  std::vector<size_t> accumulated;  // changing loop variables (an accumulator each)
  std::vector<NodeOutput> saved;    // body values the gradient reads (an accumulator each)
  std::vector<size_t> invariant;    // loop invariants (passed on unchanged)
  std::vector<size_t> summed;       // invariants whose gradients are summed
  std::vector<ProductGradient> products;  // invariants whose gradients are stacked products
};

// What pass 1 (the probe) of the backward body learns.
struct Probe {
  std::vector<InputGradient> found;       // which invariants get a gradient, of which dtype
  std::vector<NodeOutput> needed;         // the body values the gradient reads
  std::vector<ProductGradient> products;  // Note [Loop-invariant matmul gradients]
};

const OpRef kMatMulOp("MatMul");

// The MatMul computing `grad` as a^T b with static rank-2 operands whose sizes together are below
// the product's (Note [Loop-invariant matmul gradients]), or nullptr.
const Node* StackableProduct(const Tensor& grad) {
  const NodeOutput* out = grad.defined() ? SymbolicOutput(grad) : nullptr;
  if (out == nullptr || !kMatMulOp.is(out->node->op())) return nullptr;
  const Node& node = *out->node;
  if (!GetAttr(node.op(), node.attrs(), MatMulAttrs::kTransposeA) ||
      GetAttr(node.op(), node.attrs(), MatMulAttrs::kTransposeB)) {
    return nullptr;
  }
  int64_t operands = 0;
  for (const NodeOutput& in : node.inputs()) {
    const Shape& shape = in.node->output_shape(in.index);
    if (!shape.is_fully_defined() || shape.rank() != 2 || shape.num_elements() == 0) return nullptr;
    operands += shape.num_elements();
  }
  return node.output_shape(0).num_elements() > operands ? &node : nullptr;
}

// Runs the forward loop again from `inputs`, pushing the loop variables `loop.accumulated` names
// at the start of each iteration and the body values `loop.saved` names at its end (steps 1 and
// 3 of Note [While gradients]). Returns the trip count and one list per accumulated variable,
// then one per saved value.
std::pair<Tensor, std::vector<Tensor>> AccumulatingLoop(
    const Function& cond, const Function& body,
    const std::shared_ptr<const FunctionBody>& forward_body, const std::vector<Tensor>& inputs,
    const BackwardLoop& loop) {
  const size_t n = inputs.size();
  std::vector<ArgSpec> specs = LoopVarSpecs(body);
  std::vector<Tensor> vars = inputs;
  specs.emplace_back(kInt32, kScalarShape, Device::cpu());
  vars.push_back(constant(0));
  for (size_t k : loop.accumulated) {
    specs.emplace_back(kVariant, kScalarShape, Device::cpu());
    vars.push_back(empty_tensor_list(element_shape_operand(body.arg_shapes()[k]), constant(-1),
                                     body.arg_dtypes()[k]));
  }
  for (const NodeOutput& v : loop.saved) {
    specs.emplace_back(kVariant, kScalarShape, Device::cpu());
    vars.push_back(empty_tensor_list(element_shape_operand(v.node->output_shape(v.index)),
                                     constant(-1), v.node->output_dtype(v.index)));
  }
  GraphContext* outer = GraphContext::Current();
  FunctionTrace cond_trace = TraceFunction(outer, specs, [&](const std::vector<Tensor>& args) {
    return InlineFunction(cond, std::vector<Tensor>(args.begin(), args.begin() + n));
  });
  FunctionTrace body_trace = TraceFunction(outer, specs, [&](const std::vector<Tensor>& args) {
    std::vector<OutputList> values;
    std::vector<Tensor> results =
        InlineFunction(body, std::vector<Tensor>(args.begin(), args.begin() + n), &values);
    results.push_back(args[n] + 1);
    auto list = args.begin() + n + 1;
    for (size_t k : loop.accumulated) results.push_back(tensor_list_push_back(*list++, args[k]));
    for (const NodeOutput& v : loop.saved) {
      results.push_back(tensor_list_push_back(*list++, values[v.node->id()][v.index]));
    }
    return results;
  });
  const std::vector<Tensor> out =
      graph_internal::CallWhile(std::move(cond_trace), std::move(body_trace), vars,
                                OpSite("While_accumulate"), "while_accumulate");
  // In a graph the forward loop and this twin merge into one (Note [Merging loop twins]).
  if (const NodeOutput* twin = SymbolicOutput(out[0])) {
    const Node& node = *twin->node;
    RecordLoopTwin(GetAttr(node.op(), node.attrs(), WhileAttrs::kBody).body, forward_body);
  }
  return {out[n], std::vector<Tensor>(out.begin() + n + 1, out.end())};
}

// Step 3 of Note [While gradients]: the nodes gradients() added after the repeated body (ids from
// `end` on) read some of the repeated body's values (ids in [start, end), inlined from the nodes
// of `body` as `values` says). With `needed` (pass 1) records those body values; otherwise makes
// the readers read `saved_values` (popped from the accumulators) for the body values in `saved`,
// which leaves the repeated body dead (pruned when the function compiles). A result that is such
// a value itself is replaced too.
void ReadSavedValues(const Function& body, Graph& graph, int start, int end,
                     const std::vector<OutputList>& values, const std::vector<NodeOutput>& saved,
                     const std::vector<Tensor>& saved_values, std::vector<Tensor>& results,
                     std::vector<NodeOutput>* needed) {
  struct Hash {
    size_t operator()(const NodeOutput& o) const { return absl::HashOf(o.node, o.index); }
  };
  absl::flat_hash_map<NodeOutput, NodeOutput, Hash> body_value;  // inlined copy -> body value
  for (size_t id = 0; id < values.size(); ++id) {
    for (size_t i = 0; i < values[id].size(); ++i) {
      const NodeOutput* copy = SymbolicOutput(values[id][i]);
      if (copy == nullptr || copy->node->id() < start || copy->node->id() >= end ||
          copy->node->output_dtype(copy->index) == kResource) {
        continue;  // an argument, a constant, or a variable handle: nothing to save
      }
      body_value.emplace(*copy,
                         NodeOutput{body.body().node(static_cast<int>(id)), static_cast<int>(i)});
    }
  }
  // The saved value standing for an inlined copy, recording it as needed in pass 1.
  auto replacement = [&](const NodeOutput& in) -> std::optional<NodeOutput> {
    auto it = body_value.find(in);
    if (it == body_value.end()) return std::nullopt;
    if (needed != nullptr) {
      if (std::find(needed->begin(), needed->end(), it->second) == needed->end()) {
        needed->push_back(it->second);
      }
      return std::nullopt;
    }
    auto at = std::find(saved.begin(), saved.end(), it->second);
    if (at == saved.end()) return std::nullopt;  // not saved: the repeat computes it
    return *SymbolicOutput(saved_values[at - saved.begin()]);
  };
  for (int id = end; id < graph.num_nodes(); ++id) {
    const Node* node = graph.node(id);
    for (size_t j = 0; j < node->inputs().size(); ++j) {
      if (auto to = replacement(node->inputs()[j])) {
        graph.SetInput(node, static_cast<int>(j), *to);
      }
    }
  }
  for (Tensor& result : results) {
    const NodeOutput* out = SymbolicOutput(result);
    if (out == nullptr) continue;
    if (auto to = replacement(*out)) result = to->node->output(to->index);
  }
}

// The body of the backward loop (steps 2 and 3 of Note [While gradients]): arguments and results
// are the counter, the upstreams of `changing`, the accumulators of `accumulated` and `saved`, the
// sums of `summed`, two lists per entry of `products`, then the invariants. With `probe` (pass 1:
// no sums, products or saved values) it records which of `summed` get a gradient, of which dtype,
// which of those gradients are stackable products, and which body values the gradient reads.
std::vector<Tensor> BackwardBody(const Function& body, const BackwardLoop& loop,
                                 const std::vector<Tensor>& args, Probe* probe) {
  const size_t n = body.arg_dtypes().size();
  auto next = args.begin();
  const Tensor counter = *next++;
  const std::vector<Tensor> upstream(next, next + loop.changing.size());
  next += loop.changing.size();
  std::vector<Tensor> xs(n), lists, saved_values;
  for (size_t k : loop.accumulated) {
    auto [rest, x] = tensor_list_pop_back(*next++, element_shape_operand(body.arg_shapes()[k]),
                                          body.arg_dtypes()[k]);
    lists.push_back(rest);
    xs[k] = x;
  }
  for (const NodeOutput& v : loop.saved) {
    auto [rest, value] =
        tensor_list_pop_back(*next++, element_shape_operand(v.node->output_shape(v.index)),
                             v.node->output_dtype(v.index));
    lists.push_back(rest);
    saved_values.push_back(value);
  }
  std::vector<Tensor> sums, product_lists;
  if (probe == nullptr) {
    sums.assign(next, next + loop.summed.size());
    next += loop.summed.size();
    product_lists.assign(next, next + 2 * loop.products.size());
    next += 2 * loop.products.size();
  }
  for (size_t k : loop.invariant) xs[k] = *next++;

  Graph& graph = GraphContext::Current()->graph();
  const int start = graph.num_nodes();
  std::vector<OutputList> values;
  const std::vector<Tensor> ys_all = InlineFunction(body, xs, &values);
  const int end = graph.num_nodes();
  std::vector<Tensor> ys;
  std::vector<GradientSource> sources;
  for (size_t k : loop.changing) {
    ys.push_back(ys_all[k]);
    sources.emplace_back(xs[k]);
  }
  for (size_t k : loop.summed) sources.emplace_back(xs[k]);
  for (const ProductGradient& p : loop.products) sources.emplace_back(xs[p.k]);
  std::vector<Tensor> grads = gradients(ys, sources, upstream);
  ReadSavedValues(body, graph, start, end, values, loop.saved, saved_values, grads,
                  probe != nullptr ? &probe->needed : nullptr);

  std::vector<Tensor> results = {counter - 1};
  for (size_t c = 0; c < loop.changing.size(); ++c) {
    results.push_back(grads[c].defined() ? grads[c] : zeros_like(xs[loop.changing[c]]));
  }
  results.insert(results.end(), lists.begin(), lists.end());
  const size_t first_summed = loop.changing.size();
  for (size_t s = 0; s < loop.summed.size(); ++s) {
    const Tensor& g = grads[first_summed + s];
    if (probe == nullptr) {
      results.push_back(g.defined() ? add_gradients(sums[s], g) : sums[s]);
      continue;
    }
    if (!g.defined()) continue;
    probe->found[loop.summed[s]] = {true, g.dtype()};
    if (const Node* product = StackableProduct(g)) {
      const NodeOutput& a = product->inputs()[0];
      const NodeOutput& b = product->inputs()[1];
      probe->products.push_back({loop.summed[s], g.dtype(), a.node->output_shape(a.index),
                                 b.node->output_shape(b.index)});
    }
  }
  // Each product's operands, pushed (read after ReadSavedValues: saved values where saved).
  for (size_t p = 0; p < loop.products.size(); ++p) {
    const Node* product = StackableProduct(grads[first_summed + loop.summed.size() + p]);
    if (product == nullptr) {
      throw Error(absl::InternalError("While_grad: the probe's stackable product is not one"));
    }
    for (int i = 0; i < 2; ++i) {
      const NodeOutput& operand = product->inputs()[i];
      results.push_back(
          tensor_list_push_back(product_lists[2 * p + i], operand.node->output(operand.index)));
    }
  }
  for (size_t k : loop.invariant) results.push_back(xs[k]);
  return results;
}

TensorList WhileGrad(const GradientContext& ctx) {
  const Function& cond = GraphFunction(ctx, WhileAttrs::kCond);
  const Function& body = GraphFunction(ctx, WhileAttrs::kBody);
  if (absl::StartsWith(body.name(), kBackwardLoopName)) {
    throw Error(absl::UnimplementedError(
        absl::StrCat(ctx.op().name,
                     ": second-order gradients of while loops are not supported yet (the "
                     "backward loop reads the forward's values from accumulators)")));
  }
  const size_t n = body.arg_dtypes().size();
  BackwardLoop loop;
  bool any_wanted = false;
  for (size_t k = 0; k < n; ++k) {
    const DType dtype = body.arg_dtypes()[k];
    const bool differentiable = IsFloating(dtype) || dtype == kVariant;
    const bool wanted =
        ctx.needs_grad(static_cast<int>(k)) && (differentiable || dtype == kResource);
    if (LoopInvariant(body, k)) {
      loop.invariant.push_back(k);
      if (wanted) loop.summed.push_back(k);
      any_wanted = any_wanted || wanted;
    } else {
      loop.accumulated.push_back(k);
      if (differentiable) loop.changing.push_back(k);
      any_wanted = any_wanted || (wanted && differentiable);
    }
  }
  if (!any_wanted) return TensorList(ctx.num_inputs());
  CheckNoLaterUpdates(ctx, /*first_resource_input=*/0, "loop");
  std::vector<Tensor> inputs;
  for (size_t k = 0; k < n; ++k) inputs.push_back(ctx.input(static_cast<int>(k)));
  const std::vector<ArgSpec> var_specs = LoopVarSpecs(body);
  const ArgSpec list_spec(kVariant, kScalarShape, Device::cpu());

  // Pass 1 finds which invariants get a gradient (and, for variables, of which dtype), which of
  // those are stackable products, and which body values the gradient reads (step 3 of
  // Note [While gradients]).
  Probe probe;
  probe.found.resize(n);
  {
    std::vector<ArgSpec> specs = {{kInt32, kScalarShape, Device::cpu()}};
    for (size_t k : loop.changing) specs.push_back(var_specs[k]);
    for (size_t i = 0; i < loop.accumulated.size(); ++i) specs.push_back(list_spec);
    for (size_t k : loop.invariant) specs.push_back(var_specs[k]);
    TraceFunction(GraphContext::Current(), specs, [&](const std::vector<Tensor>& args) {
      return BackwardBody(body, loop, args, &probe);
    });
  }
  loop.saved = std::move(probe.needed);
  loop.products = std::move(probe.products);
  auto [trip_count, accumulators] =
      AccumulatingLoop(cond, body, ctx.attr(WhileAttrs::kBody).body, inputs, loop);

  // The backward loop's state (BackwardBody says the order).
  std::vector<ArgSpec> specs = {{kInt32, kScalarShape, Device::cpu()}};
  std::vector<Tensor> vars = {trip_count};
  for (size_t k : loop.changing) {
    specs.push_back(var_specs[k]);
    vars.push_back(ctx.grad(static_cast<int>(k)).defined()
                       ? ctx.grad(static_cast<int>(k))
                       : zeros_like(ctx.output(static_cast<int>(k))));
  }
  for (const Tensor& list : accumulators) {
    specs.push_back(list_spec);
    vars.push_back(list);
  }
  const auto is_product = [&](size_t k) {
    return std::any_of(loop.products.begin(), loop.products.end(),
                       [k](const ProductGradient& p) { return p.k == k; });
  };
  std::vector<size_t> summed;
  for (size_t k : loop.summed) {
    if (!probe.found[k].defined || is_product(k)) continue;
    summed.push_back(k);
    const Tensor& x = ctx.input(static_cast<int>(k));
    const Tensor zeros = x.dtype() == kResource
                             ? zeros_like(read_variable_op(x, probe.found[k].dtype))
                             : zeros_like(x);
    specs.emplace_back(zeros.dtype(), zeros.shape(), var_specs[k].device);
    vars.push_back(zeros);
  }
  loop.summed = summed;
  for (const ProductGradient& p : loop.products) {
    for (const Shape* shape : {&p.a, &p.b}) {
      specs.push_back(list_spec);
      vars.push_back(empty_tensor_list(element_shape_operand(*shape), constant(-1), p.dtype));
    }
  }
  for (size_t k : loop.invariant) {
    specs.push_back(var_specs[k]);
    vars.push_back(inputs[k]);
  }
  GraphContext* outer = GraphContext::Current();
  FunctionTrace cond_trace = TraceFunction(outer, specs, [&](const std::vector<Tensor>& args) {
    return std::vector<Tensor>{args[0] > 0};
  });
  FunctionTrace body_trace = TraceFunction(outer, specs, [&](const std::vector<Tensor>& args) {
    return BackwardBody(body, loop, args, nullptr);
  });
  const std::vector<Tensor> out = graph_internal::CallWhile(
      std::move(cond_trace), std::move(body_trace), vars, OpSite("While_grad"), kBackwardLoopName);

  // Each gradient on its input's device (Note [Calls across devices] in ops/placement.h).
  TensorList result(ctx.num_inputs());
  for (size_t c = 0; c < loop.changing.size(); ++c) {
    const int k = static_cast<int>(loop.changing[c]);
    if (ctx.needs_grad(k)) result[k] = out[1 + c].to(ctx.input(k).device());
  }
  // An invariant output is its input: its upstream gradient adds to the input's.
  const auto set_invariant_grad = [&](size_t index, Tensor g) {
    const int k = static_cast<int>(index);
    if (ctx.input_dtype(k) != kResource && ctx.grad(k).defined()) g = add_gradients(g, ctx.grad(k));
    result[k] = g.to(ctx.input(k).device());
  };
  const size_t sums_out = 1 + loop.changing.size() + accumulators.size();
  for (size_t s = 0; s < loop.summed.size(); ++s)
    set_invariant_grad(loop.summed[s], out[sums_out + s]);
  // Note [Loop-invariant matmul gradients]: the iterations' a^T b as one matmul.
  const size_t products_out = sums_out + loop.summed.size();
  for (size_t p = 0; p < loop.products.size(); ++p) {
    const ProductGradient& product = loop.products[p];
    std::vector<Tensor> operands;
    for (size_t i = 0; i < 2; ++i) {
      const Shape& shape = i == 0 ? product.a : product.b;
      const Tensor stacked = tensor_list_stack(out[products_out + 2 * p + i],
                                               element_shape_operand(shape), product.dtype, -1);
      operands.push_back(reshape(stacked, {-1, shape.dim(1)}));
    }
    set_invariant_grad(product.k, matmul(operands[0], operands[1], true, false));
  }
  return result;
}

// Keep every input and output: the gradients pass them to the gradient If and While.
const GradientRegistrar kIfGrad("If", IfGrad, {0, 1}, {0});
const GradientRegistrar kStatelessIfGrad("StatelessIf", IfGrad, {0, 1}, {0});
const GradientRegistrar kWhileGrad("While", WhileGrad, {0}, {0});
const GradientRegistrar kStatelessWhileGrad("StatelessWhile", WhileGrad, {0}, {0});

}  // namespace
}  // namespace duet
