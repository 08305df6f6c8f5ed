// Fusion of a MatMul, Conv2D or DepthwiseConv2dNative with the bias added to its result and an
// optional activation after it, into TensorFlow's _FusedMatMul / _FusedConv2D /
// _FusedDepthwiseConv2dNative: one oneDNN primitive with the bias and the activation as post-ops,
// so the product is written once instead of three times.
//
// Pattern: P = MatMul(a, b), Conv2D(x, w) or DepthwiseConv2dNative(x, w); S = BiasAdd(P, bias) or
// AddV2(P, bias) with bias a vector along P's last dim; optionally A =
// Relu|Relu6|Elu|Tanh|Sigmoid(S). The last node of the match is rewritten in place into the fused
// op (so a fetched result keeps its name); the others go. It fires only when the intermediate
// values are read by nothing else and are not kept, and only for float32 (the fused kernels'
// type). Candidates that do not fire are reported with why. The convolutions are NHWC, the only
// layout duet's convolution ops accept.
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "graph/passes/passes.h"
#include "graph/passes/rewrite.h"
#include "ops/nn/nn_attrs.h"
#include "ops/op_ref.h"

namespace duet {
namespace {

const OpRef kMatMulOp("MatMul");
const OpRef kFusedMatMulOp("_FusedMatMul");
const OpRef kConv2DOp("Conv2D");
const OpRef kFusedConv2DOp("_FusedConv2D");
const OpRef kDepthwiseConvOp("DepthwiseConv2dNative");
const OpRef kFusedDepthwiseConvOp("_FusedDepthwiseConv2dNative");
const OpRef kBiasAddOp("BiasAdd");
const OpRef kAddV2Op("AddV2");
const OpRef kActivations[] = {OpRef("Relu"), OpRef("Relu6"), OpRef("Elu"), OpRef("Tanh"),
                              OpRef("Sigmoid")};

// The fused op's attrs: the product's own (which the fused op declares at the same positions,
// through the same keys), the fusion and its one arg, the bias.
void SetFusedMatMulAttrs(const Node& product, std::vector<std::string> fused_ops, OpCall& call) {
  call.set(MatMulAttrs::kTransposeA, product.attr(MatMulAttrs::kTransposeA));
  call.set(MatMulAttrs::kTransposeB, product.attr(MatMulAttrs::kTransposeB));
  call.set(FusedMatMulAttrs::kNumArgs, 1);
  call.set(FusedMatMulAttrs::kFusedOps, std::move(fused_ops));
}

void SetFusedConv2DAttrs(const Node& product, std::vector<std::string> fused_ops, OpCall& call) {
  call.set(ConvAttrs::kStrides, product.attr(ConvAttrs::kStrides));
  call.set(ConvAttrs::kUseCudnnOnGpu, product.attr(ConvAttrs::kUseCudnnOnGpu));
  call.set(ConvAttrs::kPadding, product.attr(ConvAttrs::kPadding));
  call.set(ConvAttrs::kExplicitPaddings, product.attr(ConvAttrs::kExplicitPaddings));
  call.set(ConvAttrs::kDataFormat, product.attr(ConvAttrs::kDataFormat));
  call.set(ConvAttrs::kDilations, product.attr(ConvAttrs::kDilations));
  call.set(FusedConv2DAttrs::kNumArgs, 1);
  call.set(FusedConv2DAttrs::kFusedOps, std::move(fused_ops));
}

// TensorFlow's fused op has no explicit_paddings, so an EXPLICIT depthwise convolution fails the
// fused op's checks and is reported as not fused.
void SetFusedDepthwiseConvAttrs(const Node& product, std::vector<std::string> fused_ops,
                                OpCall& call) {
  call.set(FusedDepthwiseConvAttrs::kStrides, product.attr(DepthwiseConvAttrs::kStrides));
  call.set(FusedDepthwiseConvAttrs::kPadding, product.attr(DepthwiseConvAttrs::kPadding));
  call.set(FusedDepthwiseConvAttrs::kDataFormat, product.attr(DepthwiseConvAttrs::kDataFormat));
  call.set(FusedDepthwiseConvAttrs::kDilations, product.attr(DepthwiseConvAttrs::kDilations));
  call.set(FusedDepthwiseConvAttrs::kNumArgs, 1);
  call.set(FusedDepthwiseConvAttrs::kFusedOps, std::move(fused_ops));
}

struct Contraction {
  const OpRef& op;
  const OpRef& fused_op;
  absl::string_view counter;
  void (*set_attrs)(const Node& product, std::vector<std::string> fused_ops, OpCall& call);
};

const Contraction kContractions[] = {
    {kMatMulOp, kFusedMatMulOp, "fusion.matmul", SetFusedMatMulAttrs},
    {kConv2DOp, kFusedConv2DOp, "fusion.conv2d", SetFusedConv2DAttrs},
    {kDepthwiseConvOp, kFusedDepthwiseConvOp, "fusion.depthwise_conv2d",
     SetFusedDepthwiseConvAttrs},
};

const Contraction* ContractionOf(const Node& node) {
  for (const Contraction& c : kContractions) {
    if (c.op.is(node.op())) return &c;
  }
  return nullptr;
}

bool IsActivation(const Node& node) {
  return std::any_of(std::begin(kActivations), std::end(kActivations),
                     [&](const OpRef& a) { return a.is(node.op()); });
}

// The node reading `node`'s only output, when it is its only reader.
const Node* SoleReader(const UseIndex& uses, const Node& node, int* input = nullptr) {
  const auto readers = uses.uses({&node, 0});
  if (readers.size() != 1) return nullptr;
  if (input != nullptr) *input = readers[0].input;
  return readers[0].node;
}

// The bias that `add` adds to `product` (its input `input`), or why it is not a bias.
absl::StatusOr<NodeOutput> BiasOf(const Node& add, int input, const Node& product) {
  const OpDef& op = add.op();
  NodeOutput bias;
  if (kBiasAddOp.is(op) && input == 0) {
    bias = add.inputs()[1];
  } else if (kAddV2Op.is(op)) {
    bias = add.inputs()[1 - input];
  } else {
    return absl::NotFoundError("not a bias add");
  }
  const Shape& b = bias.node->output_shape(bias.index);
  const Shape& p = product.output_shape(0);
  const int64_t channels = p.unknown_rank() ? -1 : p.dim(p.rank() - 1);
  if (b.unknown_rank() || b.rank() != 1 || b.dim(0) < 0 || b.dim(0) != channels ||
      add.output_shape(0) != p) {
    return absl::FailedPreconditionError(absl::StrCat("the added tensor is ", b.str(), ", not a ",
                                                      "vector along the last dim of ", p.str()));
  }
  return bias;
}

// Why the matched nodes cannot be fused (empty when they can).
std::string Obstacle(const Node& product, const PassContext& context, const UseIndex& uses) {
  if (product.output_dtype(0) != kFloat32) {
    return absl::StrCat("dtype ", DTypeName(product.output_dtype(0)),
                        ": the fused kernels take float32");
  }
  if (context.Keeps(&product)) return "its output is fetched or kept";
  if (!uses.control_dependents(&product).empty()) return "a control edge leaves its output";
  return "";
}

// Fuses the match starting at `product`; false when there is none.
absl::StatusOr<bool> FuseAt(Graph& graph, PassContext& context, const Node& product,
                            const Contraction& c) {
  const UseIndex uses(graph);
  int input = 0;
  const Node* add = SoleReader(uses, product, &input);
  if (add == nullptr) {
    const auto readers = uses.uses({&product, 0});
    const bool adds = std::any_of(readers.begin(), readers.end(), [](const UseIndex::Use& use) {
      const OpDef& op = use.node->op();
      return kBiasAddOp.is(op) || kAddV2Op.is(op);
    });
    if (adds && readers.size() > 1) {
      context.Missed(
          c.counter, product,
          absl::StrCat("its output is read by ", readers.size(), " nodes, not only the add"));
    }
    return false;
  }
  absl::StatusOr<NodeOutput> bias = BiasOf(*add, input, product);
  if (!bias.ok()) {
    if (bias.status().code() != absl::StatusCode::kNotFound) {
      context.Missed(c.counter, product, std::string(bias.status().message()));
    }
    return false;
  }
  if (std::string why = Obstacle(product, context, uses); !why.empty()) {
    context.Missed(c.counter, product, std::move(why));
    return false;
  }
  std::vector<const Node*> chain = {&product, add};
  const Node* act = SoleReader(uses, *add);
  if (act != nullptr && IsActivation(*act) && !context.Keeps(add) &&
      uses.control_dependents(add).empty()) {
    chain.push_back(act);
  }
  const Node* root = chain.back();
  std::vector<std::string> fused_ops = {"BiasAdd"};
  if (chain.size() == 3) fused_ops.push_back(root->op().name);
  absl::StatusOr<NodeSpec> made =
      SpecFor(c.fused_op, {product.inputs()[0], product.inputs()[1], *bias}, product,
              [&](OpCall& call) { c.set_attrs(product, fused_ops, call); });
  if (!made.ok()) {  // the fused op's own checks: report, and leave the graph as it is
    context.Missed(c.counter, product, std::string(made.status().message()));
    return false;
  }
  NodeSpec spec = *std::move(made);
  std::vector<ReplacedNode> replaced;
  for (const Node* node : chain) {
    replaced.push_back(ReplacedNode::Of(*node));
    spec.control_inputs.insert(spec.control_inputs.end(), node->control_inputs().begin(),
                               node->control_inputs().end());
  }
  DUET_RETURN_IF_ERROR(graph.Rewrite(root, std::move(spec)));
  chain.pop_back();
  DUET_RETURN_IF_ERROR(graph.RemoveNodes(chain));
  context.Fused(*root, std::move(replaced));
  std::string counter = absl::StrCat(c.counter, "_bias");
  if (fused_ops.size() == 2) absl::StrAppend(&counter, "_", absl::AsciiStrToLower(fused_ops[1]));
  context.Count(counter);
  return true;
}

}  // namespace

absl::StatusOr<bool> FuseBiasActivation(Graph& graph, PassContext& context) {
  bool changed = false;
  const std::vector<Node*> nodes(graph.nodes().begin(), graph.nodes().end());
  for (const Node* node : nodes) {
    if (node->removed()) continue;
    const Contraction* c = ContractionOf(*node);
    if (c == nullptr) continue;
    DUET_ASSIGN_OR_RETURN(const bool fused, FuseAt(graph, context, *node, *c));
    changed |= fused;
  }
  return changed;
}

}  // namespace duet
