// Dead-code elimination: a node stays when a kept node needs it, through data or control edges,
// when it is stateful (its effect is the point, whether or not anything reads it), or when it is
// a Placeholder (the graph's inputs stay what callers feed, even when folding made one unused).
#include "graph/graph_ops.h"
#include "graph/passes/passes.h"

namespace duet {

absl::StatusOr<bool> Prune(Graph& graph, PassContext& context) {
  std::vector<char> live(graph.num_nodes(), 0);
  std::vector<const Node*> stack;
  for (const Node* node : graph.nodes()) {
    if (context.Keeps(node) || node->op().stateful || kPlaceholderOp.is(node->op())) {
      live[node->id()] = 1;
      stack.push_back(node);
    }
  }
  while (!stack.empty()) {
    const Node* node = stack.back();
    stack.pop_back();
    auto visit = [&](const Node* in) {
      if (live[in->id()]) return;
      live[in->id()] = 1;
      stack.push_back(in);
    };
    for (const NodeOutput& in : node->inputs()) visit(in.node);
    for (const Node* in : node->control_inputs()) visit(in);
  }
  std::vector<const Node*> dead;
  for (const Node* node : graph.nodes()) {
    if (!live[node->id()]) dead.push_back(node);
  }
  if (dead.empty()) return false;
  DUET_RETURN_IF_ERROR(graph.RemoveNodes(dead));
  context.Count("prune.removed", static_cast<int64_t>(dead.size()));
  return true;
}

}  // namespace duet
