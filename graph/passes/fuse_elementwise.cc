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
//
// Note [Joined regions]: a ConcatV2 along the last axis of values that elementwise nodes make, all
// of one static shape, on a CPU, is the root of one region grown from all of them at once: the
// concat is rewritten into a _FusedElementwise whose output 0 joins those values (Note
// [Concatenated output] in ops/math/elementwise_program.h), so siblings that share inputs are one
// kernel and the joined tensor is written once. An LSTM cell's gradient (its four gates'
// gradients, joined for the recurrent matmul) is one kernel instead of four and a concat. When a
// value is not an elementwise node of the region (or cannot join it), the concat stays and its
// inputs fuse as they would without it.
//
// Note [Split inputs]: a region (on a CPU) reading output k of a Split of `v` into n parts along
// the last axis reads part k of v instead (Note [Input parts] in ops/math/elementwise_program.h),
// so the Split runs no longer once all its parts are read so. When v is made by an elementwise
// node that only the Split reads, whose inputs are single elements or of its shape, and every
// output of the Split is read by elementwise nodes only, the region computes v's part from its
// inputs' parts instead (v is no member of any region then): an LSTM cell's z = zx + h U is added
// inside the cell's kernels, part by part, and neither the add nor the Split runs.
#include <algorithm>
#include <optional>
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
const OpRef kConcatV2Op("ConcatV2");
const OpRef kSplitOp("Split");

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

// What a region reads for an output of a Split (Note [Split inputs]): part `part` of `parts` of
// the Split's input `value`, or, when `through`, that part of value's elementwise node computed
// from its inputs' parts.
struct SplitPart {
  NodeOutput value;
  int part = 0;
  int parts = 1;
  bool through = false;
};

struct Region {
  const Node* root;
  std::vector<const Node*> nodes;     // root included, in topological order
  std::vector<const Node*> exported;  // read outside too: extra outputs (Note [Exported values])
  bool joins = false;                 // root is a ConcatV2 of members (Note [Joined regions])
  // The Split outputs the region reads, by node and output index (Note [Split inputs]).
  absl::flat_hash_map<std::pair<const Node*, int>, SplitPart> split_parts;
};

// The scalar value of a Const integer `output`, or nullopt.
std::optional<int64_t> ConstInt(NodeOutput output) {
  const Tensor* value = ConstValue(output);
  if (value == nullptr || value->shape().rank() != 0) return std::nullopt;
  if (value->dtype() == kInt64) return value->data<int64_t>()[0];
  if (value->dtype() == kInt32) return value->data<int32_t>()[0];
  return std::nullopt;
}

// Whether `axis` names the last of `rank` axes.
bool IsLastAxis(std::optional<int64_t> axis, int rank) {
  return axis.has_value() && rank > 0 && (*axis == rank - 1 || *axis == -1);
}

// The shape of the values `node` joins when it is a ConcatV2 that a region may have as its root
// (Note [Joined regions]), else nullopt: along the last axis (a Const), of values of one static
// shape, float32 or float64, on a CPU.
std::optional<Shape> JoinedShape(const Node& node) {
  if (!kConcatV2Op.is(node.op()) || node.placement().type() != DeviceType::kCpu)
    return std::nullopt;
  const int n = static_cast<int>(node.inputs().size()) - 1;  // the last input is the axis
  if (n < 2) return std::nullopt;
  const NodeOutput& first = node.inputs()[0];
  const Shape& shape = first.node->output_shape(first.index);
  const DType dtype = node.output_dtype(0);
  if (!shape.is_fully_defined() || shape.rank() == 0 || (dtype != kFloat32 && dtype != kFloat64)) {
    return std::nullopt;
  }
  for (int i = 1; i < n; ++i) {
    const NodeOutput& in = node.inputs()[i];
    if (in.node->output_shape(in.index) != shape) return std::nullopt;
  }
  if (!IsLastAxis(ConstInt(node.inputs()[n]), shape.rank())) return std::nullopt;
  return shape;
}

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
      if (taken_[id]) continue;
      if (std::optional<Shape> joined = JoinedShape(*node)) {
        Region region = Grow(*node, *joined, /*relaxed=*/false);
        if (JoinsAll(region)) {
          FindSplitParts(region);
          Take(region);
          regions.push_back(std::move(region));
          if (!regions.back().exported.empty()) break;
        }
        continue;
      }
      if (!IsElementwise(*node)) continue;
      if (std::string why = TypeOrShapeObstacle(*node); !why.empty()) {
        // One report for the region that would have been, not one per node of it.
        const Region missed = Grow(*node, node->output_shape(0), /*relaxed=*/true);
        if (missed.nodes.size() < 2) continue;
        Take(missed);
        Report(*node, absl::StrCat(why, " (", missed.nodes.size(), " elementwise ops stay apart)"));
        continue;
      }
      if (std::string why = BroadcastObstacle(*node, node->output_shape(0)); !why.empty()) {
        if (HasElementwiseNeighbour(*node)) Report(*node, std::move(why));
        continue;
      }
      Region region = Grow(*node, node->output_shape(0), /*relaxed=*/false);
      if (region.nodes.size() < 2) continue;
      FindSplitParts(region);
      Take(region);
      regions.push_back(std::move(region));
      if (!regions.back().exported.empty()) break;
    }
    return regions;
  }

 private:
  // Absorbs producers from `root` down, highest id first: a node's readers all have higher ids,
  // so when it is considered, every reader that will ever join the region has joined. `shape` is
  // the region's (the root's, or the values a joining root joins); `relaxed` ignores shapes, to
  // find the extent of a region that cannot be fused.
  Region Grow(const Node& root, const Shape& shape, bool relaxed) {
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
      if (Absorbable(node, root, shape, members, relaxed, read_outside)) {
        members.insert(&node);
        if (read_outside) exported.insert(&node);
        push_producers(node);
      }
    }
    auto by_id = [](const Node* a, const Node* b) { return a->id() < b->id(); };
    Region region{&root, std::vector<const Node*>(members.begin(), members.end()),
                  std::vector<const Node*>(exported.begin(), exported.end()),
                  /*joins=*/!IsElementwise(root)};
    std::sort(region.nodes.begin(), region.nodes.end(), by_id);
    std::sort(region.exported.begin(), region.exported.end(), by_id);
    return region;
  }

  // Whether every value a joining root joins is a member (Note [Joined regions]).
  static bool JoinsAll(const Region& region) {
    const absl::Span<const NodeOutput> inputs = region.root->inputs();
    return std::all_of(inputs.begin(), inputs.end() - 1, [&](const NodeOutput& in) {
      return std::find(region.nodes.begin(), region.nodes.end(), in.node) != region.nodes.end();
    });
  }

  // Whether `node` may join the region of `shape`; `read_outside` says it does as an exported
  // value.
  bool Absorbable(const Node& node, const Node& root, const Shape& shape,
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
    if (!outside.empty() && (relaxed || !Exportable(node, root, shape, members, outside))) {
      return false;
    }
    read_outside = !outside.empty();
    if (relaxed) return true;
    if (!FitsRegion(node.output_shape(0), shape)) return false;
    if (std::string why = BroadcastObstacle(node, shape); !why.empty()) {
      Report(node, std::move(why));
      return false;
    }
    return true;
  }

  // Note [Exported values]: whether `node`, read by `outside` nodes, may be an extra output.
  bool Exportable(const Node& node, const Node& root, const Shape& shape,
                  const absl::flat_hash_set<const Node*>& members,
                  const std::vector<const Node*>& outside) const {
    if (node.output_shape(0) != shape || node.placement().type() != DeviceType::kCpu) {
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

  // Note [Split inputs]: records the Split outputs `region` reads, and takes the elementwise nodes
  // whose parts it computes (other regions may compute other parts of them, none may hold them).
  void FindSplitParts(Region& region) {
    const Node& root = *region.root;
    if (root.placement().type() != DeviceType::kCpu) return;  // the CUDA kernel reads whole inputs
    const absl::flat_hash_set<const Node*> members(region.nodes.begin(), region.nodes.end());
    for (const Node* node : region.nodes) {
      if (region.joins && node == &root) continue;
      for (const NodeOutput& in : node->inputs()) {
        const Node& split = *in.node;
        if (members.contains(&split) || !kSplitOp.is(split.op()) ||
            split.device() != root.device()) {
          continue;
        }
        const NodeOutput value = split.inputs()[1];
        const Shape& shape = value.node->output_shape(value.index);
        if (!shape.is_fully_defined() || !IsLastAxis(ConstInt(split.inputs()[0]), shape.rank())) {
          continue;
        }
        SplitPart part{value, in.index, split.num_outputs(), ComputedInParts(split, root)};
        if (part.through) {
          taken_[value.node->id()] = true;
          computed_in_parts_.insert(value.node);
        }
        region.split_parts[{&split, in.index}] = part;
      }
    }
  }

  // Whether the value `split` splits may be computed part by part (Note [Split inputs]).
  bool ComputedInParts(const Node& split, const Node& root) const {
    const Node& node = *split.inputs()[1].node;
    if (!IsElementwise(node) || (taken_[node.id()] && !computed_in_parts_.contains(&node)) ||
        context_.Keeps(&node) || !uses_.control_dependents(&node).empty() ||
        node.device() != root.device() || node.output_dtype(0) != root.output_dtype(0) ||
        uses_.uses({&node, 0}).size() != 1 ||
        !BroadcastObstacle(node, node.output_shape(0)).empty()) {
      return false;
    }
    for (int k = 0; k < split.num_outputs(); ++k) {
      for (const UseIndex::Use& use : uses_.uses({&split, k})) {
        if (!IsElementwise(*use.node)) return false;
      }
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
  absl::flat_hash_set<const Node*> computed_in_parts_;  // Note [Split inputs]
  absl::flat_hash_set<const Node*>& reported_;          // shared by the finders of one pass run
};

// The program of `region` (Note [Elementwise programs]) and the inputs it reads.
struct Encoded {
  std::vector<NodeOutput> inputs;
  std::vector<std::string> ops;
  std::vector<int64_t> operands;
  std::vector<int64_t> results;      // the exported nodes' instructions
  std::vector<int64_t> concat;       // the joined values' instructions (Note [Joined regions])
  std::vector<int64_t> input_parts;  // empty when every input is read whole (Note [Split inputs])
};

// Builds a region's program: first the parts of values computed in parts (Note [Split inputs]),
// then the members.
class Encoder {
 public:
  explicit Encoder(const Region& region) : region_(region) {}

  Encoded Encode() {
    // A joining root is no instruction: its inputs are the joined values (and the axis).
    const std::vector<const Node*> members(region_.nodes.begin(),
                                           region_.nodes.end() - (region_.joins ? 1 : 0));
    absl::flat_hash_map<const Node*, int> position;
    for (int k = 0; k < static_cast<int>(members.size()); ++k) position[members[k]] = k;
    std::vector<std::vector<Ref>> member_operands;
    for (const Node* node : members) {
      std::vector<Ref>& refs = member_operands.emplace_back();
      for (const NodeOutput& in : node->inputs()) {
        auto it = position.find(in.node);
        refs.push_back(it != position.end() ? Ref{Ref::kMember, it->second} : Outside(in));
      }
    }
    const int num_inputs = static_cast<int>(encoded_.inputs.size());
    const int first_member = static_cast<int>(computed_.size());
    auto number = [&](const Ref& ref) -> int64_t {
      switch (ref.kind) {
        case Ref::kInput:
          return ref.index;
        case Ref::kComputed:
          return num_inputs + ref.index;
        case Ref::kMember:
          return num_inputs + first_member + ref.index;
      }
      return -1;
    };
    for (const Computed& computed : computed_) {
      encoded_.ops.push_back(computed.node->op().name);
      for (const Ref& ref : computed.operands) encoded_.operands.push_back(number(ref));
    }
    for (size_t k = 0; k < members.size(); ++k) {
      encoded_.ops.push_back(members[k]->op().name);
      for (const Ref& ref : member_operands[k]) encoded_.operands.push_back(number(ref));
    }
    for (const Node* node : region_.exported) {
      encoded_.results.push_back(first_member + position.at(node));
    }
    if (region_.joins) {
      const absl::Span<const NodeOutput> joined = region_.root->inputs();
      for (auto in = joined.begin(); in != joined.end() - 1; ++in) {
        encoded_.concat.push_back(first_member + position.at(in->node));
      }
    }
    if (!in_parts_) encoded_.input_parts.clear();
    return std::move(encoded_);
  }

 private:
  // A value before numbering: an input, a value computed in parts, or a member's.
  struct Ref {
    enum Kind { kInput, kComputed, kMember } kind;
    int index;
  };
  // A part of a value computed in parts: its node's op applied to its inputs' parts.
  struct Computed {
    const Node* node;
    std::vector<Ref> operands;
  };

  Ref Input(NodeOutput output, int part, int parts) {
    const auto [it, added] = input_index_.try_emplace(
        std::make_tuple(output.node, output.index, part, parts), encoded_.inputs.size());
    if (added) {
      encoded_.inputs.push_back(output);
      encoded_.input_parts.push_back(part);
      encoded_.input_parts.push_back(parts);
      in_parts_ |= parts > 1;
    }
    return {Ref::kInput, it->second};
  }

  // The value a member reads from outside the region.
  Ref Outside(NodeOutput in) {
    auto found = region_.split_parts.find({in.node, in.index});
    if (found == region_.split_parts.end()) return Input(in, 0, 1);
    const SplitPart& part = found->second;
    if (!part.through) return Input(part.value, part.part, part.parts);
    const Node* node = part.value.node;
    const auto key = std::make_pair(node, part.part);
    if (auto it = computed_index_.find(key); it != computed_index_.end()) {
      return {Ref::kComputed, it->second};
    }
    Computed computed{node, {}};
    for (const NodeOutput& operand : node->inputs()) {
      const Shape& shape = operand.node->output_shape(operand.index);
      const bool single = shape.is_fully_defined() && shape.num_elements() == 1;
      computed.operands.push_back(single ? Input(operand, 0, 1)
                                         : Input(operand, part.part, part.parts));
    }
    computed_.push_back(std::move(computed));
    computed_index_[key] = static_cast<int>(computed_.size()) - 1;
    return {Ref::kComputed, computed_index_[key]};
  }

  const Region& region_;
  Encoded encoded_;
  bool in_parts_ = false;  // some input is read in parts
  absl::flat_hash_map<std::tuple<const Node*, int, int, int>, int> input_index_;
  std::vector<Computed> computed_;
  absl::flat_hash_map<std::pair<const Node*, int>, int> computed_index_;
};

absl::StatusOr<bool> FuseRegion(Graph& graph, PassContext& context, const Region& region) {
  Encoded encoded = Encoder(region).Encode();
  const Node& root = *region.root;
  absl::StatusOr<NodeSpec> made =
      SpecFor(kFusedElementwiseOp, encoded.inputs, root, [&](OpCall& call) {
        call.set(FusedElementwiseAttrs::kOps, std::move(encoded.ops));
        call.set(FusedElementwiseAttrs::kOperands, std::move(encoded.operands));
        call.set(FusedElementwiseAttrs::kM, static_cast<int64_t>(encoded.results.size()));
        call.set(FusedElementwiseAttrs::kResults, std::move(encoded.results));
        call.set(FusedElementwiseAttrs::kConcat, std::move(encoded.concat));
        call.set(FusedElementwiseAttrs::kInputParts, std::move(encoded.input_parts));
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
  if (region.joins) context.Count("fusion.elementwise_concat");
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
