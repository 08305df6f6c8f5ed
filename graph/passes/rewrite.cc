#include "graph/passes/rewrite.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "graph/graph_ops.h"
#include "ops/array/array_attrs.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "ops/shape_context.h"

namespace duet {

UseIndex::UseIndex(const Graph& graph) {
  for (const Node* node : graph.nodes()) {
    for (int i = 0; i < static_cast<int>(node->inputs().size()); ++i) {
      const NodeOutput& in = node->inputs()[i];
      uses_[{in.node, in.index}].push_back({node, i});
    }
    for (const Node* in : node->control_inputs()) control_[in].push_back(node);
  }
}

absl::Span<const UseIndex::Use> UseIndex::uses(NodeOutput output) const {
  auto it = uses_.find(std::make_pair(output.node, output.index));
  if (it == uses_.end()) return {};
  return it->second;
}

int UseIndex::num_data_uses(const Node* node) const {
  int n = 0;
  for (int i = 0; i < node->num_outputs(); ++i) n += num_uses({node, i});
  return n;
}

absl::Span<const Node* const> UseIndex::control_dependents(const Node* node) const {
  auto it = control_.find(node);
  if (it == control_.end()) return {};
  return it->second;
}

absl::StatusOr<NodeSpec> SpecFor(const OpRef& op_ref, std::vector<NodeOutput> inputs,
                                 const Node& site, AttrSetter set_attrs) {
  return SpecFor(op_ref.def(), std::move(inputs), site, set_attrs);
}

absl::StatusOr<NodeSpec> SpecFor(const OpDef& op_def, std::vector<NodeOutput> inputs,
                                 const Node& site, AttrSetter set_attrs) {
  const OpDef* op = &op_def;
  TensorList symbolic;
  for (const NodeOutput& in : inputs) symbolic.push_back(in.node->output(in.index));
  OpCall call(op, std::move(symbolic), OpSite(site.name(), site.location()));
  set_attrs(call);
  DUET_RETURN_IF_ERROR(BindAttrs(call));
  ShapeContext shapes(call);
  DUET_RETURN_IF_ERROR(InferShapes(shapes));
  NodeSpec spec;
  spec.op = op;
  spec.attrs = std::move(call.attrs);
  spec.inputs = std::move(inputs);
  spec.device = site.device();
  spec.location = site.location();
  spec.SetOutputs(shapes.outputs());
  return spec;
}

namespace {

// `node`'s output shapes inferred from its inputs' current shapes, merged with what it knew; or
// nullopt when inference fails, changes a dtype, or learns nothing new.
std::optional<std::vector<Shape>> RefinedShapes(const Node& node) {
  TensorList symbolic;
  for (const NodeOutput& in : node.inputs()) symbolic.push_back(in.node->output(in.index));
  OpCall call(&node.op(), std::move(symbolic), OpSite(node.name(), node.location()));
  call.attrs = node.attrs();
  ShapeContext shapes(call);
  if (!InferShapes(shapes).ok() || shapes.num_outputs() != node.num_outputs()) return std::nullopt;
  std::vector<Shape> refined;
  bool changed = false;
  for (int i = 0; i < node.num_outputs(); ++i) {
    const ShapeContext::Output& out = shapes.outputs()[i];
    const Shape& known = node.output_shape(i);
    if (out.dtype != node.output_dtype(i) || !out.shape.IsCompatibleWith(known))
      return std::nullopt;
    refined.push_back(known.Merge(out.shape));
    changed |= refined.back() != known;
  }
  if (!changed) return std::nullopt;
  return refined;
}

}  // namespace

absl::Status RefineShapes(Graph& graph) {
  DUET_RETURN_IF_ERROR(graph.SortTopologically());
  for (const Node* node : graph.nodes()) {
    if (node->inputs().empty() || node->bound_value() != nullptr) continue;
    std::optional<std::vector<Shape>> shapes = RefinedShapes(*node);
    if (!shapes) continue;
    NodeSpec spec;
    spec.op = &node->op();
    spec.attrs = node->attrs();
    spec.inputs.assign(node->inputs().begin(), node->inputs().end());
    spec.control_inputs.assign(node->control_inputs().begin(), node->control_inputs().end());
    spec.device = node->device();
    spec.location = node->location();
    for (int i = 0; i < node->num_outputs(); ++i)
      spec.output_dtypes.push_back(node->output_dtype(i));
    spec.output_shapes = *std::move(shapes);
    DUET_RETURN_IF_ERROR(graph.Rewrite(node, std::move(spec)));
  }
  return absl::OkStatus();
}

NodeSpec ConstSpec(const Tensor& value, const Node& site) {
  NodeSpec spec = NodeSpec::Const(value);
  spec.device = site.device();
  spec.location = site.location();
  return spec;
}

absl::StatusOr<const Node*> AddNamed(Graph& graph, NodeSpec spec, absl::string_view base) {
  spec.name = graph.UniqueName(base);
  return graph.AddNode(std::move(spec));
}

const Tensor* ConstValue(NodeOutput output) { return output.node->host_constant(); }

bool IsConstFilledWith(NodeOutput output, double x) {
  const Tensor* value = ConstValue(output);
  if (value == nullptr || !value->has_value() || !IsNumeric(value->dtype())) return false;
  return VisitDType(value->dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* p = value->data<T>();
    for (int64_t i = 0; i < value->num_elements(); ++i) {
      if (static_cast<double>(static_cast<float>(p[i])) != x) return false;
    }
    return true;
  });
}

std::vector<double> FloatValues(const Tensor& t) {
  std::vector<double> values(t.num_elements());
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    values[i] = t.dtype() == kFloat64 ? t.data<double>()[i] : t.data<float>()[i];
  }
  return values;
}

Tensor FloatTensor(DType dtype, const std::vector<double>& values, const Shape& shape) {
  if (dtype == kFloat64) return from_vector(values, shape);
  return from_vector(std::vector<float>(values.begin(), values.end()), shape);
}

namespace {

template <typename T>
void ScaleRuns(const T* from, T* to, int64_t n, const std::vector<double>& factors,
               int64_t stride) {
  const int64_t channels = static_cast<int64_t>(factors.size());
  for (int64_t base = 0; base < n; base += channels * stride) {
    for (int64_t k = 0; k < channels; ++k) {
      const int64_t run = base + k * stride;
      for (int64_t j = 0; j < stride; ++j) {
        to[run + j] = static_cast<T>(static_cast<double>(from[run + j]) * factors[k]);
      }
    }
  }
}

}  // namespace

Tensor ScalePerChannel(const Tensor& filter, const std::vector<double>& factors, int64_t stride) {
  Tensor scaled = Tensor::Empty(filter.dtype(), filter.shape());
  if (filter.dtype() == kFloat64) {
    ScaleRuns(filter.data<double>(), scaled.mutable_data<double>(), filter.num_elements(), factors,
              stride);
  } else {
    ScaleRuns(filter.data<float>(), scaled.mutable_data<float>(), filter.num_elements(), factors,
              stride);
  }
  return scaled;
}

void MoveControlDependents(Graph& graph, const UseIndex& uses, const Node* from, const Node* to) {
  for (const Node* dependent : uses.control_dependents(from)) {
    std::vector<const Node*> inputs;
    for (const Node* in : dependent->control_inputs()) {
      if (in != from && in != to) inputs.push_back(in);
    }
    if (dependent != to) inputs.push_back(to);
    graph.SetControlInputs(dependent, std::move(inputs));
  }
}

}  // namespace duet
