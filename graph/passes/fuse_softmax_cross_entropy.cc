// Fusion of the softmax cross-entropy users write by hand into SoftmaxCrossEntropyWithLogits:
// Neg(Sum(Mul(y, L), last axis)) with L = LogSoftmax(z) or Log(Softmax(z)) (the product's operands
// either way round), for 2-D logits z and labels y [batch, classes] -> the loss output of
// SoftmaxCrossEntropyWithLogits(features = z, labels = y). One pass over each row instead of four
// or five ops and their [batch, classes] intermediates, and a stabler result: where a probability
// underflows to 0 (logits far apart), log(softmax(z)) is -inf and the loss inf or NaN, while the
// fused kernel's max-shifted log-sum-exp stays finite. Elsewhere the two agree up to rounding.
//
// The Neg is rewritten in place (a fetched loss keeps its name; its consumers read output 0); the
// other nodes go, and their control inputs move to the fused node. It fires only for float32 and
// float64, logits and labels of one static 2-D shape (broadcasting ones are left alone), a Sum over
// the last axis alone without keep_dims, intermediates that nothing else reads (in a training
// graph the gradient reads them), that are not kept and that no control edge leaves, and nodes on
// one device. Candidates that do not fire are reported with why.
#include <optional>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/int_values.h"
#include "graph/passes/passes.h"
#include "graph/passes/rewrite.h"
#include "ops/op_ref.h"
#include "ops/reduction/reduction_attrs.h"

namespace duet {
namespace {

const OpRef kLogOp("Log");
const OpRef kLogSoftmaxOp("LogSoftmax");
const OpRef kMulOp("Mul");
const OpRef kNegOp("Neg");
const OpRef kSoftmaxOp("Softmax");
const OpRef kSoftmaxCrossEntropyWithLogitsOp("SoftmaxCrossEntropyWithLogits");
const OpRef kSumOp("Sum");

constexpr absl::string_view kFusion = "fusion.softmax_cross_entropy";

// The nodes of a hand-written cross-entropy, and the values the fused op reads.
struct Match {
  const Node* neg = nullptr;
  const Node* sum = nullptr;
  const Node* mul = nullptr;
  const Node* log = nullptr;      // Log of Log(Softmax(z)); null for LogSoftmax(z)
  const Node* softmax = nullptr;  // Softmax or LogSoftmax
  NodeOutput logits, labels;

  // The nodes the fusion removes, producers first.
  std::vector<const Node*> intermediates() const {
    std::vector<const Node*> nodes = {softmax};
    if (log != nullptr) nodes.push_back(log);
    nodes.push_back(mul);
    nodes.push_back(sum);
    return nodes;
  }
};

bool Is(NodeOutput output, const OpRef& op) {
  return op.is(output.node->op()) && output.index == 0;
}

// The cross-entropy `neg` negates, or nullopt when it negates something else (not a candidate,
// nothing to report).
std::optional<Match> Candidate(const Node& neg) {
  Match match;
  match.neg = &neg;
  if (!Is(neg.inputs()[0], kSumOp)) return std::nullopt;
  match.sum = neg.inputs()[0].node;
  if (!Is(match.sum->inputs()[0], kMulOp)) return std::nullopt;
  match.mul = match.sum->inputs()[0].node;
  for (int i = 0; i < 2; ++i) {
    const NodeOutput l = match.mul->inputs()[i];
    if (Is(l, kLogSoftmaxOp)) {
      match.softmax = l.node;
    } else if (Is(l, kLogOp) && Is(l.node->inputs()[0], kSoftmaxOp)) {
      match.log = l.node;
      match.softmax = l.node->inputs()[0].node;
    } else {
      continue;
    }
    match.logits = match.softmax->inputs()[0];
    match.labels = match.mul->inputs()[1 - i];
    return match;
  }
  return std::nullopt;
}

// Why the Sum is not a sum over the last axis of a 2-D product that drops it (empty when it is).
std::string SumObstacle(const Node& sum) {
  const Tensor* axes = ConstValue(sum.inputs()[1]);
  if (axes == nullptr) return "the summed axes are not a constant";
  const std::vector<int64_t> values = IntValues(*axes);
  if (values.size() != 1 || (values[0] != -1 && values[0] != 1)) {
    return absl::StrCat("the sum reduces axes (", absl::StrJoin(values, ", "),
                        "), not the last axis alone");
  }
  if (sum.attr(ReductionAttrs::kKeepDims)) {
    return "the sum keeps the reduced axis (keep_dims = true)";
  }
  return "";
}

// Why `match` cannot be fused (empty when it can).
std::string Obstacle(const Match& match, const PassContext& context, const UseIndex& uses) {
  if (std::string why = SumObstacle(*match.sum); !why.empty()) return why;
  const DType dtype = match.neg->output_dtype(0);
  if (dtype != kFloat32 && dtype != kFloat64) {
    return absl::StrCat("dtype ", DTypeName(dtype),
                        ": SoftmaxCrossEntropyWithLogits takes float32 and float64");
  }
  const Shape& z = match.logits.node->output_shape(match.logits.index);
  const Shape& y = match.labels.node->output_shape(match.labels.index);
  if (z.unknown_rank() || z.rank() != 2) {
    return absl::StrCat("the logits are ", z.str(), ", not 2-D (batch, classes)");
  }
  if (!z.is_fully_defined() || y != z) {
    return absl::StrCat("the logits are ", z.str(), " and the labels ", y.str(),
                        ": the pass needs one static shape");
  }
  for (const Node* node : match.intermediates()) {
    const std::string what =
        absl::StrCat("intermediate ", node->op().name, " '", node->name(), "'");
    if (const int readers = uses.num_data_uses(node); readers != 1) {
      return absl::StrCat(what, " has other consumers: it is read by ", readers, " nodes");
    }
    if (context.Keeps(node)) return absl::StrCat(what, " is fetched or kept");
    if (!uses.control_dependents(node).empty()) {
      return absl::StrCat("a control edge leaves ", what);
    }
  }
  for (const Node* node : match.intermediates()) {
    if (node->device() != match.neg->device()) {
      return absl::StrCat("its nodes are on different devices ('", node->device(), "' and '",
                          match.neg->device(), "')");
    }
  }
  return "";
}

// Fuses `match`: false (and a report) when it cannot be.
absl::StatusOr<bool> Fuse(Graph& graph, PassContext& context, const UseIndex& uses,
                          const Match& match) {
  const Node& neg = *match.neg;
  if (std::string why = Obstacle(match, context, uses); !why.empty()) {
    context.Missed(kFusion, neg, std::move(why));
    return false;
  }
  absl::StatusOr<NodeSpec> made =
      SpecFor(kSoftmaxCrossEntropyWithLogitsOp, {match.logits, match.labels}, neg);
  if (!made.ok()) {  // the fused op's own checks: report, and leave the graph as it is
    context.Missed(kFusion, neg, std::string(made.status().message()));
    return false;
  }
  NodeSpec spec = *std::move(made);
  std::vector<const Node*> nodes = match.intermediates();
  nodes.push_back(&neg);
  std::vector<ReplacedNode> replaced;
  for (const Node* node : nodes) {
    replaced.push_back(ReplacedNode::Of(*node));
    for (const Node* in : node->control_inputs()) {
      if (!absl::c_linear_search(spec.control_inputs, in)) spec.control_inputs.push_back(in);
    }
  }
  DUET_RETURN_IF_ERROR(graph.Rewrite(&neg, std::move(spec)));
  DUET_RETURN_IF_ERROR(graph.RemoveNodes(match.intermediates()));
  context.Fused(neg, std::move(replaced));
  context.Count(kFusion);
  return true;
}

}  // namespace

absl::StatusOr<bool> FuseSoftmaxCrossEntropy(Graph& graph, PassContext& context) {
  bool changed = false;
  std::optional<UseIndex> uses;
  const std::vector<Node*> nodes(graph.nodes().begin(), graph.nodes().end());
  for (const Node* node : nodes) {
    if (node->removed() || !kNegOp.is(node->op())) continue;
    const std::optional<Match> match = Candidate(*node);
    if (!match) continue;
    if (!uses) uses.emplace(graph);  // built when first needed, rebuilt after each fusion
    DUET_ASSIGN_OR_RETURN(const bool fused, Fuse(graph, context, *uses, *match));
    if (fused) uses.reset();
    changed |= fused;
  }
  return changed;
}

}  // namespace duet
