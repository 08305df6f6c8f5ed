// The layout pass (Note [Channels-first] in ops/channels_first.cc): every channels-first node
// becomes its channels-last twin between Transposes, and Transposes sink below the elementwise
// ops they feed, so that simplify cancels the pair between two image ops: a channels-first
// network then runs channels-last (oneDNN's layout) with one Transpose at each end, as
// TensorFlow's layout optimizer converts NCHW graphs for CPUs.
//
//   Conv2D[NCHW](x, w)  ->  Transpose(Conv2D[NHWC](Transpose(x, [0,2,3,1]), w), [0,3,1,2])
//   Relu(Transpose(y, p))  ->  Transpose(Relu(y), p)           (the Transpose read only there)
//   AddV2(Transpose(a, p), Transpose(b, p))  ->  Transpose(AddV2(a, b), p)
//
// A converted node's consumers read the new Transposes (a kept node with one output becomes an
// Identity of its new value, so fetches by name still find it; a kept node with several outputs
// stays channels-first and runs through its kernels' adapter). Image-shape inputs
// (input_sizes) must be constants, permuted here; image ranks must be known.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/int_values.h"
#include "graph/passes/passes.h"
#include "graph/passes/rewrite.h"
#include "ops/channels_first.h"
#include "ops/math/elementwise_program.h"
#include "ops/op_ref.h"

namespace duet {
namespace {

const OpRef kIdentityOp("Identity");
const OpRef kTransposeOp("Transpose");

constexpr absl::string_view kConversion = "layout.channels_last";

// A Transpose of `x` by `perm`, placed like `site`.
absl::StatusOr<NodeOutput> AddTranspose(Graph& graph, NodeOutput x, std::vector<int64_t> perm,
                                        const Node& site, absl::string_view name) {
  DUET_ASSIGN_OR_RETURN(const Node* p, AddNamed(graph, ConstSpec(from_vector(perm), site),
                                                absl::StrCat(name, "/perm")));
  DUET_ASSIGN_OR_RETURN(NodeSpec spec, SpecFor(kTransposeOp, {x, {p, 0}}, site));
  DUET_ASSIGN_OR_RETURN(const Node* t, AddNamed(graph, std::move(spec), name));
  return NodeOutput{t, 0};
}

int RankOf(NodeOutput out) {
  const Shape& shape = out.node->output_shape(out.index);
  return shape.unknown_rank() ? -1 : shape.rank();
}

// Why `node` cannot be converted (empty when it can).
std::string Obstacle(const Node& node, const PassContext& context, const UseIndex& uses) {
  const ChannelsFirstArgs& args = node.op().channels_first;
  if (!node.control_inputs().empty()) return "it has control inputs";
  if (!uses.control_dependents(&node).empty()) return "nodes depend on it through control edges";
  if (context.Keeps(&node) && node.num_outputs() != 1) {
    return "it is kept and has several outputs";
  }
  for (int i = 0; i < static_cast<int>(node.inputs().size()); ++i) {
    if (ArgIn(args.image_inputs, i) && RankOf(node.inputs()[i]) < 0) {
      return absl::StrCat("input ", i, " has unknown rank");
    }
    if (ArgIn(args.image_shape_inputs, i) && ConstValue(node.inputs()[i]) == nullptr) {
      return absl::StrCat("input ", i, " (an image shape) is not a constant");
    }
  }
  return "";
}

// Converts `node`; true when its consumers now read the new nodes and it is dead.
absl::StatusOr<bool> Convert(Graph& graph, PassContext& context, const Node& node) {
  const ChannelsFirstArgs& args = node.op().channels_first;
  const std::string base = node.name();
  std::vector<NodeOutput> inputs;
  for (int i = 0; i < static_cast<int>(node.inputs().size()); ++i) {
    NodeOutput in = node.inputs()[i];
    if (ArgIn(args.image_inputs, i) && RankOf(in) >= 3) {
      DUET_ASSIGN_OR_RETURN(in, AddTranspose(graph, in, ChannelsLastPerm(RankOf(in)), node,
                                             absl::StrCat(base, "/to_channels_last_", i)));
    } else if (ArgIn(args.image_shape_inputs, i)) {
      const Tensor& sizes = *ConstValue(in);
      std::vector<int64_t> values = ChannelsLastDims(IntValues(sizes));
      const Tensor permuted = sizes.dtype() == kInt64
                                  ? from_vector(values)
                                  : from_vector(std::vector<int32_t>(values.begin(), values.end()));
      DUET_ASSIGN_OR_RETURN(const Node* c, AddNamed(graph, ConstSpec(permuted, node),
                                                    absl::StrCat(base, "/sizes_channels_last")));
      in = {c, 0};
    }
    inputs.push_back(in);
  }
  const AttrList attrs = ChannelsLastAttrs(node.op(), node.attrs());
  DUET_ASSIGN_OR_RETURN(NodeSpec spec, SpecFor(node.op(), std::move(inputs), node,
                                               [&](OpCall& call) { call.attrs = attrs; }));
  DUET_ASSIGN_OR_RETURN(const Node* twin,
                        AddNamed(graph, std::move(spec), absl::StrCat(base, "/channels_last")));
  std::vector<NodeOutput> outputs;
  for (int j = 0; j < node.num_outputs(); ++j) {
    NodeOutput out{twin, j};
    const Shape& shape = node.output_shape(j);
    if (ArgIn(args.image_outputs, j) && !shape.unknown_rank() && shape.rank() >= 3) {
      DUET_ASSIGN_OR_RETURN(out, AddTranspose(graph, out, ChannelsFirstPerm(shape.rank()), node,
                                              absl::StrCat(base, "/to_channels_first_", j)));
    }
    outputs.push_back(out);
  }
  context.Count("layout.converted");
  if (context.Keeps(&node)) {  // one output (Obstacle): the node keeps its name as an Identity
    DUET_ASSIGN_OR_RETURN(NodeSpec identity, SpecFor(kIdentityOp, {outputs[0]}, node));
    DUET_RETURN_IF_ERROR(graph.Rewrite(&node, std::move(identity)));
    return false;
  }
  for (int j = 0; j < node.num_outputs(); ++j) graph.ReplaceUses({&node, j}, outputs[j]);
  return true;
}

bool IsTransposeBy(const Node& node, const std::vector<int64_t>& perm) {
  if (!kTransposeOp.is(node.op())) return false;
  const Tensor* p = ConstValue(node.inputs()[1]);
  return p != nullptr && IntValues(*p) == perm;
}

// The Transpose back to channels-first that `in` is, when sinking it below `reader` adds no
// Transpose: `reader` is its only other reader than Transposes to channels-last (which simplify
// cancels against it). nullptr otherwise.
const Node* SinkableTranspose(NodeOutput in, const Node& reader, const PassContext& context,
                              const UseIndex& uses) {
  const Node& t = *in.node;
  const Shape& shape = t.output_shape(0);
  if (context.Keeps(&t) || !t.control_inputs().empty() || !uses.control_dependents(&t).empty() ||
      shape.unknown_rank() || shape.rank() < 3 || shape != reader.output_shape(0) ||
      !IsTransposeBy(t, ChannelsFirstPerm(shape.rank()))) {
    return nullptr;
  }
  for (const UseIndex::Use& use : uses.uses({&t, 0})) {
    if (use.node != &reader && !IsTransposeBy(*use.node, ChannelsLastPerm(shape.rank()))) {
      return nullptr;
    }
  }
  return &t;
}

// Elementwise(Transpose(y, p), ...) -> Transpose(Elementwise(y, ...), p) when every input is
// such a Transpose (by the same p) or a scalar; true when it fired.
absl::StatusOr<bool> SinkTranspose(Graph& graph, PassContext& context, const UseIndex& uses,
                                   const Node& node) {
  if (node.num_outputs() != 1 || !node.control_inputs().empty() ||
      !ElementwiseOpcodeOf(node.op().name).has_value()) {
    return false;
  }
  std::vector<NodeOutput> inputs;
  NodeOutput perm;
  for (const NodeOutput& in : node.inputs()) {
    const Shape& shape = in.node->output_shape(in.index);
    if (!shape.unknown_rank() && shape.rank() == 0) {
      inputs.push_back(in);
      continue;
    }
    const Node* t = SinkableTranspose(in, node, context, uses);
    if (t == nullptr) return false;
    inputs.push_back(t->inputs()[0]);
    perm = t->inputs()[1];
  }
  if (perm.node == nullptr) return false;
  DUET_ASSIGN_OR_RETURN(NodeSpec spec, SpecFor(node.op(), std::move(inputs), node,
                                               [&](OpCall& call) { call.attrs = node.attrs(); }));
  DUET_ASSIGN_OR_RETURN(const Node* inner, AddNamed(graph, std::move(spec),
                                                    absl::StrCat(node.name(), "/channels_last")));
  DUET_ASSIGN_OR_RETURN(NodeSpec back, SpecFor(kTransposeOp, {{inner, 0}, perm}, node));
  DUET_RETURN_IF_ERROR(graph.Rewrite(&node, std::move(back)));
  context.Count("layout.transpose_sunk");
  return true;
}

}  // namespace

absl::StatusOr<bool> ConvertLayout(Graph& graph, PassContext& context) {
  bool changed = false;
  std::vector<const Node*> replaced;
  const std::vector<Node*> nodes(graph.nodes().begin(), graph.nodes().end());
  const UseIndex before(graph);  // conversions add no control edges
  for (const Node* node : nodes) {
    if (!IsChannelsFirst(node->op(), node->attrs())) continue;
    if (std::string why = Obstacle(*node, context, before); !why.empty()) {
      context.Missed(kConversion, *node, std::move(why));
      continue;
    }
    DUET_ASSIGN_OR_RETURN(const bool dead, Convert(graph, context, *node));
    if (dead) replaced.push_back(node);
    changed = true;
  }
  // Removed now rather than by the next prune: sinking counts the readers of each Transpose.
  DUET_RETURN_IF_ERROR(graph.RemoveNodes(replaced));
  // Uses as of now; each sinking only rewires the node it rewrites and the Transposes it bypasses,
  // which nothing else reads.
  const UseIndex uses(graph);
  const std::vector<Node*> after(graph.nodes().begin(), graph.nodes().end());
  for (const Node* node : after) {
    DUET_ASSIGN_OR_RETURN(const bool sunk, SinkTranspose(graph, context, uses, *node));
    changed |= sunk;
  }
  return changed;
}

}  // namespace duet
