// Helpers the passes share: who reads each node output, building and inserting nodes with their
// shapes inferred, and reading Const values.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/graph.h"
#include "ops/op_ref.h"

namespace duet {

// The data and control edges out of every node, as of construction (rebuild after rewiring).
class UseIndex {
 public:
  struct Use {
    const Node* node;
    int input;
  };
  explicit UseIndex(const Graph& graph);

  absl::Span<const Use> uses(NodeOutput output) const;
  int num_uses(NodeOutput output) const { return static_cast<int>(uses(output).size()); }
  // Data edges out of any output of `node`.
  int num_data_uses(const Node* node) const;
  absl::Span<const Node* const> control_dependents(const Node* node) const;

 private:
  absl::flat_hash_map<std::pair<const Node*, int>, std::vector<Use>> uses_;
  absl::flat_hash_map<const Node*, std::vector<const Node*>> control_;
};

// Sets the attrs of a new node's call through the op's keys (Note [Attribute keys] in
// ops/attr_key.h); the call starts with the op's defaults.
using AttrSetter = absl::FunctionRef<void(OpCall&)>;

// The spec of a call of `op` on `inputs`: attrs are the op's defaults, then what `set_attrs`
// sets, then type attrs bound from the inputs; outputs are inferred by the shape function. The
// device and source location are `site`'s (the node the new one replaces); the name is left empty.
absl::StatusOr<NodeSpec> SpecFor(
    const OpRef& op, std::vector<NodeOutput> inputs, const Node& site,
    AttrSetter set_attrs = [](OpCall&) {});
// The same for an op at hand (a node's own).
absl::StatusOr<NodeSpec> SpecFor(
    const OpDef& op, std::vector<NodeOutput> inputs, const Node& site,
    AttrSetter set_attrs = [](OpCall&) {});
// Infers every node's output shapes again from its inputs', in topological order, after some
// Placeholders got more specific shapes (a session specializing a graph to the shapes it is fed).
// A node keeps what it knew where inference fails or knows less; nothing else changes.
absl::Status RefineShapes(Graph& graph);
// A Const holding `value`, placed like `site`.
NodeSpec ConstSpec(const Tensor& value, const Node& site);
// Adds `spec` under a fresh name made from `base`.
absl::StatusOr<const Node*> AddNamed(Graph& graph, NodeSpec spec, absl::string_view base);

// The value of a Const node's output, or nullptr (also for a value on another device than the
// host: Note [Constants on devices] in graph/graph.cc).
const Tensor* ConstValue(NodeOutput output);
// True when the Const value is a scalar or all of its elements equal `x` (numeric dtypes).
bool IsConstFilledWith(NodeOutput output, double x);

// A float32 or float64 tensor's values as doubles, for folding constants as the float64 kernels
// compute; and a tensor of `dtype` (float32 or float64) holding `values`.
std::vector<double> FloatValues(const Tensor& t);
Tensor FloatTensor(DType dtype, const std::vector<double>& values, const Shape& shape);
// A float32 or float64 `filter` with the elements of output channel k multiplied by factors[k],
// each product taken in double and rounded once to the filter's dtype. Channel k's elements are
// the runs of `stride` at k * stride + j * stride * factors.size(): stride 1 for channels last.
Tensor ScalePerChannel(const Tensor& filter, const std::vector<double>& factors,
                       int64_t stride = 1);

// Makes the nodes that depend on `from` through control edges depend on `to` instead.
void MoveControlDependents(Graph& graph, const UseIndex& uses, const Node* from, const Node* to);

}  // namespace duet
