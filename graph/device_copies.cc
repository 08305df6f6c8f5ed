#include "graph/device_copies.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "graph/graph_ops.h"
#include "graph/passes/rewrite.h"
#include "ops/array/array_attrs.h"
#include "ops/placement.h"

namespace duet {
namespace {

// The copy of `value` on `device`, made on first use.
class CopyCache {
 public:
  explicit CopyCache(Graph& graph) : graph_(graph) {}

  absl::StatusOr<NodeOutput> CopyOf(NodeOutput value, Device device, const Node& reader) {
    const auto key = std::make_tuple(value.node, value.index, device.tf_name());
    auto it = copies_.find(key);
    if (it != copies_.end()) return it->second;
    // A constant gets a twin on the reader's device instead: the plan copies a constant's value
    // once, when it compiles, where a copy node would copy it on every run.
    const bool constant = kConstOp.is(value.node->op()) && value.node->bound_value() != nullptr;
    DUET_ASSIGN_OR_RETURN(NodeSpec spec,
                          constant ? ConstSpec(*value.node->bound_value(), reader)
                                   : SpecFor(kCopyToDeviceOp, {value}, reader, [&](OpCall& call) {
                                       call.set(CopyToDeviceAttrs::kDevice, device.tf_name());
                                     }));
    spec.device = device.is_host() ? "" : device.tf_name();
    DUET_ASSIGN_OR_RETURN(
        const Node* copy,
        AddNamed(graph_, std::move(spec),
                 absl::StrCat(value.node->name(), "/to_", device.is_cuda() ? "gpu" : "cpu",
                              device.is_host() ? "" : absl::StrCat(device.index()))));
    const NodeOutput out{copy, 0};
    copies_.emplace(key, out);
    return out;
  }

 private:
  Graph& graph_;
  absl::flat_hash_map<std::tuple<const Node*, int, std::string>, NodeOutput> copies_;
};

}  // namespace

absl::StatusOr<int> InsertDeviceCopies(Graph& graph) {
  CopyCache cache(graph);
  int inserted = 0;
  const std::vector<Node*> nodes(graph.nodes().begin(), graph.nodes().end());
  for (const Node* node : nodes) {
    OpCall call(&node->op(), {}, OpSite());
    call.attrs = node->attrs();
    const HostInputs host_inputs(call);
    for (int j = 0; j < static_cast<int>(node->inputs().size()); ++j) {
      const NodeOutput in = node->inputs()[j];
      const DType dtype = in.node->output_dtype(in.index);
      const std::optional<Device> want =
          RequiredInputDevice(node->op(), host_inputs, j, dtype, node->placement());
      if (!want.has_value() || in.node->placement() == *want) continue;
      if (dtype == kResource) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node '", node->name(), "' (", node->op().name, ", on ", node->placement().str(),
            ") takes variable '", in.node->name(), "', which lives on ", in.node->placement().str(),
            "; variables do not move (make it on ", want->str(), ", or run the node there)"));
      }
      DUET_ASSIGN_OR_RETURN(const NodeOutput copy, cache.CopyOf(in, *want, *node));
      graph.SetInput(node, j, copy);
      ++inserted;
    }
  }
  if (inserted > 0) DUET_RETURN_IF_ERROR(graph.SortTopologically());
  return inserted;
}

}  // namespace duet
