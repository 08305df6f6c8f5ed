// Fusion of a weight gradient into the gradient-descent update that consumes it:
// ResourceApplyGradientDescent(var, alpha, MatMul(a, b)) -> _ResourceApplyMatMulGradientDescent(
// var, alpha, a, b), which accumulates -alpha * op(a) x op(b) into the variable. The unfused graph
// stores the whole gradient (for a 784x256 layer, most of a training step's arena) only to
// subtract it in a second pass; the fused kernel never stores it.
//
// The update is rewritten in place, so it keeps its name (session targets such as "update_0") and
// its control inputs; the MatMul's control inputs move to it. It fires only when the update is the
// MatMul's only reader, the MatMul is not kept and no control edge leaves it. Candidates that do
// not fire are reported with why.
#include "absl/strings/str_cat.h"
#include "graph/passes/passes.h"
#include "graph/passes/rewrite.h"
#include "ops/nn/nn_attrs.h"
#include "ops/op_ref.h"
#include "ops/state/state_attrs.h"

namespace duet {
namespace {

const OpRef kMatMulOp("MatMul");
const OpRef kMatMulApplyGradientDescentOp("_ResourceApplyMatMulGradientDescent");
const OpRef kResourceApplyGradientDescentOp("ResourceApplyGradientDescent");

constexpr absl::string_view kFusion = "fusion.matmul_apply_gradient_descent";

// Why the MatMul `product` feeding `update` cannot be fused into it (empty when it can).
std::string Obstacle(const Node& product, const PassContext& context, const UseIndex& uses) {
  const DType dtype = product.output_dtype(0);
  if (dtype != kFloat32 && dtype != kFloat64) {
    return absl::StrCat("dtype ", DTypeName(dtype), ": the fused kernel takes float32 and float64");
  }
  if (const int readers = uses.num_uses({&product, 0}); readers != 1) {
    return absl::StrCat("its gradient is read by ", readers, " nodes, not only the update");
  }
  if (context.Keeps(&product)) return "its gradient is fetched or kept";
  if (!uses.control_dependents(&product).empty()) return "a control edge leaves the gradient";
  return "";
}

// Fuses the MatMul that computes `update`'s delta into it; false when there is none to fuse.
absl::StatusOr<bool> FuseAt(Graph& graph, PassContext& context, const Node& update) {
  const NodeOutput delta = update.inputs()[2];
  const Node& product = *delta.node;
  if (!kMatMulOp.is(product.op())) return false;
  const UseIndex uses(graph);
  if (std::string why = Obstacle(product, context, uses); !why.empty()) {
    context.Missed(kFusion, product, std::move(why));
    return false;
  }
  absl::StatusOr<NodeSpec> made =
      SpecFor(kMatMulApplyGradientDescentOp,
              {update.inputs()[0], update.inputs()[1], product.inputs()[0], product.inputs()[1]},
              update, [&](OpCall& call) {
                call.set(MatMulAttrs::kTransposeA, product.attr(MatMulAttrs::kTransposeA));
                call.set(MatMulAttrs::kTransposeB, product.attr(MatMulAttrs::kTransposeB));
                call.set(MatMulApplyGradientDescentAttrs::kUseLocking,
                         update.attr(ApplyGradientDescentAttrs::kUseLocking));
              });
  if (!made.ok()) {  // the fused op's own checks: report, and leave the graph as it is
    context.Missed(kFusion, product, std::string(made.status().message()));
    return false;
  }
  NodeSpec spec = *std::move(made);
  for (const Node* node : {&update, &product}) {
    spec.control_inputs.insert(spec.control_inputs.end(), node->control_inputs().begin(),
                               node->control_inputs().end());
  }
  std::vector<ReplacedNode> replaced = {ReplacedNode::Of(product), ReplacedNode::Of(update)};
  DUET_RETURN_IF_ERROR(graph.Rewrite(&update, std::move(spec)));
  DUET_RETURN_IF_ERROR(graph.RemoveNodes({&product}));
  context.Fused(update, std::move(replaced));
  context.Count(kFusion);
  return true;
}

}  // namespace

absl::StatusOr<bool> FuseGradientUpdate(Graph& graph, PassContext& context) {
  bool changed = false;
  const std::vector<Node*> nodes(graph.nodes().begin(), graph.nodes().end());
  for (const Node* node : nodes) {
    if (node->removed() || !kResourceApplyGradientDescentOp.is(node->op())) continue;
    DUET_ASSIGN_OR_RETURN(const bool fused, FuseAt(graph, context, *node));
    changed |= fused;
  }
  return changed;
}

}  // namespace duet
