#include "graph/passes/shadow_check.h"

#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "core/resource.h"
#include "graph/device_copies.h"
#include "graph/graph_ops.h"
#include "graph/plan.h"
#include "ops/state/state_attrs.h"

namespace duet {
namespace {

// Reading variables is fine; anything else stateful would change state the user owns.
bool UpdatesState(const Graph& graph) {
  for (const Node* node : graph.nodes()) {
    const OpDef& op = node->op();
    if (node->op().stateful && !kReadVariableOp.is(op) && !kVarHandleOp.is(op)) return true;
  }
  return false;
}

Tensor RandomValue(DType dtype, const Shape& shape, std::mt19937& rng) {
  Shape concrete;
  for (int64_t d : shape.dims()) concrete.push_back(d < 0 ? 2 : d);
  Tensor value = Tensor::Empty(dtype, concrete);
  if (dtype == kString) return value;  // empty strings
  VisitDType(dtype, [&](auto zero) {
    using T = decltype(zero);
    T* p = value.mutable_data<T>();
    std::uniform_real_distribution<float> real(-1, 1);
    std::uniform_int_distribution<int> small(0, 1);
    for (int64_t i = 0; i < value.num_elements(); ++i) {
      if constexpr (std::is_integral_v<T>) {
        p[i] = static_cast<T>(small(rng));
      } else {
        p[i] = static_cast<T>(real(rng));
      }
    }
  });
  return value;
}

struct Run {
  std::vector<std::string> fetched;
  std::vector<Tensor> values;
};

// A fresh, uninitialized variable for a VarHandleOp of the graph itself (as a new session has).
Tensor FreshVariable(const Node& node) {
  auto variable = std::make_shared<VariableResource>();
  variable->name = node.name();
  variable->dtype = node.attr(VarHandleAttrs::kDtype);
  variable->shape = node.attr(VarHandleAttrs::kShape);
  return MakeResourceTensor(std::move(variable), node.placement());
}

// Runs a copy of `graph` as it is (no passes) on the feeds whose placeholders it still has,
// through the runtime a session uses: device copies, then a plan.
absl::StatusOr<Run> RunGraph(const Graph& graph, const std::vector<std::string>& kept,
                             const std::vector<std::pair<std::string, Tensor>>& feeds) {
  std::vector<const Node*> copy_of;
  Graph copy = graph.Copy(&copy_of);
  auto in_copy = [&](const Node* node, int index) {
    return NodeOutput{copy_of[node->id()], index};
  };
  std::vector<NodeOutput> feed_outputs;
  std::vector<Tensor> feed_values;
  for (const auto& [name, value] : feeds) {
    const Node* node = graph.FindNode(name);
    if (node == nullptr) continue;
    feed_outputs.push_back(in_copy(node, 0));
    feed_values.push_back(value);
  }
  Run run;
  std::vector<NodeOutput> fetches;
  for (const std::string& name : kept) {
    const Node* node = graph.FindNode(name);
    if (node == nullptr) continue;
    for (int i = 0; i < node->num_outputs(); ++i) {
      if (IsObjectDType(node->output_dtype(i)) || kPlaceholderOp.is(node->op())) continue;
      run.fetched.push_back(Node::EdgeName({node, i}));
      fetches.push_back(in_copy(node, i));
    }
  }
  DUET_RETURN_IF_ERROR(InsertDeviceCopies(copy).status());
  DUET_ASSIGN_OR_RETURN(std::unique_ptr<Plan> plan,
                        Plan::Compile(copy, feed_outputs, fetches, {}, FreshVariable));
  DUET_ASSIGN_OR_RETURN(run.values, plan->Run(feed_values));
  return run;
}

// The first fetched value that differs, described, or "" when all agree.
std::string FirstMismatch(const Run& a, const Run& b) {
  if (a.fetched != b.fetched) return "the optimized graph lost a fetched output";
  for (size_t k = 0; k < a.values.size(); ++k) {
    const Tensor x = a.values[k].cpu();  // a fetch may live on a device
    const Tensor y = b.values[k].cpu();
    if (x.dtype() != y.dtype() || x.shape() != y.shape()) {
      return absl::StrCat("'", a.fetched[k], "' is ", DTypeName(x.dtype()), " ", x.shape().str(),
                          " before and ", DTypeName(y.dtype()), " ", y.shape().str(), " after");
    }
    if (x.dtype() == kString) {
      if (x.to_vector<std::string>() != y.to_vector<std::string>()) {
        return absl::StrCat("'", a.fetched[k], "' has other strings");
      }
      continue;
    }
    std::string found;
    VisitDType(x.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* p = x.data<T>();
      const T* q = y.data<T>();
      for (int64_t i = 0; i < x.num_elements() && found.empty(); ++i) {
        const double u = static_cast<float>(p[i]), v = static_cast<float>(q[i]);
        bool same = u == v;
        if constexpr (!std::is_integral_v<T>) {
          same = (std::isnan(u) && std::isnan(v)) || std::abs(u - v) <= 1e-5 + 1e-4 * std::abs(u);
        }
        if (!same) found = absl::StrCat("'", a.fetched[k], "' element ", i, ": ", u, " vs ", v);
      }
    });
    if (!found.empty()) return found;
  }
  return "";
}

}  // namespace

absl::StatusOr<std::string> ShadowCheck(const Graph& original, const Graph& optimized,
                                        const std::vector<std::string>& kept,
                                        const PassOptions& options) {
  if (UpdatesState(original)) return std::string("skipped: the graph updates state");
  std::mt19937 rng(20261122);
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const Node* node : original.nodes()) {
    if (!kPlaceholderOp.is(node->op()) || IsObjectDType(node->output_dtype(0))) continue;
    feeds.emplace_back(node->name(),
                       RandomValue(node->output_dtype(0), node->output_shape(0), rng));
  }
  absl::StatusOr<Run> before = RunGraph(original, kept, feeds);
  if (!before.ok()) {
    return absl::StrCat("skipped: the unoptimized graph fails on random inputs (",
                        before.status().message(), ")");
  }
  DUET_ASSIGN_OR_RETURN(const Run after, RunGraph(optimized, kept, feeds));
  const std::string mismatch = FirstMismatch(*before, after);
  if (mismatch.empty()) {
    return absl::StrCat("outputs agree (", before->values.size(), " values)");
  }
  for (const std::string& pass : AllPassNames(options)) {
    PassOptions without = options;
    without.verify = false;
    without.dump_dir.clear();
    without.keep = kept;
    without.disable.push_back(pass);
    Graph copy = original.Copy();
    if (!OptimizeKeeping(copy, without, {}).ok()) continue;
    absl::StatusOr<Run> rerun = RunGraph(copy, kept, feeds);
    if (rerun.ok() && FirstMismatch(*before, *rerun).empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("the optimized graph computes a different result (", mismatch,
                       "); disabling pass '", pass, "' removes the difference"));
    }
  }
  return absl::FailedPreconditionError(
      absl::StrCat("the optimized graph computes a different result (", mismatch,
                   "); no single pass is responsible"));
}

}  // namespace duet
