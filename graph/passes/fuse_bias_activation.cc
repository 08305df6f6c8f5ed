// Fusion of a MatMul, Conv2D or DepthwiseConv2dNative with the bias added to its result, an
// optional residual added after it and an optional activation, into TensorFlow's _FusedMatMul /
// _FusedConv2D / _FusedDepthwiseConv2dNative: one oneDNN primitive with the bias, the residual and
// the activation as post-ops, so the product is written once instead of up to four times.
//
// Pattern: P = MatMul(a, b), Conv2D(x, w) or DepthwiseConv2dNative(x, w); S = BiasAdd(P, bias) or
// AddV2(P, bias) with bias a vector along P's last dim; optionally R = AddV2(S, r) with r of S's
// fully known shape (a ResNet block's sum: fused_ops "Add", as TensorFlow's remapper names it);
// optionally A = Relu|Relu6|Elu|Tanh|Sigmoid of the last. A fused op made earlier (or imported)
// whose fused_ops ends before an activation grows the same way. The last node of the match is
// rewritten in place into the fused op (so a fetched result keeps its name); the others go. It
// fires only when the intermediate values are read by nothing else and are not kept, and only for
// float32 (the fused kernels' type). Candidates that do not fire are reported with why. The
// convolutions are NHWC, the only layout duet's convolution ops accept.
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

// The fused op's attrs from the product's own (which the fused op declares at the same positions,
// through the same keys).
void SetMatMulAttrs(const Node& product, OpCall& call) {
  call.set(MatMulAttrs::kTransposeA, product.attr(MatMulAttrs::kTransposeA));
  call.set(MatMulAttrs::kTransposeB, product.attr(MatMulAttrs::kTransposeB));
}

void SetConv2DAttrs(const Node& product, OpCall& call) {
  call.set(ConvAttrs::kStrides, product.attr(ConvAttrs::kStrides));
  call.set(ConvAttrs::kUseCudnnOnGpu, product.attr(ConvAttrs::kUseCudnnOnGpu));
  call.set(ConvAttrs::kPadding, product.attr(ConvAttrs::kPadding));
  call.set(ConvAttrs::kExplicitPaddings, product.attr(ConvAttrs::kExplicitPaddings));
  call.set(ConvAttrs::kDataFormat, product.attr(ConvAttrs::kDataFormat));
  call.set(ConvAttrs::kDilations, product.attr(ConvAttrs::kDilations));
}

// TensorFlow's fused op has no explicit_paddings, so an EXPLICIT depthwise convolution fails the
// fused op's checks and is reported as not fused.
void SetDepthwiseConvAttrs(const Node& product, OpCall& call) {
  call.set(FusedDepthwiseConvAttrs::kStrides, product.attr(DepthwiseConvAttrs::kStrides));
  call.set(FusedDepthwiseConvAttrs::kPadding, product.attr(DepthwiseConvAttrs::kPadding));
  call.set(FusedDepthwiseConvAttrs::kDataFormat, product.attr(DepthwiseConvAttrs::kDataFormat));
  call.set(FusedDepthwiseConvAttrs::kDilations, product.attr(DepthwiseConvAttrs::kDilations));
}

struct Contraction {
  const OpRef& op;
  const OpRef& fused_op;
  const AttrKey<int64_t>& num_args;
  const AttrKey<std::vector<std::string>>& fused_ops;
  absl::string_view counter;
  void (*set_attrs)(const Node& product, OpCall& call);
};

const Contraction kContractions[] = {
    {kMatMulOp, kFusedMatMulOp, FusedMatMulAttrs::kNumArgs, FusedMatMulAttrs::kFusedOps,
     "fusion.matmul", SetMatMulAttrs},
    {kConv2DOp, kFusedConv2DOp, FusedConv2DAttrs::kNumArgs, FusedConv2DAttrs::kFusedOps,
     "fusion.conv2d", SetConv2DAttrs},
    {kDepthwiseConvOp, kFusedDepthwiseConvOp, FusedDepthwiseConvAttrs::kNumArgs,
     FusedDepthwiseConvAttrs::kFusedOps, "fusion.depthwise_conv2d", SetDepthwiseConvAttrs},
};

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

// A match: the nodes the fused op replaces, in order, its inputs and its fused_ops.
struct Match {
  const Contraction& c;
  const Node& start;  // the contraction, or a fused op made earlier
  std::vector<const Node*> chain;
  std::vector<NodeOutput> inputs;
  std::vector<std::string> fused_ops;
};

// Starts a match at contraction `product` with the bias added to it; false when there is none
// (reported when one was near).
bool StartAtProduct(Match& m, const UseIndex& uses, PassContext& context) {
  const Node& product = m.start;
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
          m.c.counter, product,
          absl::StrCat("its output is read by ", readers.size(), " nodes, not only the add"));
    }
    return false;
  }
  absl::StatusOr<NodeOutput> bias = BiasOf(*add, input, product);
  if (!bias.ok()) {
    if (bias.status().code() != absl::StatusCode::kNotFound) {
      context.Missed(m.c.counter, product, std::string(bias.status().message()));
    }
    return false;
  }
  if (std::string why = Obstacle(product, context, uses); !why.empty()) {
    context.Missed(m.c.counter, product, std::move(why));
    return false;
  }
  m.chain = {&product, add};
  m.inputs = {product.inputs()[0], product.inputs()[1], *bias};
  m.fused_ops = {"BiasAdd"};
  return true;
}

// The sole reader of the match's last node when the match may grow to it: the last value is not
// kept and no control edge leaves it.
const Node* NextInChain(const Match& m, const UseIndex& uses, const PassContext& context,
                        int* input = nullptr) {
  const Node& last = *m.chain.back();
  if (context.Keeps(&last) || !uses.control_dependents(&last).empty()) return nullptr;
  return SoleReader(uses, last, input);
}

// Grows the match by the residual add after the bias, when there is one. Its other operand must
// have the biased product's shape, fully known: an operand with unknown dims might broadcast,
// which the fused op does not. Reported when an AddV2 is there but the shapes do not allow it.
void GrowByResidual(Match& m, const UseIndex& uses, PassContext& context) {
  if (m.fused_ops.size() != 1) return;  // only right after the bias
  int input = 0;
  const Node* add = NextInChain(m, uses, context, &input);
  if (add == nullptr || !kAddV2Op.is(add->op())) return;
  const NodeOutput& residual = add->inputs()[1 - input];
  const Shape& r = residual.node->output_shape(residual.index);
  const Shape& out = m.chain.back()->output_shape(0);
  if (!out.is_fully_defined() || r != out || add->output_shape(0) != out) {
    context.Missed(absl::StrCat(m.c.counter, "_add"), *add,
                   absl::StrCat("the residual add's operands are ", out.str(), " and ", r.str(),
                                ": both must have the same fully known shape"));
    return;
  }
  m.chain.push_back(add);
  m.inputs.push_back(residual);
  m.fused_ops.push_back("Add");
}

// Grows the match by the activation after it, unless it has one.
void GrowByActivation(Match& m, const UseIndex& uses, const PassContext& context) {
  if (m.fused_ops.back() != "BiasAdd" && m.fused_ops.back() != "Add") return;
  const Node* act = NextInChain(m, uses, context);
  if (act == nullptr || !IsActivation(*act)) return;
  m.chain.push_back(act);
  m.fused_ops.push_back(act->op().name);
}

// Replaces the match by its fused op.
absl::StatusOr<bool> Fuse(Graph& graph, PassContext& context, Match& m) {
  absl::StatusOr<NodeSpec> made = SpecFor(m.c.fused_op, m.inputs, m.start, [&](OpCall& call) {
    if (m.c.fused_op.is(m.start.op())) {
      call.attrs = m.start.attrs();
    } else {
      m.c.set_attrs(m.start, call);
    }
    call.set(m.c.num_args, static_cast<int64_t>(m.inputs.size()) - 2);
    call.set(m.c.fused_ops, m.fused_ops);
  });
  if (!made.ok()) {  // the fused op's own checks: report, and leave the graph as it is
    context.Missed(m.c.counter, m.start, std::string(made.status().message()));
    return false;
  }
  NodeSpec spec = *std::move(made);
  std::vector<ReplacedNode> replaced;
  for (const Node* node : m.chain) {
    replaced.push_back(ReplacedNode::Of(*node));
    spec.control_inputs.insert(spec.control_inputs.end(), node->control_inputs().begin(),
                               node->control_inputs().end());
  }
  const Node* root = m.chain.back();
  DUET_RETURN_IF_ERROR(graph.Rewrite(root, std::move(spec)));
  m.chain.pop_back();
  DUET_RETURN_IF_ERROR(graph.RemoveNodes(m.chain));
  context.Fused(*root, std::move(replaced));
  std::string counter = std::string(m.c.counter);
  for (const std::string& op : m.fused_ops) {  // fusion.conv2d_bias_add_relu
    absl::StrAppend(&counter, "_", op == "BiasAdd" ? "bias" : absl::AsciiStrToLower(op));
  }
  context.Count(counter);
  return true;
}

// Fuses the match starting at `node`, a contraction or a fused op that may grow; false when there
// is none.
absl::StatusOr<bool> FuseAt(Graph& graph, PassContext& context, const Node& node,
                            const Contraction& c) {
  const UseIndex uses(graph);
  Match m{c, node};
  if (c.op.is(node.op())) {
    if (!StartAtProduct(m, uses, context)) return false;
  } else {
    m.chain = {&node};
    m.inputs.assign(node.inputs().begin(), node.inputs().end());
    m.fused_ops = node.attr(c.fused_ops);
  }
  GrowByResidual(m, uses, context);
  GrowByActivation(m, uses, context);
  if (m.chain.size() == 1) return false;  // a fused op that did not grow
  return Fuse(graph, context, m);
}

}  // namespace

absl::StatusOr<bool> FuseBiasActivation(Graph& graph, PassContext& context) {
  bool changed = false;
  const std::vector<Node*> nodes(graph.nodes().begin(), graph.nodes().end());
  for (const Node* node : nodes) {
    if (node->removed()) continue;
    for (const Contraction& c : kContractions) {
      if (!c.op.is(node->op()) && !c.fused_op.is(node->op())) continue;
      DUET_ASSIGN_OR_RETURN(const bool fused, FuseAt(graph, context, *node, c));
      changed |= fused;
    }
  }
  return changed;
}

}  // namespace duet
