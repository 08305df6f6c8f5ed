#include "kernels/common/reduce_plan.h"

#include "core/int_values.h"
#include "kernels/common/axis_math.h"

namespace duet {
namespace {

struct DimGroup {
  int64_t size;
  bool reduced;
};

// The dims with size-1 dims dropped and runs of reduced (or kept) dims merged.
std::vector<DimGroup> GroupDims(absl::Span<const int64_t> dims, const std::vector<bool>& reduced) {
  std::vector<DimGroup> groups;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 1) continue;
    if (!groups.empty() && groups.back().reduced == reduced[i]) {
      groups.back().size *= dims[i];
    } else {
      groups.push_back({dims[i], reduced[i]});
    }
  }
  return groups;
}

}  // namespace

std::vector<ReducePass> PlanReduction(absl::Span<const int64_t> dims,
                                      const std::vector<bool>& reduced) {
  std::vector<DimGroup> groups = GroupDims(dims, reduced);
  std::vector<ReducePass> passes;
  // Innermost reduced group first: what remains after it is kept dims only, so each pass leaves
  // a smaller row-major tensor that the next pass reads.
  for (int j = static_cast<int>(groups.size()) - 1; j >= 0; --j) {
    if (!groups[j].reduced) continue;
    ReducePass pass;
    pass.reduce = groups[j].size;
    for (int k = 0; k < j; ++k) pass.outer *= groups[k].size;
    for (int k = j + 1; k < static_cast<int>(groups.size()); ++k) pass.inner *= groups[k].size;
    passes.push_back(pass);
    groups.erase(groups.begin() + j);
    if (j > 0 && j < static_cast<int>(groups.size())) {  // two kept groups meet: merge them
      groups[j - 1].size *= groups[j].size;
      groups.erase(groups.begin() + j);
    }
  }
  return passes;
}

std::vector<bool> ReducedDims(const Tensor& axes, int rank) {
  std::vector<bool> reduced(rank, false);
  for (int64_t a : IntValues(axes)) reduced[WrapAxis(a, rank)] = true;
  return reduced;
}

}  // namespace duet
