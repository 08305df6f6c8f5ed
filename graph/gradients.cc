#include "graph/gradients.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "graph/graph_context.h"
#include "graph/graph_ops.h"
#include "ops/array/array_ops.h"
#include "ops/gradient.h"
#include "ops/math/add_gradients.h"
#include "ops/math/math_ops.h"

namespace duet {
namespace {

struct OutputHash {
  size_t operator()(const NodeOutput& o) const { return absl::HashOf(o.node, o.index); }
};
using GradientMap = absl::flat_hash_map<NodeOutput, Tensor, OutputHash>;

// Floating-point tensors, variables (their values') and TensorLists (their elements', Note
// [TensorList gradients] in ops/list/list_grads.cc).
bool CarriesGradient(DType dtype) {
  return IsFloating(dtype) || dtype == kResource || dtype == kVariant;
}

[[noreturn]] void Fail(absl::string_view message) {
  throw Error(absl::InvalidArgumentError(absl::StrCat("gradients: ", message)));
}

bool Marked(const std::vector<bool>& marks, int id) {
  return id < static_cast<int>(marks.size()) && marks[id];
}

// Which outputs depend on an x (x itself included) through the nodes `through` marks (every node
// when it is null; nodes past its end, such as captures made for the xs, are unmarked), by node id
// and output index. Node ids are a topological order: a node is only added after its inputs.
class Reach {
 public:
  Reach(const Graph& graph, const std::vector<NodeOutput>& xs, const std::vector<bool>* through)
      : outputs_(graph.num_nodes()) {
    for (const NodeOutput& x : xs) Mark(x);
    for (const Node* node : graph.nodes()) {
      if (through != nullptr && !Marked(*through, node->id())) continue;
      bool reached = false;
      for (const NodeOutput& in : node->inputs()) reached = reached || Contains(in);
      if (!reached) continue;
      for (int i = 0; i < node->num_outputs(); ++i) Mark({node, i});
    }
  }
  bool Contains(const NodeOutput& o) const {
    const std::vector<char>& marks = outputs_[o.node->id()];
    return o.index < static_cast<int>(marks.size()) && marks[o.index];
  }

 private:
  void Mark(const NodeOutput& o) {
    if (!CarriesGradient(o.node->output_dtype(o.index))) return;
    std::vector<char>& marks = outputs_[o.node->id()];
    marks.resize(o.node->num_outputs());
    marks[o.index] = 1;
  }
  std::vector<std::vector<char>> outputs_;
};

void Accumulate(GradientMap& grads, const NodeOutput& at, const Tensor& g) {
  auto [it, inserted] = grads.try_emplace(at, g);
  if (!inserted) it->second = add_gradients(it->second, g);
}

// Input i of a node as its gradient function sees it: a Const's own value on the host (so
// functions that read small integer operands, such as a transpose's perm, work as they do
// eagerly), else the symbolic output (Note [Constants on devices] in graph/graph.cc).
Tensor InputTensor(const NodeOutput& in) {
  if (const Tensor* value = in.node->host_constant()) return *value;
  return in.node->output(in.index);
}

// The gradients of `node`'s inputs, given its outputs' upstream gradients.
TensorList NodeGradients(const Node& node, absl::Span<const Tensor> upstream, const Reach& reach) {
  const GradientDef* def = FindGradient(node.op());
  if (def == nullptr) {
    Fail(absl::StrCat("no gradient is defined for op ", node.op().name, " (node '", node.name(),
                      "')"));
  }
  if (def->fn == nullptr) return {};  // not differentiable: nothing flows back
  TensorList inputs, outputs;
  std::vector<TensorMeta> input_meta, output_meta;
  uint64_t needs_grad = 0;
  for (size_t j = 0; j < node.inputs().size(); ++j) {
    const NodeOutput& in = node.inputs()[j];
    inputs.push_back(InputTensor(in));
    input_meta.push_back(
        {in.node->output_dtype(in.index), in.node->output_shape(in.index), in.node->placement()});
    if (j >= 64 || reach.Contains(in)) needs_grad |= uint64_t{1} << (j & 63);
  }
  for (int i = 0; i < node.num_outputs(); ++i) {
    outputs.push_back(node.output(i));
    output_meta.push_back({node.output_dtype(i), node.output_shape(i), node.placement()});
  }
  const GradientContext ctx(node.op(), node.attrs(), inputs, outputs, input_meta, output_meta,
                            upstream, needs_grad);
  TensorList result = def->fn(ctx);
  if (result.size() != node.inputs().size()) {
    throw Error(absl::InternalError(absl::StrCat("the gradient of ", node.op().name, " returned ",
                                                 result.size(), " tensors for ",
                                                 node.inputs().size(), " inputs")));
  }
  return result;
}

}  // namespace

std::vector<Tensor> gradients(const std::vector<Tensor>& ys, const std::vector<GradientSource>& xs,
                              const std::vector<Tensor>& grad_ys) {
  return graph_internal::GradientsThrough(ys, xs, grad_ys, nullptr);
}

namespace graph_internal {

std::vector<Tensor> GradientsThrough(const std::vector<Tensor>& ys,
                                     const std::vector<GradientSource>& xs,
                                     const std::vector<Tensor>& grad_ys,
                                     const std::vector<bool>* through) {
  GraphContext* context = GraphContext::Current();
  if (context == nullptr) Fail("call it inside a GraphScope (eagerly, use a GradientTape)");
  if (!grad_ys.empty() && grad_ys.size() != ys.size()) {
    Fail(absl::StrCat(grad_ys.size(), " grad_ys for ", ys.size(), " ys"));
  }
  const Graph& graph = context->graph();
  auto endpoint = [&](const Tensor& t) {
    absl::StatusOr<NodeOutput> out = context->Resolve(t);
    if (!out.ok()) Fail(out.status().message());
    return *out;
  };
  // Seeds and results may be eager tensors (a grad_y, or an input's gradient that is the seed
  // itself); the caller gets graph tensors.
  auto in_graph = [&](const Tensor& t) { return t.has_value() ? endpoint(t).node->output(0) : t; };
  std::vector<NodeOutput> x_outputs, y_outputs;
  for (const GradientSource& x : xs) x_outputs.push_back(endpoint(x.tensor()));
  for (const Tensor& y : ys) y_outputs.push_back(endpoint(y));
  const Reach reach(graph, x_outputs, through);
  // The nodes to differentiate are those that exist now; the ones this call adds come after.
  const int num_nodes = graph.num_nodes();

  NameScope scope("gradients");
  GradientMap grads;
  std::vector<char> wanted(num_nodes, 0);  // on a path to a y
  for (size_t k = 0; k < ys.size(); ++k) {
    if (!reach.Contains(y_outputs[k])) continue;
    Tensor seed = grad_ys.empty() ? ones_like(ys[k]) : grad_ys[k];
    if (!seed.shape().IsCompatibleWith(ys[k].shape())) {
      Fail(absl::StrCat("grad_ys[", k, "] has shape ", seed.shape().str(), " but ys[", k,
                        "] has shape ", ys[k].shape().str()));
    }
    Accumulate(grads, y_outputs[k], seed);
    wanted[y_outputs[k].node->id()] = 1;
  }
  // Backwards through the ids (a reverse topological order): a node's gradient is complete once
  // every later node has been visited.
  for (int id = num_nodes; id-- > 0;) {
    if (!wanted[id]) continue;
    const Node& node = *graph.node(id);
    TensorList upstream(node.num_outputs());
    bool any = false;
    for (int i = 0; i < node.num_outputs(); ++i) {
      auto it = grads.find(NodeOutput{&node, i});
      if (it == grads.end()) continue;
      upstream[i] = it->second;
      any = true;
    }
    if (!any) continue;
    const TensorList in = NodeGradients(node, upstream, reach);
    for (size_t j = 0; j < in.size(); ++j) {
      const NodeOutput& input = node.inputs()[j];
      if (!in[j].defined() || !reach.Contains(input)) continue;
      Accumulate(grads, input, in[j]);
      wanted[input.node->id()] = 1;
    }
  }
  std::vector<Tensor> result;
  for (const NodeOutput& x : x_outputs) {
    auto it = grads.find(x);
    result.push_back(it == grads.end() ? Tensor() : in_graph(it->second));
  }
  return result;
}

}  // namespace graph_internal
}  // namespace duet
