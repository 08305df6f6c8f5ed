// Algebraic simplification. Each rule gives exactly the value the original computes, up to the
// sign of a zero (x + 0 is +0 for x = -0; the rewritten graph gives -0, which compares equal);
// none assumes finite math. A rule applies only when the replacement has the node's dtype and
// the very same shape (x * ones(3) is not x when x is a scalar), and never to a node with control
// inputs (its consumers wait on them). A kept node (a fetch) that would simply be replaced
// becomes an Identity of the replacement instead, so its name survives.
//
//   x * 1, 1 * x, x + 0, 0 + x, x - 0, x / 1  -> x        (1 and 0: constants of any shape)
//   Identity(x), Cast(x) to x's own dtype    -> x
//   DuetCustomGradient(x, inputs...)         -> x  (custom_gradient: its gradient is built)
//   Neg(Neg(x))                              -> x
//   Reshape or BroadcastTo of x to x's shape -> x
//   Reshape(Reshape(x, s1), s2)              -> Reshape(x, s2)
//   Transpose(Transpose(x, p1), p2)          -> Transpose(x, p1 o p2), or x when that is the
//   identity
#include <numeric>
#include <optional>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/int_values.h"
#include "graph/graph_ops.h"
#include "graph/passes/passes.h"
#include "graph/passes/rewrite.h"
#include "ops/op_ref.h"

namespace duet {
namespace {

const OpRef kAddV2Op("AddV2");
const OpRef kBroadcastToOp("BroadcastTo");
const OpRef kCastOp("Cast");
const OpRef kDivOp("Div");
const OpRef kDuetCustomGradientOp("DuetCustomGradient");
const OpRef kMulOp("Mul");
const OpRef kNegOp("Neg");
const OpRef kRealDivOp("RealDiv");
const OpRef kReshapeOp("Reshape");
const OpRef kSubOp("Sub");
const OpRef kTransposeOp("Transpose");

struct Rewritten {
  absl::string_view rule;  // the counter: "simplify.<rule>"
  NodeOutput value;        // what the node's output is replaced by
};

bool IsOp(NodeOutput out, const OpRef& op) { return op.is(out.node->op()); }

// True when `x` can stand for output 0 of `node`.
bool SameAs(const Node& node, NodeOutput x) {
  return x.node->output_dtype(x.index) == node.output_dtype(0) &&
         x.node->output_shape(x.index) == node.output_shape(0);
}

// Where an op's neutral constant may stand: x + 0 and 0 + x, but only x - 0.
enum class NeutralSide { kRight, kEither };

// x op c (or c op x, on `side` kEither) with c filled with `identity`: the other operand.
std::optional<NodeOutput> NeutralOperand(const Node& node, double identity, NeutralSide side) {
  const NodeOutput a = node.inputs()[0], b = node.inputs()[1];
  if (IsConstFilledWith(b, identity) && SameAs(node, a)) return a;
  if (side == NeutralSide::kEither && IsConstFilledWith(a, identity) && SameAs(node, b)) return b;
  return std::nullopt;
}

// Rules whose result is an existing output.
std::optional<Rewritten> Bypass(const Node& node) {
  const OpDef& op = node.op();
  auto take = [&](absl::string_view rule, std::optional<NodeOutput> x) -> std::optional<Rewritten> {
    if (!x) return std::nullopt;
    return Rewritten{rule, *x};
  };
  if (kMulOp.is(op)) return take("mul_one", NeutralOperand(node, 1, NeutralSide::kEither));
  if (kAddV2Op.is(op)) return take("add_zero", NeutralOperand(node, 0, NeutralSide::kEither));
  if (kSubOp.is(op)) return take("sub_zero", NeutralOperand(node, 0, NeutralSide::kRight));
  if (kRealDivOp.is(op) || kDivOp.is(op))
    return take("div_one", NeutralOperand(node, 1, NeutralSide::kRight));
  if (node.inputs().empty()) return std::nullopt;
  const NodeOutput x = node.inputs()[0];
  if (kIdentityOp.is(op)) return take("identity", x);
  // custom_gradient's node has served once gradients are built (docs/passes.md).
  if (kDuetCustomGradientOp.is(op)) return take("custom_gradient", x);
  if (kCastOp.is(op) && SameAs(node, x)) return take("cast_same_type", x);
  if ((kReshapeOp.is(op) || kBroadcastToOp.is(op)) && node.output_shape(0).is_fully_defined() &&
      SameAs(node, x)) {
    return take(kReshapeOp.is(op) ? "reshape_same_shape" : "broadcast_same_shape", x);
  }
  if (kNegOp.is(op) && IsOp(x, kNegOp) && SameAs(node, x.node->inputs()[0])) {
    return take("double_neg", x.node->inputs()[0]);
  }
  return std::nullopt;
}

// Consumers of `node` read `x` instead; a kept node becomes Identity(x).
absl::StatusOr<bool> Replace(Graph& graph, PassContext& context, const Node& node, NodeOutput x) {
  if (!context.Keeps(&node)) {
    graph.ReplaceUses({&node, 0}, x);
    return true;
  }
  if (kIdentityOp.is(node.op())) return false;
  DUET_ASSIGN_OR_RETURN(NodeSpec spec, SpecFor(kIdentityOp, {x}, node));
  DUET_RETURN_IF_ERROR(graph.Rewrite(&node, std::move(spec)));
  return true;
}

// Reshape(Reshape(x, s1), s2) -> Reshape(x, s2).
bool FoldReshapes(Graph& graph, const Node& node) {
  if (!kReshapeOp.is(node.op()) || !IsOp(node.inputs()[0], kReshapeOp)) return false;
  graph.SetInput(&node, 0, node.inputs()[0].node->inputs()[0]);
  return true;
}

// Transpose(Transpose(x, p1), p2): element i of the result is element p1[p2[i]] of x.
absl::StatusOr<std::optional<Rewritten>> ComposeTransposes(Graph& graph, const Node& node) {
  if (!kTransposeOp.is(node.op()) || !IsOp(node.inputs()[0], kTransposeOp)) return std::nullopt;
  const Node& inner = *node.inputs()[0].node;
  const Tensor* p2 = ConstValue(node.inputs()[1]);
  const Tensor* p1 = ConstValue(inner.inputs()[1]);
  if (p1 == nullptr || p2 == nullptr) return std::nullopt;
  const std::vector<int64_t> outer = IntValues(*p2), first = IntValues(*p1);
  std::vector<int64_t> composed(outer.size());
  for (size_t i = 0; i < outer.size(); ++i) composed[i] = first[outer[i]];
  const NodeOutput x = inner.inputs()[0];
  std::vector<int64_t> identity(composed.size());
  std::iota(identity.begin(), identity.end(), 0);
  if (composed == identity) return Rewritten{"transpose_cancelled", x};
  DUET_ASSIGN_OR_RETURN(const Node* perm, AddNamed(graph, ConstSpec(from_vector(composed), node),
                                                   absl::StrCat(node.name(), "/perm")));
  DUET_ASSIGN_OR_RETURN(NodeSpec spec, SpecFor(kTransposeOp, {x, {perm, 0}}, node));
  spec.control_inputs.assign(node.control_inputs().begin(), node.control_inputs().end());
  DUET_RETURN_IF_ERROR(graph.Rewrite(&node, std::move(spec)));
  return Rewritten{"transpose_composed", {&node, 0}};
}

}  // namespace

absl::StatusOr<bool> Simplify(Graph& graph, PassContext& context) {
  bool changed = false;
  const std::vector<Node*> nodes(graph.nodes().begin(), graph.nodes().end());
  for (const Node* node : nodes) {
    if (!node->control_inputs().empty() || node->num_outputs() != 1) continue;
    if (FoldReshapes(graph, *node)) {
      context.Count("simplify.reshape_reshape");
      changed = true;
    }
    std::optional<Rewritten> rewrite = Bypass(*node);
    if (!rewrite) {
      DUET_ASSIGN_OR_RETURN(rewrite, ComposeTransposes(graph, *node));
      if (rewrite && rewrite->value.node == node) {  // rewritten in place
        context.Count("simplify.transpose_composed");
        changed = true;
        continue;
      }
    }
    if (!rewrite) continue;
    DUET_ASSIGN_OR_RETURN(const bool replaced, Replace(graph, context, *node, rewrite->value));
    if (!replaced) continue;
    context.Count(absl::StrCat("simplify.", rewrite->rule));
    changed = true;
  }
  return changed;
}

}  // namespace duet
