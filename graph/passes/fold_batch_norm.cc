// Folding of an inference batch normalization into the convolution before it. With constant
// statistics, FusedBatchNormV3(Conv2D(x, w)) is y = conv * m + a per output channel k, where
// m[k] = scale[k] / sqrt(variance[k] + epsilon) and a[k] = offset[k] - mean[k] * m[k]; that is
// Conv2D(x, w * m) + a, so the normalization costs nothing at run time. An existing bias b
// between the two (BiasAdd, or AddV2 of a constant vector) folds too: a += b * m.
//
// The batch norm is rewritten in place into BiasAdd(Conv2D(x, w'), a') (its name and consumers
// stay; fuse_bias_activation, later in the round, makes a _FusedConv2D of it and an activation).
// It fires only when everything is known now: inference mode, constant scale, offset, mean,
// variance, filter and bias; NHWC; float32 or float64. Only y may be read (the other outputs
// would vanish), and the batch norm may not be kept (a kept node keeps all six outputs), nor may
// the convolution or bias be read elsewhere or kept (their values change). Candidates that do
// not fire are reported with why.
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "graph/passes/passes.h"
#include "graph/passes/rewrite.h"
#include "ops/nn/nn_attrs.h"
#include "ops/op_ref.h"

namespace duet {
namespace {

const OpRef kAddV2Op("AddV2");
const OpRef kBiasAddOp("BiasAdd");
const OpRef kConv2DOp("Conv2D");
const OpRef kFusedBatchNormV3Op("FusedBatchNormV3");

constexpr absl::string_view kFusion = "fusion.conv2d_batch_norm";

bool IsBatchNorm(const Node& node) {
  const OpDef& op = node.op();
  return kFusedBatchNormV3Op.is(op);
}

bool IsAdd(const Node& node) {
  const OpDef& op = node.op();
  return kBiasAddOp.is(op) || kAddV2Op.is(op);
}

// What folds: the convolution, the bias added to its result (if any), and the constants.
struct Match {
  const Node* conv = nullptr;
  const Node* add = nullptr;  // BiasAdd or AddV2 between the Conv2D and the batch norm, or null
  int bias_input = 0;         // the add's input holding the bias
  const Tensor* filter = nullptr;
  const Tensor* bias = nullptr;  // the add's constant vector
  const Tensor* params[4] = {};  // scale, offset, mean, variance
};

// The Conv2D (and add) that `bn` normalizes the output of, or nullopt when x comes from
// something else (not a candidate, nothing to report).
std::optional<Match> Candidate(const Node& bn) {
  auto is_conv = [](NodeOutput out) { return kConv2DOp.is(out.node->op()); };
  Match match;
  const NodeOutput x = bn.inputs()[0];
  if (is_conv(x)) {
    match.conv = x.node;
    return match;
  }
  if (!IsAdd(*x.node)) return std::nullopt;
  match.add = x.node;
  // BiasAdd(value, bias); an AddV2 may have the convolution on either side.
  const int conv_input = is_conv(x.node->inputs()[0]) || kBiasAddOp.is(x.node->op()) ? 0 : 1;
  if (!is_conv(x.node->inputs()[conv_input])) return std::nullopt;
  match.conv = x.node->inputs()[conv_input].node;
  match.bias_input = 1 - conv_input;
  return match;
}

// Why the batch norm itself cannot fold (empty when it can).
std::string BatchNormObstacle(const Node& bn, const PassContext& context, const UseIndex& uses) {
  const DType dtype = bn.output_dtype(0);
  if (dtype != kFloat32 && dtype != kFloat64) {
    return absl::StrCat("dtype ", DTypeName(dtype), ": only float32 and float64 fold");
  }
  if (bn.attr(FusedBatchNormAttrs::kIsTraining)) {
    return "is_training: the statistics come from the batch, not from constants";
  }
  if (const std::string& format = bn.attr(FusedBatchNormAttrs::kDataFormat); format != "NHWC") {
    return absl::StrCat("data_format ", format, ": only NHWC folds");
  }
  for (int i = 1; i < bn.num_outputs(); ++i) {
    if (uses.num_uses({&bn, i}) > 0) {
      return absl::StrCat("its output ", i, " (", bn.op().outputs[i].name, ") is read by node '",
                          uses.uses({&bn, i})[0].node->name(), "'; only y may be used");
    }
  }
  if (context.Keeps(&bn)) {
    return "it is fetched or kept, and a kept batch norm keeps all of its outputs";
  }
  return "";
}

// The constant at `input` of `node`, or why it is not one.
absl::StatusOr<const Tensor*> ConstantInput(const Node& node, int input, absl::string_view what) {
  const NodeOutput in = node.inputs()[input];
  const Tensor* value = ConstValue(in);
  if (value != nullptr && value->has_value()) return value;
  return absl::FailedPreconditionError(
      absl::StrCat("its ", what, " is not a constant (node '", in.node->name(), "', op ",
                   in.node->op().name, "); freeze variables and fold constants first"));
}

// Fills the match's constants; FailedPrecondition says why it cannot fold.
absl::Status ReadConstants(const Node& bn, Match& match) {
  static constexpr absl::string_view kParams[] = {"scale", "offset", "mean", "variance"};
  for (int i = 0; i < 4; ++i) {
    DUET_ASSIGN_OR_RETURN(match.params[i], ConstantInput(bn, i + 1, kParams[i]));
  }
  DUET_ASSIGN_OR_RETURN(match.filter, ConstantInput(*match.conv, 1, "convolution's filter"));
  const int64_t channels = match.filter->shape().dim(3);
  for (int i = 0; i < 4; ++i) {
    if (match.params[i]->shape() != Shape{channels}) {
      return absl::FailedPreconditionError(absl::StrCat(
          "its ", kParams[i], " is ", match.params[i]->shape().str(),
          ", not one value per output channel of the filter ", match.filter->shape().str()));
    }
  }
  if (match.add == nullptr) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(match.bias, ConstantInput(*match.add, match.bias_input, "bias"));
  if (match.bias->shape() != Shape{channels} ||
      match.add->output_shape(0) != match.conv->output_shape(0)) {
    return absl::FailedPreconditionError(
        absl::StrCat("the tensor added to the convolution is ", match.bias->shape().str(),
                     ", not a vector of its ", channels, " channels"));
  }
  return absl::OkStatus();
}

// The folded filter and bias, computed in double as the float64 kernel does.
std::pair<Tensor, Tensor> Fold(const Match& match, double epsilon, DType dtype) {
  const std::vector<double> scale = FloatValues(*match.params[0]),
                            offset = FloatValues(*match.params[1]),
                            mean = FloatValues(*match.params[2]),
                            variance = FloatValues(*match.params[3]);
  const int64_t channels = static_cast<int64_t>(scale.size());
  std::vector<double> multiplier(channels), bias(channels);
  const std::vector<double> old_bias =
      match.bias != nullptr ? FloatValues(*match.bias) : std::vector<double>(channels, 0.0);
  for (int64_t k = 0; k < channels; ++k) {
    multiplier[k] = scale[k] / std::sqrt(variance[k] + epsilon);
    bias[k] = offset[k] - mean[k] * multiplier[k] + old_bias[k] * multiplier[k];
  }
  return {ScalePerChannel(*match.filter, multiplier),  // HWIO: channels last
          FloatTensor(dtype, bias, Shape{channels})};
}

// Rewrites `bn` into BiasAdd(Conv2D(x, folded filter), folded bias).
absl::Status FoldInto(Graph& graph, PassContext& context, const Node& bn, const Match& match) {
  const auto [filter, bias] =
      Fold(match, static_cast<double>(bn.attr(FusedBatchNormAttrs::kEpsilon)), bn.output_dtype(0));
  DUET_ASSIGN_OR_RETURN(const Node* filter_node,
                        AddNamed(graph, ConstSpec(filter, *match.conv),
                                 absl::StrCat(match.conv->name(), "/folded_filter")));
  DUET_ASSIGN_OR_RETURN(const Node* bias_node, AddNamed(graph, ConstSpec(bias, bn),
                                                        absl::StrCat(bn.name(), "/folded_bias")));
  DUET_ASSIGN_OR_RETURN(NodeSpec spec, SpecFor(kBiasAddOp, {{match.conv, 0}, {bias_node, 0}}, bn));
  std::vector<ReplacedNode> replaced;
  for (const Node* node : {match.add, &bn}) {
    if (node == nullptr) continue;
    replaced.push_back(ReplacedNode::Of(*node));
    spec.control_inputs.insert(spec.control_inputs.end(), node->control_inputs().begin(),
                               node->control_inputs().end());
  }
  graph.SetInput(match.conv, 1, {filter_node, 0});
  DUET_RETURN_IF_ERROR(graph.Rewrite(&bn, std::move(spec)));
  if (match.add != nullptr) DUET_RETURN_IF_ERROR(graph.RemoveNodes({match.add}));
  context.Fused(bn, std::move(replaced));
  context.Count(kFusion);
  return absl::OkStatus();
}

// Folds `bn` into the convolution before it; false (with a report when it is a candidate)
// when it cannot.
absl::StatusOr<bool> FoldAt(Graph& graph, PassContext& context, const Node& bn) {
  std::optional<Match> match = Candidate(bn);
  if (!match) return false;
  const UseIndex uses(graph);
  std::string why = BatchNormObstacle(bn, context, uses);
  if (why.empty()) why = SharedObstacle(*match->conv, context, uses);
  if (why.empty() && match->add != nullptr) why = SharedObstacle(*match->add, context, uses);
  if (why.empty()) {
    if (absl::Status read = ReadConstants(bn, *match); !read.ok())
      why = std::string(read.message());
  }
  if (!why.empty()) {
    context.Missed(kFusion, bn, std::move(why));
    return false;
  }
  DUET_RETURN_IF_ERROR(FoldInto(graph, context, bn, *match));
  return true;
}

}  // namespace

absl::StatusOr<bool> FoldBatchNorm(Graph& graph, PassContext& context) {
  bool changed = false;
  const std::vector<Node*> nodes(graph.nodes().begin(), graph.nodes().end());
  for (const Node* node : nodes) {
    if (node->removed() || !IsBatchNorm(*node)) continue;
    DUET_ASSIGN_OR_RETURN(const bool folded, FoldAt(graph, context, *node));
    changed |= folded;
  }
  return changed;
}

}  // namespace duet
