// Fusion of regions of elementwise ops into one _FusedElementwise node, whose kernel evaluates the
// whole expression in one pass over memory (Note [Tiled program evaluation]) instead of writing
// and re-reading every intermediate tensor.
//
// A region is a connected set of nodes of the ops a program may hold (elementwise_program.h), of
// float32 or float64, with one result: its root, whose shape is static. Every value entering the
// region is a single element (a scalar that broadcasts) or of the root's shape, and every node but
// the root is not kept and has no control dependents. Regions are grown from roots in reverse
// topological order, absorbing producers greedily; the root is rewritten in place (a fetched
// result keeps its name), the rest go. Trees and shared subexpressions inside a region are fine:
// the program computes each node once.
//
// Note [Exported values]: a node read outside its region too (a loop body's sigmoid that the
// While gradient saves) joins it as an extra output of the fused node (Note [Extra outputs] in
// ops/math/elementwise_program.h) when it has the root's shape, runs on a CPU (the CUDA kernel
// writes output 0 only), and none of its outside readers leads back into the region (which would
// make the fused node depend on itself). Its readers then read that output. An LSTM cell's
// forward step thus runs as two kernels instead of seven.
#include <queue>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "graph/passes/passes.h"
#include "graph/passes/rewrite.h"
#include "ops/math/elementwise_program.h"
#include "ops/math/math_attrs.h"
#include "ops/op_ref.h"

namespace duet {
namespace {

const OpRef kFusedElementwiseOp("_FusedElementwise");

constexpr absl::string_view kFusion = "fusion.elementwise";

bool IsElementwise(const Node& node) {
  return node.num_outputs() == 1 && ElementwiseOpcodeOf(node.op().name).has_value();
}

// Whether a value of shape `shape` may enter or live in a region whose result is `region`.
bool FitsRegion(const Shape& shape, const Shape& region) {
  return shape == region ||
         (shape.is_fully_defined() && shape.num_elements() == 1 && shape.rank() <= region.rank());
}

// Why no region can hold `node` whatever its shape (empty when one can).
std::string TypeOrShapeObstacle(const Node& node) {
  const DType dtype = node.output_dtype(0);
  if (dtype != kFloat32 && dtype != kFloat64) {
    return absl::StrCat("dtype ", DTypeName(dtype),
                        ": _FusedElementwise takes float32 and float64");
  }
  const Shape& shape = node.output_shape(0);
  if (!shape.is_fully_defined()) return absl::StrCat("its shape ", shape.str(), " is not static");
  return "";
}

// Why `node` cannot be part of a region whose result has shape `region`: an input that broadcasts
// other than as a single element (empty when there is none).
std::string BroadcastObstacle(const Node& node, const Shape& region) {
  for (int i = 0; i < static_cast<int>(node.inputs().size()); ++i) {
    const NodeOutput& in = node.inputs()[i];
    const Shape& shape = in.node->output_shape(in.index);
    if (!FitsRegion(shape, region)) {
      return absl::StrCat("input ", i, " has shape ", shape.str(),
                          ", neither a single element nor the fused shape ", region.str());
    }
  }
  return "";
}

struct Region {
  const Node* root;
  std::vector<const Node*> nodes;     // root included, in topological order
  std::vector<const Node*> exported;  // read outside too: extra outputs (Note [Exported values])
};

class RegionFinder {
 public:
  RegionFinder(const Graph& graph, PassContext& context, absl::flat_hash_set<const Node*>& reported)
      : graph_(graph),
        context_(context),
        uses_(graph),
        taken_(graph.num_nodes(), false),
        reported_(reported) {}

  // Disjoint regions of at least two ops, up to and including the first with exported values
  // (Note [Exported values]: the caller fuses them and looks again).
  std::vector<Region> Find() {
    std::vector<Region> regions;
    for (int id = graph_.num_nodes() - 1; id >= 0; --id) {
      const Node* node = graph_.node(id);
      if (taken_[id] || !IsElementwise(*node)) continue;
      if (std::string why = TypeOrShapeObstacle(*node); !why.empty()) {
        // One report for the region that would have been, not one per node of it.
        const Region missed = Grow(*node, /*relaxed=*/true);
        if (missed.nodes.size() < 2) continue;
        Take(missed);
        Report(*node, absl::StrCat(why, " (", missed.nodes.size(), " elementwise ops stay apart)"));
        continue;
      }
      if (std::string why = BroadcastObstacle(*node, node->output_shape(0)); !why.empty()) {
        if (HasElementwiseNeighbour(*node)) Report(*node, std::move(why));
        continue;
      }
      Region region = Grow(*node, /*relaxed=*/false);
      if (region.nodes.size() < 2) continue;
      Take(region);
      regions.push_back(std::move(region));
      if (!regions.back().exported.empty()) break;
    }
    return regions;
  }

 private:
  // Absorbs producers from `root` down, highest id first: a node's readers all have higher ids,
  // so when it is considered, every reader that will ever join the region has joined. `relaxed`
  // ignores shapes, to find the extent of a region that cannot be fused.
  Region Grow(const Node& root, bool relaxed) {
    absl::flat_hash_set<const Node*> members = {&root};
    absl::flat_hash_set<const Node*> exported;
    std::priority_queue<int> candidates;
    auto push_producers = [&](const Node& node) {
      for (const NodeOutput& in : node.inputs()) candidates.push(in.node->id());
    };
    push_producers(root);
    int last = -1;
    while (!candidates.empty()) {
      const int id = candidates.top();
      candidates.pop();
      if (id == last) continue;
      last = id;
      const Node& node = *graph_.node(id);
      bool read_outside = false;
      if (Absorbable(node, root, members, relaxed, read_outside)) {
        members.insert(&node);
        if (read_outside) exported.insert(&node);
        push_producers(node);
      }
    }
    auto by_id = [](const Node* a, const Node* b) { return a->id() < b->id(); };
    Region region{&root, std::vector<const Node*>(members.begin(), members.end()),
                  std::vector<const Node*>(exported.begin(), exported.end())};
    std::sort(region.nodes.begin(), region.nodes.end(), by_id);
    std::sort(region.exported.begin(), region.exported.end(), by_id);
    return region;
  }

  // Whether `node` may join the region; `read_outside` says it does as an exported value.
  bool Absorbable(const Node& node, const Node& root,
                  const absl::flat_hash_set<const Node*>& members, bool relaxed,
                  bool& read_outside) {
    if (taken_[node.id()] || !IsElementwise(node) || context_.Keeps(&node) ||
        node.output_dtype(0) != root.output_dtype(0) || node.device() != root.device() ||
        !uses_.control_dependents(&node).empty()) {
      return false;
    }
    std::vector<const Node*> outside;
    for (const UseIndex::Use& use : uses_.uses({&node, 0})) {
      if (!members.contains(use.node)) outside.push_back(use.node);
    }
    if (!outside.empty() && (relaxed || !Exportable(node, root, members, outside))) return false;
    read_outside = !outside.empty();
    if (relaxed) return true;
    const Shape& region = root.output_shape(0);
    if (!FitsRegion(node.output_shape(0), region)) return false;
    if (std::string why = BroadcastObstacle(node, region); !why.empty()) {
      Report(node, std::move(why));
      return false;
    }
    return true;
  }

  // Note [Exported values]: whether `node`, read by `outside` nodes, may be an extra output.
  bool Exportable(const Node& node, const Node& root,
                  const absl::flat_hash_set<const Node*>& members,
                  const std::vector<const Node*>& outside) const {
    if (node.output_shape(0) != root.output_shape(0) ||
        node.placement().type() != DeviceType::kCpu) {
      return false;
    }
    // Members have ids up to the root's; what leads back into the region passes only there.
    std::vector<const Node*> stack = outside;
    absl::flat_hash_set<const Node*> seen(outside.begin(), outside.end());
    while (!stack.empty()) {
      const Node* at = stack.back();
      stack.pop_back();
      if (members.contains(at)) return false;
      auto visit = [&](const Node* next) {
        if (next->id() <= root.id() && seen.insert(next).second) stack.push_back(next);
      };
      for (int k = 0; k < at->num_outputs(); ++k) {
        for (const UseIndex::Use& use : uses_.uses({at, k})) visit(use.node);
      }
      for (const Node* dependent : uses_.control_dependents(at)) visit(dependent);
    }
    return true;
  }

  void Take(const Region& region) {
    for (const Node* member : region.nodes) taken_[member->id()] = true;
  }

  // Whether `node` would have joined a region but for its obstacle. Fused nodes count: the
  // report of a later round (which is the one kept) must still say why a node stayed out.
  bool HasElementwiseNeighbour(const Node& node) const {
    auto fusible = [](const Node& n) { return IsElementwise(n) || kFusedElementwiseOp.is(n.op()); };
    for (const NodeOutput& in : node.inputs()) {
      if (fusible(*in.node)) return true;
    }
    for (const UseIndex::Use& use : uses_.uses({&node, 0})) {
      if (fusible(*use.node)) return true;
    }
    return false;
  }

  // Each node's first reason only: a node is considered from several regions.
  void Report(const Node& node, std::string why) {
    if (reported_.insert(&node).second) context_.Missed(kFusion, node, std::move(why));
  }

  const Graph& graph_;
  PassContext& context_;
  const UseIndex uses_;
  std::vector<bool> taken_;
  absl::flat_hash_set<const Node*>& reported_;  // shared by the finders of one pass run
};

// The program of `region` (Note [Elementwise programs]) and the inputs it reads.
struct Encoded {
  std::vector<NodeOutput> inputs;
  std::vector<std::string> ops;
  std::vector<int64_t> operands;
  std::vector<int64_t> results;  // the exported nodes' instructions
};

Encoded Encode(const Region& region) {
  absl::flat_hash_map<const Node*, int> position;
  for (int k = 0; k < static_cast<int>(region.nodes.size()); ++k) position[region.nodes[k]] = k;
  Encoded encoded;
  absl::flat_hash_map<std::pair<const Node*, int>, int> input_index;
  for (const Node* node : region.nodes) {
    for (const NodeOutput& in : node->inputs()) {
      if (position.contains(in.node)) continue;
      if (input_index.try_emplace({in.node, in.index}, encoded.inputs.size()).second) {
        encoded.inputs.push_back(in);
      }
    }
  }
  const int num_inputs = static_cast<int>(encoded.inputs.size());
  for (const Node* node : region.nodes) {
    encoded.ops.push_back(node->op().name);
    for (const NodeOutput& in : node->inputs()) {
      auto it = position.find(in.node);
      encoded.operands.push_back(it != position.end() ? num_inputs + it->second
                                                      : input_index.at({in.node, in.index}));
    }
  }
  for (const Node* node : region.exported) encoded.results.push_back(position.at(node));
  return encoded;
}

absl::StatusOr<bool> FuseRegion(Graph& graph, PassContext& context, const Region& region) {
  Encoded encoded = Encode(region);
  const Node& root = *region.root;
  absl::StatusOr<NodeSpec> made =
      SpecFor(kFusedElementwiseOp, encoded.inputs, root, [&](OpCall& call) {
        call.set(FusedElementwiseAttrs::kOps, std::move(encoded.ops));
        call.set(FusedElementwiseAttrs::kOperands, std::move(encoded.operands));
        call.set(FusedElementwiseAttrs::kM, static_cast<int64_t>(encoded.results.size()));
        call.set(FusedElementwiseAttrs::kResults, std::move(encoded.results));
      });
  if (!made.ok()) {  // the op's own checks: report, and leave the graph as it is
    context.Missed(kFusion, root, std::string(made.status().message()));
    return false;
  }
  NodeSpec spec = *std::move(made);
  std::vector<ReplacedNode> replaced;
  absl::flat_hash_set<const Node*> controls;
  for (const Node* node : region.nodes) {
    replaced.push_back(ReplacedNode::Of(*node));
    for (const Node* control : node->control_inputs()) {
      if (controls.insert(control).second) spec.control_inputs.push_back(control);
    }
  }
  // The exported nodes' outside readers read the extra outputs (Note [Exported values]).
  const absl::flat_hash_set<const Node*> members(region.nodes.begin(), region.nodes.end());
  std::vector<std::tuple<const Node*, int, int>> rewired;  // reader, input, extra output
  if (!region.exported.empty()) {
    const UseIndex uses(graph);
    for (size_t j = 0; j < region.exported.size(); ++j) {
      for (const UseIndex::Use& use : uses.uses({region.exported[j], 0})) {
        if (!members.contains(use.node)) {
          rewired.emplace_back(use.node, use.input, static_cast<int>(j) + 1);
        }
      }
    }
  }
  DUET_RETURN_IF_ERROR(graph.Rewrite(&root, std::move(spec)));
  for (const auto& [reader, input, output] : rewired)
    graph.SetInput(reader, input, {&root, output});
  std::vector<const Node*> interior(region.nodes.begin(), region.nodes.end() - 1);
  DUET_RETURN_IF_ERROR(graph.RemoveNodes(interior));
  context.Fused(root, std::move(replaced));
  context.Count(kFusion);
  context.Count("fusion.elementwise_ops", static_cast<int64_t>(region.nodes.size()));
  return true;
}

}  // namespace

// A region with exported values (Note [Exported values]) is the last one a finder returns, so its
// cycle check saw the graph as it is (the single-output regions found before it add no paths: all
// their nodes already led to their root). Once it is fused, the graph is sorted again and a new
// finder looks at the result.
absl::StatusOr<bool> FuseElementwise(Graph& graph, PassContext& context) {
  absl::flat_hash_set<const Node*> reported;
  bool changed = false;
  for (;;) {
    const std::vector<Region> regions = RegionFinder(graph, context, reported).Find();
    bool fused = false;
    for (const Region& region : regions) {
      DUET_ASSIGN_OR_RETURN(fused, FuseRegion(graph, context, region));
      changed |= fused;
    }
    if (regions.empty() || regions.back().exported.empty() || !fused) return changed;
    DUET_RETURN_IF_ERROR(graph.SortTopologically());
  }
}

}  // namespace duet
