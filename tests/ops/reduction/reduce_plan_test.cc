// PlanReduction: how reductions over arbitrary axes become (outer, reduce, inner) passes.
#include "kernels/common/reduce_plan.h"

#include <catch2/catch.hpp>

namespace duet {
namespace {

// The passes as {outer, reduce, inner} triples, for comparison.
std::vector<std::vector<int64_t>> Plan(std::vector<int64_t> dims, std::vector<bool> reduced) {
  std::vector<std::vector<int64_t>> out;
  for (const ReducePass& p : PlanReduction(dims, reduced)) {
    out.push_back({p.outer, p.reduce, p.inner});
  }
  return out;
}

using Passes = std::vector<std::vector<int64_t>>;

TEST_CASE("Adjacent reduced axes merge into one pass") {
  CHECK(Plan({2, 3, 4}, {true, true, true}) == Passes{{1, 24, 1}});
  CHECK(Plan({2, 3, 4}, {false, true, true}) == Passes{{2, 12, 1}});
  CHECK(Plan({2, 3, 4}, {true, true, false}) == Passes{{1, 6, 4}});
  CHECK(Plan({2, 3, 4}, {false, true, false}) == Passes{{2, 3, 4}});
}

TEST_CASE("Separated reduced axes take one pass each, innermost first") {
  CHECK(Plan({2, 3, 4}, {true, false, true}) == Passes{{6, 4, 1}, {1, 2, 3}});
  CHECK(Plan({2, 3, 4, 5}, {false, true, false, true}) == Passes{{24, 5, 1}, {2, 3, 4}});
  CHECK(Plan({2, 3, 4, 5, 6}, {true, false, true, false, true}) ==
        Passes{{120, 6, 1}, {6, 4, 5}, {1, 2, 15}});
}

TEST_CASE("Size-1 dims are ignored and nothing to reduce is no pass") {
  CHECK(Plan({2, 1, 4}, {true, false, true}) == Passes{{1, 8, 1}});
  CHECK(Plan({2, 3}, {false, false}).empty());
  CHECK(Plan({1, 3}, {true, false}).empty());
  CHECK(Plan({}, {}).empty());
}

}  // namespace
}  // namespace duet
