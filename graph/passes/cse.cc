// Common-subexpression elimination: two nodes with the same op, attrs, data inputs, control inputs
// and device compute the same value, so consumers of the second read the first. Constants merge
// when their dtype, shape and bytes agree. Stateful ops never merge (two reads of a variable may
// see different values), nor do Placeholders (each is its own input). Visiting in topological
// order merges whole duplicated subgraphs in one pass: once two producers merged, their
// consumers' inputs agree.
#include <algorithm>
#include <cstring>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "graph/graph_ops.h"
#include "graph/passes/passes.h"
#include "graph/passes/rewrite.h"

namespace duet {
namespace {

bool SameTensor(const Tensor& a, const Tensor& b) {
  if (a.impl() == b.impl()) return true;
  if (!a.has_value() || !b.has_value() || a.dtype() != b.dtype() || a.shape() != b.shape()) {
    return false;
  }
  if (a.dtype() == kString) {  // objects, not bytes (Note [String tensors] in core/tensor.cc)
    return std::equal(a.data<std::string>(), a.data<std::string>() + a.num_elements(),
                      b.data<std::string>());
  }
  return std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

// What the hash of a Const value reads: its first bytes, or for strings its first element's.
absl::string_view HashedBytes(const Tensor& value) {
  if (value.dtype() == kString) {
    if (value.num_elements() == 0) return {};
    const std::string& first = *value.data<std::string>();
    return absl::string_view(first).substr(0, 64);
  }
  return absl::string_view(static_cast<const char*>(value.raw_data()),
                           std::min<size_t>(value.nbytes(), 64));
}

bool SameAttr(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Tensor>) {
          return SameTensor(x, std::get<Tensor>(b));
        } else {
          return x == std::get<T>(b);
        }
      },
      a);
}

// What must agree for two nodes to merge; hashed coarsely (op, inputs), compared fully.
struct NodeKey {
  const Node* node;

  template <typename H>
  friend H AbslHashValue(H h, const NodeKey& key) {
    const Node& n = *key.node;
    h = H::combine(std::move(h), n.op().id, n.device(), n.inputs().size());
    for (const NodeOutput& in : n.inputs()) h = H::combine(std::move(h), in.node, in.index);
    if (const Tensor* value = ConstValue({&n, 0}); value != nullptr && value->has_value()) {
      h = H::combine(std::move(h), value->nbytes(), HashedBytes(*value));
    }
    return h;
  }
  friend bool operator==(const NodeKey& x, const NodeKey& y) {
    const Node& a = *x.node;
    const Node& b = *y.node;
    if (&a.op() != &b.op() || a.device() != b.device() || a.attrs().size() != b.attrs().size() ||
        !std::equal(a.inputs().begin(), a.inputs().end(), b.inputs().begin(), b.inputs().end()) ||
        !std::is_permutation(a.control_inputs().begin(), a.control_inputs().end(),
                             b.control_inputs().begin(), b.control_inputs().end())) {
      return false;
    }
    for (size_t i = 0; i < a.attrs().size(); ++i) {
      if (!SameAttr(a.attrs()[i], b.attrs()[i])) return false;
    }
    return true;
  }
};

bool Mergeable(const Node& node) {
  return !node.op().stateful && !kPlaceholderOp.is(node.op()) &&
         (!kConstOp.is(node.op()) || ConstValue({&node, 0}) != nullptr);
}

}  // namespace

absl::StatusOr<bool> EliminateCommonSubexpressions(Graph& graph, PassContext& context) {
  const UseIndex uses(graph);
  absl::flat_hash_map<NodeKey, const Node*> first;
  std::vector<const Node*> merged;
  for (const Node* node : graph.nodes()) {
    const bool dead = uses.num_data_uses(node) == 0 && uses.control_dependents(node).empty() &&
                      !context.Keeps(node);
    if (!Mergeable(*node) || dead) continue;  // dead nodes are for pruning, not merging
    auto [it, inserted] = first.try_emplace(NodeKey{node}, node);
    if (inserted || context.Keeps(node)) continue;  // a kept node's name must survive
    const Node* keep = it->second;
    const Node* drop = node;
    for (int i = 0; i < drop->num_outputs(); ++i) graph.ReplaceUses({drop, i}, {keep, i});
    MoveControlDependents(graph, uses, drop, keep);
    merged.push_back(drop);
  }
  if (merged.empty()) return false;
  DUET_RETURN_IF_ERROR(graph.RemoveNodes(merged));
  context.Count("cse.merged", static_cast<int64_t>(merged.size()));
  return true;
}

}  // namespace duet
