#include "graph/passes/pass_context.h"

#include "absl/strings/str_cat.h"

namespace duet {

void PassContext::Count(absl::string_view counter, int64_t n) {
  for (auto& [name, value] : counters_) {
    if (name == counter) {
      value += n;
      return;
    }
  }
  counters_.emplace_back(std::string(counter), n);
}

void PassContext::Fused(const Node& result, std::vector<ReplacedNode> replaced) {
  fusions_.push_back({result.name(), result.op().name, std::move(replaced)});
}

void PassContext::Missed(absl::string_view fusion, const Node& node, std::string why) {
  missed_.push_back(
      {std::string(fusion), node.name(), node.op().name, node.source(), std::move(why)});
}

std::vector<std::pair<std::string, int64_t>> PassContext::TakeCounters() {
  return std::exchange(counters_, {});
}

std::vector<FusionRecord> PassContext::TakeFusions() { return std::exchange(fusions_, {}); }

std::string SharedObstacle(const Node& node, const PassContext& context, const UseIndex& uses) {
  if (context.Keeps(&node)) return absl::StrCat("node '", node.name(), "' is fetched or kept");
  if (uses.num_data_uses(&node) != 1) {
    return absl::StrCat("the output of node '", node.name(), "' (", node.op().name, ") is read by ",
                        uses.num_data_uses(&node), " nodes");
  }
  if (!uses.control_dependents(&node).empty()) {
    return absl::StrCat("a control edge leaves node '", node.name(), "'");
  }
  return "";
}

}  // namespace duet
