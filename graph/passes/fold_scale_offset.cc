// Folding of constant per-channel scales and offsets into the Conv2D, DepthwiseConv2dNative or
// MatMul before them. Keras' inference BatchNormalization freezes to Mul(conv, m) and then
// AddV2(_, a) (or Sub) with constant vectors, not to a FusedBatchNormV3. A contraction is linear
// in its filter, so per output channel k
//
//   conv(x, w) * m[k]          = conv(x, w * m[k])                  (the Mul goes into the filter)
//   (conv(x, w) + b) * m[k]    = conv(x, w * m[k]) + b[k] * m[k]
//   (conv(x, w) + b) + a[k]    = conv(x, w) + (b[k] + a[k])         (the add goes into the bias)
//   conv(x, w) + a[k]          = BiasAdd(conv(x, w), a)
//
// and the graph is left with BiasAdd(contraction) + activation, which fuse_bias_activation (next
// in the round) makes one oneDNN primitive of. Each rewrite removes one node; the pass manager's
// rounds reach the fixpoint. A constant qualifies when it holds one value per output channel:
// shape [C], [1, ..., 1, C] or a scalar; float32 or float64, folded in double. The contraction's
// filter and bias must be constants, and every node whose value changes must be read only by the
// next one and not kept. Candidates that do not fire are reported with why.
#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "graph/passes/passes.h"
#include "graph/passes/rewrite.h"
#include "ops/nn/nn_attrs.h"
#include "ops/op_ref.h"

namespace duet {
namespace {

const OpRef kAddV2Op("AddV2");
const OpRef kSubOp("Sub");
const OpRef kMulOp("Mul");
const OpRef kBiasAddOp("BiasAdd");
const OpRef kConv2DOp("Conv2D");
const OpRef kDepthwiseOp("DepthwiseConv2dNative");
const OpRef kMatMulOp("MatMul");

constexpr absl::string_view kScale = "fold.scale";
constexpr absl::string_view kOffset = "fold.offset";

// Where a filter's output channels lie (ScalePerChannel's stride: 1 for channels last).
struct ChannelLayout {
  int64_t channels = 0;
  int64_t stride = 1;
};

// The filter layout of a contraction with a constant filter and channels last, or nullopt.
std::optional<ChannelLayout> LayoutOf(const Node& node) {
  const OpDef& op = node.op();
  if (!kConv2DOp.is(op) && !kDepthwiseOp.is(op) && !kMatMulOp.is(op)) return std::nullopt;
  const Tensor* filter = ConstValue(node.inputs()[1]);
  if (filter == nullptr || !filter->has_value()) return std::nullopt;
  const Shape& w = filter->shape();
  if (kConv2DOp.is(op)) {  // HWIO
    if (node.attr(ConvAttrs::kDataFormat) != "NHWC") return std::nullopt;
    return ChannelLayout{w.dim(3)};
  }
  if (kDepthwiseOp.is(op)) {  // H, W, in, multiplier: channel = in * multiplier + m
    if (node.attr(DepthwiseConvAttrs::kDataFormat) != "NHWC") return std::nullopt;
    return ChannelLayout{w.dim(2) * w.dim(3)};
  }
  // MatMul: [K, N], or [N, K] transposed
  if (node.attr(MatMulAttrs::kTransposeB)) return ChannelLayout{w.dim(0), w.dim(1)};
  return ChannelLayout{w.dim(1)};
}

bool IsFloat(DType dtype) { return dtype == kFloat32 || dtype == kFloat64; }

// A contraction, the bias added to it (if any), and the node reading the result (a Mul, AddV2
// or Sub with a per-channel constant).
struct Match {
  const Node* contraction = nullptr;
  ChannelLayout layout;
  const Node* add = nullptr;  // BiasAdd, or AddV2 of a constant vector, after the contraction
  int bias_input = 0;
  const Node* op = nullptr;         // the Mul, AddV2 or Sub that folds
  std::vector<double> per_channel;  // op's constant, one value per channel
};

// The constant vector a BiasAdd or AddV2 `add` adds to its input `input`, or nullptr.
const Tensor* BiasOf(const Node& add, int input, int64_t channels) {
  const int other = kBiasAddOp.is(add.op()) ? (input == 0 ? 1 : -1) : 1 - input;
  if (other < 0 || !(kBiasAddOp.is(add.op()) || kAddV2Op.is(add.op()))) return nullptr;
  const Tensor* bias = ConstValue(add.inputs()[other]);
  if (bias == nullptr || !bias->has_value() || bias->shape() != Shape{channels}) return nullptr;
  return bias;
}

// `value`, when it holds one value per channel ([C], [1, ..., 1, C], or a scalar) and does not
// broadcast a `rank` tensor to a larger shape, as C doubles.
std::optional<std::vector<double>> PerChannel(const Tensor& value, int64_t channels, int rank) {
  const Shape& s = value.shape();
  if (!IsFloat(value.dtype()) || s.rank() > rank) return std::nullopt;
  for (int d = 0; d + 1 < s.rank(); ++d) {
    if (s.dim(d) != 1) return std::nullopt;
  }
  std::vector<double> values = FloatValues(value);
  if (s.rank() == 0 || s.dim(s.rank() - 1) == 1) return std::vector<double>(channels, values[0]);
  if (s.dim(s.rank() - 1) != channels) return std::nullopt;
  return values;
}

// The match ending at `op` (a Mul, AddV2 or Sub), or nullopt when it is not a candidate.
std::optional<Match> Candidate(const Node& op) {
  const bool mul = kMulOp.is(op.op()), sub = kSubOp.is(op.op());
  if (!mul && !sub && !kAddV2Op.is(op.op())) return std::nullopt;
  if (!IsFloat(op.output_dtype(0))) return std::nullopt;
  for (int input = 0; input < 2; ++input) {
    if (sub && input == 1) break;  // c - conv is not an offset of conv
    Match match{.op = &op};
    const Node* value = op.inputs()[input].node;
    const Tensor* constant = ConstValue(op.inputs()[1 - input]);
    if (constant == nullptr || !constant->has_value()) continue;
    if (std::optional<ChannelLayout> layout = LayoutOf(*value)) {
      match.contraction = value;
      match.layout = *layout;
    } else if ((kBiasAddOp.is(value->op()) || kAddV2Op.is(value->op())) &&
               value->inputs().size() == 2) {
      for (int i = 0; i < 2 && match.contraction == nullptr; ++i) {
        const Node* inner = value->inputs()[i].node;
        std::optional<ChannelLayout> layout = LayoutOf(*inner);
        if (layout && BiasOf(*value, i, layout->channels) != nullptr) {
          match.contraction = inner;
          match.layout = *layout;
          match.add = value;
          match.bias_input = 1 - i;
        }
      }
    }
    if (match.contraction == nullptr) continue;
    const Shape& out = match.contraction->output_shape(0);
    if (out.unknown_rank() || op.output_shape(0) != value->output_shape(0)) continue;
    std::optional<std::vector<double>> per_channel =
        PerChannel(*constant, match.layout.channels, out.rank());
    if (!per_channel) continue;
    if (sub) {
      for (double& v : *per_channel) v = -v;
    }
    match.per_channel = *std::move(per_channel);
    return match;
  }
  return std::nullopt;
}

// Why the match cannot fold (empty when it can).
std::string Obstacle(const Match& match, const PassContext& context, const UseIndex& uses) {
  if (!match.op->control_inputs().empty()) return "a control edge enters it";
  const Node* changed[] = {match.contraction, match.add};
  for (const Node* node : changed) {
    if (node == nullptr) continue;
    if (std::string why = SharedObstacle(*node, context, uses); !why.empty()) return why;
  }
  // The op goes, unless it is an offset rewritten in place into a BiasAdd.
  const bool in_place = match.add == nullptr && !kMulOp.is(match.op->op());
  if (!in_place && context.Keeps(match.op)) return "it is fetched or kept";
  return "";
}

// A new Const of `dtype` and `shape` holding `values`, named after `site`.
absl::StatusOr<NodeOutput> AddConst(Graph& graph, const Node& site, absl::string_view suffix,
                                    DType dtype, const std::vector<double>& values,
                                    const Shape& shape) {
  DUET_ASSIGN_OR_RETURN(const Node* node,
                        AddNamed(graph, ConstSpec(FloatTensor(dtype, values, shape), site),
                                 absl::StrCat(site.name(), "/", suffix)));
  return NodeOutput{node, 0};
}

// Mul(P, m): scales the filter (and the bias) by m; P's result replaces the Mul's.
absl::Status FoldScale(Graph& graph, const UseIndex& uses, const Match& match) {
  const Node& c = *match.contraction;
  const DType dtype = c.output_dtype(0);
  // Exact: a float32 product rounded once is the double product rounded.
  const Tensor filter =
      ScalePerChannel(*ConstValue(c.inputs()[1]), match.per_channel, match.layout.stride);
  DUET_ASSIGN_OR_RETURN(const Node* scaled,
                        AddNamed(graph, ConstSpec(filter, c), c.name() + "/scaled_filter"));
  graph.SetInput(&c, 1, {scaled, 0});
  const Node* result = &c;
  if (match.add != nullptr) {
    std::vector<double> b = FloatValues(*ConstValue(match.add->inputs()[match.bias_input]));
    for (size_t k = 0; k < b.size(); ++k) b[k] *= match.per_channel[k];
    DUET_ASSIGN_OR_RETURN(NodeOutput bias, AddConst(graph, *match.add, "scaled_bias", dtype, b,
                                                    Shape{static_cast<int64_t>(b.size())}));
    graph.SetInput(match.add, match.bias_input, bias);
    result = match.add;
  }
  graph.ReplaceUses({match.op, 0}, {result, 0});
  MoveControlDependents(graph, uses, match.op, result);
  return graph.RemoveNodes({match.op});
}

// AddV2/Sub(P, ±a): adds a to P's bias, or rewrites the op into BiasAdd(contraction, ±a).
absl::Status FoldOffset(Graph& graph, const UseIndex& uses, const Match& match) {
  const DType dtype = match.contraction->output_dtype(0);
  const int64_t channels = match.layout.channels;
  if (match.add == nullptr) {
    DUET_ASSIGN_OR_RETURN(NodeOutput bias, AddConst(graph, *match.op, "bias", dtype,
                                                    match.per_channel, Shape{channels}));
    DUET_ASSIGN_OR_RETURN(NodeSpec spec,
                          SpecFor(kBiasAddOp, {{match.contraction, 0}, bias}, *match.op));
    return graph.Rewrite(match.op, std::move(spec));
  }
  std::vector<double> b = FloatValues(*ConstValue(match.add->inputs()[match.bias_input]));
  for (int64_t k = 0; k < channels; ++k) b[k] += match.per_channel[k];
  DUET_ASSIGN_OR_RETURN(NodeOutput bias,
                        AddConst(graph, *match.add, "offset_bias", dtype, b, Shape{channels}));
  graph.SetInput(match.add, match.bias_input, bias);
  graph.ReplaceUses({match.op, 0}, {match.add, 0});
  MoveControlDependents(graph, uses, match.op, match.add);
  return graph.RemoveNodes({match.op});
}

absl::string_view CounterOf(const Node& op) { return kMulOp.is(op.op()) ? kScale : kOffset; }

// Folds `match`, whose obstacles were checked against `uses`.
absl::Status Fold(Graph& graph, PassContext& context, const UseIndex& uses, const Match& match) {
  const Node& op = *match.op;
  const bool scale = kMulOp.is(op.op());
  std::vector<ReplacedNode> replaced = {ReplacedNode::Of(op)};
  const Node* result = match.add != nullptr ? match.add : match.contraction;
  if (!scale && match.add == nullptr) result = &op;  // rewritten in place into a BiasAdd
  DUET_RETURN_IF_ERROR(scale ? FoldScale(graph, uses, match) : FoldOffset(graph, uses, match));
  context.Fused(*result, std::move(replaced));
  context.Count(CounterOf(op));
  return absl::OkStatus();
}

}  // namespace

// Folds in sweeps over the graph with one UseIndex each (building one per fold made ResNet-50's
// 106 folds cost 300 ms). A fold makes the uses of the nodes it changes stale in the index, so a
// match touching one waits for the next sweep. The last sweep folds nothing; it reports the
// candidates that did not fold.
absl::StatusOr<bool> FoldScaleOffset(Graph& graph, PassContext& context) {
  bool changed = false;
  for (bool folded = true; folded;) {
    folded = false;
    const UseIndex uses(graph);
    absl::flat_hash_set<const Node*> touched;
    std::vector<std::pair<const Node*, std::string>> missed;
    const std::vector<Node*> nodes(graph.nodes().begin(), graph.nodes().end());
    for (const Node* node : nodes) {
      if (node->removed()) continue;
      std::optional<Match> match = Candidate(*node);
      if (!match) continue;
      const Node* changes[] = {node, match->contraction, match->add};
      if (std::any_of(std::begin(changes), std::end(changes),
                      [&](const Node* n) { return n != nullptr && touched.contains(n); })) {
        continue;
      }
      if (std::string why = Obstacle(*match, context, uses); !why.empty()) {
        missed.emplace_back(node, std::move(why));
        continue;
      }
      DUET_RETURN_IF_ERROR(Fold(graph, context, uses, *match));
      for (const Node* n : changes) {
        if (n != nullptr) touched.insert(n);
      }
      folded = true;
    }
    if (!folded) {
      for (auto& [node, why] : missed) context.Missed(CounterOf(*node), *node, std::move(why));
    }
    changed |= folded;
  }
  return changed;
}

}  // namespace duet
